/* Resident memory growth per process: see rssgrowth.h. */
#include "rssgrowth.h"
#include "util/growth.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One process: ~160 bytes, whatever the window's length. */
struct tracker {
    int pid;
    uint64_t starttime;
    bool dead;               /* its pid names another process now */
    struct growth_sums g;    /* t in s from its first tick, y in KiB */
    double t_first, y_first, t_last, y_last;
    double y_end[3];         /* RSS at the last tick in each third so far */
    int third;               /* third of the last tick */
    unsigned long last_tick;
};

struct rssgrowth {
    double window_s;
    struct tracker *t; /* the processes of the first tick, sorted by pid */
    size_t n, cap;
    size_t untracked;
    double now;
    unsigned long tick;
};

struct rssgrowth *rssgrowth_new(double window_s)
{
    struct rssgrowth *g = xcalloc(1, sizeof *g);
    g->window_s = window_s;
    return g;
}

void rssgrowth_free(struct rssgrowth *g)
{
    if (!g)
        return;
    free(g->t);
    free(g);
}

void rssgrowth_tick(struct rssgrowth *g, double t)
{
    g->now = t;
    g->tick++;
}

/* The third of the window from the process's first tick to the window's
 * planned end that t falls in: thirds of equal length whatever the tick
 * interval (the first tick comes an interval after the window opened). */
static int third_of(const struct rssgrowth *g, const struct tracker *k, double t)
{
    double span = g->window_s - k->t_first;
    if (!(g->window_s > 0) || !(span > 0))
        return 0;
    double x = (t - k->t_first) / span * 3;
    return x < 1 ? 0 : x < 2 ? 1 : 2;
}

static void start(struct rssgrowth *g, struct tracker *k, int pid, uint64_t starttime, double y)
{
    memset(k, 0, sizeof *k);
    k->pid = pid;
    k->starttime = starttime;
    k->t_first = g->now;
    k->y_first = y;
    k->third = 0;
    for (int i = 0; i < 3; i++)
        k->y_end[i] = y;
    growth_init(&k->g);
}

static int by_pid(const void *key, const void *elem)
{
    int pid = *(const int *)key, other = ((const struct tracker *)elem)->pid;
    return (pid > other) - (pid < other);
}

/* Where pid goes in the sorted trackers: at the end when it is above the
 * last (the first tick's pids come ascending from /proc). */
static size_t insert_at(const struct rssgrowth *g, int pid)
{
    if (g->n == 0 || g->t[g->n - 1].pid < pid)
        return g->n;
    size_t lo = 0, hi = g->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->t[mid].pid < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void rssgrowth_observe(struct rssgrowth *g, int pid, uint64_t starttime, uint64_t rss_kib)
{
    if (rss_kib == 0)
        return; /* kernel threads and zombies have no memory of their own */
    double y = (double)rss_kib;
    struct tracker *k = g->n ? bsearch(&pid, g->t, g->n, sizeof *g->t, by_pid) : NULL;
    if (k) {
        if (k->dead || k->last_tick == g->tick)
            return;
        if (k->starttime != starttime) {
            /* the pid was recycled: the process followed is gone, and the
             * new one, born inside the window, is not reported */
            k->dead = true;
            return;
        }
        int th = third_of(g, k, g->now);
        for (int i = k->third + 1; i < th; i++)
            k->y_end[i] = k->y_last; /* a third without a tick ends where it began */
        k->third = th;
        k->y_end[th] = y;
    } else {
        if (g->n >= RSSGROWTH_TRACK_MAX) {
            g->untracked++;
            return;
        }
        /* born inside the window: its start-up growth (loading, warming
         * up) is no trend, and short-lived workers (compilers) live there */
        if (g->tick != 1)
            return;
        size_t at = insert_at(g, pid);
        xgrow(&g->t, &g->cap, g->n + 1, sizeof *g->t);
        memmove(&g->t[at + 1], &g->t[at], (g->n - at) * sizeof *g->t);
        g->n++;
        k = &g->t[at];
        start(g, k, pid, starttime, y);
    }
    /* time from its first tick: small numbers keep the sums exact enough */
    growth_add(&k->g, g->now - k->t_first, y);
    k->t_last = g->now;
    k->y_last = y;
    k->last_tick = g->tick;
}

static int by_slope(const void *a, const void *b)
{
    const struct rssgrowth_result *x = a, *y = b;
    if (x->slope_kib_per_s != y->slope_kib_per_s)
        return x->slope_kib_per_s < y->slope_kib_per_s ? 1 : -1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

size_t rssgrowth_results(const struct rssgrowth *g, struct rssgrowth_result *out, size_t max)
{
    size_t cnt = 0;
    struct rssgrowth_result *all = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < g->n; i++) {
        const struct tracker *k = &g->t[i];
        if (k->dead || k->g.n < RSSGROWTH_MIN_POINTS)
            continue;
        double slope = growth_slope(&k->g);
        if (!(slope > 0))
            continue;
        xgrow(&all, &cap, cnt + 1, sizeof *all);
        struct rssgrowth_result *r = &all[cnt++];
        r->pid = k->pid;
        r->starttime = k->starttime;
        r->points = (size_t)k->g.n;
        r->first_kib = k->y_first;
        r->last_kib = k->y_last;
        r->growth_kib = k->y_last - k->y_first;
        r->slope_kib_per_s = slope;
        r->rise_pct = growth_rise(&k->g);
        r->span_s = k->t_last - k->t_first;
        r->alive_at_end = k->last_tick == g->tick;
        double ends[3];
        for (int j = 0; j < 3; j++)
            ends[j] = j <= k->third ? k->y_end[j] : k->y_last;
        for (int j = 0; j < 3; j++) {
            double from = j ? ends[j - 1] : k->y_first;
            r->third_pct[j] = g->window_s > k->t_first && r->growth_kib > 0
                                  ? 100.0 * (ends[j] - from) / r->growth_kib
                                  : NAN;
        }
    }
    if (cnt)
        qsort(all, cnt, sizeof *all, by_slope);
    size_t w = cnt < max ? cnt : max;
    if (w)
        memcpy(out, all, w * sizeof *out);
    free(all);
    return w;
}

size_t rssgrowth_untracked(const struct rssgrowth *g) { return g->untracked; }
