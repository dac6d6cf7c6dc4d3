/* perf_event_open(2) counters: hardware (cycles, instructions, cache and
 * branch misses: only where a PMU exists) and software (page faults,
 * context switches, migrations: every kernel).  Two collectors, so the
 * ledger says "skipped: no hardware PMU" while the software table fills.
 * The arithmetic is pure and exposed for unit tests. */
#ifndef PERFREPORT_COLLECT_COUNTERS_H
#define PERFREPORT_COLLECT_COUNTERS_H
#include "collector.h"
#include <stdbool.h>
#include <stdint.h>

extern const struct collector collector_hwcounters, collector_swcounters;

enum hw_ev { HW_CYCLES, HW_INSTR, HW_CACHE_REFS, HW_CACHE_MISSES, HW_BRANCHES, HW_BRANCH_MISSES,
             HW_NEV };
enum sw_ev { SW_FAULTS, SW_MINFLT, SW_MAJFLT, SW_CS, SW_MIGR, SW_NEV };

/* One read() with PERF_FORMAT_TOTAL_TIME_ENABLED|_RUNNING (times in ns). */
struct ctr_reading {
    bool have; /* the event opened and was read */
    uint64_t value, enabled, running;
};

/* The count over the enabled time: value * enabled / running when the PMU
 * multiplexed the event (running < enabled; *scaled is then set, never
 * cleared).  NAN when not read or enabled but never scheduled; 0 when
 * never enabled (a target that did not run). */
double ctr_scaled(const struct ctr_reading *c, bool *scaled);
/* Scaled count per second of the window (seconds between enable and
 * disable, by the wall clock: a task event's enabled time runs only while
 * the task does); NAN when not measurable. */
double ctr_rate(const struct ctr_reading *c, double seconds);

/* What the hardware table shows, from scaled counts (NAN = not counted). */
struct hw_figures {
    double cycles, instructions;
    double ipc;             /* instructions / cycles */
    double cache_miss_pct;  /* misses / references * 100 */
    double branch_miss_pct; /* branch misses / branch instructions * 100 */
};
struct hw_figures hw_figures_of(const double v[HW_NEV]);
/* NAN-aware accumulation of scaled counts for the total row: a count stays
 * NAN until some CPU gave it. */
void hw_accumulate(double acc[HW_NEV], const double v[HW_NEV]);

#endif
