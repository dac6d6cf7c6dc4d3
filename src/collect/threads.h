/* Collector "threads" (-p PID only): each thread's CPU time (user and
 * system) and context switches over the window, from /proc/PID/task/TID/
 * stat and status, into table threads.cpu (src/model/NAMES.md).  Bounded:
 * at most THREADS_SCAN_CAP threads are read (the rest are counted), and the
 * table keeps the THREADS_TOP busiest with the others summed in its note. */
#ifndef PERFREPORT_COLLECT_THREADS_H
#define PERFREPORT_COLLECT_THREADS_H
#include <stddef.h>
#include <stdint.h>

#define THREADS_SCAN_CAP 4096
#define THREADS_TOP 30

struct collector;
extern const struct collector collector_threads;

/* /proc/.../status: the voluntary_ctxt_switches and
 * nonvoluntary_ctxt_switches lines.  0, or -ENOENT when either is missing
 * or malformed. */
int threads_parse_switches(const char *text, size_t len, uint64_t *vol, uint64_t *invol);

/* One thread between two readings. */
struct thread_delta {
    uint32_t tid;
    char comm[65];
    char state;
    double user_s, sys_s;  /* CPU seconds in the window */
    uint64_t vol, invol;   /* context switches in the window */
};

struct report;
/* Writes threads.cpu (sorted by CPU, THREADS_TOP rows, the rest in the
 * note) and the metrics threads.pid and threads.count.  d: the n threads
 * read at the end; total: threads listed then; not_read: of them, past
 * THREADS_SCAN_CAP; gone: threads of the first reading that ended.  Sorts
 * d.  dt_s > 0. */
void threads_fill(struct report *r, int pid, struct thread_delta *d, size_t n, double dt_s,
                  size_t total, size_t not_read, size_t gone);
#endif
