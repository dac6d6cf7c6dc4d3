/* The comparison model of perfreport diff (see compare.h). */
#include "diff_compare.h"
#include "../model/profile.h"
#include "../model/profile_diff.h"
#include "../util/fmtnum.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *diff_change_name(enum diff_change c)
{
    switch (c) {
    case DIFF_NEW: return "new";
    case DIFF_RESOLVED: return "resolved";
    case DIFF_WORSE: return "worse";
    case DIFF_BETTER: return "better";
    case DIFF_SAME: return "same";
    }
    return "same";
}

void diff_series_stats(const struct report *r, const struct series *s, double *mean,
                       double *sd)
{
    double sum = 0, sq = 0;
    size_t n = 0, first = report_window_first_tick(r);
    for (size_t i = first; s && i < s->n; i++)
        if (isfinite(s->v[i])) {
            sum += s->v[i];
            n++;
        }
    if (n == 0) {
        *mean = *sd = NAN;
        return;
    }
    double m = sum / (double)n;
    for (size_t i = first; i < s->n; i++)
        if (isfinite(s->v[i]))
            sq += (s->v[i] - m) * (s->v[i] - m);
    *mean = m;
    *sd = sqrt(sq / (double)n);
}

bool diff_beyond_spread(double old, double neu, double sd_old, double sd_new)
{
    if (!isfinite(old) || !isfinite(neu))
        return false;
    double d = fabs(neu - old);
    double scale = fmax(fabs(old), fabs(neu));
    if (d == 0 || d < DIFF_MIN_REL * scale)
        return false;
    double sd = fmax(isfinite(sd_old) ? sd_old : 0, isfinite(sd_new) ? sd_new : 0);
    return d > DIFF_SPREAD_K * sd;
}

/* Worse first within each kind; the rank decides the headline too. */
static int change_rank(enum diff_change c)
{
    switch (c) {
    case DIFF_NEW: return 0;
    case DIFF_WORSE: return 1;
    case DIFF_RESOLVED: return 2;
    case DIFF_BETTER: return 3;
    case DIFF_SAME: return 4;
    }
    return 4;
}

static const struct finding *df_main(const struct diff_finding *f)
{
    return f->neu ? f->neu : f->old;
}

static int cmp_findings(const void *a, const void *b)
{
    const struct diff_finding *x = a, *y = b;
    int rx = change_rank(x->change), ry = change_rank(y->change);
    if (rx != ry)
        return rx < ry ? -1 : 1;
    /* the more severe side of each first, then the rule's own score */
    enum severity sx = x->neu && (!x->old || x->neu->sev > x->old->sev) ? x->neu->sev : x->old->sev;
    enum severity sy = y->neu && (!y->old || y->neu->sev > y->old->sev) ? y->neu->sev : y->old->sev;
    if (sx != sy)
        return sx > sy ? -1 : 1;
    double cx = df_main(x)->score, cy = df_main(y)->score;
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return strcmp(df_main(x)->id, df_main(y)->id);
}

static void compare_findings(struct diff *d)
{
    const struct report *o = d->old, *n = d->neu;
    d->findings = xcalloc(o->nfindings + n->nfindings + 1, sizeof *d->findings);
    for (size_t i = 0; i < n->nfindings; i++) {
        const struct finding *nf = &n->findings[i];
        const struct finding *of = report_find_finding(o, nf->id);
        enum diff_change c = !of              ? DIFF_NEW
                             : nf->sev > of->sev ? DIFF_WORSE
                             : nf->sev < of->sev ? DIFF_BETTER
                                                 : DIFF_SAME;
        d->findings[d->nfindings++] = (struct diff_finding){of, nf, c};
    }
    for (size_t i = 0; i < o->nfindings; i++)
        if (!report_find_finding(n, o->findings[i].id))
            d->findings[d->nfindings++] =
                (struct diff_finding){&o->findings[i], NULL, DIFF_RESOLVED};
    qsort(d->findings, d->nfindings, sizeof *d->findings, cmp_findings);
}

static void compare_metrics(struct diff *d)
{
    d->metrics = xcalloc(d->neu->nmetrics + 1, sizeof *d->metrics);
    for (size_t i = 0; i < d->neu->nmetrics; i++) {
        const struct metric *nm = &d->neu->metrics[i];
        const struct metric *om = report_find_metric(d->old, nm->name);
        if (!om || (!isfinite(om->value) && !isfinite(nm->value)))
            continue;
        struct diff_metric *m = &d->metrics[d->nmetrics++];
        double mo, mn;
        m->old = om;
        m->neu = nm;
        m->delta = nm->value - om->value;
        m->rel = om->value != 0 ? m->delta / fabs(om->value) : NAN;
        diff_series_stats(d->old, report_find_series(d->old, nm->name), &mo, &m->sd_old);
        diff_series_stats(d->neu, report_find_series(d->neu, nm->name), &mn, &m->sd_new);
        m->spread_known = isfinite(m->sd_old) && isfinite(m->sd_new);
        m->beyond = diff_beyond_spread(om->value, nm->value, m->sd_old, m->sd_new);
    }
}

/* Facts that differ between any two runs and say nothing about the system. */
static bool volatile_fact(const char *key)
{
    static const char *const skip[] = {"uptime_s", "cmdline_redaction"};
    for (size_t i = 0; i < ARRAY_LEN(skip); i++)
        if (strcmp(key, skip[i]) == 0)
            return true;
    return strncmp(key, "self_", 5) == 0;
}

static char *fact_text(const struct kv *v)
{
    if (!v)
        return NULL;
    if (v->unit) {
        char b[64];
        fmt_quantity(b, sizeof b, v->num, v->unit);
        return xstrdup(b);
    }
    return xstrdup(v->value ? v->value : "");
}

static const struct kv *kv_find(const struct kvlist *l, const char *key)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].key, key) == 0)
            return &l->v[i];
    return NULL;
}

static void add_fact(struct diff *d, size_t *cap, const struct kv *o, const struct kv *n)
{
    const struct kv *any = n ? n : o;
    if (volatile_fact(any->key))
        return;
    char *ot = fact_text(o), *nt = fact_text(n);
    if (ot && nt && strcmp(ot, nt) == 0) {
        free(ot);
        free(nt);
        return;
    }
    xgrow(&d->facts, cap, d->nfacts + 1, sizeof *d->facts);
    d->facts[d->nfacts++] =
        (struct diff_fact){xstrdup(any->key), xstrdup(any->title), ot, nt};
}

static void compare_kvs(struct diff *d, size_t *cap, const struct kvlist *o,
                        const struct kvlist *n)
{
    for (size_t i = 0; i < n->n; i++)
        add_fact(d, cap, kv_find(o, n->v[i].key), &n->v[i]);
    for (size_t i = 0; i < o->n; i++)
        if (!kv_find(n, o->v[i].key))
            add_fact(d, cap, &o->v[i], NULL);
}

/* The limits of the cgroups in both "cgroup" tables, as facts in a scratch
 * report's host list (one per side), so they compare like the others. */
static void cgroup_limits(const struct table *t, const struct table *other, struct kvlist *out)
{
    static const struct {
        const char *col, *what;
    } lim[] = {{"quota_cpus", "CPU quota"}, {"mem_limit_kib", "memory limit"}};
    if (!t || !other)
        return;
    for (size_t i = 0; i < t->nrows; i++) {
        const char *path = table_str(t, i, "path");
        bool both = false;
        for (size_t j = 0; path && j < other->nrows && !both; j++) {
            const char *o = table_str(other, j, "path");
            both = o && strcmp(o, path) == 0;
        }
        if (!both)
            continue;
        for (size_t k = 0; k < ARRAY_LEN(lim); k++) {
            int c = table_col(t, lim[k].col);
            if (c < 0)
                continue;
            char *key = xasprintf("cgroup %s %s", path, lim[k].col);
            char *title = xasprintf("Cgroup %s: %s", path, lim[k].what);
            double v = table_num(t, i, lim[k].col);
            if (isfinite(v))
                kv_add_num(out, key, title, v, t->cols[c].unit);
            else
                kv_add(out, key, title, "none");
            free(key);
            free(title);
        }
    }
}

/* Adds every stack of `from` to `to`: as ordinary counts, or as baseline
 * counts scaled by num/den (rounded). */
struct copy_ctx {
    struct profile *to;
    bool base;
    uint64_t num, den;
    struct pframe *f;
    size_t cap;
};

static int copy_stack(void *vctx, const struct profile *p, const uint32_t *path, size_t depth,
                      uint64_t self)
{
    struct copy_ctx *c = vctx;
    xgrow(&c->f, &c->cap, depth + 1, sizeof *c->f);
    for (size_t i = 0; i < depth; i++) {
        const char *s = profile_node_name(p, path[i]);
        c->f[i] = (struct pframe){s, strlen(s), (uint8_t)profile_node_kind(p, path[i])};
    }
    if (!c->base) {
        profile_add_frames2(c->to, c->f, depth, self, 0);
        return 0;
    }
    /* long double: self * num may not fit in 64 bits */
    uint64_t b = (uint64_t)llroundl((long double)self * c->num / c->den);
    if (b)
        profile_add_frames2(c->to, c->f, depth, 0, b);
    return 0;
}

struct profile *diff_profile(const struct profile *old, const struct profile *neu,
                             const char *name, const char *title)
{
    /* Widths are NEW's counts: with nothing in NEW there is nothing to
     * draw.  With nothing in OLD (an idle run), every frame of NEW is new:
     * a baseline of zero, all red. */
    if (!old || !neu || profile_total(neu) == 0)
        return NULL;
    struct profile *p = profile_new(name, title, neu->unit);
    struct copy_ctx c = {.to = p, .num = profile_total(neu), .den = profile_total(old)};
    profile_walk_stacks(neu, copy_stack, &c);
    c.base = true;
    if (c.den > 0)
        profile_walk_stacks(old, copy_stack, &c);
    free(c.f);
    return p;
}

static char *headline(const struct diff *d)
{
    if (d->nfindings && d->findings[0].change != DIFF_SAME) {
        const struct diff_finding *f = &d->findings[0];
        switch (f->change) {
        case DIFF_NEW:
            return xasprintf("New: %s (not in OLD)", f->neu->title);
        case DIFF_WORSE:
            return xasprintf("Worse: %s (%s, was %s)", f->neu->title, severity_name(f->neu->sev),
                             severity_name(f->old->sev));
        case DIFF_RESOLVED:
            return xasprintf("Resolved: %s (not in NEW)", f->old->title);
        case DIFF_BETTER:
            return xasprintf("Better: %s (%s, was %s)", f->neu->title, severity_name(f->neu->sev),
                             severity_name(f->old->sev));
        case DIFF_SAME: break;
        }
    }
    /* the metric that moved most, relative to its spread */
    const struct diff_metric *best = NULL;
    double best_x = 0;
    for (size_t i = 0; i < d->nmetrics; i++) {
        const struct diff_metric *m = &d->metrics[i];
        if (!m->beyond || !m->spread_known)
            continue;
        double x = isfinite(m->rel) ? fabs(m->rel) : 1e9;
        if (!best || x > best_x) {
            best = m;
            best_x = x;
        }
    }
    if (best) {
        char a[64], b[64];
        fmt_quantity(a, sizeof a, best->old->value, best->old->unit);
        fmt_quantity(b, sizeof b, best->neu->value, best->neu->unit);
        return xasprintf("Changed: %s %s, was %s", best->neu->title, b, a);
    }
    return xstrdup("No clear change");
}

struct diff *diff_compare(const struct report *old, const struct report *neu)
{
    struct diff *d = xcalloc(1, sizeof *d);
    d->old = old;
    d->neu = neu;
    compare_findings(d);
    compare_metrics(d);
    size_t cap = 0;
    compare_kvs(d, &cap, &old->host, &neu->host);
    compare_kvs(d, &cap, &old->caps, &neu->caps);
    struct report *so = report_new(), *sn = report_new(); /* scratch */
    const struct table *to = report_find_table(old, "cgroup"), *tn = report_find_table(neu, "cgroup");
    cgroup_limits(to, tn, &so->host);
    cgroup_limits(tn, to, &sn->host);
    compare_kvs(d, &cap, &so->host, &sn->host);
    report_free(so);
    report_free(sn);
    d->cpu = diff_profile(report_find_profile(old, "cpu"), report_find_profile(neu, "cpu"),
                          "cpu-diff", "On-CPU: NEW against OLD");
    d->offcpu = diff_profile(report_find_profile(old, "offcpu"),
                             report_find_profile(neu, "offcpu"), "offcpu-diff",
                             "Off-CPU time: NEW against OLD");
    d->headline = headline(d);
    return d;
}

void diff_free(struct diff *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nfacts; i++) {
        free(d->facts[i].key);
        free(d->facts[i].title);
        free(d->facts[i].old);
        free(d->facts[i].neu);
    }
    free(d->facts);
    free(d->findings);
    free(d->metrics);
    profile_free(d->cpu);
    profile_free(d->offcpu);
    free(d->headline);
    free(d);
}
