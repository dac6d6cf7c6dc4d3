/* The cgroup collector's pure parsers, also read by the per-tick watches
 * (src/collect/cgroup/cgroup_watch.c).  Every parser takes file text and fills a struct; none
 * touches the host. */
#ifndef PERFREPORT_CGROUP_PARSE_H
#define PERFREPORT_CGROUP_PARSE_H
#include "../util/proc_parse.h" /* cg_parse_proc_cgroup, its home */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A decimal at s (no sign, no blanks); *end (when not NULL) after it. */
bool cg_parse_u64(const char *s, const char **end, uint64_t *v);
/* s past blanks and tabs. */
const char *cg_skip_ws(const char *s);
/* Nothing but blanks before the line's end at s. */
bool cg_at_eol(const char *s);

/* v1 controllers we read; other v1 hierarchies (pids, devices...) carry
 * none of our numbers and are ignored. */
enum { CG_CTRL_CPU = 1u, CG_CTRL_CPUACCT = 2u, CG_CTRL_MEMORY = 4u, CG_CTRL_BLKIO = 8u };

struct cg_mount {
    char *mnt;      /* mount point, unescaped, e.g. "/sys/fs/cgroup/unified" */
    char *root;     /* mountinfo "root" field: the hierarchy path mounted there */
    bool v2;
    unsigned ctrls; /* CG_CTRL_* for v1 mounts; 0 for v2 */
};
struct cg_mounts {
    struct cg_mount *v; /* owned; v2 mount (if any) first, then v1 in mountinfo order */
    size_t n, cap;
};

/* Collects the cgroup2 mount (first one) and every v1 mount carrying cpu,
 * cpuacct, memory or blkio (first mount per controller).  Returns how many. */
size_t cg_parse_mountinfo(const char *text, struct cg_mounts *out);
void cg_mounts_free(struct cg_mounts *m);
/* mountinfo octal escapes (\040 space, \011 tab, \012 newline, \134
 * backslash) decoded; returns a new string (caller frees). */
char *cg_unescape(const char *s, size_t n);

/* "key value" lines (cpu.stat, memory.events, oom_control, cpuacct.stat):
 * the value of the line whose first word is exactly `key`. */
bool cg_kv_u64(const char *text, const char *key, uint64_t *v);

/* cpu.max: "max 100000" (quota_us = -1) or "20000 100000". 0 or -EINVAL. */
int cg_parse_cpu_max(const char *text, int64_t *quota_us, uint64_t *period_us);

/* memory.max / memory.limit_in_bytes: "max" or bytes; values from 1 EiB up
 * (v1 writes 9223372036854771712 for "no limit") count as unlimited. */
int cg_parse_mem_limit(const char *text, uint64_t *bytes, bool *unlimited);

/* The "total=" (µs) of the "some" line of a PSI file. */
int cg_parse_psi_some_total(const char *text, uint64_t *total_us);

/* Throttled time as % of CPU usage over a window.  usage_known false means
 * the hierarchy gives no usage (a v1 cpu mount without cpuacct): usage is
 * then bounded by quota x periods, and *estimated is set.  NAN when it
 * cannot be computed. */
double cg_throttled_pct(bool usage_known, uint64_t usage_ns, uint64_t throttled_ns,
                        uint64_t periods, int64_t quota_us, bool *estimated);

/* I/O limits, in v2 io.max's words; the counter each one limits has the
 * same index (rbytes wbytes rios wios). */
enum cg_io_kind { CG_IO_RBPS, CG_IO_WBPS, CG_IO_RIOPS, CG_IO_WIOPS, CG_IO_NKINDS };
const char *cg_io_kind_name(enum cg_io_kind k); /* "rbps" "wbps" "riops" "wiops" */
struct cg_io_limit {
    uint32_t major, minor;
    enum cg_io_kind kind;
    uint64_t limit; /* bytes/s or IOs/s; never 0 or "max" */
};
/* v2 io.max ("254:0 rbps=max wbps=1048576 riops=max wiops=max" per line):
 * appends each finite limit to out (at most max in all); returns how many.
 * Malformed lines and fields are skipped. */
size_t cg_parse_io_max(const char *text, struct cg_io_limit *out, size_t max);
/* v1 blkio.throttle.{read,write}_{bps,iops}_device ("254:0 1048576" per
 * line), each limit of `kind`: as cg_parse_io_max. */
size_t cg_parse_blkio_limits(const char *text, enum cg_io_kind kind, struct cg_io_limit *out,
                             size_t max);
/* v2 io.stat: the counter limited by `kind` for device major:minor (a
 * device the cgroup has not done I/O to has no line: false). */
bool cg_parse_io_stat(const char *text, uint32_t major, uint32_t minor, enum cg_io_kind kind,
                      uint64_t *v);
/* v1 blkio.throttle.io_service_bytes / io_serviced (and their _recursive
 * forms): the "Read" (rbps, riops) or "Write" (wbps, wiops) count of
 * major:minor. */
bool cg_parse_blkio_stat(const char *text, uint32_t major, uint32_t minor, enum cg_io_kind kind,
                         uint64_t *v);

/* The anonymous and file memory of a memory.stat text: v2 "anon"/"file",
 * v1 "total_rss"/"total_cache" (the cgroup and its descendants, as v2
 * counts), else v1 "rss"/"cache".  Bytes; false without both. */
bool cg_parse_mem_stat(const char *text, uint64_t *anon, uint64_t *file);
#endif
