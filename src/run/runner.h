/* Runs the registry's collectors through the capture window, each on its
 * own worker thread with a private staging report and a deadline per call.
 *
 * Why: a collector that hangs (a /proc read stuck behind a kernel lock, a
 * BPF drain that never ends) must not stop the bundle from shipping.  The
 * main thread waits for each call only until its deadline; a collector that
 * misses it is marked timed_out and abandoned with its staging report, so
 * nothing it does later can touch the real model.  Collectors that finish
 * have their staging report merged into the real one after stop().
 *
 * Fault injection for tests: PERFREPORT_FAULT="NAME:PHASE:ACTION" with PHASE
 * start|begin|tick|end|stop and ACTION hang|fail makes collector NAME hang or fail
 * there (documented in tests/README.md). */
#ifndef PERFREPORT_RUNNER_H
#define PERFREPORT_RUNNER_H
#include <stdbool.h>

struct report;
struct options;
struct host_caps;
struct runner;

/* Plans every registry collector (can_run, BPF availability) and records
 * the plan in r's ledger.  Returns NULL only on out-of-memory exit paths. */
struct runner *runner_new(struct report *r, const struct options *opt,
                          const struct host_caps *caps);
/* The same over another NULL-terminated registry (unit tests). */
struct collector;
struct runner *runner_new_with(struct report *r, const struct options *opt,
                               const struct host_caps *caps,
                               const struct collector *const *registry);
/* Starts the planned collectors, BPF ones first, then lets the kernel-side
 * ones begin recording together; the window's t = 0 is when this returns. */
void runner_start(struct runner *rn);
/* One sample at now_s (seconds since the window start): appends the tick to
 * the real and every staging report, then ticks the collectors. */
void runner_tick(struct runner *rn, double now_s);
/* Ends every collector's kernel-side recording together (the window's
 * end); runner_stop does it when it was not done. */
void runner_end(struct runner *rn, double now_s);
/* End of the window: ends every collector's recording, then stops them,
 * merges their data into the real report, records durations and statuses
 * in the ledger. */
void runner_stop(struct runner *rn, double now_s);
/* The nice value of the collector threads: set at once where allowed, and
 * taken by each before its next phase (nice is per thread: the caller's
 * own setpriority does not reach them). */
void runner_set_nice(struct runner *rn, int nice);
/* A tick still running at monotonic time at_mono_ms (the window's end)
 * has its threads set to `nice` then (0 = never). */
void runner_boost_ticks_at(struct runner *rn, double at_mono_ms, int nice);
/* The same for the I/O priority: the window's (true) or the stages' (false),
 * as src/priority.h sets them. */
void runner_set_ioprio_window(struct runner *rn, bool window);
/* Frees what is not abandoned. */
void runner_free(struct runner *rn);
#endif
