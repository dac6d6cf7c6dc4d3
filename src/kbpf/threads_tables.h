/* The per-thread tables of a -p run (threads.oncpu, threads.offcpu,
 * threads.runq: src/model/NAMES.md), written by the profile, offcpu and
 * runqlat collectors from their per-thread maps (bpf/threads.h).  Pure:
 * unit tests call them with synthetic rows.  Each table keeps the
 * THREADS_TOP_ROWS threads with the most of its measure and says how many
 * more there were; src/analyze/threads.c joins them with threads.cpu. */
#ifndef PERFREPORT_THREADS_TABLES_H
#define PERFREPORT_THREADS_TABLES_H
#include "../stacks/waitclass.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define THREADS_TOP_ROWS 200

struct report;

/* One thread's count (on-CPU samples, run-queue waits) with its total and
 * longest wait (run queue only). */
struct thread_val {
    uint32_t tid;
    char comm[16]; /* not NUL-terminated when full */
    uint64_t count;
    uint64_t total_ns;
    uint64_t max_ns;
};

/* Blocked time of a thread at one place, already classified. */
struct thread_off {
    uint32_t tid;
    enum wait_class cls;
    bool futex; /* blocked inside a futex call (mutex, condition variable, join) */
    uint64_t ns;
};

/* threads.oncpu: tid comm samples (sorts v). */
void threads_fill_oncpu(struct report *r, struct thread_val *v, size_t n, uint64_t dropped);
/* threads.runq: tid comm waits total_ms max_ms (sorts v). */
void threads_fill_runq(struct report *r, struct thread_val *v, size_t n, uint64_t dropped);
/* threads.offcpu: tid total_ms futex_ms and <class>_ms per wait class
 * (sorts v; window_s > 0 gives each its share of the window). */
void threads_fill_offcpu(struct report *r, struct thread_off *v, size_t n, double window_s,
                         uint64_t dropped);
#endif
