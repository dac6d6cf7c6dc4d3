/* The "host" collector: static facts about the machine, taken once at the
 * start of the window.  It samples nothing, so it has no tick. */
#include "host.h"
#include "collector.h"
#include "model/model.h"
#include "util/hostfs.h"
#include "util/strbuf.h"
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

long host_parse_range_count(const char *list)
{
    const char *p = list;
    long total = 0;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\0' || *p == '\n')
        return 0;
    for (;;) {
        char *end;
        if (!isdigit((unsigned char)*p))
            return -1;
        errno = 0;
        unsigned long a = strtoul(p, &end, 10), b = a;
        if (errno)
            return -1;
        p = end;
        if (*p == '-') {
            p++;
            if (!isdigit((unsigned char)*p))
                return -1;
            b = strtoul(p, &end, 10);
            if (errno || b < a)
                return -1;
            p = end;
        }
        if (b - a >= 1u << 20) /* no machine has a million CPUs in one range */
            return -1;
        total += (long)(b - a + 1);
        if (*p == ',') {
            p++;
            continue;
        }
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        return *p ? -1 : total;
    }
}

/* Copies an os-release value, undoing shell quoting as the spec allows. */
static void unquote(const char *v, const char *eol, char *out, size_t n)
{
    size_t o = 0;
    char q = 0;
    for (const char *p = v; p < eol; p++) {
        char c = *p;
        if (!q && (c == '"' || c == '\'')) {
            q = c;
            continue;
        }
        if (q && c == q) {
            q = 0;
            continue;
        }
        if (c == '\\' && q != '\'' && p + 1 < eol) {
            c = *++p;
        }
        if (o + 1 < n)
            out[o++] = c;
    }
    while (o > 0 && isspace((unsigned char)out[o - 1]))
        o--;
    if (n)
        out[o] = '\0';
}

/* Finds "KEY=" at the start of a line; sets *val and *eol. */
static bool find_assign(const char *text, const char *key, const char **val, const char **eol)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p;) {
        const char *e = strchr(p, '\n');
        if (!e)
            e = p + strlen(p);
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            *val = p + kl + 1;
            *eol = e;
            return true;
        }
        p = *e ? e + 1 : e;
    }
    return false;
}

bool host_parse_os_release(const char *text, char *out, size_t n)
{
    const char *v, *e;
    if (n)
        out[0] = '\0';
    if (!text)
        return false;
    if (find_assign(text, "PRETTY_NAME", &v, &e)) {
        unquote(v, e, out, n);
        if (out[0])
            return true;
    }
    if (!find_assign(text, "NAME", &v, &e))
        return false;
    char name[128], ver[128] = "";
    unquote(v, e, name, sizeof name);
    if (find_assign(text, "VERSION", &v, &e))
        unquote(v, e, ver, sizeof ver);
    snprintf(out, n, "%s%s%s", name, ver[0] ? " " : "", ver);
    return out[0] != '\0';
}

bool host_parse_cpu_model(const char *cpuinfo, char *out, size_t n)
{
    static const char *const keys[] = {"model name", "Processor", "cpu model", NULL};
    if (n)
        out[0] = '\0';
    for (size_t k = 0; cpuinfo && keys[k]; k++) {
        size_t kl = strlen(keys[k]);
        for (const char *p = cpuinfo; *p;) {
            const char *e = strchr(p, '\n');
            if (!e)
                e = p + strlen(p);
            if (strncmp(p, keys[k], kl) == 0 && (p[kl] == '\t' || p[kl] == ' ' || p[kl] == ':')) {
                const char *c = memchr(p, ':', (size_t)(e - p));
                if (c) {
                    c++;
                    while (c < e && isspace((unsigned char)*c))
                        c++;
                    size_t l = (size_t)(e - c);
                    while (l > 0 && isspace((unsigned char)c[l - 1]))
                        l--;
                    if (l >= n)
                        l = n ? n - 1 : 0;
                    if (n) {
                        memcpy(out, c, l);
                        out[l] = '\0';
                    }
                    if (l)
                        return true;
                }
            }
            p = *e ? e + 1 : e;
        }
    }
    return false;
}

int host_parse_meminfo_kib(const char *meminfo, const char *key, uint64_t *kib)
{
    size_t kl = strlen(key);
    for (const char *p = meminfo; p && *p;) {
        const char *e = strchr(p, '\n');
        if (!e)
            e = p + strlen(p);
        if (strncmp(p, key, kl) == 0 && p[kl] == ':') {
            char *end;
            errno = 0;
            unsigned long long v = strtoull(p + kl + 1, &end, 10);
            if (errno || end == p + kl + 1)
                return -EINVAL;
            *kib = v;
            return 0;
        }
        p = *e ? e + 1 : e;
    }
    return -ENOENT;
}

int host_parse_uptime(const char *text, double *seconds)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || !(v >= 0))
        return -EINVAL;
    *seconds = v;
    return 0;
}

int host_parse_btime(const char *stat, time_t *btime)
{
    for (const char *p = stat; p && *p;) {
        if (strncmp(p, "btime ", 6) == 0) {
            char *end;
            errno = 0;
            long long v = strtoll(p + 6, &end, 10);
            if (errno || end == p + 6 || v <= 0)
                return -EINVAL;
            *btime = (time_t)v;
            return 0;
        }
        const char *e = strchr(p, '\n');
        p = e ? e + 1 : NULL;
    }
    return -ENOENT;
}

/* Reads a whole file; on failure the buffer is empty. */
static bool slurp(const char *path, struct strbuf *sb)
{
    if (hostfs_read(path, sb, 0) == 0)
        return true;
    sb_reset(sb);
    return false;
}

/* Identity from uname() on the live host; from the /proc/sys/kernel files
 * when reading a captured tree, so fixtures describe their own machine. */
static void add_identity(struct report *r, char *arch_out, size_t arch_n)
{
    char host[256] = "", rel[256] = "", ver[256] = "", arch[80] = "";
    if (hostfs_is_real()) {
        struct utsname u;
        if (uname(&u) == 0) {
            snprintf(host, sizeof host, "%s", u.nodename);
            snprintf(rel, sizeof rel, "%s", u.release);
            snprintf(ver, sizeof ver, "%s", u.version);
            snprintf(arch, sizeof arch, "%s", u.machine);
        }
    } else {
        hostfs_read_line("/proc/sys/kernel/hostname", host, sizeof host);
        hostfs_read_line("/proc/sys/kernel/osrelease", rel, sizeof rel);
        hostfs_read_line("/proc/sys/kernel/version", ver, sizeof ver);
        hostfs_read_line("/proc/sys/kernel/arch", arch, sizeof arch);
    }
    kv_add(&r->host, "hostname", "Host name", host[0] ? host : "n/a");
    kv_add(&r->host, "kernel", "Kernel", rel[0] ? rel : "n/a");
    kv_add(&r->host, "kernel_build", "Kernel build", ver[0] ? ver : "n/a");
    snprintf(arch_out, arch_n, "%s", arch[0] ? arch : "n/a");
}

static void add_os(struct report *r, struct strbuf *sb)
{
    char os[256];
    /* /etc/os-release may be missing on minimal images; systemd's spec
     * names /usr/lib/os-release as the fallback. */
    bool ok = (slurp("/etc/os-release", sb) && host_parse_os_release(sb_str(sb), os, sizeof os)) ||
              (slurp("/usr/lib/os-release", sb) &&
               host_parse_os_release(sb_str(sb), os, sizeof os));
    kv_add(&r->host, "os", "Operating system", ok ? os : "n/a");
}

static void add_counts(struct report *r, struct strbuf *sb)
{
    char model[256];
    if (slurp("/proc/cpuinfo", sb) && host_parse_cpu_model(sb_str(sb), model, sizeof model))
        kv_add(&r->host, "cpu_model", "CPU model", model);
    else
        kv_add(&r->host, "cpu_model", "CPU model", "n/a");

    long cpus = slurp("/sys/devices/system/cpu/online", sb) ? host_parse_range_count(sb_str(sb))
                                                            : -1;
    kv_add_num(&r->host, "cpus", "Online CPUs", cpus > 0 ? (double)cpus : NAN, "");

    long nodes = slurp("/sys/devices/system/node/online", sb) ? host_parse_range_count(sb_str(sb))
                                                              : -1;
    /* no node directory: a kernel without NUMA, shown as n/a */
    kv_add_num(&r->host, "numa_nodes", "NUMA nodes", nodes > 0 ? (double)nodes : NAN, "");

    char gov[64];
    if (hostfs_read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", gov,
                         sizeof gov) == 0 &&
        gov[0])
        kv_add(&r->host, "governor", "CPU frequency governor", gov);
    else
        kv_add(&r->host, "governor", "CPU frequency governor", "n/a");

    uint64_t kib;
    bool have_mem =
        slurp("/proc/meminfo", sb) && host_parse_meminfo_kib(sb_str(sb), "MemTotal", &kib) == 0;
    kv_add_num(&r->host, "mem_total_kib", "Memory", have_mem ? (double)kib : NAN, "KiB");
}

static void add_times(struct report *r, const struct host_caps *caps, struct strbuf *sb)
{
    double up = 0;
    bool have_up = slurp("/proc/uptime", sb) && host_parse_uptime(sb_str(sb), &up) == 0;
    char buf[64];
    kv_add_num(&r->host, "uptime_s", "Uptime", have_up ? up : NAN, "s");
    kv_add(&r->host, "virt", "Virtualisation", caps && caps->virt[0] ? caps->virt : "n/a");
    kv_add(&r->host, "container", "Container",
           caps && caps->container[0] ? caps->container : "n/a");

    /* btime is what the kernel itself reports; now - uptime only as a
     * fallback, and only on the live host where "now" means something. */
    time_t bt = 0;
    bool have_bt = slurp("/proc/stat", sb) && host_parse_btime(sb_str(sb), &bt) == 0;
    if (!have_bt && have_up && hostfs_is_real()) {
        bt = time(NULL) - (time_t)up;
        have_bt = true;
    }
    struct tm tm;
    if (have_bt && gmtime_r(&bt, &tm) && strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm))
        kv_add(&r->host, "boot_time", "Booted", buf);
    else
        kv_add(&r->host, "boot_time", "Booted", "n/a");
}

static int host_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    (void)err;
    (void)n;
    *state = NULL;
    struct report *r = ctx->r;
    struct strbuf sb = STRBUF_INIT;
    char arch[80];
    /* Keys go in in NAMES.md order, which is the display order. */
    add_identity(r, arch, sizeof arch);
    add_os(r, &sb);
    kv_add(&r->host, "arch", "Architecture", arch);
    add_counts(r, &sb);
    add_times(r, ctx->caps, &sb);
    sb_free(&sb);
    return 0;
}

static int host_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    (void)ctx;
    (void)state;
    (void)err;
    (void)n;
    return 0;
}

const struct collector collector_host = {
    .name = "host",
    .title = "System",
    .needs_bpf = false,
    .can_run = NULL,
    .start = host_start,
    .tick = NULL,
    .stop = host_stop,
    .destroy = NULL,
};
