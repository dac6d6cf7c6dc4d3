/* The procs collector's pure parsers over /proc/PID text, also read by
 * the D-state tracker (src/collect/procs/dstate.c).  Every input here is host-controlled:
 * parsers take (text, len), never rely on NUL termination inside the data,
 * and never trust a field to be well formed. */
#ifndef PERFREPORT_COLLECT_PROCS_PARSE_H
#define PERFREPORT_COLLECT_PROCS_PARSE_H
#include <stddef.h>
#include <stdint.h>

/* Longest comm we keep.  The kernel caps comm at 16 bytes, but workqueue
 * workers show "kworker/u8:1-events_unbound" style names up to 64. */
#define PROC_COMM_MAX 64
#define PROC_CMDLINE_READ 4096 /* bytes read from /proc/PID/cmdline */
#define PROC_CMDLINE_KEEP 256  /* characters stored in the model */
#define PROC_CMDLINE_BYTES (4 * PROC_CMDLINE_KEEP) /* ... and bytes, for UTF-8 */
#define PROC_SCAN_CAP 20000    /* processes per scan */

struct pid_stat {
    int pid;
    char comm[PROC_COMM_MAX + 1]; /* raw bytes between first '(' and last ')', truncated */
    char state;                   /* 'R' 'S' 'D' 'Z' ... */
    int ppid;
    uint64_t flags;
    uint64_t utime, stime;        /* clock ticks */
    long num_threads;
    uint64_t starttime;           /* clock ticks after boot; (pid, starttime) is identity */
    int64_t rss_pages;            /* field 24; -1 when absent */
};

/* Parses /proc/PID/stat.  Returns 0, or -EINVAL when the text is not a stat line. */
int proc_parse_stat(const char *text, size_t len, struct pid_stat *out);

/* /proc/PID/statm: second field (resident pages) and, when shared_pages is
 * not NULL, the third (file-backed and shared resident pages; UINT64_MAX
 * when the line stops before it).  0 or -EINVAL. */
int proc_parse_statm(const char *text, size_t len, uint64_t *resident_pages,
                     uint64_t *shared_pages);

/* /proc/PID/limits "Max open files" soft limit.  0 and *soft set; *soft is
 * UINT64_MAX for "unlimited"; -ENOENT when the line is missing or malformed. */
int proc_parse_limits_nofile(const char *text, size_t len, uint64_t *soft);

/* /proc/PID/cmdline -> one printable line: NUL separators become spaces,
 * trailing separators are dropped, at most PROC_CMDLINE_KEEP characters
 * (UTF-8 lead bytes) and PROC_CMDLINE_BYTES bytes are kept, never cutting a
 * multibyte character in half.  Empty input -> "[comm]".
 * out must hold PROC_CMDLINE_BYTES + 1 bytes. */
void proc_format_cmdline(const char *text, size_t len, const char *comm, char *out);

/* /proc/sys/fs/file-nr "allocated unused max".  used = allocated - unused. */
int proc_parse_file_nr(const char *text, size_t len, uint64_t *used, uint64_t *max);

/* The first "Key: N kB" line of /proc/meminfo or /proc/PID/status whose
 * key (with its colon: "MemTotal:", "RssAnon:") starts the line: N KiB.
 * 0, or -ENOENT when there is none or it is not a number and "kB". */
int proc_parse_kib_field(const char *text, size_t len, const char *key, uint64_t *kib);
#endif
