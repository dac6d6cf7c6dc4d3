/* Run-queue latency collector (BPF) and its model-filling helpers. */
#ifndef PERFREPORT_RUNQLAT_H
#define PERFREPORT_RUNQLAT_H
#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>
#include "../../bpf/khist.h"

struct collector;
struct report;
extern const struct collector collector_runqlat;

#define RUNQ_TOP 10

struct runq_proc {
    uint32_t pid; /* tgid (thread id in the classic fallback) */
    char comm[16];
    uint64_t total_ns, count, max_ns;
};

/* Histograms "runqlat" (all CPUs) and "runqlat.cpuN" (CPUs that saw a
 * wait), metrics sched.runq_{waits,p50_us,p90_us,p99_us,max_us}; with
 * behind_self (may be NULL) also "runqlat.behind_self" and the metric
 * sched.runq_behind_self: the waits that ended when one of perfreport's
 * threads gave up the CPU, which the others leave out. */
/* cpus[i]: CPU i's waits in microseconds, as the programs aggregate them. */
void runqlat_fill_hists(struct report *r, const struct khist *cpus, size_t ncpu,
                        const struct khist *behind_self);
/* Table "sched.runq_wait": top RUNQ_TOP by total wait (sorts procs in place).
 * note may be NULL. */
void runqlat_fill_table(struct report *r, struct runq_proc *procs, size_t n, const char *note);
#endif
