/* The watcher's loop: waits for the --when conditions (PSI triggers by
 * poll(), cpu.util_pct and memory.oom read from /proc at 1 Hz only when
 * asked for) and, when one fires and the cooldown and hourly cap allow,
 * runs the ordinary capture (pipeline_run) in a child process.
 *
 * Why a child: a capture changes process-wide state that a long-running
 * watcher must not keep (signal dispositions, malloc tuning that keeps
 * freed memory, collector threads abandoned at a deadline, the
 * symbolizer's server); the child takes all of that with it when it exits,
 * and the watcher stays small.  The watcher is single-threaded, so the
 * fork is safe. */
#ifndef PERFREPORT_WATCH_WATCH_H
#define PERFREPORT_WATCH_WATCH_H
#include "cond.h"
#include "ring.h"
#include <stddef.h>

#define WATCH_MAX_CONDS 16

struct options;

struct watch_config {
    const struct watch_cond *conds; /* nconds, 1..WATCH_MAX_CONDS */
    size_t nconds;
    int out_fd;            /* the bundles' directory (-o); the caller's */
    const char *out_shown; /* its name, for messages */
    double cooldown_s;
    unsigned max_per_hour;
    unsigned before_s;     /* --before: seconds of charted samples kept; 0 none */
    /* The captures' options (-d, -q, -v...); outdir and trigger are set
     * for each capture. */
    const struct options *run;
};

/* Waits and captures until SIGTERM, SIGINT or SIGHUP (a capture running
 * then gets SIGTERM and publishes what it has, marked INCOMPLETE).
 * Returns 0 after such a signal, 3 when waiting became impossible (a
 * trigger refused or dropped by the kernel; the message is on stderr). */
int watch_run(const struct watch_config *cfg);
#endif
