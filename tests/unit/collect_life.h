/* Drives one collector through its life cycle against fixture trees, the way
 * pipeline.c does: each step points hostfs at a fixture root first, so a test
 * can play back readings captured at different times. */
#ifndef PERFREPORT_TEST_COLLECT_LIFE_H
#define PERFREPORT_TEST_COLLECT_LIFE_H
#include "harness.h"
#include "../../src/collect/collector.h"
#include "../../src/model/model.h"
#include "../../src/run/probe.h"
#include "../../src/util/hostfs.h"
#include <string.h>

struct life {
    const struct collector *c;
    struct report *r;
    struct collect_config cfg;
    struct host_caps caps;
    struct collect_ctx ctx;
    void *state;
    char err[512];
};

static inline void life_init(struct life *l, const struct collector *c)
{
    memset(l, 0, sizeof *l);
    l->c = c;
    l->r = report_new();
    l->ctx.r = l->r;
    l->ctx.cfg = &l->cfg;
    l->ctx.caps = &l->caps;
    l->ctx.clock_s = collect_tick_clock; /* fixtures are read at the given times */
}

/* root is relative to the fixtures directory. */
static inline void life_root(const char *root) { hostfs_set_root(fixture(root)); }

static inline int life_start(struct life *l, const char *root)
{
    life_root(root);
    l->ctx.now_s = 0;
    return l->c->start(&l->ctx, &l->state, l->err, sizeof l->err);
}

static inline int life_tick(struct life *l, const char *root, double now_s)
{
    life_root(root);
    l->ctx.now_s = now_s;
    report_add_tick(l->r, now_s);
    return l->c->tick ? l->c->tick(&l->ctx, l->state) : 0;
}

static inline int life_stop(struct life *l, const char *root, double now_s)
{
    life_root(root);
    l->ctx.now_s = now_s;
    return l->c->stop(&l->ctx, l->state, l->err, sizeof l->err);
}

/* Destroys the collector state and the report. */
static inline void life_end(struct life *l)
{
    if (l->c->destroy)
        l->c->destroy(l->state);
    l->state = NULL;
    report_free(l->r);
    l->r = NULL;
    hostfs_set_root(NULL);
}

/* A whole life over captured readings under fixtures/TOPIC: can_run and
 * start on dirs[0] at t = 0 (times[0] must be 0), a tick per later dir at
 * its time, stop on the last dir (no time passes between the last tick and
 * the stop).  Into `into` when given (the caller's report, for example one
 * that already holds data), else a new report; the state is destroyed and
 * the report returned, the caller's to free. */
static inline struct report *life_play(const struct collector *c, const char *topic,
                                       const char *const *dirs, const double *times, size_t n,
                                       struct report *into)
{
    struct life l;
    life_init(&l, c);
    if (into) {
        report_free(l.r);
        l.r = l.ctx.r = into;
    }
    char root[1024];
    CHECK(n > 0 && times[0] == 0);
    snprintf(root, sizeof root, "%s/%s", topic, dirs[0]);
    life_root(root);
    CHECK(c->can_run == NULL || c->can_run(&l.ctx, l.err, sizeof l.err));
    int rc = life_start(&l, root);
    CHECK(rc == 0);
    if (rc == 0) {
        for (size_t i = 1; i < n; i++) {
            snprintf(root, sizeof root, "%s/%s", topic, dirs[i]);
            CHECK(life_tick(&l, root, times[i]) == 0);
        }
        CHECK(life_stop(&l, root, times[n - 1]) == 0);
    }
    if (c->destroy)
        c->destroy(l.state);
    hostfs_set_root(NULL);
    return l.r;
}

/* Value of series `name` at tick i; NAN when absent. */
static inline double series_at(const struct report *r, const char *name, size_t i)
{
    const struct series *s = report_find_series(r, name);
    return s && i < s->n ? s->v[i] : NAN;
}
#endif
