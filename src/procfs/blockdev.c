/* Block devices by name (blockdev.h). */
#include "blockdev.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool prefix_digit(const char *name, const char *prefix)
{
    size_t l = strlen(prefix);
    return strncmp(name, prefix, l) == 0 && isdigit((unsigned char)name[l]);
}

bool disk_is_virtual_name(const char *name)
{
    static const char *const prefixes[] = {"loop", "ram", "zram", "dm-", "md", "sr"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (prefix_digit(name, prefixes[i]))
            return true;
    return false;
}

static bool prefix_letter(const char *name, const char *prefix)
{
    size_t l = strlen(prefix);
    return strncmp(name, prefix, l) == 0 && islower((unsigned char)name[l]);
}

const char *disk_class(const char *name, int rotational, bool has_device)
{
    if (prefix_digit(name, "nvme"))
        return "nvme";
    /* Xen's xvd is a paravirtual disk like virtio's vd: latency is the host's. */
    if (prefix_letter(name, "vd") || prefix_letter(name, "xvd"))
        return "virtio";
    if (prefix_digit(name, "nbd") || prefix_digit(name, "rbd"))
        return "network";
    /* Stacked devices (dm, md, loop) report a meaningless rotational flag. */
    if (!has_device)
        return "unknown";
    if (rotational == 1)
        return "hdd";
    if (rotational == 0)
        return "ssd";
    return "unknown";
}

bool disk_sysfs_name(const char *name, char *out, size_t n)
{
    size_t l = strlen(name);
    if (l == 0 || l >= n || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return false;
    for (size_t i = 0; i <= l; i++)
        out[i] = name[i] == '/' ? '!' : name[i];
    return true;
}

static int read_rotational(const char *sysname)
{
    char path[512];
    uint64_t v;
    snprintf(path, sizeof path, "/sys/block/%s/queue/rotational", sysname);
    if (hostfs_read_u64(path, &v) != 0 || v > 1)
        return -1;
    return (int)v;
}

const char *disk_class_of(const char *name)
{
    char sys[256], path[512];
    if (!disk_sysfs_name(name, sys, sizeof sys))
        return "unknown";
    snprintf(path, sizeof path, "/sys/block/%s", sys);
    if (!hostfs_is_dir(path))
        return "unknown";
    snprintf(path, sizeof path, "/sys/block/%s/device", sys);
    return disk_class(name, read_rotational(sys), hostfs_exists(path));
}

static void copy_field(const char *s, size_t len, char *out, size_t n)
{
    if (len >= n)
        len = n - 1;
    memcpy(out, s, len);
    out[len] = '\0';
}

int bio_uevent_devname(const char *text, char *out, size_t n)
{
    if (!text || n == 0)
        return -1;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        if (len > 8 && strncmp(p, "DEVNAME=", 8) == 0) {
            copy_field(p + 8, len - 8, out, n);
            return 0;
        }
        p += len;
        if (*p)
            p++;
    }
    return -1;
}

int bio_partitions_name(const char *text, unsigned major, unsigned minor, char *out, size_t n)
{
    if (!text || n == 0)
        return -1;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        char line[512];
        copy_field(p, len, line, sizeof line);
        unsigned ma, mi;
        unsigned long long blocks;
        char name[256];
        if (sscanf(line, " %u %u %llu %255s", &ma, &mi, &blocks, name) == 4 && ma == major &&
            mi == minor) {
            copy_field(name, strlen(name), out, n);
            return 0;
        }
        p += len;
        if (*p)
            p++;
    }
    return -1;
}

void bio_dev_name(unsigned major, unsigned minor, char *out, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    if (hostfs_readf(&sb, 4096, "/sys/dev/block/%u:%u/uevent", major, minor) == 0 &&
        bio_uevent_devname(sb_str(&sb), out, n) == 0 && out[0]) {
        sb_free(&sb);
        return;
    }
    sb_reset(&sb);
    if (hostfs_read("/proc/partitions", &sb, 1u << 20) == 0 &&
        bio_partitions_name(sb_str(&sb), major, minor, out, n) == 0 && out[0]) {
        sb_free(&sb);
        return;
    }
    sb_free(&sb);
    snprintf(out, n, "%u:%u", major, minor);
}
