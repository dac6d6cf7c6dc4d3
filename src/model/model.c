#include "model.h"
#include "profile.h"
#include "run_command.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *severity_name(enum severity s)
{
    switch (s) {
    case SEV_INFO: return "info";
    case SEV_WARNING: return "warning";
    case SEV_CRITICAL: return "critical";
    default: return "none";
    }
}

const char *coll_status_name(enum coll_status s)
{
    switch (s) {
    case CS_RAN: return "ran";
    case CS_SKIPPED: return "skipped";
    case CS_FAILED: return "failed";
    case CS_TIMED_OUT: return "timed_out";
    default: return "pending";
    }
}

struct report *report_new(void)
{
    struct report *r = xcalloc(1, sizeof *r);
    r->schema = REPORT_SCHEMA;
    return r;
}

static void kvlist_free(struct kvlist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].key);
        free(l->v[i].title);
        free(l->v[i].value);
        free(l->v[i].unit);
    }
    free(l->v);
}

/* Series, histograms and tables start with their struct model_entry, so a
 * pointer to one is a pointer to its entry (C11 6.7.2.1p15): these helpers
 * serve all three through their report arrays of pointers. */

/* The entry called `name` among the n pointers of arr; NULL if none. */
static void *entry_find(const void *arr, size_t n, const char *name)
{
    void *const *v = arr;
    for (size_t i = 0; i < n; i++) {
        const struct model_entry *e = v[i];
        if (strcmp(e->name, name) == 0)
            return v[i];
    }
    return NULL;
}

/* Appends to the pointer array *arrp a new zeroed object of `size` bytes
 * whose entry holds copies of the strings, NULL ones defaulted. */
static void *entry_add(void *arrp, size_t *n, size_t *cap, size_t size, const char *name,
                       const char *title, const char *unit, const char *resource)
{
    struct model_entry *e = xcalloc(1, size);
    e->name = xstrdup(name);
    e->title = xstrdup(title ? title : name);
    e->unit = xstrdup(unit ? unit : "");
    e->resource = xstrdup(resource ? resource : "other");
    xgrow(arrp, cap, *n + 1, sizeof e);
    void **v = *(void ***)arrp; /* read as xgrow reads it */
    v[(*n)++] = e;
    return e;
}

/* Frees the entry's strings and the object it heads; its caller has freed
 * what else the object owns. */
static void entry_free(void *p)
{
    struct model_entry *e = p;
    free(e->name);
    free(e->title);
    free(e->unit);
    free(e->resource);
    free(e);
}

static void table_free(struct table *t)
{
    for (size_t c = 0; c < t->ncols; c++) {
        free(t->cols[c].name);
        free(t->cols[c].title);
        free(t->cols[c].unit);
    }
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free(t->cells[i].str);
    free(t->cols);
    free(t->cells);
    free(t->note);
    entry_free(t);
}

/* Frees what a finding owns; the finding itself lives in the report's array. */
static void finding_free_fields(struct finding *f)
{
    free(f->id);
    free(f->resource);
    free(f->title);
    for (size_t j = 0; j < f->nevidence; j++)
        free(f->evidence[j]);
    free(f->evidence);
    free(f->recommendation);
    free(f->culprit);
    for (size_t j = 0; j < f->nrelated; j++)
        free(f->related[j]);
}

void report_free(struct report *r)
{
    if (!r)
        return;
    kvlist_free(&r->host);
    kvlist_free(&r->caps);
    free(r->window.target);
    free(r->window.trigger_what);
    free(r->publish_note);
    run_command_free(r->command);
    free(r->ticks);
    free(r->gaps);
    for (size_t i = 0; i < r->nseries; i++) {
        free(r->series[i]->v);
        entry_free(r->series[i]);
    }
    free(r->series);
    for (size_t i = 0; i < r->ntables; i++)
        table_free(r->tables[i]);
    free(r->tables);
    for (size_t i = 0; i < r->nmetrics; i++) {
        free(r->metrics[i].name);
        free(r->metrics[i].title);
        free(r->metrics[i].unit);
        free(r->metrics[i].resource);
    }
    free(r->metrics);
    for (size_t i = 0; i < r->nfindings; i++)
        finding_free_fields(&r->findings[i]);
    free(r->findings);
    for (size_t i = 0; i < r->nthresholds; i++) {
        free(r->thresholds[i].id);
        free(r->thresholds[i].title);
        free(r->thresholds[i].unit);
    }
    free(r->thresholds);
    for (size_t i = 0; i < r->nuse; i++) {
        free(r->use[i].resource);
        free(r->use[i].util.text);
        free(r->use[i].sat.text);
        free(r->use[i].err.text);
    }
    free(r->use);
    for (size_t i = 0; i < r->nledger; i++) {
        free(r->ledger[i].name);
        free(r->ledger[i].title);
        free(r->ledger[i].reason);
        free(r->ledger[i].notes);
    }
    free(r->ledger);
    for (size_t i = 0; i < r->nhists; i++)
        entry_free(r->hists[i]);
    free(r->hists);
    for (size_t i = 0; i < r->nprofiles; i++)
        profile_free(r->profiles[i]);
    free(r->profiles);
    free(r->headline);
    free(r->headline_note);
    free(r->tool_version);
    free(r);
}

/* The entry of `key`, emptied for a new value, or a new one. */
static struct kv *kv_slot(struct kvlist *l, const char *key, const char *title)
{
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->v[i].key, key) == 0) {
            free(l->v[i].value);
            free(l->v[i].unit);
            l->v[i].value = l->v[i].unit = NULL;
            return &l->v[i];
        }
    }
    xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
    struct kv *e = &l->v[l->n++];
    *e = (struct kv){.key = xstrdup(key), .title = xstrdup(title ? title : key)};
    return e;
}

void kv_add(struct kvlist *l, const char *key, const char *title, const char *value)
{
    kv_slot(l, key, title)->value = xstrdup(value ? value : "");
}

void kv_add_num(struct kvlist *l, const char *key, const char *title, double num,
                const char *unit)
{
    struct kv *e = kv_slot(l, key, title);
    e->num = num;
    e->unit = xstrdup(unit ? unit : "");
}

void kv_addf(struct kvlist *l, const char *key, const char *title, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *v = xvasprintf(fmt, ap);
    va_end(ap);
    kv_add(l, key, title, v);
    free(v);
}

const char *kv_get(const struct kvlist *l, const char *key)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].key, key) == 0)
            return l->v[i].value;
    return NULL;
}

double kv_num(const struct kvlist *l, const char *key)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].key, key) == 0)
            return l->v[i].unit ? l->v[i].num : NAN;
    return NAN;
}

/* The window's first tick (at or after 0) covers from the window's start,
 * also after a watch bundle's ticks from before its trigger: the stretch
 * between those and the window is no gap (report_prepend_ticks). */
static bool window_first(const struct report *r, size_t i)
{
    return r->ticks[i] >= 0 && (i == 0 || r->ticks[i - 1] < 0);
}

size_t report_add_tick(struct report *r, double t)
{
    /* the previous tick, or the window's start (see window_first) */
    double prev = r->nticks && !(t >= 0 && r->ticks[r->nticks - 1] < 0)
                      ? r->ticks[r->nticks - 1] : 0;
    if (r->window.interval_s > 0 && t - prev > TICK_GAP_FACTOR * r->window.interval_s) {
        xgrow(&r->gaps, &r->cap_gaps, r->ngaps + 1, sizeof *r->gaps);
        r->gaps[r->ngaps++] = (struct tick_gap){.start_s = prev, .len_s = t - prev};
    }
    xgrow(&r->ticks, &r->cap_ticks, r->nticks + 1, sizeof *r->ticks);
    r->ticks[r->nticks] = t;
    return r->nticks++;
}

size_t report_window_first_tick(const struct report *r)
{
    /* ticks ascend: the first at or after 0 */
    size_t lo = 0, hi = r->nticks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->ticks[mid] < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool report_gap_before(const struct report *r, size_t i)
{
    if (i >= r->nticks || (i == 0 && r->ticks[0] < 0))
        return false; /* the first tick before the window follows nothing */
    double prev = window_first(r, i) ? 0 : r->ticks[i - 1];
    /* gaps are recorded in tick order, so their starts ascend: a chart asks
     * for every tick, and a scan of every gap each time would be quadratic */
    size_t lo = 0, hi = r->ngaps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->gaps[mid].start_s < prev)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->ngaps && r->gaps[lo].start_s == prev; /* a copy of that tick's time: exact */
}

void report_prepend_ticks(struct report *r, const double *t, size_t n)
{
    if (n == 0)
        return;
    size_t total = n + r->nticks;
    double *ticks = xcalloc(total, sizeof *ticks);
    memcpy(ticks, t, n * sizeof *ticks);
    if (r->nticks)
        memcpy(ticks + n, r->ticks, r->nticks * sizeof *ticks);
    for (size_t i = 0; i < r->nseries; i++) {
        struct series *s = r->series[i];
        size_t have = s->n < r->nticks ? s->n : r->nticks;
        double *v = xcalloc(total, sizeof *v);
        for (size_t k = 0; k < total; k++)
            v[k] = k >= n && k - n < have ? s->v[k - n] : NAN;
        free(s->v);
        s->v = v;
        s->n = s->cap = total;
    }
    /* The gaps: those among the new ticks, then the window's own, in time
     * order.  The stretch between the last new tick and the window's start
     * is none: the window's first sample covers from its own start. */
    struct tick_gap *gaps = NULL;
    size_t ngaps = 0, cap = 0;
    for (size_t k = 1; k < n; k++)
        if (r->window.interval_s > 0 && t[k] - t[k - 1] > TICK_GAP_FACTOR * r->window.interval_s) {
            xgrow(&gaps, &cap, ngaps + 1, sizeof *gaps);
            gaps[ngaps++] = (struct tick_gap){.start_s = t[k - 1], .len_s = t[k] - t[k - 1]};
        }
    xgrow(&gaps, &cap, ngaps + r->ngaps, sizeof *gaps);
    if (r->ngaps)
        memcpy(gaps + ngaps, r->gaps, r->ngaps * sizeof *gaps);
    free(r->gaps);
    r->gaps = gaps;
    r->ngaps += ngaps;
    r->cap_gaps = cap;
    free(r->ticks);
    r->ticks = ticks;
    r->nticks = r->cap_ticks = total;
}

void report_clear_ticks(struct report *r)
{
    r->nticks = r->ngaps = 0;
    for (size_t i = 0; i < r->nseries; i++)
        r->series[i]->n = 0;
}

struct series *report_find_series(const struct report *r, const char *name)
{
    return entry_find(r->series, r->nseries, name);
}

struct series *report_series(struct report *r, const char *name, const char *title,
                             const char *unit, const char *resource)
{
    struct series *s = report_find_series(r, name);
    if (s)
        return s;
    s = entry_add(&r->series, &r->nseries, &r->cap_series, sizeof *s, name, title, unit,
                  resource);
    s->warn = NAN;
    s->crit = NAN;
    return s;
}

void series_set(struct report *r, struct series *s, double v)
{
    if (r->nticks == 0)
        return;
    size_t idx = r->nticks - 1;
    xgrow(&s->v, &s->cap, idx + 1, sizeof *s->v);
    while (s->n < idx)
        s->v[s->n++] = NAN;
    s->v[idx] = v;
    if (s->n <= idx)
        s->n = idx + 1;
}

struct table *report_find_table(const struct report *r, const char *name)
{
    return entry_find(r->tables, r->ntables, name);
}

struct table *report_table(struct report *r, const char *name, const char *title,
                           const char *resource)
{
    struct table *t = report_find_table(r, name);
    if (t)
        return t;
    return entry_add(&r->tables, &r->ntables, &r->cap_tables, sizeof *t, name, title, NULL,
                     resource);
}

void table_add_col(struct table *t, const char *name, const char *title, const char *unit,
                   int decimals)
{
    /* Columns are fixed before the first row so cells stay rectangular. */
    if (t->nrows)
        abort();
    t->cols = xrealloc(t->cols, (t->ncols + 1) * sizeof *t->cols);
    struct column *c = &t->cols[t->ncols++];
    c->name = xstrdup(name);
    c->title = xstrdup(title ? title : name);
    c->unit = xstrdup(unit ? unit : "");
    c->decimals = decimals;
}

void table_add_cols(struct table *t, const struct col_spec *cols, size_t n)
{
    for (size_t i = 0; i < n; i++)
        table_add_col(t, cols[i].name, cols[i].title, cols[i].unit, cols[i].decimals);
}

size_t table_add_row(struct table *t)
{
    xgrow(&t->cells, &t->cap_rows, (t->nrows + 1) * t->ncols, sizeof *t->cells);
    return t->nrows++;
}

int table_col(const struct table *t, const char *col)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (strcmp(t->cols[c].name, col) == 0)
            return (int)c;
    return -1;
}

static struct cell *cell_at(struct table *t, size_t row, const char *col)
{
    int c = table_col(t, col);
    if (c < 0 || row >= t->nrows)
        abort(); /* a programming error: unknown column or row */
    return &t->cells[row * t->ncols + (size_t)c];
}

void table_set_num(struct table *t, size_t row, const char *col, double v)
{
    struct cell *c = cell_at(t, row, col);
    free(c->str);
    c->str = NULL;
    c->kind = CELL_NUM;
    c->num = v;
}

void table_set_num_opt(struct table *t, size_t row, const char *col, double v)
{
    if (!isnan(v))
        table_set_num(t, row, col, v);
}

void table_set_str(struct table *t, size_t row, const char *col, const char *s)
{
    struct cell *c = cell_at(t, row, col);
    free(c->str);
    c->kind = CELL_STR;
    c->str = xstrdup(s ? s : "");
}

void table_set_note(struct table *t, const char *note)
{
    free(t->note);
    t->note = xstrdup(note);
}

const struct cell *table_cell(const struct table *t, size_t row, const char *col)
{
    int c = table_col(t, col);
    if (c < 0 || row >= t->nrows)
        return NULL;
    return &t->cells[row * t->ncols + (size_t)c];
}

double table_num(const struct table *t, size_t row, const char *col)
{
    const struct cell *c = table_cell(t, row, col);
    return c && c->kind == CELL_NUM ? c->num : NAN;
}

const char *table_str(const struct table *t, size_t row, const char *col)
{
    const struct cell *c = table_cell(t, row, col);
    return c && c->kind == CELL_STR ? c->str : NULL;
}

void report_metric(struct report *r, const char *name, const char *title, const char *unit,
                   const char *resource, double v)
{
    for (size_t i = 0; i < r->nmetrics; i++) {
        if (strcmp(r->metrics[i].name, name) == 0) {
            r->metrics[i].value = v;
            return;
        }
    }
    xgrow(&r->metrics, &r->cap_metrics, r->nmetrics + 1, sizeof *r->metrics);
    struct metric *m = &r->metrics[r->nmetrics++];
    m->name = xstrdup(name);
    m->title = xstrdup(title ? title : name);
    m->unit = xstrdup(unit ? unit : "");
    m->resource = xstrdup(resource ? resource : "other");
    m->value = v;
}

const struct metric *report_find_metric(const struct report *r, const char *name)
{
    for (size_t i = 0; i < r->nmetrics; i++)
        if (strcmp(r->metrics[i].name, name) == 0)
            return &r->metrics[i];
    return NULL;
}

double report_window_s(const struct report *r)
{
    if (r->window.actual_s > 0)
        return r->window.actual_s;
    return r->window.planned_s > 0 ? r->window.planned_s : 0;
}

double report_metric_value(const struct report *r, const char *name)
{
    const struct metric *m = report_find_metric(r, name);
    return m ? m->value : NAN;
}

struct finding *report_add_finding(struct report *r, const char *id, enum severity sev,
                                   const char *resource, const char *title)
{
    xgrow(&r->findings, &r->cap_findings, r->nfindings + 1, sizeof *r->findings);
    struct finding *f = &r->findings[r->nfindings++];
    memset(f, 0, sizeof *f);
    f->id = xstrdup(id);
    f->sev = sev;
    f->resource = xstrdup(resource);
    f->title = xstrdup(title ? title : id);
    return f;
}

void finding_evidence(struct finding *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    f->evidence = xrealloc(f->evidence, (f->nevidence + 1) * sizeof *f->evidence);
    f->evidence[f->nevidence++] = s;
}

void finding_set_recommendation(struct finding *f, const char *text)
{
    free(f->recommendation);
    f->recommendation = xstrdup(text);
}

void finding_set_culprit(struct finding *f, const char *culprit)
{
    free(f->culprit);
    f->culprit = xstrdup(culprit);
}

void finding_set_title(struct finding *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    free(f->title);
    f->title = s;
}

void finding_add_related(struct finding *f, const char *resource)
{
    if (!resource || finding_concerns(f, resource) || f->nrelated >= FINDING_MAX_RELATED)
        return;
    f->related[f->nrelated++] = xstrdup(resource);
}

bool finding_concerns(const struct finding *f, const char *resource)
{
    if (!resource)
        return false;
    if (f->resource && strcmp(f->resource, resource) == 0)
        return true;
    for (size_t i = 0; i < f->nrelated; i++)
        if (strcmp(f->related[i], resource) == 0)
            return true;
    return false;
}

void report_remove_finding(struct report *r, struct finding *f)
{
    size_t idx = (size_t)(f - r->findings);
    if (idx >= r->nfindings)
        return;
    finding_free_fields(f);
    memmove(&r->findings[idx], &r->findings[idx + 1],
            (r->nfindings - idx - 1) * sizeof *r->findings);
    r->nfindings--;
}

const struct finding *report_find_finding(const struct report *r, const char *id)
{
    for (size_t i = 0; i < r->nfindings; i++)
        if (strcmp(r->findings[i].id, id) == 0)
            return &r->findings[i];
    return NULL;
}

enum severity report_worst_severity(const struct report *r)
{
    enum severity w = SEV_NONE;
    for (size_t i = 0; i < r->nfindings; i++)
        if (r->findings[i].sev > w)
            w = r->findings[i].sev;
    return w;
}

struct threshold *report_add_threshold(struct report *r, const char *id, const char *title,
                                       const char *unit, double warn, double crit,
                                       bool lower_is_worse)
{
    xgrow(&r->thresholds, &r->cap_thresholds, r->nthresholds + 1, sizeof *r->thresholds);
    struct threshold *t = &r->thresholds[r->nthresholds++];
    t->id = xstrdup(id);
    t->title = xstrdup(title);
    t->unit = xstrdup(unit ? unit : "");
    t->warn = warn;
    t->crit = crit;
    t->lower_is_worse = lower_is_worse;
    return t;
}

const struct threshold *report_find_threshold(const struct report *r, const char *id)
{
    for (size_t i = 0; i < r->nthresholds; i++)
        if (strcmp(r->thresholds[i].id, id) == 0)
            return &r->thresholds[i];
    return NULL;
}

struct use_row *report_add_use(struct report *r, const char *resource)
{
    xgrow(&r->use, &r->cap_use, r->nuse + 1, sizeof *r->use);
    struct use_row *u = &r->use[r->nuse++];
    memset(u, 0, sizeof *u);
    u->resource = xstrdup(resource);
    return u;
}

void use_cell_set(struct use_cell *c, enum severity sev, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    free(c->text);
    c->text = s;
    c->sev = sev;
}

struct ledger_entry *report_ledger(struct report *r, const char *name, const char *title)
{
    for (size_t i = 0; i < r->nledger; i++)
        if (strcmp(r->ledger[i].name, name) == 0)
            return &r->ledger[i];
    xgrow(&r->ledger, &r->cap_ledger, r->nledger + 1, sizeof *r->ledger);
    struct ledger_entry *e = &r->ledger[r->nledger++];
    memset(e, 0, sizeof *e);
    e->name = xstrdup(name);
    e->title = xstrdup(title ? title : name);
    return e;
}

void ledger_set(struct ledger_entry *e, enum coll_status st, const char *reason)
{
    e->status = st;
    free(e->reason);
    e->reason = xstrdup(reason);
}

bool ledger_not_root(const struct ledger_entry *e)
{
    return e->status == CS_SKIPPED && e->reason &&
           strncmp(e->reason, LEDGER_NOT_ROOT, strlen(LEDGER_NOT_ROOT)) == 0;
}

void ledger_note(struct ledger_entry *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    if (e->notes) {
        char *j = xasprintf("%s; %s", e->notes, s);
        free(e->notes);
        free(s);
        s = j;
    }
    e->notes = s;
}

void report_set_headline(struct report *r, const char *text)
{
    free(r->headline);
    r->headline = xstrdup(text);
}

struct hist *report_find_hist(const struct report *r, const char *name)
{
    return entry_find(r->hists, r->nhists, name);
}

struct hist *report_hist(struct report *r, const char *name, const char *title, const char *unit,
                         const char *resource)
{
    struct hist *h = report_find_hist(r, name);
    if (h)
        return h;
    h = entry_add(&r->hists, &r->nhists, &r->cap_hists, sizeof *h, name, title, unit, resource);
    h->sum = NAN;
    h->max = NAN;
    return h;
}

void hist_add_bucket(struct hist *h, unsigned b, uint64_t n)
{
    if (b >= HIST_BUCKETS)
        b = HIST_BUCKETS - 1;
    h->buckets[b] += n;
    h->count += n;
}

double hist_percentile(const struct hist *h, double p)
{
    if (h->count == 0)
        return NAN;
    if (p < 0)
        p = 0;
    if (p > 1)
        p = 1;
    double target = p * (double)h->count;
    double seen = 0;
    for (unsigned b = 0; b < HIST_BUCKETS; b++) {
        if (!h->buckets[b])
            continue;
        double next = seen + (double)h->buckets[b];
        if (next >= target) {
            double lo = b == 0 ? 0 : ldexp(1.0, (int)b), hi = ldexp(1.0, (int)b + 1);
            double frac = (target - seen) / (double)h->buckets[b];
            double v = lo + frac * (hi - lo);
            return !isnan(h->max) && v > h->max ? h->max : v;
        }
        seen = next;
    }
    return isnan(h->max) ? ldexp(1.0, HIST_BUCKETS) : h->max;
}
double hist_count_above(const struct hist *h, double v)
{
    if (!h->count || (!isnan(h->max) && v > h->max))
        return 0;
    double n = 0;
    for (unsigned b = 0; b < HIST_BUCKETS; b++) {
        if (!h->buckets[b])
            continue;
        double lo = b == 0 ? 0 : ldexp(1.0, (int)b), hi = ldexp(1.0, (int)b + 1);
        if (lo >= v)
            n += (double)h->buckets[b];
        else if (hi > v)
            n += (double)h->buckets[b] * (hi - v) / (hi - lo);
    }
    return !isnan(h->max) && n < 1 ? 1 : n; /* the maximum itself is >= v */
}

struct profile *report_add_profile(struct report *r, struct profile *p)
{
    xgrow(&r->profiles, &r->cap_profiles, r->nprofiles + 1, sizeof *r->profiles);
    r->profiles[r->nprofiles++] = p;
    return p;
}

struct profile *report_find_profile(const struct report *r, const char *name)
{
    for (size_t i = 0; i < r->nprofiles; i++)
        if (strcmp(r->profiles[i]->name, name) == 0)
            return r->profiles[i];
    return NULL;
}

/* Appends src's pointer array to dst's and empties src's. */
#define MOVE_PTRS(dst, src, arr, n, cap)                                                      \
    do {                                                                                      \
        xgrow(&(dst)->arr, &(dst)->cap, (dst)->n + (src)->n, sizeof *(dst)->arr);             \
        if ((src)->n) /* memcpy from NULL is undefined even for 0 bytes */                  \
            memcpy((dst)->arr + (dst)->n, (src)->arr, (src)->n * sizeof *(src)->arr);         \
        (dst)->n += (src)->n;                                                                 \
        (src)->n = 0;                                                                         \
    } while (0)

static void kv_move(struct kvlist *dst, struct kvlist *src)
{
    for (size_t i = 0; i < src->n; i++) {
        const struct kv *e = &src->v[i];
        if (e->unit)
            kv_add_num(dst, e->key, e->title, e->num, e->unit);
        else
            kv_add(dst, e->key, e->title, e->value);
    }
    kvlist_free(src);
    memset(src, 0, sizeof *src);
}

void report_merge(struct report *dst, struct report *src)
{
    kv_move(&dst->host, &src->host);
    kv_move(&dst->caps, &src->caps);
    for (size_t i = 0; i < src->nseries; i++) {
        struct series *s = src->series[i];
        /* Pad to the full timeline so every series lines up with dst's ticks. */
        xgrow(&s->v, &s->cap, dst->nticks ? dst->nticks : 1, sizeof *s->v);
        while (s->n < dst->nticks)
            s->v[s->n++] = NAN;
    }
    MOVE_PTRS(dst, src, series, nseries, cap_series);
    MOVE_PTRS(dst, src, tables, ntables, cap_tables);
    MOVE_PTRS(dst, src, hists, nhists, cap_hists);
    MOVE_PTRS(dst, src, profiles, nprofiles, cap_profiles);
    xgrow(&dst->metrics, &dst->cap_metrics, dst->nmetrics + src->nmetrics, sizeof *dst->metrics);
    if (src->nmetrics)
        memcpy(dst->metrics + dst->nmetrics, src->metrics, src->nmetrics * sizeof *src->metrics);
    dst->nmetrics += src->nmetrics;
    src->nmetrics = 0;
    for (size_t i = 0; i < src->nledger; i++) {
        struct ledger_entry *s = &src->ledger[i];
        struct ledger_entry *d = report_ledger(dst, s->name, s->title);
        if (s->notes)
            ledger_note(d, "%s", s->notes);
    }
}

bool report_is_partial(const struct report *r)
{
    if (r->window.interrupted || r->publish_note)
        return true;
    for (size_t i = 0; i < r->nledger; i++)
        if (r->ledger[i].status == CS_FAILED || r->ledger[i].status == CS_TIMED_OUT)
            return true;
    return false;
}

int report_exit_status(const struct report *r)
{
    if (r->failed)
        return 3;
    enum severity w = report_worst_severity(r);
    int sev = w == SEV_CRITICAL ? 2 : w == SEV_WARNING ? 1 : 0;
    return report_is_partial(r) ? 4 + sev : sev;
}
