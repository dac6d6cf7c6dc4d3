/* The one collector interface.  Every collector, /proc or BPF, is a row in
 * the registry (registry.c) and goes through the same life cycle inside the
 * single capture window:
 *
 *   can_run  (plan)   - may it run on this host?  If not, why (shown in report)
 *   start    (t = 0)  - allocate state, attach, take the first reading
 *   begin    (t = 0)  - optional: start recording (flip a switch); runs for
 *                       all collectors after every start, so one collector's
 *                       load (verifier, BTF) is not recorded by another
 *   tick     (every interval) - sample; may set values of the current tick
 *   end      (end)    - optional: stop recording at once (flip a flag); every
 *                       collector's end runs before any stop, so no drain is
 *                       recorded by a collector that has not stopped yet
 *   stop     (end)    - final reading / drain maps, write aggregates into model
 *   destroy           - free state (also called after a failed start)
 *
 * Collectors only write into the model; they never format output.
 */
#ifndef PERFREPORT_COLLECTOR_H
#define PERFREPORT_COLLECTOR_H
#include "util/clock.h"
#include <stdbool.h>
#include <stddef.h>

struct report;
struct options;
struct host_caps;

struct collect_ctx {
    struct report *r;
    const struct options *opt;
    const struct host_caps *caps;
    double now_s; /* seconds since window start of the current tick/stop */
    /* The clock a collector reads when it takes its counters: rates divide
     * by the time between its own two reads, never by now_s (start runs
     * long before the window opens, a tick's worker may run late, a stopped
     * process resumes in mid-interval).  NULL = CLOCK_MONOTONIC; unit tests
     * with synthetic times set collect_tick_clock. */
    double (*clock_s)(const struct collect_ctx *ctx);
};

/* Seconds on the collector's clock, at the moment of the call. */
static inline double collect_clock_s(const struct collect_ctx *ctx)
{
    return ctx->clock_s ? ctx->clock_s(ctx) : mono_ms() / 1e3;
}

/* A synthetic clock for tests: the read happens at the tick's time. */
static inline double collect_tick_clock(const struct collect_ctx *ctx) { return ctx->now_s; }

struct collector {
    const char *name;  /* stable id shown in the manifest: "cpu", "disk" ... */
    const char *title;
    bool needs_bpf;    /* skipped with --no-bpf or when BPF is unavailable */
    bool tick_alone;   /* ticked first, alone: its reading (the run queue) must not
                        * see perfreport's other workers running */
    bool (*can_run)(const struct collect_ctx *ctx, char *reason, size_t n); /* NULL = always */
    int (*start)(struct collect_ctx *ctx, void **state, char *err, size_t n);
    int (*tick)(struct collect_ctx *ctx, void *state); /* NULL = nothing per tick */
    int (*begin)(struct collect_ctx *ctx, void *state); /* NULL = records from start */
    int (*end)(struct collect_ctx *ctx, void *state);   /* NULL = stop ends recording */
    int (*stop)(struct collect_ctx *ctx, void *state, char *err, size_t n);
    void (*destroy)(void *state);
};

/* NULL-terminated registry, in run order. */
extern const struct collector *const collector_registry[];
#endif
