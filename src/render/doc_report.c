/* The report's document tree from the model: see doc_report.h.  Reading
 * order: title and verdict, contents, findings, USE check, one section per
 * resource, system facts, collectors, thresholds. */
#include "doc_report.h"
#include "charts.h"
#include "hists.h"
#include "../codec/report_json.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../model/profile.h"
#include "../util/fmtnum.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 20 /* rows of a table shown; a count says how many more */

static bool same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

static const char *title_of(const struct model_entry *e)
{
    return e->title && *e->title ? e->title : e->name;
}

/* ---- numbers --------------------------------------------------------------- */

/* Characters of UTF-8 text (continuation bytes not counted). */
static size_t utf8_width(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* "/s" reads best glued to the number ("12/s"), words after a space. */
static void unit_suffix(struct strbuf *sb, const char *unit)
{
    if (!unit || !*unit)
        return;
    if (unit[0] != '/' && strcmp(unit, "%") != 0)
        sb_addc(sb, ' ');
    sb_add(sb, unit);
}

static void value_text(struct strbuf *sb, double v, const char *unit)
{
    char buf[96];
    fmt_quantity(buf, sizeof buf, v, unit);
    sb_add(sb, buf);
}

/* "3 d 2 h 5 min", "2 h 0 min", "11 min", "42 s": an uptime, read at a glance. */
static void duration_text(struct strbuf *sb, double seconds)
{
    if (!(seconds >= 0) || !(seconds < 1e15)) { /* garbled: not converted */
        sb_addc(sb, '-');
        return;
    }
    unsigned long long s = (unsigned long long)seconds;
    unsigned long long d = s / 86400, h = s % 86400 / 3600, m = s % 3600 / 60;
    if (d)
        sb_addf(sb, "%llu d %llu h %llu min", d, h, m);
    else if (h)
        sb_addf(sb, "%llu h %llu min", h, m);
    else if (m)
        sb_addf(sb, "%llu min", m);
    else
        sb_addf(sb, "%llu s", s);
}

/* ---- the pieces summary.md shares ---------------------------------------- */

void doc_verdict(const struct report *r, cmark_node *parent)
{
    cmark_node *p = doc_para(parent);
    doc_mark_verdict(p);
    enum severity worst = report_worst_severity(r);
    char word[32];
    snprintf(word, sizeof word, "%s:",
             r->failed ? "FAILED" : worst == SEV_INFO ? "OK" : md_sev_word(worst));
    doc_strong(p, word);
    doc_text(p, " ");
    if (r->headline && *r->headline)
        doc_host(p, r->headline, 400);
    else if (r->nfindings)
        doc_host(p, r->findings[0].title, 400);
    else
        doc_text(p, "No findings at warning or above.");
}

void doc_window_limits(const struct report *r, cmark_node *parent)
{
    if (r->failed || report_worst_severity(r) >= SEV_WARNING)
        return;
    cmark_node *p = doc_para(parent);
    double s = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    if (s > 0)
        doc_textf(p, "What a %.0f s window cannot show: ", s);
    else
        doc_text(p, "What a short window cannot show: ");
    doc_text(p, "load that comes and goes over minutes or hours, slow growth (memory, file "
                "descriptors, disk space) and anything before the window. Run perfreport again "
                "while the problem is happening, or from a timer (examples/systemd) to follow "
                "the host.");
}

size_t report_not_root(const struct report *r, struct strbuf *titles, size_t max_named)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nledger; i++) {
        const struct ledger_entry *e = &r->ledger[i];
        if (!ledger_not_root(e))
            continue;
        if (titles && n < max_named)
            sb_addf(titles, "%s%s", n ? ", " : "", e->title && *e->title ? e->title : e->name);
        n++;
    }
    if (titles && n > max_named)
        sb_addf(titles, " and %zu more", n - max_named);
    return n;
}

void doc_not_root(const struct report *r, cmark_node *parent)
{
    struct strbuf t = STRBUF_INIT;
    size_t n = report_not_root(r, &t, 6);
    if (n) {
        cmark_node *p = doc_para(parent);
        doc_strong(p, "Not measured without root:");
        doc_text(p, " ");
        doc_host(p, sb_str(&t), 600);
        doc_textf(p, " (%zu collector%s). Their findings cannot appear here: run perfreport as "
                     "root (sudo) to measure them.",
                  n, n == 1 ? "" : "s");
    }
    sb_free(&t);
}

void doc_context(const struct report *r, cmark_node *parent)
{
    cmark_node *p = doc_para(parent);
    doc_mark_context(p);
    const char *kernel = kv_get(&r->host, "kernel");
    double cpus = kv_num(&r->host, "cpus");
    doc_text(p, "Host ");
    doc_host(p, kv_get(&r->host, "hostname"), MD_MAX_TEXT);
    if (kernel) {
        doc_text(p, " · kernel ");
        doc_host(p, kernel, MD_MAX_TEXT);
    }
    struct strbuf sb = STRBUF_INIT;
    if (!isfinite(cpus))
        cpus = report_metric_value(r, NM_CPU_COUNT);
    if (isfinite(cpus))
        sb_addf(&sb, " · %.0f CPUs", cpus);
    sb_addf(&sb, " · %.1f s window", r->window.actual_s);
    if (r->window.interrupted || fabs(r->window.actual_s - r->window.planned_s) >= 1)
        sb_addf(&sb, " (planned %.0f s)", r->window.planned_s);
    if (r->window.interval_s > 0) {
        sb_add(&sb, ", sampled every ");
        md_number(&sb, r->window.interval_s);
        sb_add(&sb, " s");
    }
    sb_add(&sb, " · ");
    doc_text(p, sb_str(&sb));
    sb_free(&sb);
    doc_host(p, r->window.target ? r->window.target : "system-wide", MD_MAX_TEXT);
    char iso[40];
    format_iso8601_utc(&r->window.start_wall, iso, sizeof iso);
    if (iso[0]) {
        /* 2024-05-01T12:00:00Z -> 2024-05-01 12:00:00 UTC */
        iso[10] = ' ';
        iso[19] = '\0';
        doc_textf(p, " · started %s UTC", iso);
    }
}

void doc_case(const struct report *r, cmark_node *parent)
{
    const char *id = kv_get(&r->host, "case_id"), *label = kv_get(&r->host, "label");
    if (!id && !label)
        return;
    cmark_node *p = doc_para(parent);
    doc_mark_case(p);
    doc_strong(p, id ? "Case:" : "Label:");
    doc_text(p, " ");
    /* checked when given, but a bundle read back is anyone's: host text,
     * cut at the bounds the options keep */
    if (id) {
        doc_host(p, id, RUN_CASE_ID_MAX);
        if (label)
            doc_text(p, " \xC2\xB7 ");
    }
    if (label)
        doc_host(p, label, RUN_LABEL_MAX);
}

cmark_node *doc_finding(cmark_node *list, const struct finding *f, size_t max_evidence)
{
    cmark_node *item = doc_add(list, CMARK_NODE_ITEM);
    cmark_node *p = doc_para(item);
    char word[32];
    snprintf(word, sizeof word, "%s:", md_sev_word(f->sev));
    doc_strong(p, word);
    doc_text(p, " ");
    doc_host(p, f->title, 400);
    size_t shown = f->nevidence < max_evidence ? f->nevidence : max_evidence;
    if (shown || shown < f->nevidence) {
        cmark_node *ev = doc_list(item, false, 0);
        cmark_node_set_list_tight(ev, 1);
        for (size_t k = 0; k < shown; k++)
            doc_host(doc_para(doc_add(ev, CMARK_NODE_ITEM)), f->evidence[k], 400);
        if (shown < f->nevidence)
            doc_textf(doc_para(doc_add(ev, CMARK_NODE_ITEM)), "(%zu more in the report)",
                      f->nevidence - shown);
    }
    if (f->recommendation && *f->recommendation) {
        cmark_node *todo = doc_para(item);
        doc_strong(todo, "What to do:");
        doc_text(todo, " ");
        doc_host(todo, f->recommendation, 600);
    }
    return item;
}

/* ---- title, verdict, notes --------------------------------------------------- */

static void title_and_verdict(struct doc *d, const struct report *r)
{
    cmark_node *root = d->root;
    cmark_node *h = doc_add(root, CMARK_NODE_HEADING);
    cmark_node_set_heading_level(h, 1);
    doc_text(h, "perfreport: ");
    doc_host(h, kv_get(&r->host, "hostname"), MD_MAX_TEXT);
    struct strbuf title = STRBUF_INIT;
    doc_plain(h, &title);
    cmark_node_set_user_data(h, (void *)md_slugs_add(&d->slugs, sb_str(&title)));
    sb_free(&title);

    /* A partial window changes how every number below must be read, so it
     * comes before the verdict. */
    if (r->window.interrupted) {
        cmark_node *p = doc_para(root);
        doc_strong(p, "INCOMPLETE:");
        doc_textf(p,
                  " the capture window was interrupted after %.1f s of the planned %.0f s; "
                  "every figure covers only that part.",
                  r->window.actual_s, r->window.planned_s);
    }
    /* A capture `perfreport watch` started: what started it, before the
     * verdict it may or may not confirm. */
    const char *trigger = kv_get(&r->host, "trigger");
    if (trigger) {
        cmark_node *p = doc_para(root);
        doc_strong(p, "Triggered by");
        doc_text(p, " ");
        /* Ours, at most 255 bytes (watch.c), but a bundle read back is
         * anyone's: host text, cut where ours never is. */
        doc_host(p, trigger, 256);
    }
    doc_verdict(r, root);
    doc_case(r, root);
    doc_context(r, root);
    doc_not_root(r, root);
    doc_command(r, root);

    /* A value after a gap averages over it; its chart line breaks there. */
    for (size_t i = 0; i < r->ngaps; i++) {
        cmark_node *p = doc_para(root);
        doc_strong(p, "Sampling gap:");
        doc_textf(p,
                  " no sample from %.1f s to %.1f s (%.1f s, over %.0f intervals; perfreport "
                  "was stopped or starved); the sample after it averages over the whole gap.",
                  r->gaps[i].start_s, r->gaps[i].start_s + r->gaps[i].len_s, r->gaps[i].len_s,
                  TICK_GAP_FACTOR);
    }

    /* Whoever reads the ticket should know that command lines were edited. */
    double red = report_metric_value(r, NM_PRIVACY_REDACTED);
    const char *redact = kv_get(&r->host, "cmdline_redaction");
    if (isfinite(red) && red > 0)
        doc_textf(doc_para(root),
                  "Command lines: %.0f value%s redacted (pass/token/secret/key/auth/credential "
                  "options, URL passwords, Authorization headers); --no-redact shows them.",
                  red, red == 1 ? "" : "s");
    else if (redact && strncmp(redact, "off", 3) == 0)
        doc_text(doc_para(root), "Command lines: not redacted (--no-redact).");

    /* Missing sections are said right under the verdict: the figures that
     * collector would have given are absent below. */
    for (size_t i = 0; i < r->nledger; i++) {
        const struct ledger_entry *e = &r->ledger[i];
        if (e->status != CS_FAILED && e->status != CS_TIMED_OUT)
            continue;
        cmark_node *p = doc_para(root);
        doc_strong(p, "PARTIAL:");
        doc_text(p, " collector ");
        doc_host(p, e->title ? e->title : e->name, MD_MAX_TEXT);
        doc_text(p, e->status == CS_FAILED ? " failed: " : " timed out: ");
        doc_host(p, e->reason ? e->reason : "no reason given", MD_MAX_TEXT);
    }
}

/* ---- USE check --------------------------------------------------------------- */

static void use_cell(struct doc_cell *c, const struct use_cell *u)
{
    if (!u->text || !*u->text || strcmp(u->text, "-") == 0)
        return; /* "-" */
    doc_cell_host(c, u->text, MD_MAX_TEXT);
    c->sev = (int)u->sev;
}

static void use_table(struct doc *d, const struct report *r)
{
    doc_heading(d, d->root, 2, "USE check", false);
    if (r->nuse == 0) {
        doc_text(doc_para(d->root), "The USE check did not run.");
        return;
    }
    static const char *const head[] = {"Resource", "Utilisation", "Saturation", "Errors"};
    struct doc_table *t = doc_table_block(d, d->root, 4);
    t->cls = "use";
    for (size_t c = 0; c < 4; c++)
        doc_table_head(t, c, head[c], false);
    for (size_t i = 0; i < r->nuse; i++) {
        const struct use_row *u = &r->use[i];
        doc_table_row(t);
        doc_cell_host(doc_table_cell(t, i, 0), u->resource, MD_MAX_TEXT);
        use_cell(doc_table_cell(t, i, 1), &u->util);
        use_cell(doc_table_cell(t, i, 2), &u->sat);
        use_cell(doc_table_cell(t, i, 3), &u->err);
    }
}

/* ---- resource sections ------------------------------------------------------- */

/* Sections in reading order; resources not listed follow in the order the
 * model first mentions them. */
static const struct {
    const char *resource, *title;
} known_sections[] = {
    {"cpu", "CPU"},         {"memory", "Memory"},       {"psi", "Pressure (PSI)"},
    {"disk", "Disks"},      {"network", "Network"},     {"process", "Processes"},
    {"cgroup", "Cgroups"},     {"profile", "CPU profile"},
};
#define NKNOWN (sizeof known_sections / sizeof known_sections[0])

/* Fixed titles for resources that are not main sections but are expected. */
static const struct {
    const char *resource, *title;
} extra_titles[] = {
    {"fd", "File descriptors"}, {"host", "Host"},          {"sched", "Scheduler"},
    {"offcpu", "Off-CPU time"}, {"syscall", "System calls"}, {"io", "I/O"},
    {"lock", "Locks"},      {"baseline", "Compared with the baseline"},
    {"dns", "DNS lookups"},
    {"threads", "Threads"},
};

/* The heading of resource res's section: its fixed title, or NULL. */
static const char *section_title(const char *res)
{
    for (size_t i = 0; i < NKNOWN; i++)
        if (same(res, known_sections[i].resource))
            return known_sections[i].title;
    for (size_t i = 0; i < sizeof extra_titles / sizeof extra_titles[0]; i++)
        if (same(res, extra_titles[i].resource))
            return extra_titles[i].title;
    return NULL;
}

static bool is_known(const char *res)
{
    for (size_t i = 0; i < NKNOWN; i++)
        if (same(res, known_sections[i].resource))
            return true;
    return false;
}

struct reslist {
    const char **v; /* borrowed from the model */
    size_t n, cap;
};

static void reslist_add(struct reslist *l, const char *res)
{
    if (!res || is_known(res))
        return;
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], res) == 0)
            return;
    xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
    l->v[l->n++] = res;
}

static void metrics_table(struct doc *d, const struct report *r, const char *res)
{
    struct doc_table *t = NULL;
    struct strbuf v = STRBUF_INIT;
    for (size_t i = 0; i < r->nmetrics; i++) {
        const struct metric *m = &r->metrics[i];
        if (!same(m->resource, res))
            continue;
        if (!t) {
            t = doc_table_block(d, d->root, 2);
            doc_table_head(t, 0, "Metric", false);
            doc_table_head(t, 1, "Value", true);
        }
        doc_table_row(t);
        doc_cell_host(doc_table_cell(t, t->nrows - 1, 0),
                      m->title && *m->title ? m->title : m->name, MD_MAX_TEXT);
        sb_reset(&v);
        value_text(&v, m->value, m->unit);
        doc_cell_ours(doc_table_cell(t, t->nrows - 1, 1), "%s", sb_str(&v));
    }
    sb_free(&v);
}

static void charts(struct doc *d, const struct report *r, const char *res)
{
    for (size_t i = 0; i < r->nseries; i++) {
        const struct series *s = r->series[i];
        if (!s->chart || !same(s->hdr.resource, res))
            continue;
        char file[512];
        chart_filename(s, file, sizeof file);
        doc_chart(d, d->root, s, title_of(&s->hdr), file);
    }
}

static bool col_has_numbers(const struct table *t, size_t c)
{
    for (size_t row = 0; row < t->nrows; row++)
        if (t->cells[row * t->ncols + c].kind == CELL_NUM)
            return true;
    return false;
}

/* The titles of a section's tables and histograms that hold nothing: one
 * line at the section's end instead of a heading and "No rows." each. */
struct quiet {
    cmark_node *para; /* NULL until the first title */
};

static void quiet_add(struct quiet *q, cmark_node *parent, const char *title)
{
    if (!q->para) {
        q->para = doc_para(parent);
        doc_text(q->para, "Checked, nothing to report: ");
    } else {
        doc_text(q->para, ", ");
    }
    doc_host(q->para, title, MD_MAX_TEXT);
}

static void quiet_flush(struct quiet *q)
{
    if (q->para)
        doc_text(q->para, ".");
    q->para = NULL;
}

static bool table_is_empty(const struct table *t)
{
    return (t->ncols == 0 || t->nrows == 0) && !(t->note && *t->note);
}

/* A unit of time or size: its column's cells carry it, scaled by the one
 * formatter ("4.58 ms", "1.2 GiB"), and its header does not ("Avg wait us
 * 4584" was a raw figure to convert by hand). */
static bool is_quantity_unit(const char *unit)
{
    static const char *const q[] = {"ns", "us", "ms", "s", "B", "KiB", "MiB", "GiB", "TiB"};
    for (size_t i = 0; unit && i < sizeof q / sizeof q[0]; i++)
        if (strcmp(unit, q[i]) == 0)
            return true;
    return false;
}

/* Whether title already says its unit: "Calls/s" with "/s", and "Per s"
 * with "/s" (not "Per s/s"). */
static bool title_has_unit(const char *title, const char *unit)
{
    size_t tl = strlen(title), ul = strlen(unit);
    if (tl >= ul && strcmp(title + tl - ul, unit) == 0)
        return true;
    return unit[0] == '/' && ul > 1 && tl > ul && strcmp(title + tl - (ul - 1), unit + 1) == 0 &&
           title[tl - ul] == ' ';
}

/* Columns of identifiers, paths and commands: shown as code. */
static bool is_code_column(const char *name)
{
    static const char *const code[] = {"cmdline", "path", "cgroup", "function", "stack"};
    for (size_t i = 0; i < sizeof code / sizeof code[0]; i++)
        if (same(name, code[i]))
            return true;
    return false;
}

static void model_table(struct doc *d, const struct table *t)
{
    doc_heading(d, d->root, 3, title_of(&t->hdr), true);
    if (t->ncols && t->nrows) {
        struct doc_table *dt = doc_table_block(d, d->root, t->ncols);
        struct strbuf sb = STRBUF_INIT;
        for (size_t c = 0; c < t->ncols; c++) {
            const struct column *col = &t->cols[c];
            const char *title = col->title && *col->title ? col->title : col->name;
            sb_reset(&sb);
            sb_add(&sb, title ? title : "");
            if (col->unit && *col->unit && !is_quantity_unit(col->unit) &&
                !title_has_unit(sb_str(&sb), col->unit))
                unit_suffix(&sb, col->unit);
            doc_table_head(dt, c, sb_str(&sb), col_has_numbers(t, c));
        }
        sb_free(&sb);
        size_t shown = t->nrows < MAX_ROWS ? t->nrows : MAX_ROWS;
        for (size_t row = 0; row < shown; row++) {
            doc_table_row(dt);
            for (size_t c = 0; c < t->ncols; c++) {
                const struct cell *cl = &t->cells[row * t->ncols + c];
                const struct column *col = &t->cols[c];
                struct doc_cell *out = doc_table_cell(dt, row, c);
                if (cl->kind == CELL_NUM && isfinite(cl->num) && is_quantity_unit(col->unit)) {
                    char q[96];
                    fmt_quantity(q, sizeof q, cl->num, col->unit);
                    doc_cell_ours(out, "%s", q);
                } else if (cl->kind == CELL_NUM && isfinite(cl->num)) {
                    int dec = col->decimals < 0 ? 0 : col->decimals > 9 ? 9 : col->decimals;
                    doc_cell_ours(out, "%.*f", dec, cl->num);
                } else if (cl->kind == CELL_STR) {
                    doc_cell_host(out, cl->str,
                                  same(col->name, "cmdline") ? MD_MAX_CMDLINE : MD_MAX_TEXT);
                    out->code = is_code_column(col->name);
                }
            }
        }
        if (t->nrows > shown)
            doc_textf(doc_para(d->root), "… %zu more rows (all of them are in report.json).",
                      t->nrows - shown);
    }
    if (t->note && *t->note) {
        cmark_node *p = doc_para(d->root);
        doc_text(p, "Note: ");
        doc_host(p, t->note, 400);
    }
}

/* One histogram: heading, summary line, the buckets as a text table and
 * the graph (one block: Markdown shows both, HTML the graph). */
static void hist_block(struct doc *d, const struct hist *h)
{
    const char *title = title_of(&h->hdr);
    doc_heading(d, d->root, 3, title, true);
    unsigned first = 0, last = 0;
    if (!hist_range(h, &first, &last)) {
        doc_text(doc_para(d->root), "No samples in this window.");
        return;
    }
    char v[64];
    cmark_node *line = doc_para(d->root);
    doc_textf(line, "%llu samples", (unsigned long long)h->count);
    static const struct {
        const char *label;
        double p;
    } ps[] = {{"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        hist_fmt_value(hist_percentile(h, ps[i].p), h->hdr.unit, v, sizeof v);
        doc_textf(line, " · %s ", ps[i].label);
        doc_host(line, v, 40);
    }
    if (isfinite(h->max)) {
        hist_fmt_value(h->max, h->hdr.unit, v, sizeof v);
        doc_text(line, " · max ");
        doc_host(line, v, 40);
    }

    struct strbuf sb = STRBUF_INIT;
    /* Columns padded by characters, not bytes: a label may hold "µs". */
    uint64_t top = 0;
    size_t wlabel = strlen("range");
    for (unsigned b = first; b <= last; b++) {
        char label[64];
        hist_bucket_label(h->hdr.unit, b, label, sizeof label);
        if (utf8_width(label) > wlabel)
            wlabel = utf8_width(label);
        if (h->buckets[b] > top)
            top = h->buckets[b];
    }
    sb_addf(&sb, "%*s | %10s | %6s |\n", (int)wlabel, "range", "count", "share");
    for (unsigned b = first; b <= last; b++) {
        char label[64];
        hist_bucket_label(h->hdr.unit, b, label, sizeof label);
        double share = 100.0 * (double)h->buckets[b] / (double)h->count;
        /* a non-empty bucket always shows at least one mark */
        unsigned bar = top ? (unsigned)llround(30.0 * (double)h->buckets[b] / (double)top) : 0;
        if (bar == 0 && h->buckets[b])
            bar = 1;
        for (size_t k = utf8_width(label); k < wlabel; k++)
            sb_addc(&sb, ' ');
        sb_addf(&sb, "%s | %10llu | %5.1f%% |%s", label, (unsigned long long)h->buckets[b], share,
                bar ? " " : "");
        for (unsigned k = 0; k < bar; k++)
            sb_addc(&sb, '#');
        sb_addc(&sb, '\n');
    }
    char file[512];
    hist_filename(h, file, sizeof file);
    doc_hist(d, d->root, h, title, file, sb_str(&sb));
    sb_free(&sb);
}

static bool section_has_content(const struct report *r, const char *res)
{
    for (size_t i = 0; i < r->nmetrics; i++)
        if (same(r->metrics[i].resource, res))
            return true;
    for (size_t i = 0; i < r->nseries; i++)
        if (r->series[i]->chart && same(r->series[i]->hdr.resource, res))
            return true;
    for (size_t i = 0; i < r->ntables; i++)
        if (same(r->tables[i]->hdr.resource, res))
            return true;
    for (size_t i = 0; i < r->nhists; i++)
        if (same(r->hists[i]->hdr.resource, res))
            return true;
    return false;
}

static size_t profile_index(const struct report *r, const struct profile *p)
{
    for (size_t i = 0; i < r->nprofiles; i++)
        if (r->profiles[i] == p)
            return i;
    return 0;
}

/* The on-CPU profile: how it was sampled, the kernel/user split, top
 * processes and functions, the flame graph. */
static void profile_section(struct doc *d, const struct report *r)
{
    cmark_node *root = d->root;
    const struct profile *p = report_find_profile(r, "cpu");
    double n = report_metric_value(r, NM_PROFILE_SAMPLES);
    double hz = report_metric_value(r, NM_PROFILE_HZ), cpus = report_metric_value(r, NM_PROFILE_CPUS);
    double idle = report_metric_value(r, NM_PROFILE_IDLE_SAMPLES);
    if (!p || !isfinite(n)) {
        doc_text(doc_para(root), "Not measured in this run (see Collectors).");
        return;
    }
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "cpu-clock (software) sampling at %.0f Hz on %.0f CPU%s: %.0f samples on CPU",
            hz, cpus, cpus == 1 ? "" : "s", n);
    if (isfinite(idle))
        sb_addf(&sb, " (and %.0f idle samples, not shown)", idle);
    double k = report_metric_value(r, NM_PROFILE_KERNEL_PCT), u = report_metric_value(r, NM_PROFILE_USER_PCT);
    if (n > 0 && isfinite(k) && isfinite(u))
        sb_addf(&sb, "; kernel %.1f %%, user %.1f %%", k, u);
    sb_addc(&sb, '.');
    doc_text(doc_para(root), sb_str(&sb));
    sb_free(&sb);
    double lost = report_metric_value(r, NM_PROFILE_DROPPED);
    double mu = report_metric_value(r, NM_PROFILE_MISSING_USER);
    double mk = report_metric_value(r, NM_PROFILE_MISSING_KERNEL);
    if ((isfinite(lost) && lost > 0) || (isfinite(mu) && mu > 0) || (isfinite(mk) && mk > 0))
        doc_textf(doc_para(root),
                  "Losses: %.0f samples dropped (map full), %.0f without a user stack, %.0f "
                  "without a kernel stack (reasons under Collectors).",
                  isfinite(lost) ? lost : 0, isfinite(mu) ? mu : 0, isfinite(mk) ? mk : 0);
    static const char *const order[] = {NM_PROFILE_TOP_PROCS, NM_PROFILE_TOP_SELF, NM_PROFILE_TOP_TOTAL};
    struct quiet q = {NULL};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const struct table *t = report_find_table(r, order[i]);
        if (t && table_is_empty(t))
            quiet_add(&q, root, title_of(&t->hdr));
        else if (t)
            model_table(d, t);
    }
    quiet_flush(&q);
    if (n > 0) {
        char svg[512], folded[512];
        flame_filename(p, "svg", svg, sizeof svg);
        flame_filename(p, "folded", folded, sizeof folded);
        doc_flame(d, root, p, profile_index(r, p), "On-CPU flame graph", svg);
        cmark_node *para = doc_para(root);
        doc_text(para, "Folded stacks: ");
        doc_code(para, folded);
        doc_text(para, " (flamegraph.pl input).");
    }
}

/* Stack profiles drawn in a resource's section (the CPU profile has its own). */
static const struct {
    const char *resource, *profile, *caption, *folded_note;
} section_flames[] = {
    {"offcpu", "offcpu", "Off-CPU flame graph: where threads waited while blocked",
     " (flamegraph.pl input, microseconds)."},
    {"memory", "pagefault",
     "Page-fault flame graph: where resident memory grew (sampled; widths are estimated faults)",
     " (flamegraph.pl input, estimated faults)."},
    {"memory", "alloc", "Allocation flame graph: bytes allocated by call stack (-p target, uprobes)",
     " (flamegraph.pl input, bytes)."},
};

static void section(struct doc *d, const struct report *r, const char *res, const char *title)
{
    if (same(res, "profile")) {
        doc_heading(d, d->root, 2, title ? title : "CPU profile", false);
        profile_section(d, r);
        return;
    }
    doc_heading(d, d->root, 2, title ? title : res, title == NULL);
    if (!section_has_content(r, res)) {
        doc_text(doc_para(d->root), "Not measured in this run (see Collectors).");
        return;
    }
    metrics_table(d, r, res);
    charts(d, r, res);
    struct quiet q = {NULL};
    for (size_t i = 0; i < r->ntables; i++) {
        const struct table *t = r->tables[i];
        if (!same(t->hdr.resource, res))
            continue;
        /* the per-thread tables are shown joined (table "threads", analysis) */
        if (same(res, "threads") && !same(t->hdr.name, NM_THREADS) &&
            report_find_table(r, NM_THREADS))
            continue;
        if (table_is_empty(t))
            quiet_add(&q, d->root, title_of(&t->hdr));
        else
            model_table(d, t);
    }
    for (size_t i = 0; i < r->nhists; i++) {
        const struct hist *h = r->hists[i];
        unsigned first, last;
        if (!same(h->hdr.resource, res))
            continue;
        if (!hist_range(h, &first, &last))
            quiet_add(&q, d->root, title_of(&h->hdr));
        else
            hist_block(d, h);
    }
    quiet_flush(&q);
    for (size_t i = 0; i < sizeof section_flames / sizeof section_flames[0]; i++) {
        const struct profile *fp = report_find_profile(r, section_flames[i].profile);
        if (!same(res, section_flames[i].resource) || !fp || profile_total(fp) == 0)
            continue;
        char svg[512], folded[512];
        flame_filename(fp, "svg", svg, sizeof svg);
        flame_filename(fp, "folded", folded, sizeof folded);
        doc_flame(d, d->root, fp, profile_index(r, fp), section_flames[i].caption, svg);
        cmark_node *para = doc_para(d->root);
        doc_text(para, "Folded stacks: ");
        doc_code(para, folded);
        doc_text(para, section_flames[i].folded_note);
    }
}

/* The resource sections in document order, for the overview. */
struct sections {
    const char **res;   /* borrowed: fixed words or the model's */
    const char **title; /* NULL: the resource's name is its title */
    size_t n, cap, cap2;
};

static void sections_add(struct sections *ss, const char *res, const char *title)
{
    xgrow(&ss->res, &ss->cap, ss->n + 1, sizeof *ss->res);
    xgrow(&ss->title, &ss->cap2, ss->n + 1, sizeof *ss->title);
    ss->res[ss->n] = res;
    ss->title[ss->n++] = title;
}

static void resource_sections(struct doc *d, const struct report *r, struct sections *ss)
{
    for (size_t i = 0; i < NKNOWN; i++) {
        section(d, r, known_sections[i].resource, known_sections[i].title);
        sections_add(ss, known_sections[i].resource, known_sections[i].title);
    }

    struct reslist other = {0};
    for (size_t i = 0; i < r->nmetrics; i++)
        reslist_add(&other, r->metrics[i].resource);
    for (size_t i = 0; i < r->nseries; i++)
        if (r->series[i]->chart)
            reslist_add(&other, r->series[i]->hdr.resource);
    for (size_t i = 0; i < r->ntables; i++)
        reslist_add(&other, r->tables[i]->hdr.resource);
    for (size_t i = 0; i < r->nhists; i++)
        reslist_add(&other, r->hists[i]->hdr.resource);
    for (size_t i = 0; i < other.n; i++) {
        section(d, r, other.v[i], section_title(other.v[i]));
        sections_add(ss, other.v[i], section_title(other.v[i]));
    }
    free(other.v);
}

/* ---- system, collectors, thresholds ----------------------------------------- */

static void kv_bullets(cmark_node *parent, const struct kvlist *l)
{
    cmark_node *list = doc_list(parent, false, 0);
    cmark_node_set_list_tight(list, 1);
    struct strbuf v = STRBUF_INIT;
    for (size_t i = 0; i < l->n; i++) {
        const struct kv *e = &l->v[i];
        cmark_node *p = doc_para(doc_add(list, CMARK_NODE_ITEM));
        cmark_node *key = doc_add(p, CMARK_NODE_STRONG);
        doc_host(key, e->title && *e->title ? e->title : e->key, MD_MAX_TEXT);
        doc_text(key, ":");
        doc_text(p, " ");
        sb_reset(&v);
        if (!e->unit) {
            doc_host(p, e->value, MD_MAX_CMDLINE);
            continue;
        }
        if (!isfinite(e->num))
            sb_add(&v, "n/a");
        else if (strcmp(e->unit, "s") == 0)
            duration_text(&v, e->num);
        else
            value_text(&v, e->num, e->unit);
        doc_text(p, sb_str(&v));
    }
    sb_free(&v);
}

static void system_section(struct doc *d, const struct report *r)
{
    doc_heading(d, d->root, 2, "System", false);
    if (r->host.n)
        kv_bullets(d->root, &r->host);
    else
        doc_text(doc_para(d->root), "No system facts were recorded.");
    doc_heading(d, d->root, 3, "Capabilities", false);
    if (r->caps.n)
        kv_bullets(d->root, &r->caps);
    else
        doc_text(doc_para(d->root), "No capability probe results were recorded.");
}

static void collectors(struct doc *d, const struct report *r)
{
    doc_heading(d, d->root, 2, "Collectors", false);
    if (r->nledger == 0) {
        doc_text(doc_para(d->root), "No collectors were planned.");
        return;
    }
    static const char *const head[] = {"Collector", "Status", "Reason", "Duration", "Notes"};
    struct doc_table *t = doc_table_block(d, d->root, 5);
    for (size_t c = 0; c < 5; c++)
        doc_table_head(t, c, head[c], c == 3);
    for (size_t i = 0; i < r->nledger; i++) {
        const struct ledger_entry *e = &r->ledger[i];
        doc_table_row(t);
        doc_cell_host(doc_table_cell(t, i, 0), e->name, MD_MAX_TEXT);
        doc_table_cell(t, i, 0)->code = true;
        doc_cell_ours(doc_table_cell(t, i, 1), "%s", coll_status_name(e->status));
        doc_cell_host(doc_table_cell(t, i, 2), e->reason, 200);
        char ms[96];
        fmt_quantity(ms, sizeof ms, isfinite(e->duration_ms) ? e->duration_ms : 0.0, "ms");
        doc_cell_ours(doc_table_cell(t, i, 3), "%s", ms);
        doc_cell_host(doc_table_cell(t, i, 4), e->notes, 200);
    }
}

static void thresholds(struct doc *d, const struct report *r)
{
    doc_heading(d, d->root, 2, "Appendix: thresholds", false);
    if (r->nthresholds == 0) {
        doc_text(doc_para(d->root), "No thresholds were loaded.");
        return;
    }
    /* the limits with their unit, through the one formatter ("10 ms", not
     * "10000" beside a column "us") */
    static const char *const head[] = {"Id", "Threshold", "Warning", "Critical", "Direction"};
    struct doc_table *t = doc_table_block(d, d->root, 5);
    for (size_t c = 0; c < 5; c++)
        doc_table_head(t, c, head[c], c == 2 || c == 3);
    char q[96];
    for (size_t i = 0; i < r->nthresholds; i++) {
        const struct threshold *th = &r->thresholds[i];
        doc_table_row(t);
        doc_cell_host(doc_table_cell(t, i, 0), th->id, MD_MAX_TEXT);
        doc_table_cell(t, i, 0)->code = true;
        doc_cell_host(doc_table_cell(t, i, 1), th->title, MD_MAX_TEXT);
        fmt_quantity(q, sizeof q, th->warn, th->unit);
        doc_cell_host(doc_table_cell(t, i, 2), q, 120);
        fmt_quantity(q, sizeof q, th->crit, th->unit);
        doc_cell_host(doc_table_cell(t, i, 3), q, 120);
        doc_cell_ours(doc_table_cell(t, i, 4), "%s",
                      th->lower_is_worse ? "lower is worse" : "higher is worse");
    }
}

/* ---- contents and evidence links ------------------------------------------- */

/* The anchor of the level-2 section titled `title`, or NULL. */
static const char *section_anchor(const struct doc *d, const char *title)
{
    const char *found = NULL;
    struct strbuf text = STRBUF_INIT;
    for (cmark_node *n = cmark_node_first_child(d->root); n && !found; n = cmark_node_next(n)) {
        if (cmark_node_get_type(n) != CMARK_NODE_HEADING || cmark_node_get_heading_level(n) != 2)
            continue;
        sb_reset(&text);
        doc_plain(n, &text);
        if (title && strcmp(sb_str(&text), title) == 0)
            found = doc_anchor(n);
    }
    sb_free(&text);
    return found;
}

static void link_to(cmark_node *para, const char *title, const char *anchor)
{
    cmark_node *l = doc_link(para, anchor);
    doc_host(l, title, MD_MAX_TEXT);
}

/* "**Contents:** [Findings](#findings) · ...": every level-2 section, in
 * para (which holds the label); dropped when there are fewer than two. */
static void contents(struct doc *d, cmark_node *para)
{
    size_t n = 0;
    struct strbuf text = STRBUF_INIT;
    for (cmark_node *h = cmark_node_first_child(d->root); h; h = cmark_node_next(h)) {
        if (cmark_node_get_type(h) != CMARK_NODE_HEADING || cmark_node_get_heading_level(h) != 2)
            continue;
        if (n++)
            doc_text(para, " · ");
        sb_reset(&text);
        doc_plain(h, &text);
        link_to(para, sb_str(&text), doc_anchor(h));
    }
    sb_free(&text);
    if (n < 2)
        cmark_node_free(para);
    else
        d->contents = para;
}

/* "**Evidence:** [CPU](#cpu) · [CPU profile](#cpu-profile)": the sections
 * that hold a finding's evidence. */
static void evidence_links(const struct doc *d, const struct finding *f, cmark_node *item)
{
    const char *titles[2] = {section_title(f->resource), NULL};
    if (!titles[0])
        titles[0] = f->resource;
    if (same(f->resource, "cpu") || same(f->resource, "process") || same(f->resource, "sched"))
        titles[1] = "CPU profile"; /* the flame graph: where its advice points */
    cmark_node *p = NULL;
    for (size_t i = 0; i < 2; i++) {
        const char *anchor = section_anchor(d, titles[i]);
        if (!anchor)
            continue;
        if (!p) {
            p = doc_para(item);
            doc_strong(p, "Evidence:");
            doc_text(p, " ");
        } else {
            doc_text(p, " · ");
        }
        link_to(p, titles[i], anchor);
    }
}

/* The figure that says most about a resource at a glance: its USE
 * utilisation and saturation when the check covers it, else a chosen metric
 * or the first the model files under it. */
static void key_figures(const struct report *r, const char *res, struct strbuf *out)
{
    for (size_t i = 0; i < r->nuse; i++) {
        const struct use_row *u = &r->use[i];
        if (!same(u->resource, res))
            continue;
        const struct use_cell *c[2] = {&u->util, &u->sat};
        for (size_t k = 0; k < 2; k++) {
            if (!c[k]->text || !*c[k]->text || strcmp(c[k]->text, "-") == 0)
                continue;
            if (out->len)
                sb_add(out, "; ");
            sb_add(out, c[k]->text);
        }
        return;
    }
    static const struct {
        const char *res, *metric;
    } chosen[] = {{"profile", NM_PROFILE_SAMPLES},
                  {"syscall", NM_SYSCALL_TOTAL_PER_S},
                  {"offcpu", NM_OFFCPU_TOTAL_MS}};
    const struct metric *m = NULL;
    for (size_t i = 0; i < sizeof chosen / sizeof chosen[0] && !m; i++)
        if (same(res, chosen[i].res))
            m = report_find_metric(r, chosen[i].metric);
    for (size_t i = 0; i < r->nmetrics && !m; i++)
        if (same(r->metrics[i].resource, res))
            m = &r->metrics[i];
    if (!m)
        return;
    sb_add(out, m->title && *m->title ? m->title : m->name);
    sb_addc(out, ' ');
    value_text(out, m->value, m->unit);
}

/* One row per resource section: its worst severity (findings that concern
 * it, filed under it or with it among their related resources, and its USE
 * cells), how many findings, its key figures, a link to the first of its
 * findings.  The words agree with the colour: a row whose USE check is past
 * a threshold without a finding says so instead of "nothing found". */
static void overview(struct doc *d, const struct report *r, const struct sections *ss,
                     struct doc_table *t, cmark_node *const *items)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < ss->n; i++) {
        const char *res = ss->res[i];
        bool measured = same(res, "profile") ? report_find_profile(r, "cpu") != NULL
                                             : section_has_content(r, res);
        if (same(res, "host") || same(res, "baseline") || (!measured && is_known(res) && !same(res, "profile")))
            continue; /* "Host" holds the run's own bookkeeping */
        int worst = SEV_NONE, use_worst = SEV_NONE;
        size_t nf = 0;
        const char *first = NULL; /* anchor of its first (highest ranked) finding */
        for (size_t k = 0; k < r->nfindings; k++)
            if (finding_concerns(&r->findings[k], res)) {
                if (!nf++ && items[k])
                    first = doc_item_anchor_of(items[k]);
                if ((int)r->findings[k].sev > worst)
                    worst = (int)r->findings[k].sev;
            }
        for (size_t k = 0; k < r->nuse; k++) {
            const struct use_row *u = &r->use[k];
            if (!same(u->resource, res))
                continue;
            const struct use_cell *c[3] = {&u->util, &u->sat, &u->err};
            for (size_t j = 0; j < 3; j++)
                if (c[j]->text && *c[j]->text && strcmp(c[j]->text, "-") != 0 &&
                    (int)c[j]->sev > use_worst)
                    use_worst = (int)c[j]->sev;
        }
        if (use_worst > worst)
            worst = use_worst;
        doc_table_row(t);
        size_t row = t->nrows - 1;
        struct doc_cell *area = doc_table_cell(t, row, 0);
        doc_cell_host(area, ss->title[i] ? ss->title[i] : res, MD_MAX_TEXT);
        area->anchor = section_anchor(d, area->text);
        struct doc_cell *status = doc_table_cell(t, row, 1);
        if (!measured) {
            doc_cell_ours(status, "not measured");
        } else {
            if (nf)
                doc_cell_ours(status, "%zu finding%s", nf, nf == 1 ? "" : "s");
            else if (use_worst >= SEV_WARNING)
                doc_cell_ours(status, "past a USE threshold, no finding");
            else
                doc_cell_ours(status, "nothing found");
            status->sev = worst;
            if (nf) {
                status->anchor = first ? first : section_anchor(d, "Findings");
                status->anchor_md = section_anchor(d, "Findings");
            }
            else if (use_worst >= SEV_WARNING)
                status->anchor = section_anchor(d, "USE check");
        }
        sb_reset(&sb);
        if (measured)
            key_figures(r, res, &sb);
        if (sb.len)
            doc_cell_host(doc_table_cell(t, row, 2), sb_str(&sb), 160);
    }
    sb_free(&sb);
}

static void findings(struct doc *d, const struct report *r, cmark_node **items)
{
    doc_heading(d, d->root, 2, "Findings", false);
    size_t serious = 0;
    for (size_t i = 0; i < r->nfindings; i++)
        if (r->findings[i].sev >= SEV_WARNING)
            serious++;
    if (serious == 0) {
        doc_text(doc_para(d->root), "No findings at warning or above.");
        doc_window_limits(r, d->root);
    }
    if (r->nfindings == 0)
        return;
    cmark_node *list = doc_list(d->root, true, 1);
    for (size_t i = 0; i < r->nfindings; i++) {
        items[i] = doc_finding(list, &r->findings[i], r->findings[i].nevidence);
        char anchor[160];
        snprintf(anchor, sizeof anchor, "finding-%s", r->findings[i].id);
        doc_item_anchor(d, items[i], anchor);
    }
}

struct doc *doc_report(const struct report *r)
{
    struct doc *d = doc_new();
    title_and_verdict(d, r);
    /* filled once every section exists; the contents line first, so the
     * keyboard reaches it (and the page's skip links) before the overview's
     * links */
    cmark_node *toc = doc_para(d->root);
    doc_strong(toc, "Contents:");
    doc_text(toc, " ");
    doc_heading(d, d->root, 2, "Overview", false);
    struct doc_table *over = doc_table_block(d, d->root, 3);
    over->cls = "overview";
    doc_table_head(over, 0, "Area", false);
    doc_table_head(over, 1, "Status", false);
    doc_table_head(over, 2, "Key figures", false);
    cmark_node **items = xcalloc(r->nfindings + 1, sizeof *items);
    findings(d, r, items);
    use_table(d, r);
    /* What a stakeholder reads ends here; the sections after are the
     * details behind it (folded on screen, printed after a page break). */
    cmark_node *use_end = cmark_node_last_child(d->root);
    struct sections ss = {0};
    resource_sections(d, r, &ss);
    cmark_node *next = cmark_node_next(use_end);
    if (next && cmark_node_get_type(next) == CMARK_NODE_HEADING &&
        cmark_node_get_heading_level(next) == 2)
        d->appendix = next;
    system_section(d, r);
    collectors(d, r);
    thresholds(d, r);
    for (size_t i = 0; i < r->nfindings; i++)
        evidence_links(d, &r->findings[i], items[i]);
    overview(d, r, &ss, over, items);
    free(items);
    free(ss.res);
    free(ss.title);
    contents(d, toc);
    return d;
}
