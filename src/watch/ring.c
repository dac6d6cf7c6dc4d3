#include "ring.h"
#include "../collect/collector.h"
#include "../model/model.h"
#include "../util/clock.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int watch_ring_init(struct watch_ring *ring, size_t slots)
{
    memset(ring, 0, sizeof *ring);
    if (slots == 0)
        return 0;
    if (slots > WATCH_BEFORE_MAX_S)
        return -1;
    ring->t_mono = calloc(slots, sizeof *ring->t_mono);
    ring->v = calloc(slots * WATCH_RING_MAX_SERIES, sizeof *ring->v);
    if (!ring->t_mono || !ring->v) {
        watch_ring_free(ring);
        return -1;
    }
    ring->cap = slots;
    return 0;
}

static void series_forget(struct watch_ring_series *s)
{
    free(s->name);
    free(s->title);
    free(s->unit);
    free(s->resource);
    memset(s, 0, sizeof *s);
}

void watch_ring_free(struct watch_ring *ring)
{
    free(ring->t_mono);
    free(ring->v);
    for (size_t i = 0; i < ring->nseries; i++)
        series_forget(&ring->series[i]);
    memset(ring, 0, sizeof *ring);
}

void watch_ring_clear(struct watch_ring *ring)
{
    ring->n = ring->next = 0;
    /* the series too: the next capture's are those seen after this one,
     * and a device gone meanwhile holds no place */
    for (size_t i = 0; i < ring->nseries; i++)
        series_forget(&ring->series[i]);
    ring->nseries = 0;
    ring->series_left_out = 0;
}

/* The ring's index of series `name`, or -1. */
static long ring_find(const struct watch_ring *ring, const char *name)
{
    for (size_t i = 0; i < ring->nseries; i++)
        if (strcmp(ring->series[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* Whether no value of slot i's series is left in the ring: its last one
 * was in a slot the push under way (ring->pushes) or an earlier one
 * overwrote, or it never had one. */
static bool series_gone(const struct watch_ring *ring, size_t i)
{
    const struct watch_ring_series *rs = &ring->series[i];
    return !rs->valued || rs->last_valued + ring->cap <= ring->pushes;
}

/* A place for new series `s`: a free one, else one whose series has no
 * value left (series_gone); -1 when none, the value counted as left out. */
static long ring_add(struct watch_ring *ring, const struct series *s)
{
    size_t i = ring->nseries;
    if (i == WATCH_RING_MAX_SERIES) {
        i = 0;
        while (i < ring->nseries && !series_gone(ring, i))
            i++;
        if (i == ring->nseries) {
            ring->series_left_out++;
            return -1;
        }
        series_forget(&ring->series[i]);
    } else {
        ring->nseries++;
    }
    struct watch_ring_series *rs = &ring->series[i];
    rs->name = xstrdup(s->hdr.name);
    rs->title = xstrdup(s->hdr.title);
    rs->unit = xstrdup(s->hdr.unit);
    rs->resource = xstrdup(s->hdr.resource);
    rs->chart = s->chart;
    /* Its values in every slot so far: unknown (a reclaimed place's are
     * already; a new one's were never written). */
    for (size_t k = 0; k < ring->cap; k++)
        ring->v[k * WATCH_RING_MAX_SERIES + i] = NAN;
    return (long)i;
}

void watch_ring_push(struct watch_ring *ring, double t_mono, const struct report *r)
{
    if (ring->cap == 0 || r->nticks == 0)
        return;
    size_t slot = ring->next;
    double *row = ring->v + slot * WATCH_RING_MAX_SERIES;
    for (size_t i = 0; i < WATCH_RING_MAX_SERIES; i++)
        row[i] = NAN;
    /* The known series first, so that a place is taken for a new one only
     * from a series with no value in this sample either; a new series gets
     * one only with a value (the staging report keeps every series it
     * ever had, a device long gone too). */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < r->nseries; i++) {
            const struct series *s = r->series[i];
            bool valued = s->n == r->nticks && !isnan(s->v[r->nticks - 1]);
            long k = ring_find(ring, s->hdr.name);
            if (pass == 0 ? k < 0 : (k >= 0 || !valued))
                continue;
            if (pass == 1 && (k = ring_add(ring, s)) < 0)
                continue;
            if (valued) {
                row[k] = s->v[r->nticks - 1];
                ring->series[k].last_valued = ring->pushes;
                ring->series[k].valued = true;
            }
        }
    ring->t_mono[slot] = t_mono;
    ring->next = (slot + 1) % ring->cap;
    if (ring->n < ring->cap)
        ring->n++;
    ring->pushes++;
}

size_t watch_ring_prepend(const struct watch_ring *ring, struct report *r, double window_t0_mono,
                          double t_from_mono)
{
    if (ring->series_left_out) {
        struct ledger_entry *e =
            report_ledger(r, WATCH_RING_LEDGER, "Samples before the trigger (--before)");
        if (e->status == CS_PENDING)
            ledger_set(e, CS_RAN, NULL);
        ledger_note(e, "%lu values of series beyond the %d the ring holds at once were not "
                    "kept (a host with very many disks or interfaces)", ring->series_left_out,
                    WATCH_RING_MAX_SERIES);
    }
    if (ring->n == 0)
        return 0;
    /* Oldest first; only samples after t_from and before the window. */
    size_t oldest = (ring->next + ring->cap - ring->n) % ring->cap;
    size_t *slots = xcalloc(ring->n, sizeof *slots);
    double *t = xcalloc(ring->n, sizeof *t);
    size_t m = 0;
    double first_window_tick = r->nticks ? r->ticks[0] : 0;
    for (size_t k = 0; k < ring->n; k++) {
        size_t slot = (oldest + k) % ring->cap;
        double at = ring->t_mono[slot] - window_t0_mono;
        /* before 0 as well: the ticks before 0 are the ones not judged
         * (report_window_first_tick) */
        if (ring->t_mono[slot] <= t_from_mono || at >= 0 || at >= first_window_tick ||
            (m && at <= t[m - 1]))
            continue;
        slots[m] = slot;
        t[m++] = at;
    }
    if (m) {
        struct series **by_ring = xcalloc(ring->nseries ? ring->nseries : 1, sizeof *by_ring);
        for (size_t i = 0; i < ring->nseries; i++) {
            const struct watch_ring_series *rs = &ring->series[i];
            by_ring[i] = report_find_series(r, rs->name);
            bool any = false; /* a value among the samples put in front */
            for (size_t k = 0; k < m && !any; k++)
                any = !isnan(ring->v[slots[k] * WATCH_RING_MAX_SERIES + i]);
            if (!by_ring[i] && any) {
                by_ring[i] = report_series(r, rs->name, rs->title, rs->unit, rs->resource);
                by_ring[i]->chart = rs->chart;
            }
        }
        report_prepend_ticks(r, t, m);
        for (size_t i = 0; i < ring->nseries; i++)
            for (size_t k = 0; by_ring[i] && k < m; k++)
                by_ring[i]->v[k] = ring->v[slots[k] * WATCH_RING_MAX_SERIES + i];
        free(by_ring);
    }
    free(slots);
    free(t);
    return m;
}

/* ---- the sampler -------------------------------------------------------- */

/* The collectors whose series the report charts, from /proc alone. */
static const char *const sampled[] = {"cpu", "memory", "disk", "net", "psi"};
#define NSAMPLED (sizeof sampled / sizeof sampled[0])

struct watch_sampler {
    struct report *r; /* staging: one tick at a time */
    struct collect_config cfg;
    struct host_caps caps;
    struct collect_ctx ctx;
    const struct collector *c[NSAMPLED];
    void *state[NSAMPLED];
    size_t nc;
    double t0; /* the first sample's time, the staging clock's 0 */
};

/* The collectors stopped and the staging report freed; s empty. */
static void sampler_stop(struct watch_sampler *s)
{
    for (size_t i = 0; i < s->nc; i++)
        if (s->c[i]->destroy)
            s->c[i]->destroy(s->state[i]);
    s->nc = 0;
    report_free(s->r);
    s->r = s->ctx.r = NULL;
}

/* The charted collectors started into a new staging report; 0, or -1
 * with err when none could start. */
static int sampler_begin(struct watch_sampler *s, char *err, size_t n)
{
    s->r = report_new();
    s->ctx.r = s->r;
    s->ctx.cfg = &s->cfg;
    s->ctx.caps = &s->caps;
    s->t0 = mono_ms() / 1000.0;
    err[0] = '\0';
    for (size_t i = 0; i < NSAMPLED; i++) {
        const struct collector *c = NULL;
        for (size_t k = 0; collector_registry[k] && !c; k++)
            if (strcmp(collector_registry[k]->name, sampled[i]) == 0)
                c = collector_registry[k];
        char why[256] = "";
        if (!c || (c->can_run && !c->can_run(&s->ctx, why, sizeof why)))
            continue; /* the window's ledger will say why, as for any run */
        void *st = NULL;
        if (c->start(&s->ctx, &st, why, sizeof why) != 0) {
            if (c->destroy)
                c->destroy(st);
            snprintf(err, n, "%s: %s", c->name, why);
            continue;
        }
        s->c[s->nc] = c;
        s->state[s->nc++] = st;
    }
    if (s->nc == 0 && !err[0])
        snprintf(err, n, "none of the charted collectors can run here");
    return s->nc ? 0 : -1;
}

struct watch_sampler *watch_sampler_start(char *err, size_t n)
{
    struct watch_sampler *s = xcalloc(1, sizeof *s);
    if (sampler_begin(s, err, n) != 0) {
        watch_sampler_free(s);
        return NULL;
    }
    return s;
}

int watch_sampler_refresh(struct watch_sampler *s, char *err, size_t n)
{
    sampler_stop(s);
    return sampler_begin(s, err, n);
}

struct report *watch_sampler_staging(struct watch_sampler *s)
{
    return s->r;
}

void watch_sampler_tick(struct watch_sampler *s, struct watch_ring *ring)
{
    double now = mono_ms() / 1000.0;
    report_clear_ticks(s->r);
    s->ctx.now_s = now - s->t0;
    report_add_tick(s->r, s->ctx.now_s);
    for (size_t i = 0; i < s->nc; i++)
        if (s->c[i]->tick)
            (void)s->c[i]->tick(&s->ctx, s->state[i]); /* a failed read leaves NAN */
    watch_ring_push(ring, now, s->r);
}

void watch_sampler_free(struct watch_sampler *s)
{
    if (!s)
        return;
    sampler_stop(s);
    free(s);
}
