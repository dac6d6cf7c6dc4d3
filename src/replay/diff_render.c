/* Views of perfreport diff (see diff_render.h).  The document reuses the
 * report's tree builders (render/doc.h), so Markdown and HTML agree, and the
 * page around it is the report's (html_page). */
#include "diff_render.h"
#include "../model/profile.h"
#include "../render/doc.h"
#include "../render/charts.h"
#include "../render/html.h"
#include "../render/json_writer.h"
#include "../render/svg_flame.h"
#include "../util/fmtnum.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAX_TEXT 300

/* "host, 2026-11-26 02:33 UTC, 5 s window" for one side. */
static void side_text(cmark_node *para, const char *label, const struct report *r)
{
    doc_strong(para, label);
    doc_text(para, ": ");
    doc_host(para, kv_get(&r->host, "hostname"), 100);
    struct tm tm;
    char when[64] = "";
    if (r->window.start_wall.tv_sec > 0 && gmtime_r(&r->window.start_wall.tv_sec, &tm))
        strftime(when, sizeof when, ", %Y-%m-%d %H:%M:%S UTC", &tm);
    char secs[32];
    fmt_num(secs, sizeof secs, r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s);
    doc_textf(para, "%s, %s s window", when, secs);
    if (r->window.target) {
        doc_text(para, ", ");
        doc_host(para, r->window.target, 200);
    }
    doc_text(para, ". ");
}

static void sev_cell(struct doc_cell *c, const struct finding *f)
{
    if (!f) {
        doc_cell_ours(c, "-");
        return;
    }
    doc_cell_ours(c, "%s", severity_name(f->sev)); /* the change cell carries the colour */
}

static void findings_section(struct doc *d, const struct diff *df)
{
    doc_heading(d, d->root, 2, "Findings", false);
    size_t changed = 0;
    for (size_t i = 0; i < df->nfindings; i++)
        changed += df->findings[i].change != DIFF_SAME;
    if (df->nfindings == 0) {
        doc_text(doc_para(d->root), "No findings in either run.");
        return;
    }
    if (changed == 0)
        doc_text(doc_para(d->root), "The same findings at the same severities in both runs.");
    struct doc_table *t = doc_table_block(d, d->root, 5);
    static const char *const head[] = {"Change", "Finding", "OLD", "NEW", "What"};
    for (size_t c = 0; c < 5; c++)
        doc_table_head(t, c, head[c], false);
    for (size_t i = 0; i < df->nfindings; i++) {
        const struct diff_finding *f = &df->findings[i];
        const struct finding *fm = f->neu ? f->neu : f->old;
        doc_table_row(t);
        struct doc_cell *c = doc_table_cell(t, i, 0);
        doc_cell_ours(c, "%s", diff_change_name(f->change));
        /* what grew is marked at the severity it reached, what went at none */
        c->sev = f->change == DIFF_NEW || f->change == DIFF_WORSE ? (int)f->neu->sev
                 : f->change == DIFF_SAME                        ? DOC_NO_SEV
                                                                 : (int)SEV_NONE;
        c = doc_table_cell(t, i, 1);
        doc_cell_host(c, fm->id, 100);
        c->code = true;
        sev_cell(doc_table_cell(t, i, 2), f->old);
        sev_cell(doc_table_cell(t, i, 3), f->neu);
        doc_cell_host(doc_table_cell(t, i, 4), fm->title, MAX_TEXT);
    }
}

static void metrics_section(struct doc *d, const struct diff *df)
{
    doc_heading(d, d->root, 2, "Key metrics", false);
    cmark_node *p = doc_para(d->root);
    doc_textf(p,
              "Window averages.  A change counts as clear when it exceeds %g times the "
              "larger within-window standard deviation (of the per-tick series) and %g%% "
              "of the larger value; otherwise it reads \"no clear change\".",
              DIFF_SPREAD_K, DIFF_MIN_REL * 100);
    if (df->nmetrics == 0) {
        doc_text(doc_para(d->root), "No metric is in both runs.");
        return;
    }
    /* the clear changes first, in words: the table is long */
    size_t nclear = 0;
    for (size_t i = 0; i < df->nmetrics; i++)
        nclear += df->metrics[i].beyond && df->metrics[i].spread_known;
    p = doc_para(d->root);
    if (nclear == 0)
        doc_textf(p, "None of the %zu metrics changed beyond its spread.", df->nmetrics);
    else
        doc_textf(p, "%zu of %zu metrics changed beyond their spread: ", nclear, df->nmetrics);
    for (size_t i = 0, k = 0; i < df->nmetrics && nclear; i++) {
        const struct diff_metric *m = &df->metrics[i];
        if (!m->beyond || !m->spread_known)
            continue;
        doc_host(p, m->neu->title ? m->neu->title : m->neu->name, 100);
        doc_text(p, m->delta > 0 ? " higher" : " lower");
        doc_text(p, ++k < nclear ? ", " : ".");
    }
    struct doc_table *t = doc_table_block(d, d->root, 6);
    static const char *const head[] = {"Metric", "OLD", "NEW", "Change", "Spread (sd OLD / NEW)",
                                       "Verdict"};
    for (size_t c = 0; c < 6; c++)
        doc_table_head(t, c, head[c], c >= 1 && c <= 3);
    for (size_t i = 0; i < df->nmetrics; i++) {
        const struct diff_metric *m = &df->metrics[i];
        const char *unit = m->neu->unit ? m->neu->unit : "";
        char a[64], b[64], ch[64], s1[64], s2[64];
        doc_table_row(t);
        doc_cell_host(doc_table_cell(t, i, 0), m->neu->title ? m->neu->title : m->neu->name,
                      MAX_TEXT);
        fmt_quantity(a, sizeof a, m->old->value, unit);
        fmt_quantity(b, sizeof b, m->neu->value, unit);
        doc_cell_ours(doc_table_cell(t, i, 1), "%s", a);
        doc_cell_ours(doc_table_cell(t, i, 2), "%s", b);
        fmt_quantity(ch, sizeof ch, fabs(m->delta), unit);
        if (isfinite(m->rel))
            doc_cell_ours(doc_table_cell(t, i, 3), "%s%s (%+.0f%%)",
                          m->delta < 0 ? "-" : "+", ch, m->rel * 100);
        else
            doc_cell_ours(doc_table_cell(t, i, 3), "%s%s", m->delta < 0 ? "-" : "+", ch);
        if (isfinite(m->sd_old) || isfinite(m->sd_new)) {
            fmt_quantity(s1, sizeof s1, m->sd_old, unit);
            fmt_quantity(s2, sizeof s2, m->sd_new, unit);
            doc_cell_ours(doc_table_cell(t, i, 4), "%s / %s", s1, s2);
        }
        if (m->spread_known)
            doc_cell_ours(doc_table_cell(t, i, 5), "%s",
                          !m->beyond ? "no clear change" : m->delta > 0 ? "higher" : "lower");
        else if (m->beyond)
            doc_cell_ours(doc_table_cell(t, i, 5), "%s (no series: spread unknown)",
                          m->delta > 0 ? "higher" : "lower");
        else
            doc_cell_ours(doc_table_cell(t, i, 5), "no clear change");
    }
}

static void facts_section(struct doc *d, const struct diff *df)
{
    doc_heading(d, d->root, 2, "Host and configuration", false);
    if (df->nfacts == 0) {
        doc_text(doc_para(d->root), "The same host facts in both runs.");
        return;
    }
    struct doc_table *t = doc_table_block(d, d->root, 3);
    doc_table_head(t, 0, "Fact", false);
    doc_table_head(t, 1, "OLD", false);
    doc_table_head(t, 2, "NEW", false);
    for (size_t i = 0; i < df->nfacts; i++) {
        const struct diff_fact *f = &df->facts[i];
        doc_table_row(t);
        doc_cell_host(doc_table_cell(t, i, 0), f->title ? f->title : f->key, 100);
        if (f->old)
            doc_cell_host(doc_table_cell(t, i, 1), f->old, MAX_TEXT);
        if (f->neu)
            doc_cell_host(doc_table_cell(t, i, 2), f->neu, MAX_TEXT);
    }
}

static void flames_section(struct doc *d, const struct diff *df)
{
    doc_heading(d, d->root, 2, "Differential flame graphs", false);
    doc_text(doc_para(d->root),
             "Widths are NEW's; each side normalised by its own total.  Red: the frame's own "
             "share grew since OLD; blue: it shrank.");
    size_t k = 0;
    if (df->cpu)
        doc_flame(d, d->root, df->cpu, k++, "On-CPU differential flame graph", "cpu-diff.svg");
    else
        doc_text(doc_para(d->root), "On-CPU: no samples on one side.");
    if (df->offcpu)
        doc_flame(d, d->root, df->offcpu, k++, "Off-CPU differential flame graph",
                  "offcpu-diff.svg");
    else
        doc_text(doc_para(d->root), "Off-CPU: no samples on one side.");
}

static struct doc *diff_doc(const struct diff *df)
{
    struct doc *d = doc_new();
    doc_heading(d, d->root, 1, "perfreport diff", false);
    cmark_node *v = doc_para(d->root);
    doc_mark_verdict(v);
    /* the headline quotes finding and metric titles: the bundles' text */
    doc_host(doc_add(v, CMARK_NODE_STRONG), df->headline, MAX_TEXT);
    cmark_node *p = doc_para(d->root);
    side_text(p, "OLD", df->old);
    side_text(p, "NEW", df->neu);
    findings_section(d, df);
    metrics_section(d, df);
    facts_section(d, df);
    flames_section(d, df);
    return d;
}

static void json_finding(struct jw *w, const char *key, const struct finding *f)
{
    jw_key(w, key);
    if (!f) {
        jw_null(w);
        return;
    }
    jw_obj_begin(w);
    jw_kstr(w, "severity", severity_name(f->sev));
    jw_kstr(w, "title", f->title);
    jw_obj_end(w);
}

void diff_render_json(const struct diff *d, struct strbuf *out)
{
    struct jw w;
    jw_init(&w, out, true);
    jw_obj_begin(&w);
    jw_knum(&w, "schema", 1);
    jw_kstr(&w, "headline", d->headline);
    const struct report *sides[2] = {d->old, d->neu};
    for (int s = 0; s < 2; s++) {
        jw_key(&w, s ? "new" : "old");
        jw_obj_begin(&w);
        jw_kstr(&w, "hostname", kv_get(&sides[s]->host, "hostname"));
        jw_knum(&w, "start", (double)sides[s]->window.start_wall.tv_sec);
        jw_knum(&w, "window_s", sides[s]->window.actual_s);
        jw_obj_end(&w);
    }
    jw_key(&w, "findings");
    jw_arr_begin(&w);
    for (size_t i = 0; i < d->nfindings; i++) {
        const struct diff_finding *f = &d->findings[i];
        jw_obj_begin(&w);
        jw_kstr(&w, "id", (f->neu ? f->neu : f->old)->id);
        jw_kstr(&w, "change", diff_change_name(f->change));
        json_finding(&w, "old", f->old);
        json_finding(&w, "new", f->neu);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_key(&w, "metrics");
    jw_arr_begin(&w);
    for (size_t i = 0; i < d->nmetrics; i++) {
        const struct diff_metric *m = &d->metrics[i];
        jw_obj_begin(&w);
        jw_kstr(&w, "name", m->neu->name);
        jw_kstr(&w, "unit", m->neu->unit);
        jw_knum(&w, "old", m->old->value);
        jw_knum(&w, "new", m->neu->value);
        jw_knum(&w, "change", m->delta);
        jw_knum(&w, "relative_change", m->rel);
        jw_knum(&w, "sd_old", m->sd_old);
        jw_knum(&w, "sd_new", m->sd_new);
        jw_kbool(&w, "spread_known", m->spread_known);
        jw_kbool(&w, "beyond_spread", m->beyond);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_key(&w, "host");
    jw_arr_begin(&w);
    for (size_t i = 0; i < d->nfacts; i++) {
        jw_obj_begin(&w);
        jw_kstr(&w, "key", d->facts[i].key);
        jw_kstr(&w, "old", d->facts[i].old);
        jw_kstr(&w, "new", d->facts[i].neu);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_obj_end(&w);
    (void)jw_finish(&w); /* balanced by construction */
    sb_addc(out, '\n');
}

static void flame_svg(const struct profile *p, struct strbuf *out)
{
    struct flame_opts o;
    flame_opts_for(p, &o);
    o.subtitle = "red: grew since OLD, blue: shrank (each side normalised by its total)";
    svg_flame_render(p, &o, true, NULL, out);
}

size_t diff_render(const struct diff *d, struct diff_file *files)
{
    size_t n = 0;
    struct doc *doc = diff_doc(d);
    files[n] = (struct diff_file){"diff.md", STRBUF_INIT};
    doc_render_md(doc, &files[n++].body);
    files[n] = (struct diff_file){"index.html", STRBUF_INIT};
    html_page(d->neu, doc, d->headline, &files[n++].body);
    doc_free(doc);
    files[n] = (struct diff_file){"diff.json", STRBUF_INIT};
    diff_render_json(d, &files[n++].body);
    if (d->cpu) {
        files[n] = (struct diff_file){"cpu-diff.svg", STRBUF_INIT};
        flame_svg(d->cpu, &files[n++].body);
    }
    if (d->offcpu) {
        files[n] = (struct diff_file){"offcpu-diff.svg", STRBUF_INIT};
        flame_svg(d->offcpu, &files[n++].body);
    }
    return n;
}
