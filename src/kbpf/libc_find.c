/* The C library of a process, for uprobes (libc_find.h). */
#include "libc_find.h"
#include "../symbolize/sym_guard.h"
#include "../util/hostfs.h"
#include "../util/mapfile.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_libc_name(const char *base)
{
    size_t n = strlen(base);
    if (strcmp(base, "libc.so.6") == 0)
        return true;
    if (n > 8 && strncmp(base, "libc-", 5) == 0 && strcmp(base + n - 3, ".so") == 0)
        return true; /* glibc before 2.34: libc-2.31.so */
    return (strncmp(base, "ld-musl-", 8) == 0 || strncmp(base, "libc.musl-", 10) == 0) &&
           n > 5 && strcmp(base + n - 5, ".so.1") == 0;
}

bool libc_map_parse(const char *line, size_t len, struct libc_map *out)
{
    char buf[512];
    if (len >= sizeof buf) /* a path this long is no libc we look for */
        return false;
    memcpy(buf, line, len);
    buf[len] = '\0';
    unsigned long long start, end, off, inode;
    char perms[8], dev[16];
    int pathpos = -1;
    if (sscanf(buf, "%llx-%llx %7s %llx %15s %llu %n", &start, &end, perms, &off, dev, &inode,
               &pathpos) != 6 || pathpos < 0 || inode == 0)
        return false;
    const char *path = buf + pathpos;
    if (path[0] != '/')
        return false;
    /* " (deleted)": the file was replaced (an upgrade); map_files still
     * opens the mapped one, and its name is still the libc's */
    size_t pl = strlen(path);
    static const char del[] = " (deleted)";
    if (pl > sizeof del - 1 && strcmp(path + pl - (sizeof del - 1), del) == 0)
        pl -= sizeof del - 1;
    if (pl >= sizeof out->path)
        return false;
    char p[256];
    memcpy(p, path, pl);
    p[pl] = '\0';
    const char *base = strrchr(p, '/') + 1;
    if (!is_libc_name(base))
        return false;
    out->start = start;
    out->end = end;
    out->inode = inode;
    snprintf(out->dev, sizeof out->dev, "%s", dev);
    memcpy(out->path, p, pl + 1);
    return true;
}

int libc_scan_open(struct libc_scan *s, pid_t pid, size_t maps_max)
{
    *s = (struct libc_scan){.pid = pid}; /* both strbufs empty */
    int rc = hostfs_readf(&s->maps, maps_max, "/proc/%d/maps", (int)pid);
    if (rc)
        sb_free(&s->maps);
    return rc;
}

bool libc_scan_next(struct libc_scan *s, struct libc_map *m)
{
    const char *base = sb_str(&s->maps), *end = base + s->maps.len;
    while (base + s->at < end) {
        const char *p = base + s->at;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        s->at += len + (nl ? 1 : 0);
        if (libc_map_parse(p, len, m))
            return true;
    }
    return false;
}

bool libc_scan_remote(struct libc_scan *s, const struct libc_map *m)
{
    if (!s->mi_read) {
        s->mi_read = true;
        if (hostfs_readf(&s->mountinfo, 0, "/proc/%d/mountinfo", (int)s->pid) != 0)
            sb_reset(&s->mountinfo);
    }
    unsigned major, minor;
    char fstype[64];
    return sscanf(m->dev, "%x:%x", &major, &minor) == 2 &&
           sym_dev_is_remote(s->mountinfo.len ? sb_str(&s->mountinfo) : NULL, major, minor,
                             fstype, sizeof fstype);
}

void libc_scan_close(struct libc_scan *s)
{
    sb_free(&s->mountinfo);
    sb_free(&s->maps);
}

int libc_open_mapped(pid_t pid, const struct libc_map *m)
{
    errno = 0;
    int fd = mapfile_open((int)pid, m->start, m->end, m->path);
    if (fd < 0) {
        if (!errno)
            errno = EINVAL;
        return -1;
    }
    struct stat st;
    int e = fstat(fd, &st) != 0                          ? errno
            : !S_ISREG(st.st_mode)                       ? EINVAL
            : (uint64_t)st.st_ino != m->inode            ? ESTALE
                                                         : 0;
    if (e) {
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}
