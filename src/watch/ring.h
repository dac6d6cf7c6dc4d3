/* The minutes before a trigger: while the watcher waits it samples the
 * collectors whose series the report charts (cpu, memory, disk, net, psi:
 * their own tick code, writing into a staging report of one tick) once a
 * second, and keeps the last --before seconds of those values here.  On a
 * trigger the capture (a forked child, which inherits the ring) puts them
 * in front of its window's ticks, on the window's clock, so every chart
 * covers before + after.
 *
 * Bounded whatever the host runs: --before slots of at most
 * WATCH_RING_MAX_SERIES values each, allocated once at start.  A series
 * whose values have all left the ring (a device or interface gone) gives
 * its place to a new one; a series beyond that many at once (a host with
 * very many disks or interfaces) is counted, left out and said in the
 * capture's ledger, never grown into. */
#ifndef PERFREPORT_WATCH_RING_H
#define PERFREPORT_WATCH_RING_H
#include <stdbool.h>
#include <stddef.h>

#define WATCH_RING_MAX_SERIES 128
#define WATCH_RING_LEDGER "watch.before" /* its entry in a capture's ledger */
#define WATCH_BEFORE_MAX_S 3600 /* --before's limit: an hour, 3.5 MiB of values */

struct report;

struct watch_ring_series {
    char *name, *title, *unit, *resource; /* owned copies of the staging series' */
    bool chart;
    /* the push that last kept a value of it (watch_ring.pushes); none yet
     * when !valued */
    unsigned long long last_valued;
    bool valued;
};

struct watch_ring {
    size_t cap;         /* slots: --before at one a second */
    size_t n, next;     /* filled slots; the slot written next */
    double *t_mono;     /* [cap] seconds, monotonic, of each slot's sample */
    double *v;          /* [cap * WATCH_RING_MAX_SERIES] values, NAN unknown */
    struct watch_ring_series series[WATCH_RING_MAX_SERIES];
    size_t nseries;
    unsigned long long pushes;     /* watch_ring_push calls so far */
    unsigned long series_left_out; /* values of series beyond the limit, not kept
                                    * since the last watch_ring_clear */
};

/* A ring of `slots` samples (0: none kept; every call below then does
 * nothing).  0, or -1 when the memory cannot be had. */
int watch_ring_init(struct watch_ring *ring, size_t slots);
void watch_ring_free(struct watch_ring *ring);
/* Forgets the samples and their series (after a capture: they are from
 * before it). */
void watch_ring_clear(struct watch_ring *ring);

/* Keeps the values the staging report `r` holds for its last tick, taken
 * at t_mono (seconds), overwriting the oldest slot when full. */
void watch_ring_push(struct watch_ring *ring, double t_mono, const struct report *r);

/* Puts the samples taken after t_from_mono (seconds, monotonic) in front of
 * r's ticks, on r's clock: window_t0_mono is r's t = 0.  Series the window
 * lacks are made (same name, title, unit, resource) when the ring has a
 * value of theirs.  Values left out for want of room are said in r's
 * ledger (WATCH_RING_LEDGER).  The number of ticks put in front. */
size_t watch_ring_prepend(const struct watch_ring *ring, struct report *r, double window_t0_mono,
                          double t_from_mono);

/* The sampler: the charted collectors run in the watcher, ticked once a
 * second into a staging report of one tick. */
struct watch_sampler;
/* Starts them; NULL after a message in err when none could start. */
struct watch_sampler *watch_sampler_start(char *err, size_t n);
/* One sample now into the ring. */
void watch_sampler_tick(struct watch_sampler *s, struct watch_ring *ring);
/* Starts the collectors afresh, with a new staging report.  They keep an
 * entry for every disk and interface they have seen, and the staging
 * report a series for each: with containers coming and going (a veth pair
 * each) that grows without end in a watcher that runs for weeks.  The
 * watcher calls it after each capture and every WATCH_SAMPLER_REFRESH_S;
 * the sample after it has no rates (no base yet).  0, or -1 after a
 * message in err, s then sampling nothing. */
#define WATCH_SAMPLER_REFRESH_S 3600.0
int watch_sampler_refresh(struct watch_sampler *s, char *err, size_t n);
/* The staging report (for tests: what the sampler holds). */
struct report *watch_sampler_staging(struct watch_sampler *s);
void watch_sampler_free(struct watch_sampler *s);
#endif
