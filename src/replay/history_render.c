/* Views of perfreport history (see history_render.h).  The document reuses
 * the report's tree builders (render/doc.h), so Markdown and HTML agree and
 * every host-controlled word (hostnames, headlines, paths, reasons) is
 * escaped where it lands; the charts are the report's line charts
 * (svg_series_render), each drawn over a scratch report per host whose
 * ticks are that host's runs. */
#include "history_render.h"
#include "../render/charts.h"
#include "../render/doc.h"
#include "../render/html.h"
#include "../render/json_writer.h"
#include "../util/xalloc.h"
#include "../version.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define VERIFIED                                                                            \
    "For every run listed, manifest.json is perfreport's and report.json matches the size " \
    "and SHA-256 that manifest.json gives for it; its findings are those of the built-in "  \
    "thresholds applied again here.  No other file of a bundle (its page, charts, flame "   \
    "graphs) was read or verified: the links lead to them as they are."

static void when(time_t t, char *out, size_t n)
{
    struct tm tm;
    if (t <= 0 || !gmtime_r(&t, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf(out, n, "unknown");
}

static void iso(time_t t, char *out, size_t n)
{
    struct tm tm;
    if (t <= 0 || !gmtime_r(&t, &tm) || !strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm))
        out[0] = '\0';
}

/* The bundle's index.html relative to the page, or NULL. */
static char *run_link(const struct history_run *run, const char *outdir_abs)
{
    if (!run->has_index || !run->abs || !outdir_abs)
        return NULL;
    char *rel = history_relpath(outdir_abs, run->abs);
    if (!rel)
        return NULL;
    char *l = xasprintf("%s/index.html", rel);
    free(rel);
    return l;
}

char *history_headline(const struct history *h)
{
    const struct history_run *worst = NULL;
    for (size_t k = 0; k < h->nhosts; k++) {
        const struct history_host *ho = &h->hosts[k];
        const struct history_run *r = &h->runs[ho->by_time[ho->nruns - 1]];
        if (!worst || history_run_cmp(r, worst) < 0)
            worst = r;
    }
    if (!worst)
        return xstrdup("No runs.");
    if (worst->sev == SEV_NONE)
        return xasprintf("%zu host%s, %zu run%s: no findings in the newest run of any host",
                         h->nhosts, h->nhosts == 1 ? "" : "s", h->nruns,
                         h->nruns == 1 ? "" : "s");
    return xasprintf("%s (newest run, %s): %s", worst->host, severity_name(worst->sev),
                     worst->headline);
}

/* The scratch report of one host: its runs (with a known time) as ticks,
 * oldest first, a "severity" series and one per key metric.  window.start
 * is the first run's, so the charts' clock axis reads real times. */
static struct report *host_report(const struct history *h, const struct history_host *ho)
{
    struct report *r = report_new();
    time_t t0 = 0;
    for (size_t j = 0; j < ho->nruns; j++) {
        const struct history_run *run = &h->runs[ho->by_time[j]];
        if (run->start <= 0)
            continue;
        if (!t0) {
            t0 = run->start;
            r->window.start_wall.tv_sec = t0;
        }
        report_add_tick(r, (double)(run->start - t0));
        struct series *s = report_series(r, "severity",
                                         "Severity: 0 none, 1 info, 2 warning, 3 critical", "",
                                         "history");
        s->warn = SEV_WARNING;
        s->crit = SEV_CRITICAL;
        series_set(r, s, run->sev);
        for (size_t m = 0; m < h->nmetrics; m++) {
            const struct history_metric *hm = &h->metrics[m];
            s = report_series(r, hm->name, hm->title, hm->unit, "history");
            series_set(r, s, m < run->nvalues ? run->values[m] : NAN);
        }
    }
    return r;
}

static bool series_has_data(const struct series *s)
{
    for (size_t i = 0; s && i < s->n; i++)
        if (isfinite(s->v[i]))
            return true;
    return false;
}

static void add_file(struct history_file **f, size_t *n, size_t *cap, char *name)
{
    xgrow(f, cap, *n + 1, sizeof **f);
    (*f)[*n] = (struct history_file){name, STRBUF_INIT};
    (*n)++;
}

struct ctx {
    const struct history *h;
    const char *outdir_abs;
    struct doc *d;
    struct report **scratch; /* per host, or NULL past HISTORY_MAX_CHART_HOSTS */
    struct history_file *files;
    size_t nfiles, cap_files;
};

static void hosts_table(struct ctx *c, struct doc_table **out)
{
    const struct history *h = c->h;
    doc_heading(c->d, c->d->root, 2, "Hosts", false);
    doc_text(doc_para(c->d->root),
             "The newest run of each host, the hosts whose newest run is worst first.");
    /* a severity cell shows its word itself: the text beside it is the detail */
    struct doc_table *t = doc_table_block(c->d, c->d->root, 5);
    static const char *const head[] = {"Host", "Runs", "Newest run", "Worst run",
                                       "Newest headline"};
    for (size_t i = 0; i < 5; i++)
        doc_table_head(t, i, head[i], i == 1);
    for (size_t k = 0; k < h->nhosts; k++) {
        const struct history_host *ho = &h->hosts[k];
        const struct history_run *latest = &h->runs[ho->by_time[ho->nruns - 1]];
        const struct history_run *worst = &h->runs[ho->runs[0]];
        char w[64];
        doc_table_row(t);
        doc_cell_host(doc_table_cell(t, k, 0), ho->name, 100);
        doc_cell_ours(doc_table_cell(t, k, 1), "%zu", ho->nruns);
        struct doc_cell *s = doc_table_cell(t, k, 2);
        when(latest->start, w, sizeof w);
        doc_cell_ours(s, "%s", w);
        s->sev = (int)ho->latest;
        s = doc_table_cell(t, k, 3);
        when(worst->start, w, sizeof w);
        doc_cell_ours(s, "%s", w);
        s->sev = (int)ho->worst;
        doc_cell_host(doc_table_cell(t, k, 4), latest->headline, HISTORY_MAX_TEXT);
    }
    *out = t;
}

static void recurring_section(struct ctx *c)
{
    const struct history *h = c->h;
    doc_heading(c->d, c->d->root, 2, "Recurring findings", false);
    if (h->nrecurring == 0) {
        doc_text(doc_para(c->d->root), "No run has a finding.");
        return;
    }
    size_t rec = 0;
    for (size_t i = 0; i < h->nrecurring; i++)
        rec += h->recurring[i].runs > 1;
    doc_textf(doc_para(c->d->root),
              "Every finding of the runs above, the most frequent first; %zu of the %zu "
              "recur (found in more than one run).",
              rec, h->nrecurring);
    struct doc_table *t = doc_table_block(c->d, c->d->root, 5);
    static const char *const head[] = {"Finding (worst severity)", "Runs", "Hosts",
                                       "First seen", "Last seen"};
    for (size_t i = 0; i < 5; i++)
        doc_table_head(t, i, head[i], i == 1 || i == 2);
    for (size_t i = 0; i < h->nrecurring; i++) {
        const struct history_recurring *r = &h->recurring[i];
        char a[64], b[64];
        doc_table_row(t);
        struct doc_cell *cell = doc_table_cell(t, i, 0);
        doc_cell_host(cell, r->id, 100);
        cell->code = true;
        cell->sev = (int)r->worst;
        doc_cell_ours(doc_table_cell(t, i, 1), "%zu", r->runs);
        doc_cell_ours(doc_table_cell(t, i, 2), "%zu", r->hosts);
        when(r->first, a, sizeof a);
        when(r->last, b, sizeof b);
        doc_cell_ours(doc_table_cell(t, i, 3), "%s", a);
        doc_cell_ours(doc_table_cell(t, i, 4), "%s", b);
    }
}

static void host_charts(struct ctx *c, size_t k)
{
    const struct history *h = c->h;
    const struct history_host *ho = &h->hosts[k];
    struct report *r = c->scratch[k];
    if (!r) {
        doc_textf(doc_para(c->d->root),
                  "No charts: only the first %d hosts on this page get them.",
                  HISTORY_MAX_CHART_HOSTS);
        return;
    }
    if (r->nticks == 0) {
        doc_text(doc_para(c->d->root), "No charts: no run has a known time.");
        return;
    }
    for (size_t i = 0; i < r->nseries; i++) {
        const struct series *s = r->series[i];
        if (!series_has_data(s))
            continue;
        char *file = i == 0 ? xasprintf("severity-%zu.svg", k)
                            : xasprintf("trend-%zu-%zu.svg", k, i - 1);
        char *label = xasprintf("%s: %s", ho->name, i == 0 ? "severity over time"
                                                           : s->hdr.title);
        doc_chart_of(c->d, c->d->root, r, s, label, file);
        add_file(&c->files, &c->nfiles, &c->cap_files, file); /* the name moves there */
        svg_series_render(r, s, &c->files[c->nfiles - 1].body);
        free(label);
    }
}

static cmark_node *host_section(struct ctx *c, size_t k)
{
    const struct history *h = c->h;
    const struct history_host *ho = &h->hosts[k];
    cmark_node *heading = doc_heading(c->d, c->d->root, 2, ho->name, true);
    char a[64], b[64];
    when(h->runs[ho->by_time[0]].start, a, sizeof a);
    when(h->runs[ho->by_time[ho->nruns - 1]].start, b, sizeof b);
    doc_textf(doc_para(c->d->root), "%zu run%s from %s to %s; the worst first.", ho->nruns,
              ho->nruns == 1 ? "" : "s", a, b);
    /* a column for --case-id and --label when a run of this host has one */
    bool named = false;
    for (size_t j = 0; j < ho->nruns; j++)
        named |= h->runs[ho->runs[j]].case_id || h->runs[ho->runs[j]].label;
    struct doc_table *t = doc_table_block(c->d, c->d->root, named ? 5 : 4);
    static const char *const head[] = {"Severity, score", "Headline", "Time", "Bundle",
                                       "Case, label"};
    for (size_t i = 0; i < (named ? 5u : 4u); i++)
        doc_table_head(t, i, head[i], false);
    for (size_t j = 0; j < ho->nruns; j++) {
        const struct history_run *run = &h->runs[ho->runs[j]];
        char w[64];
        doc_table_row(t);
        struct doc_cell *cell = doc_table_cell(t, j, 0);
        doc_cell_ours(cell, "%.0f%s", run->score, run->failed ? " (the run failed)" : "");
        cell->sev = (int)run->sev;
        doc_cell_host(doc_table_cell(t, j, 1), run->headline, HISTORY_MAX_TEXT);
        when(run->start, w, sizeof w);
        doc_cell_ours(doc_table_cell(t, j, 2), "%s", w);
        cell = doc_table_cell(t, j, 3);
        doc_cell_host(cell, run->path, 200);
        char *link = run_link(run, c->outdir_abs);
        if (link)
            doc_cell_href(cell, link);
        free(link);
        if (named) {
            char *both = xasprintf("%s%s%s", run->case_id ? run->case_id : "",
                                   run->case_id && run->label ? " \xC2\xB7 " : "",
                                   run->label ? run->label : "");
            doc_cell_host(doc_table_cell(t, j, 4), both, RUN_CASE_ID_MAX + RUN_LABEL_MAX + 4);
            free(both);
        }
    }
    host_charts(c, k);
    return heading;
}

static void skipped_section(struct ctx *c)
{
    const struct history *h = c->h;
    doc_heading(c->d, c->d->root, 2, "Skipped", false);
    if (h->nskipped == 0 && h->over_cap == 0) {
        doc_text(doc_para(c->d->root), "Nothing: every directory found was a bundle and used.");
        return;
    }
    if (h->over_cap)
        doc_textf(doc_para(c->d->root),
                  "%zu more bundle%s not read: a page holds at most %d runs.", h->over_cap,
                  h->over_cap == 1 ? " was" : "s were", HISTORY_MAX_BUNDLES);
    if (h->skipped_more)
        doc_textf(doc_para(c->d->root), "%zu more skipped directories are not listed.",
                  h->skipped_more);
    if (h->nskipped == 0)
        return;
    struct doc_table *t = doc_table_block(c->d, c->d->root, 2);
    doc_table_head(t, 0, "Directory", false);
    doc_table_head(t, 1, "Why it was skipped", false);
    for (size_t i = 0; i < h->nskipped; i++) {
        doc_table_row(t);
        doc_cell_host(doc_table_cell(t, i, 0), h->skipped[i].path, 400);
        doc_cell_host(doc_table_cell(t, i, 1), h->skipped[i].reason, 600);
    }
}

static struct doc *history_doc(struct ctx *c, const char *headline)
{
    const struct history *h = c->h;
    struct doc *d = c->d = doc_new();
    doc_heading(d, d->root, 1, "perfreport history", false);
    cmark_node *v = doc_para(d->root);
    doc_mark_verdict(v);
    doc_host(v, headline, HISTORY_MAX_TEXT + 120);
    time_t first = 0, last = 0;
    for (size_t i = 0; i < h->nruns; i++) {
        time_t t = h->runs[i].start;
        if (t > 0 && (!first || t < first))
            first = t;
        if (t > last)
            last = t;
    }
    char a[64], b[64];
    when(first, a, sizeof a);
    when(last, b, sizeof b);
    doc_textf(doc_para(d->root), "%zu run%s of %zu host%s, from %s to %s; %zu director%s skipped.",
              h->nruns, h->nruns == 1 ? "" : "s", h->nhosts, h->nhosts == 1 ? "" : "s", a, b,
              h->nskipped + h->skipped_more + h->over_cap,
              h->nskipped + h->skipped_more + h->over_cap == 1 ? "y" : "ies");
    doc_text(doc_para(d->root), VERIFIED);
    /* the contents line, filled once the sections (and their anchors) exist */
    cmark_node *toc = doc_para(d->root);
    doc_strong(toc, "Contents:");
    struct doc_table *hosts;
    hosts_table(c, &hosts);
    recurring_section(c);
    for (size_t k = 0; k < h->nhosts; k++) {
        cmark_node *heading = host_section(c, k);
        doc_table_cell(hosts, k, 0)->anchor = doc_anchor(heading);
    }
    skipped_section(c);
    doc_heading(d, d->root, 2, "Limits", false);
    static const char *const sections[] = {"Hosts", "Recurring findings", "Skipped", "Limits"};
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        const char *anchor = NULL;
        for (cmark_node *n = cmark_node_first_child(d->root); n && !anchor;
             n = cmark_node_next(n)) {
            /* ours, not a host's heading: those carry host text */
            cmark_node *t = cmark_node_first_child(n);
            if (cmark_node_get_type(n) == CMARK_NODE_HEADING &&
                cmark_node_get_heading_level(n) == 2 && t && !doc_is_host(t) &&
                cmark_node_get_literal(t) && strcmp(cmark_node_get_literal(t), sections[i]) == 0)
                anchor = doc_anchor(n);
        }
        if (!anchor)
            continue;
        doc_text(toc, i ? " \xC2\xB7 " : " ");
        doc_text(doc_link(toc, anchor), sections[i]);
    }
    doc_textf(doc_para(d->root),
              "At most %d runs on a page, report.json files of at most %u MiB, %d entries "
              "read per directory, %d finding ids per run, %d key metrics (those perfreport "
              "diff compares with a per-tick series that the report charts) and charts for "
              "the first %d hosts.",
              HISTORY_MAX_BUNDLES, HISTORY_MAX_REPORT >> 20, HISTORY_MAX_DIR_ENTRIES,
              HISTORY_MAX_FINDINGS, HISTORY_MAX_METRICS, HISTORY_MAX_CHART_HOSTS);
    return d;
}

void history_render_json(const struct history *h, const char *outdir_abs, struct strbuf *out)
{
    struct jw w;
    char t[32];
    jw_init(&w, out, true);
    jw_obj_begin(&w);
    jw_knum(&w, "schema", 1);
    char *headline = history_headline(h);
    jw_kstr(&w, "headline", headline);
    free(headline);
    jw_kstr(&w, "verified", VERIFIED);
    jw_key(&w, "limits");
    jw_obj_begin(&w);
    jw_knum(&w, "max_bundles", HISTORY_MAX_BUNDLES);
    jw_knum(&w, "max_report_bytes", HISTORY_MAX_REPORT);
    jw_knum(&w, "max_dir_entries", HISTORY_MAX_DIR_ENTRIES);
    jw_knum(&w, "max_findings_per_run", HISTORY_MAX_FINDINGS);
    jw_knum(&w, "max_metrics", HISTORY_MAX_METRICS);
    jw_obj_end(&w);
    jw_key(&w, "metrics");
    jw_arr_begin(&w);
    for (size_t m = 0; m < h->nmetrics; m++) {
        jw_obj_begin(&w);
        jw_kstr(&w, "name", h->metrics[m].name);
        jw_kstr(&w, "title", h->metrics[m].title);
        jw_kstr(&w, "unit", h->metrics[m].unit);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_key(&w, "hosts");
    jw_arr_begin(&w);
    for (size_t k = 0; k < h->nhosts; k++) {
        const struct history_host *ho = &h->hosts[k];
        jw_obj_begin(&w);
        jw_kstr(&w, "hostname", ho->name);
        jw_kstr(&w, "newest_severity", severity_name(ho->latest));
        jw_kstr(&w, "worst_severity", severity_name(ho->worst));
        jw_key(&w, "runs");
        jw_arr_begin(&w);
        for (size_t j = 0; j < ho->nruns; j++) {
            const struct history_run *run = &h->runs[ho->runs[j]];
            jw_obj_begin(&w);
            jw_kstr(&w, "path", run->path);
            char *link = run_link(run, outdir_abs);
            jw_kstr(&w, "link", link);
            free(link);
            iso(run->start, t, sizeof t);
            jw_kstr(&w, "start", *t ? t : NULL);
            jw_knum(&w, "window_s", run->window_s);
            jw_kstr(&w, "severity", severity_name(run->sev));
            jw_knum(&w, "score", run->score);
            jw_kbool(&w, "failed", run->failed);
            jw_kstr(&w, "headline", run->headline);
            if (run->case_id)
                jw_kstr(&w, "case_id", run->case_id);
            if (run->label)
                jw_kstr(&w, "label", run->label);
            jw_key(&w, "findings");
            jw_arr_begin_flat(&w);
            for (size_t f = 0; f < run->nfindings; f++)
                jw_str(&w, run->findings[f].id);
            jw_arr_end(&w);
            jw_key(&w, "metrics");
            jw_obj_begin(&w);
            for (size_t m = 0; m < run->nvalues; m++)
                if (isfinite(run->values[m]))
                    jw_knum(&w, h->metrics[m].name, run->values[m]);
            jw_obj_end(&w);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_key(&w, "findings");
    jw_arr_begin(&w);
    for (size_t i = 0; i < h->nrecurring; i++) {
        const struct history_recurring *r = &h->recurring[i];
        jw_obj_begin(&w);
        jw_kstr(&w, "id", r->id);
        jw_knum(&w, "runs", (double)r->runs);
        jw_knum(&w, "hosts", (double)r->hosts);
        jw_kstr(&w, "worst_severity", severity_name(r->worst));
        iso(r->first, t, sizeof t);
        jw_kstr(&w, "first_seen", *t ? t : NULL);
        iso(r->last, t, sizeof t);
        jw_kstr(&w, "last_seen", *t ? t : NULL);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_key(&w, "skipped");
    jw_arr_begin(&w);
    for (size_t i = 0; i < h->nskipped; i++) {
        jw_obj_begin(&w);
        jw_kstr(&w, "path", h->skipped[i].path);
        jw_kstr(&w, "reason", h->skipped[i].reason);
        jw_obj_end(&w);
    }
    jw_arr_end(&w);
    jw_knum(&w, "skipped_unlisted", (double)h->skipped_more);
    jw_knum(&w, "over_cap", (double)h->over_cap);
    jw_obj_end(&w);
    (void)jw_finish(&w); /* balanced by construction */
    sb_addc(out, '\n');
}

/* The report html_page draws its banner from: the span of the runs as the
 * window, the headline's severity as its one finding. */
static struct report *page_report(const struct history *h)
{
    struct report *r = report_new();
    time_t first = 0, last = 0;
    double last_w = 0;
    for (size_t i = 0; i < h->nruns; i++) {
        const struct history_run *run = &h->runs[i];
        if (run->start > 0 && (!first || run->start < first))
            first = run->start;
        if (run->start >= last) {
            last = run->start;
            last_w = run->window_s;
        }
    }
    r->window.start_wall.tv_sec = first;
    r->window.actual_s = first ? (double)(last - first) + last_w : 0;
    r->tool_version = xstrdup(PERFREPORT_VERSION);
    /* the banner says "<first run> . <span> s window . <this>" */
    r->window.target = xasprintf("%zu run%s of %zu host%s", h->nruns, h->nruns == 1 ? "" : "s",
                                 h->nhosts, h->nhosts == 1 ? "" : "s");
    enum severity worst = SEV_NONE;
    for (size_t k = 0; k < h->nhosts; k++)
        if (h->hosts[k].latest > worst)
            worst = h->hosts[k].latest;
    if (worst != SEV_NONE)
        report_add_finding(r, "history.newest", worst, "history", "the newest runs");
    return r;
}

struct history_file *history_render(const struct history *h, const char *outdir_abs, size_t *n)
{
    struct ctx c = {.h = h, .outdir_abs = outdir_abs};
    c.scratch = xcalloc(h->nhosts + 1, sizeof *c.scratch);
    for (size_t k = 0; k < h->nhosts && k < HISTORY_MAX_CHART_HOSTS; k++)
        c.scratch[k] = host_report(h, &h->hosts[k]);
    add_file(&c.files, &c.nfiles, &c.cap_files, xstrdup("history.md"));
    add_file(&c.files, &c.nfiles, &c.cap_files, xstrdup("index.html"));
    add_file(&c.files, &c.nfiles, &c.cap_files, xstrdup("history.json"));
    char *headline = history_headline(h);
    struct doc *d = history_doc(&c, headline);
    doc_render_md(d, &c.files[0].body);
    struct report *pr = page_report(h);
    html_page(pr, d, headline, &c.files[1].body);
    report_free(pr);
    doc_free(d);
    free(headline);
    history_render_json(h, outdir_abs, &c.files[2].body);
    for (size_t k = 0; k < h->nhosts; k++)
        report_free(c.scratch[k]);
    free(c.scratch);
    *n = c.nfiles;
    return c.files;
}

void history_files_free(struct history_file *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(f[i].name);
        sb_free(&f[i].body);
    }
    free(f);
}
