/* Drives one collector through its life cycle against fixture trees, the way
 * pipeline.c does: each step points hostfs at a fixture root first, so a test
 * can play back readings captured at different times. */
#ifndef PERFREPORT_TEST_COLLECT_LIFE_H
#define PERFREPORT_TEST_COLLECT_LIFE_H
#include "harness.h"
#include "../../src/collect/collector.h"
#include "../../src/model/model.h"
#include "../../src/probe.h"
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

/* Value of series `name` at tick i; NAN when absent. */
static inline double series_at(const struct report *r, const char *name, size_t i)
{
    const struct series *s = report_find_series(r, name);
    return s && i < s->n ? s->v[i] : NAN;
}
#endif
