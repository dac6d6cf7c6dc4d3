/* Resident memory growth per process over the window, for the procs
 * collector: from the RSS its tick already reads in /proc/PID/stat, each
 * process of the first tick (a newborn's start-up growth is no trend) keeps
 * running sums for a least-squares slope, how many intervals it rose in,
 * and how much it grew in each third of the window, in constant memory.  A
 * leak rises steadily in every third; a cache warming up or a heap growing
 * to its maximum rises and then stays flat (its last third is flat); one
 * big allocation is one step (one third holds all the growth);
 * allocate/free cycles go nowhere. */
#ifndef PERFREPORT_COLLECT_RSSGROWTH_H
#define PERFREPORT_COLLECT_RSSGROWTH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RSSGROWTH_TRACK_MAX 8192 /* processes of the first tick followed; the rest are counted */
#define RSSGROWTH_MIN_POINTS 4   /* ticks needed for a slope */

struct rssgrowth;

/* window_s: the planned window (<= 0: unknown, then no thirds). */
struct rssgrowth *rssgrowth_new(double window_s);
void rssgrowth_free(struct rssgrowth *g);
/* A tick at t seconds into the window; then each process read in it. */
void rssgrowth_tick(struct rssgrowth *g, double t);
void rssgrowth_observe(struct rssgrowth *g, int pid, uint64_t starttime, uint64_t rss_kib);

struct rssgrowth_result {
    int pid;
    uint64_t starttime;
    size_t points;
    double first_kib, last_kib;  /* RSS at its first and last tick */
    double growth_kib;           /* last - first */
    double slope_kib_per_s;      /* least squares over its ticks */
    double rise_pct;             /* intervals in which it rose, of all */
    double third_pct[3];         /* share of the growth in each third; NAN when unknown */
    double span_s;               /* first to last tick */
    bool alive_at_end;           /* read at the last tick */
};
/* Processes present from the first tick that grew (slope > 0 over
 * RSSGROWTH_MIN_POINTS ticks or more), fastest first, at most max; returns
 * how many were written.  The thirds are of the time from the first tick
 * to the window's planned end. */
size_t rssgrowth_results(const struct rssgrowth *g, struct rssgrowth_result *out, size_t max);
/* Sightings of processes not followed for want of room (beyond
 * RSSGROWTH_TRACK_MAX); those born after the first tick are not followed
 * and not counted. */
size_t rssgrowth_untracked(const struct rssgrowth *g);
#endif
