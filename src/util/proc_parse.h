/* Parsers of small /proc and /sys texts that more than one stage reads:
 * CPU lists, /proc/loadavg, /proc/PID/cgroup, /proc/PID/mountinfo.  Pure functions of the text,
 * but for proc_read_cgroup, the one reader of /proc/PID/cgroup (through hostfs.h). */
#ifndef PERFREPORT_UTIL_PROC_PARSE_H
#define PERFREPORT_UTIL_PROC_PARSE_H
#include <stdbool.h>
#include <stddef.h>

/* "0-3,5,7-8" (/sys/devices/system/cpu/online) -> on[i] = true for listed
 * CPUs below n.  Returns how many were set; -1 on malformed text. */
int profile_parse_cpu_list(const char *text, bool *on, size_t n);

struct loadavg {
    double load1, load5, load15;
    long running, threads; /* "2/98" */
};
/* Returns 0 or -EINVAL. */
int parse_loadavg(const char *text, struct loadavg *out);

/* /proc/PID/cgroup: "0::/path" (v2) and "N:ctrl,ctrl:/path" (v1). */
struct cg_proc_paths {
    char *v2, *cpu, *cpuacct, *memory, *freezer; /* owned; NULL when absent */
};
int cg_parse_proc_cgroup(const char *text, struct cg_proc_paths *out);
void cg_proc_paths_free(struct cg_proc_paths *p);
/* Reads and parses /proc/PID/cgroup (pid <= 0: /proc/self/cgroup), at most
 * PROC_CGROUP_MAX bytes.  0, and *out to free with cg_proc_paths_free; or
 * -errno (-ENOENT: no path in it) with *out empty. */
#define PROC_CGROUP_MAX 65536 /* a line per v1 hierarchy, plus v2's */
int proc_read_cgroup(int pid, struct cg_proc_paths *out);

/* One line of /proc/PID/mountinfo, octal escapes in paths undone. */
struct mountinfo_entry {
    char devno[24]; /* "MAJOR:MINOR" of the file system (st_dev) */
    char root[256];
    char mountpoint[256];
    bool mountpoint_cut; /* longer than the buffer: a prefix, not the path */
    char fstype[64];
    char source[128];
    char superopts[256];
};
/* Parses the line at *cursor and advances it; skips malformed lines.
 * Returns false at the end of the text. */
bool mountinfo_next(const char **cursor, struct mountinfo_entry *e);

/* Does the comma list f (fl bytes, a mount's super options or a cgroup v1
 * controller list) hold `word` as a whole item? */
bool proc_list_has(const char *f, size_t fl, const char *word);
#endif
