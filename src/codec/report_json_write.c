/* report.json: the whole model, versioned ("schema": 1).  Key order follows
 * the model so the file diffs well between runs.  It is the data a bundle is
 * re-rendered from (`perfreport render`; read back by report_json_read.c): everything the
 * rules and renderers read is here, numbers exactly; the stacks are in the
 * .folded files it names.  Keys added since schema 1 began (window.start_ns,
 * facts, profiles) are optional for a reader. */
#include "report_json.h"
#include "../render/charts.h"
#include "../render/renderer.h"
#include "../model/profile.h"
#include "../model/model.h"
#include "../version.h"
#include <errno.h>
#include <math.h>
#include <string.h>

void format_iso8601_utc(const struct timespec *ts, char *out, size_t n)
{
    struct tm tm;
    if (n == 0)
        return;
    out[0] = '\0';
    if (ts->tv_sec == 0 || !gmtime_r(&ts->tv_sec, &tm))
        return;
    strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void json_tool(struct jw *w, const struct report *r)
{
    jw_key(w, "tool");
    jw_obj_begin(w);
    jw_kstr(w, "name", "perfreport");
    jw_kstr(w, "version", r->tool_version ? r->tool_version : PERFREPORT_VERSION);
    jw_obj_end(w);
}

void json_window(struct jw *w, const struct report *r)
{
    char start[40];
    format_iso8601_utc(&r->window.start_wall, start, sizeof start);
    jw_key(w, "window");
    jw_obj_begin(w);
    jw_kstr(w, "start", start[0] ? start : NULL);
    if (start[0]) /* the charts place their time labels to the nanosecond */
        jw_knum(w, "start_ns", (double)r->window.start_wall.tv_nsec);
    jw_knum(w, "planned_s", r->window.planned_s);
    jw_knum(w, "actual_s", r->window.actual_s);
    jw_knum(w, "interval_s", r->window.interval_s);
    jw_kbool(w, "interrupted", r->window.interrupted);
    jw_kstr(w, "target", r->window.target);
    if (r->window.triggered) { /* perfreport watch: ticks before 0 are from before it */
        jw_knum(w, "trigger_s", r->window.trigger_s);
        jw_kstr(w, "trigger", r->window.trigger_what); /* the headline's words */
    }
    jw_key(w, "gaps"); /* stretches with no sample (perfreport stopped or starved) */
    jw_arr_begin(w);
    for (size_t i = 0; i < r->ngaps; i++) {
        jw_obj_begin(w);
        jw_knum(w, "start_s", r->gaps[i].start_s);
        jw_knum(w, "length_s", r->gaps[i].len_s);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_obj_end(w);
}

void json_collectors(struct jw *w, const struct report *r)
{
    jw_key(w, "collectors");
    jw_arr_begin(w);
    for (size_t i = 0; i < r->nledger; i++) {
        const struct ledger_entry *e = &r->ledger[i];
        jw_obj_begin(w);
        jw_kstr(w, "name", e->name);
        jw_kstr(w, "title", e->title);
        jw_kstr(w, "status", coll_status_name(e->status));
        jw_kstr(w, "reason", e->reason);
        jw_knum(w, "duration_ms", e->duration_ms);
        jw_kstr(w, "notes", e->notes);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static void kv_object(struct jw *w, const char *key, const struct kvlist *l)
{
    jw_key(w, key);
    jw_obj_begin(w);
    for (size_t i = 0; i < l->n; i++) {
        if (l->v[i].unit) /* the unit is in the key (NAMES.md) */
            jw_knum(w, l->v[i].key, l->v[i].num);
        else
            jw_kstr(w, l->v[i].key, l->v[i].value);
    }
    jw_obj_end(w);
}

/* What kv_object leaves out: each fact's title, and a number's unit. */
static void fact_labels(struct jw *w, const char *key, const struct kvlist *l)
{
    jw_key(w, key);
    jw_obj_begin(w);
    for (size_t i = 0; i < l->n; i++) {
        jw_key(w, l->v[i].key);
        jw_obj_begin(w);
        jw_kstr(w, "title", l->v[i].title);
        if (l->v[i].unit)
            jw_kstr(w, "unit", l->v[i].unit);
        jw_obj_end(w);
    }
    jw_obj_end(w);
}

static void facts(struct jw *w, const struct report *r)
{
    jw_key(w, "facts");
    jw_obj_begin(w);
    fact_labels(w, "host", &r->host);
    fact_labels(w, "capabilities", &r->caps);
    jw_obj_end(w);
}

static void findings(struct jw *w, const struct report *r)
{
    jw_key(w, "findings");
    jw_arr_begin(w);
    for (size_t i = 0; i < r->nfindings; i++) {
        const struct finding *f = &r->findings[i];
        jw_obj_begin(w);
        jw_kstr(w, "id", f->id);
        jw_kstr(w, "severity", severity_name(f->sev));
        jw_kstr(w, "resource", f->resource);
        jw_kstr(w, "title", f->title);
        jw_key(w, "evidence");
        jw_arr_begin(w);
        for (size_t k = 0; k < f->nevidence; k++)
            jw_str(w, f->evidence[k]);
        jw_arr_end(w);
        jw_kstr(w, "recommendation", f->recommendation);
        jw_kstr(w, "culprit", f->culprit);
        jw_knum(w, "score", f->score);
        if (f->nrelated) {
            jw_key(w, "related");
            jw_arr_begin(w);
            for (size_t k = 0; k < f->nrelated; k++)
                jw_str(w, f->related[k]);
            jw_arr_end(w);
        }
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static void use_cell(struct jw *w, const char *key, const struct use_cell *c)
{
    jw_key(w, key);
    jw_obj_begin(w);
    jw_kstr(w, "text", c->text ? c->text : "-");
    jw_kstr(w, "severity", severity_name(c->sev));
    jw_obj_end(w);
}

static void use_rows(struct jw *w, const struct report *r)
{
    jw_key(w, "use");
    jw_arr_begin(w);
    for (size_t i = 0; i < r->nuse; i++) {
        const struct use_row *u = &r->use[i];
        jw_obj_begin(w);
        jw_kstr(w, "resource", u->resource);
        use_cell(w, "utilisation", &u->util);
        use_cell(w, "saturation", &u->sat);
        use_cell(w, "errors", &u->err);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static void metrics(struct jw *w, const struct report *r)
{
    jw_key(w, "metrics");
    jw_obj_begin(w);
    for (size_t i = 0; i < r->nmetrics; i++) {
        const struct metric *m = &r->metrics[i];
        jw_key(w, m->name);
        jw_obj_begin(w);
        jw_knum(w, "value", m->value);
        jw_kstr(w, "unit", m->unit);
        jw_kstr(w, "title", m->title);
        jw_kstr(w, "resource", m->resource);
        jw_obj_end(w);
    }
    jw_obj_end(w);
}

static void series(struct jw *w, const struct report *r)
{
    jw_key(w, "series");
    jw_obj_begin(w);
    jw_key(w, "ticks");
    jw_arr_begin_flat(w);
    for (size_t i = 0; i < r->nticks; i++)
        jw_num(w, r->ticks[i]);
    jw_arr_end(w);
    jw_key(w, "items");
    jw_arr_begin(w);
    for (size_t i = 0; i < r->nseries; i++) {
        const struct series *s = r->series[i];
        jw_obj_begin(w);
        jw_kstr(w, "name", s->hdr.name);
        jw_kstr(w, "title", s->hdr.title);
        jw_kstr(w, "unit", s->hdr.unit);
        jw_kstr(w, "resource", s->hdr.resource);
        jw_knum(w, "warn", s->warn);
        jw_knum(w, "crit", s->crit);
        jw_kbool(w, "chart", s->chart);
        jw_key(w, "values");
        jw_arr_begin_flat(w);
        /* one value per tick: a series that stopped early is padded */
        size_t n = s->n > r->nticks ? s->n : r->nticks;
        for (size_t k = 0; k < n; k++)
            jw_num(w, k < s->n ? s->v[k] : NAN);
        jw_arr_end(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
    jw_obj_end(w);
}

static void tables(struct jw *w, const struct report *r)
{
    jw_key(w, "tables");
    jw_arr_begin(w);
    for (size_t i = 0; i < r->ntables; i++) {
        const struct table *t = r->tables[i];
        jw_obj_begin(w);
        jw_kstr(w, "name", t->hdr.name);
        jw_kstr(w, "title", t->hdr.title);
        jw_kstr(w, "resource", t->hdr.resource);
        jw_kstr(w, "note", t->note);
        jw_key(w, "columns");
        jw_arr_begin(w);
        for (size_t c = 0; c < t->ncols; c++) {
            jw_obj_begin(w);
            jw_kstr(w, "name", t->cols[c].name);
            jw_kstr(w, "title", t->cols[c].title);
            jw_kstr(w, "unit", t->cols[c].unit);
            jw_knum(w, "decimals", t->cols[c].decimals);
            jw_obj_end(w);
        }
        jw_arr_end(w);
        jw_key(w, "rows");
        jw_arr_begin(w);
        for (size_t row = 0; row < t->nrows; row++) {
            jw_obj_begin(w);
            for (size_t c = 0; c < t->ncols; c++) {
                const struct cell *cl = &t->cells[row * t->ncols + c];
                jw_key(w, t->cols[c].name);
                if (cl->kind == CELL_NUM)
                    jw_num(w, cl->num);
                else if (cl->kind == CELL_STR)
                    jw_str(w, cl->str);
                else
                    jw_null(w);
            }
            jw_obj_end(w);
        }
        jw_arr_end(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static void histograms(struct jw *w, const struct report *r)
{
    jw_key(w, "histograms");
    jw_arr_begin(w);
    for (size_t i = 0; i < r->nhists; i++) {
        const struct hist *h = r->hists[i];
        jw_obj_begin(w);
        jw_kstr(w, "name", h->hdr.name);
        jw_kstr(w, "title", h->hdr.title);
        jw_kstr(w, "unit", h->hdr.unit);
        jw_kstr(w, "resource", h->hdr.resource);
        jw_knum(w, "count", (double)h->count);
        jw_knum(w, "sum", h->sum);
        jw_knum(w, "max", h->max);
        jw_knum(w, "p50", hist_percentile(h, 0.50));
        jw_knum(w, "p90", hist_percentile(h, 0.90));
        jw_knum(w, "p99", hist_percentile(h, 0.99));
        /* non-empty buckets only: [lo, hi) in the histogram's unit */
        jw_key(w, "buckets");
        jw_arr_begin(w);
        for (unsigned b = 0; b < HIST_BUCKETS; b++) {
            if (!h->buckets[b])
                continue;
            jw_obj_begin(w);
            jw_knum(w, "lo", b == 0 ? 0 : ldexp(1.0, (int)b));
            jw_knum(w, "hi", ldexp(1.0, (int)b + 1));
            jw_knum(w, "count", (double)h->buckets[b]);
            jw_obj_end(w);
        }
        jw_arr_end(w);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

/* The stack profiles: their stacks are in the .folded file named here. */
static void profiles(struct jw *w, const struct report *r)
{
    jw_key(w, "profiles");
    jw_arr_begin(w);
    for (size_t i = 0; i < r->nprofiles; i++) {
        const struct profile *p = r->profiles[i];
        char file[512];
        flame_filename(p, "folded", file, sizeof file);
        jw_obj_begin(w);
        jw_kstr(w, "name", p->name);
        jw_kstr(w, "title", p->title);
        jw_kstr(w, "unit", p->unit);
        jw_kstr(w, "file", file);
        jw_knum(w, "total", (double)profile_total(p));
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static void thresholds(struct jw *w, const struct report *r)
{
    jw_key(w, "thresholds");
    jw_arr_begin(w);
    for (size_t i = 0; i < r->nthresholds; i++) {
        const struct threshold *t = &r->thresholds[i];
        jw_obj_begin(w);
        jw_kstr(w, "id", t->id);
        jw_kstr(w, "title", t->title);
        jw_kstr(w, "unit", t->unit);
        jw_knum(w, "warn", t->warn);
        jw_knum(w, "crit", t->crit);
        jw_kbool(w, "lower_is_worse", t->lower_is_worse);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

/* Writes report.json's text into out (appends).  Returns 0 or -1 on a
 * writer misuse (a bug, caught by the unit tests). */
int json_report_render(const struct report *r, struct strbuf *out)
{
    struct jw w;
    jw_init(&w, out, true);
    w.exact = true;
    jw_obj_begin(&w);
    jw_knum(&w, "schema", r->schema ? r->schema : REPORT_SCHEMA);
    json_tool(&w, r);
    kv_object(&w, "host", &r->host);
    kv_object(&w, "capabilities", &r->caps);
    facts(&w, r);
    json_window(&w, r);
    json_command(&w, r);
    jw_kstr(&w, "headline", r->headline);
    jw_kstr(&w, "severity", r->failed ? "failed" : severity_name(report_worst_severity(r)));
    jw_kbool(&w, "failed", r->failed);
    findings(&w, r);
    use_rows(&w, r);
    metrics(&w, r);
    series(&w, r);
    tables(&w, r);
    histograms(&w, r);
    profiles(&w, r);
    thresholds(&w, r);
    json_collectors(&w, r);
    jw_obj_end(&w);
    return jw_finish(&w);
}

static int render_json(const struct report *r, const struct out_sink *out)
{
    struct strbuf sb = STRBUF_INIT;
    int rc = json_report_render(r, &sb);
    if (rc == 0)
        rc = out->write(out->ctx, "report.json", sb_str(&sb), sb.len);
    else
        rc = -EINVAL;
    sb_free(&sb);
    return rc;
}

const struct renderer renderer_json = {"json", render_json};
