/* Process churn collector (BPF sched_process_exec/exit): drained maps ->
 * model through a pure fill function that unit tests drive directly. */
#ifndef PERFREPORT_PROCEVENTS_H
#define PERFREPORT_PROCEVENTS_H
#include <stddef.h>
#include <stdint.h>

struct report;

#define PED_HIST 32
struct ped_exec {
    char comm[17], pcomm[17];
    uint64_t n;                 /* in the window */
    uint64_t n_before, n_after; /* from the attach to the window's start / after its end */
};
struct ped_exit {
    char comm[17];
    uint64_t exits, short_exits, short_life_ns, life_ns;
    uint64_t cpu_ns;   /* CPU over the exited processes' lives */
    uint64_t churn_ns; /* the short-lived ones': each one's CPU up to PE_START_COST_NS */
};
struct pe_data {
    uint64_t execs, exits, shorts; /* in the window */
    uint64_t execs_before, execs_after; /* outside it, while perfreport ran */
    uint64_t hist[PED_HIST]; /* short-lived lifetimes, log2 ms */
    struct ped_exec *ex;
    size_t nex;
    struct ped_exit *xt;
    size_t nxt;
};

/* Metrics proc.execs proc.exec_per_s proc.exits proc.short_lived
 * proc.short_lived_per_s (the window), proc.execs_before_window
 * proc.execs_after_window; hist proc.lifetime, tables proc.execs (the
 * window) and proc.execs_outside (when any exec was outside it). */
void procevents_fill(struct report *r, const struct pe_data *d, double window_s);
void pe_data_free(struct pe_data *d);
#endif
