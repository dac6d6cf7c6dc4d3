#include "markdown.h"
#include "md_common.h"
#include "charts.h"
#include "hists.h"
#include "escape.h"
#include "json_common.h"
#include "renderer.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../model/profile.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MD_MAX_ROWS 20 /* rows of a table shown; a count says how many more */

/* "/s" reads best glued to the number ("12/s"), words after a space. */
static void md_unit_suffix(struct strbuf *sb, const char *unit)
{
    if (!unit || !*unit)
        return;
    if (unit[0] != '/' && strcmp(unit, "%") != 0)
        sb_addc(sb, ' ');
    md_text(sb, unit, 20);
}

static void md_value(struct strbuf *sb, double v, const char *unit)
{
    if (!isfinite(v)) {
        sb_addc(sb, '-');
        return;
    }
    if (unit && strcmp(unit, "%") == 0) {
        sb_addf(sb, "%.1f%%", v);
    } else if (unit && strcmp(unit, "KiB") == 0 && fabs(v) >= 1024.0 * 1024.0) {
        sb_addf(sb, "%.1f GiB", v / (1024.0 * 1024.0));
    } else if (unit && strcmp(unit, "KiB") == 0 && fabs(v) >= 1024.0) {
        sb_addf(sb, "%.1f MiB", v / 1024.0);
    } else {
        md_number(sb, v);
        md_unit_suffix(sb, unit);
    }
}

static void title_and_verdict(const struct report *r, struct strbuf *sb)
{
    sb_add(sb, "# perfreport: ");
    md_text(sb, kv_get(&r->host, "hostname"), MD_MAX_TEXT);
    sb_add(sb, "\n\n");

    /* A partial window changes how every number below must be read, so it
     * comes before the verdict. */
    if (r->window.interrupted)
        sb_addf(sb,
                "**INCOMPLETE:** the capture window was interrupted after %.1f s of the "
                "planned %.0f s; every figure covers only that part.\n\n",
                r->window.actual_s, r->window.planned_s);
    md_verdict(r, sb);
    sb_add(sb, "\n\n");
    md_context(r, sb);
    sb_add(sb, "\n\n");

    /* A value after a gap averages over it; its chart line breaks there. */
    for (size_t i = 0; i < r->ngaps; i++)
        sb_addf(sb,
                "**Sampling gap:** no sample from %.1f s to %.1f s (%.1f s, over %.0f "
                "intervals; perfreport was stopped or starved); the sample after it "
                "averages over the whole gap.\n\n",
                r->gaps[i].start_s, r->gaps[i].start_s + r->gaps[i].len_s, r->gaps[i].len_s,
                TICK_GAP_FACTOR);

    /* Whoever reads the ticket should know that command lines were edited. */
    double red = report_metric_value(r, NM_PRIVACY_REDACTED);
    const char *redact = kv_get(&r->host, "cmdline_redaction");
    if (isfinite(red))
        sb_addf(sb,
                "Command lines: %.0f value%s redacted (pass/token/secret/key/auth/credential "
                "options, URL passwords, Authorization headers); --no-redact shows them.\n\n",
                red, red == 1 ? "" : "s");
    else if (redact && strncmp(redact, "off", 3) == 0)
        sb_add(sb, "Command lines: not redacted (--no-redact).\n\n");

    /* Missing sections are said right under the verdict: the figures that
     * collector would have given are absent below. */
    for (size_t i = 0; i < r->nledger; i++) {
        const struct ledger_entry *e = &r->ledger[i];
        if (e->status != CS_FAILED && e->status != CS_TIMED_OUT)
            continue;
        sb_add(sb, "**PARTIAL:** collector ");
        md_text(sb, e->title ? e->title : e->name, MD_MAX_TEXT);
        sb_add(sb, e->status == CS_FAILED ? " failed: " : " timed out: ");
        md_text(sb, e->reason ? e->reason : "no reason given", MD_MAX_TEXT);
        sb_add(sb, "\n\n");
    }
}

static void use_cell(struct strbuf *sb, const struct use_cell *c)
{
    sb_add(sb, " ");
    if (!c->text || !*c->text || strcmp(c->text, "-") == 0) {
        sb_add(sb, "- |");
        return;
    }
    switch (c->sev) {
    case SEV_CRITICAL: sb_add(sb, "**critical** · "); break;
    case SEV_WARNING: sb_add(sb, "**warning** · "); break;
    case SEV_INFO: sb_add(sb, "info · "); break;
    default: sb_add(sb, "ok · "); break;
    }
    md_text(sb, c->text, MD_MAX_TEXT);
    sb_add(sb, " |");
}

static void use_table(const struct report *r, struct strbuf *sb)
{
    sb_add(sb, "## USE check\n\n");
    if (r->nuse == 0) {
        sb_add(sb, "The USE check did not run.\n\n");
        return;
    }
    sb_add(sb, "| Resource | Utilisation | Saturation | Errors |\n|---|---|---|---|\n");
    for (size_t i = 0; i < r->nuse; i++) {
        const struct use_row *u = &r->use[i];
        sb_add(sb, "| ");
        md_text(sb, u->resource, MD_MAX_TEXT);
        sb_add(sb, " |");
        use_cell(sb, &u->util);
        use_cell(sb, &u->sat);
        use_cell(sb, &u->err);
        sb_add(sb, "\n");
    }
    sb_add(sb, "\n");
}

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
    {"lock", "Locks"},
};

static bool same(const char *a, const char *b) { return a && b && strcmp(a, b) == 0; }

/* The heading of resource res's section: its fixed title, or res itself. */
static const char *section_title(const char *res)
{
    for (size_t i = 0; i < NKNOWN; i++)
        if (same(res, known_sections[i].resource))
            return known_sections[i].title;
    for (size_t i = 0; i < sizeof extra_titles / sizeof extra_titles[0]; i++)
        if (same(res, extra_titles[i].resource))
            return extra_titles[i].title;
    return res;
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

static void metrics_table(const struct report *r, const char *res, struct strbuf *sb)
{
    bool any = false;
    for (size_t i = 0; i < r->nmetrics; i++) {
        const struct metric *m = &r->metrics[i];
        if (!same(m->resource, res))
            continue;
        if (!any)
            sb_add(sb, "| Metric | Value |\n|---|---:|\n");
        any = true;
        sb_add(sb, "| ");
        md_text(sb, m->title && *m->title ? m->title : m->name, MD_MAX_TEXT);
        sb_add(sb, " | ");
        md_value(sb, m->value, m->unit);
        sb_add(sb, " |\n");
    }
    if (any)
        sb_add(sb, "\n");
}

static void charts(const struct report *r, const char *res, struct strbuf *sb)
{
    for (size_t i = 0; i < r->nseries; i++) {
        const struct series *s = r->series[i];
        if (!s->chart || !same(s->hdr.resource, res))
            continue;
        char file[512];
        chart_filename(s, file, sizeof file);
        /* chart_filename() only emits [A-Za-z0-9._-]: safe as a bare link
         * destination.  One image per paragraph so the HTML side can swap
         * the node for the SVG. */
        sb_add(sb, "![");
        md_label(sb, s->hdr.title && *s->hdr.title ? s->hdr.title : s->hdr.name, MD_MAX_TEXT);
        sb_addf(sb, "](%s)\n\n", file);
    }
}

static bool col_has_numbers(const struct table *t, size_t c)
{
    for (size_t row = 0; row < t->nrows; row++)
        if (t->cells[row * t->ncols + c].kind == CELL_NUM)
            return true;
    return false;
}

static void table_header_cell(struct strbuf *sb, const struct column *col)
{
    const char *title = col->title && *col->title ? col->title : col->name;
    md_text(sb, title, MD_MAX_TEXT);
    if (col->unit && *col->unit) {
        size_t tl = strlen(title), ul = strlen(col->unit);
        bool has_unit = tl >= ul && strcmp(title + tl - ul, col->unit) == 0;
        if (!has_unit)
            md_unit_suffix(sb, col->unit);
    }
}

static void table_cell_text(struct strbuf *sb, const struct table *t, size_t row, size_t c)
{
    const struct cell *cl = &t->cells[row * t->ncols + c];
    const struct column *col = &t->cols[c];
    if (cl->kind == CELL_NUM && isfinite(cl->num)) {
        int dec = col->decimals < 0 ? 0 : col->decimals > 9 ? 9 : col->decimals;
        sb_addf(sb, "%.*f", dec, cl->num);
    } else if (cl->kind == CELL_STR) {
        md_cell(sb, cl->str, same(col->name, "cmdline") ? MD_MAX_CMDLINE : MD_MAX_TEXT);
    } else {
        sb_addc(sb, '-');
    }
}

/* The titles of a section's tables and histograms that hold nothing: one
 * line at the section's end instead of a heading and "No rows." each. */
struct quiet {
    struct strbuf names;
    size_t n;
};

static void quiet_add(struct quiet *q, const char *title)
{
    if (q->n++)
        sb_add(&q->names, ", ");
    md_text(&q->names, title, MD_MAX_TEXT);
}

static void quiet_flush(struct quiet *q, struct strbuf *sb)
{
    if (q->n)
        sb_addf(sb, "Checked, nothing to report: %s.\n\n", sb_str(&q->names));
    sb_free(&q->names);
    q->n = 0;
}

static bool table_is_empty(const struct table *t)
{
    return (t->ncols == 0 || t->nrows == 0) && !(t->note && *t->note);
}

static void table_md(const struct table *t, struct strbuf *sb)
{
    sb_add(sb, "### ");
    md_text(sb, t->hdr.title && *t->hdr.title ? t->hdr.title : t->hdr.name, MD_MAX_TEXT);
    sb_add(sb, "\n\n");
    if (t->ncols == 0 || t->nrows == 0) {
        /* only a table whose note says why it is empty comes here */
    } else {
        sb_add(sb, "|");
        for (size_t c = 0; c < t->ncols; c++) {
            sb_add(sb, " ");
            table_header_cell(sb, &t->cols[c]);
            sb_add(sb, " |");
        }
        sb_add(sb, "\n|");
        for (size_t c = 0; c < t->ncols; c++)
            sb_add(sb, col_has_numbers(t, c) ? "---:|" : "---|");
        sb_add(sb, "\n");
        size_t shown = t->nrows < MD_MAX_ROWS ? t->nrows : MD_MAX_ROWS;
        for (size_t row = 0; row < shown; row++) {
            sb_add(sb, "|");
            for (size_t c = 0; c < t->ncols; c++) {
                sb_add(sb, " ");
                table_cell_text(sb, t, row, c);
                sb_add(sb, " |");
            }
            sb_add(sb, "\n");
        }
        sb_add(sb, "\n");
        if (t->nrows > shown)
            sb_addf(sb, "… %zu more rows (all of them are in report.json).\n\n",
                    t->nrows - shown);
    }
    if (t->note && *t->note) {
        sb_add(sb, "Note: ");
        md_text(sb, t->note, 400);
        sb_add(sb, "\n\n");
    }
}

/* One histogram: heading, summary line, the buckets as a text table (in a
 * code block: only our own labels and numbers go there) and the SVG. */
static void hist_md(const struct hist *h, struct strbuf *sb)
{
    const char *title = h->hdr.title && *h->hdr.title ? h->hdr.title : h->hdr.name;
    sb_add(sb, "### ");
    md_text(sb, title, MD_MAX_TEXT);
    sb_add(sb, "\n\n");
    unsigned first = 0, last = 0;
    if (!hist_range(h, &first, &last)) {
        sb_add(sb, "No samples in this window.\n\n");
        return;
    }
    char v[64];
    sb_addf(sb, "%llu samples", (unsigned long long)h->count);
    static const struct {
        const char *label;
        double p;
    } ps[] = {{"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        hist_fmt_value(hist_percentile(h, ps[i].p), h->hdr.unit, v, sizeof v);
        sb_addf(sb, " · %s ", ps[i].label);
        md_text(sb, v, 40);
    }
    if (isfinite(h->max)) {
        hist_fmt_value(h->max, h->hdr.unit, v, sizeof v);
        sb_add(sb, " · max ");
        md_text(sb, v, 40);
    }
    sb_add(sb, "\n\n");

    uint64_t top = 0;
    size_t wlabel = strlen("range");
    for (unsigned b = first; b <= last; b++) {
        char label[64];
        hist_bucket_label(h->hdr.unit, b, label, sizeof label);
        if (strlen(label) > wlabel)
            wlabel = strlen(label);
        if (h->buckets[b] > top)
            top = h->buckets[b];
    }
    sb_add(sb, "```text\n");
    sb_addf(sb, "%*s | %10s | %6s |\n", (int)wlabel, "range", "count", "share");
    for (unsigned b = first; b <= last; b++) {
        char label[64];
        hist_bucket_label(h->hdr.unit, b, label, sizeof label);
        double share = 100.0 * (double)h->buckets[b] / (double)h->count;
        /* a non-empty bucket always shows at least one mark */
        unsigned bar = top ? (unsigned)llround(30.0 * (double)h->buckets[b] / (double)top) : 0;
        if (bar == 0 && h->buckets[b])
            bar = 1;
        sb_addf(sb, "%*s | %10llu | %5.1f%% |%s", (int)wlabel, label,
                (unsigned long long)h->buckets[b], share, bar ? " " : "");
        for (unsigned k = 0; k < bar; k++)
            sb_addc(sb, '#');
        sb_add(sb, "\n");
    }
    sb_add(sb, "```\n\n");
    char file[512];
    hist_filename(h, file, sizeof file);
    /* hist_filename() only emits [A-Za-z0-9._-]: safe as a link destination */
    sb_add(sb, "![");
    md_label(sb, title, MD_MAX_TEXT);
    sb_addf(sb, "](%s)\n\n", file);
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

/* The on-CPU profile: how it was sampled, the kernel/user split, top
 * processes and functions, the flame graph (an image node the HTML renderer
 * replaces with the interactive inline graph). */
static void profile_section(const struct report *r, struct strbuf *sb)
{
    const struct profile *p = report_find_profile(r, "cpu");
    double n = report_metric_value(r, NM_PROFILE_SAMPLES);
    double hz = report_metric_value(r, NM_PROFILE_HZ), cpus = report_metric_value(r, NM_PROFILE_CPUS);
    double idle = report_metric_value(r, NM_PROFILE_IDLE_SAMPLES);
    if (!p || !isfinite(n)) {
        sb_add(sb, "Not measured in this run (see Collectors).\n\n");
        return;
    }
    sb_addf(sb, "cpu-clock (software) sampling at %.0f Hz on %.0f CPU%s: %.0f samples on CPU", hz,
            cpus, cpus == 1 ? "" : "s", n);
    if (isfinite(idle))
        sb_addf(sb, " (and %.0f idle samples, not shown)", idle);
    double k = report_metric_value(r, NM_PROFILE_KERNEL_PCT), u = report_metric_value(r, NM_PROFILE_USER_PCT);
    if (n > 0 && isfinite(k) && isfinite(u))
        sb_addf(sb, "; kernel %.1f %%, user %.1f %%", k, u);
    sb_add(sb, ".\n\n");
    double lost = report_metric_value(r, NM_PROFILE_DROPPED);
    double mu = report_metric_value(r, NM_PROFILE_MISSING_USER);
    double mk = report_metric_value(r, NM_PROFILE_MISSING_KERNEL);
    if ((isfinite(lost) && lost > 0) || (isfinite(mu) && mu > 0) || (isfinite(mk) && mk > 0))
        sb_addf(sb, "Losses: %.0f samples dropped (map full), %.0f without a user stack, %.0f "
                    "without a kernel stack (reasons under Collectors).\n\n",
                isfinite(lost) ? lost : 0, isfinite(mu) ? mu : 0, isfinite(mk) ? mk : 0);
    static const char *const order[] = {NM_PROFILE_TOP_PROCS, NM_PROFILE_TOP_SELF, NM_PROFILE_TOP_TOTAL};
    struct quiet q = {STRBUF_INIT, 0};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const struct table *t = report_find_table(r, order[i]);
        if (t && table_is_empty(t))
            quiet_add(&q, t->hdr.title && *t->hdr.title ? t->hdr.title : t->hdr.name);
        else if (t)
            table_md(t, sb);
    }
    quiet_flush(&q, sb);
    if (n > 0) {
        char file[512];
        flame_filename(p, "svg", file, sizeof file);
        sb_addf(sb, "![On-CPU flame graph](%s)\n\n", file); /* [A-Za-z0-9._-] only */
        flame_filename(p, "folded", file, sizeof file);
        sb_addf(sb, "Folded stacks: `%s` (flamegraph.pl input); standalone graph: `", file);
        flame_filename(p, "svg", file, sizeof file);
        sb_addf(sb, "%s`.\n\n", file);
    }
}

static void section(const struct report *r, const char *res, const char *title,
                    struct strbuf *sb)
{
    if (same(res, "profile")) {
        sb_addf(sb, "## %s\n\n", title ? title : "CPU profile");
        profile_section(r, sb);
        return;
    }
    sb_add(sb, "## ");
    if (title)
        sb_add(sb, title); /* our own fixed words */
    else
        md_text(sb, res, MD_MAX_TEXT);
    sb_add(sb, "\n\n");
    if (!section_has_content(r, res)) {
        sb_add(sb, "Not measured in this run (see Collectors).\n\n");
        return;
    }
    metrics_table(r, res, sb);
    charts(r, res, sb);
    struct quiet q = {STRBUF_INIT, 0};
    for (size_t i = 0; i < r->ntables; i++) {
        const struct table *t = r->tables[i];
        if (!same(t->hdr.resource, res))
            continue;
        if (table_is_empty(t))
            quiet_add(&q, t->hdr.title && *t->hdr.title ? t->hdr.title : t->hdr.name);
        else
            table_md(t, sb);
    }
    for (size_t i = 0; i < r->nhists; i++) {
        const struct hist *h = r->hists[i];
        unsigned first, last;
        if (!same(h->hdr.resource, res))
            continue;
        if (!hist_range(h, &first, &last))
            quiet_add(&q, h->hdr.title && *h->hdr.title ? h->hdr.title : h->hdr.name);
        else
            hist_md(h, sb);
    }
    quiet_flush(&q, sb);
}

static void resource_sections(const struct report *r, struct strbuf *sb)
{
    for (size_t i = 0; i < NKNOWN; i++)
        section(r, known_sections[i].resource, known_sections[i].title, sb);

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
        const char *title = NULL;
        for (size_t k = 0; k < sizeof extra_titles / sizeof extra_titles[0]; k++)
            if (strcmp(other.v[i], extra_titles[k].resource) == 0)
                title = extra_titles[k].title;
        section(r, other.v[i], title, sb);
    }
    free(other.v);
}

/* "3 d 2 h 5 min", "2 h 0 min", "11 min", "42 s": an uptime, read at a glance. */
static void md_duration(struct strbuf *sb, double seconds)
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

static void kv_bullets(const struct kvlist *l, struct strbuf *sb)
{
    for (size_t i = 0; i < l->n; i++) {
        const struct kv *e = &l->v[i];
        sb_add(sb, "- **");
        md_text(sb, e->title && *e->title ? e->title : e->key, MD_MAX_TEXT);
        sb_add(sb, ":** ");
        if (!e->unit)
            md_text(sb, e->value, MD_MAX_CMDLINE);
        else if (!isfinite(e->num))
            sb_add(sb, "n/a");
        else if (strcmp(e->unit, "s") == 0)
            md_duration(sb, e->num);
        else
            md_value(sb, e->num, e->unit);
        sb_add(sb, "\n");
    }
    sb_add(sb, "\n");
}

static void system_section(const struct report *r, struct strbuf *sb)
{
    sb_add(sb, "## System\n\n");
    if (r->host.n)
        kv_bullets(&r->host, sb);
    else
        sb_add(sb, "No system facts were recorded.\n\n");
    sb_add(sb, "### Capabilities\n\n");
    if (r->caps.n)
        kv_bullets(&r->caps, sb);
    else
        sb_add(sb, "No capability probe results were recorded.\n\n");
}

static void collectors(const struct report *r, struct strbuf *sb)
{
    sb_add(sb, "## Collectors\n\n");
    if (r->nledger == 0) {
        sb_add(sb, "No collectors were planned.\n\n");
        return;
    }
    sb_add(sb, "| Collector | Status | Reason | Duration ms | Notes |\n|---|---|---|---:|---|\n");
    for (size_t i = 0; i < r->nledger; i++) {
        const struct ledger_entry *e = &r->ledger[i];
        sb_add(sb, "| ");
        md_text(sb, e->name, MD_MAX_TEXT);
        sb_addf(sb, " | %s | ", coll_status_name(e->status));
        md_text(sb, e->reason, 200);
        sb_addf(sb, " | %.1f | ", isfinite(e->duration_ms) ? e->duration_ms : 0.0);
        md_text(sb, e->notes, 200);
        sb_add(sb, " |\n");
    }
    sb_add(sb, "\n");
}

static void thresholds(const struct report *r, struct strbuf *sb)
{
    sb_add(sb, "## Appendix: thresholds\n\n");
    if (r->nthresholds == 0) {
        sb_add(sb, "No thresholds were loaded.\n\n");
        return;
    }
    sb_add(sb, "| Id | Threshold | Warning | Critical | Unit | Direction |\n"
               "|---|---|---:|---:|---|---|\n");
    for (size_t i = 0; i < r->nthresholds; i++) {
        const struct threshold *t = &r->thresholds[i];
        sb_add(sb, "| ");
        md_text(sb, t->id, MD_MAX_TEXT);
        sb_add(sb, " | ");
        md_text(sb, t->title, MD_MAX_TEXT);
        sb_add(sb, " | ");
        md_number(sb, t->warn);
        sb_add(sb, " | ");
        md_number(sb, t->crit);
        sb_add(sb, " | ");
        md_text(sb, t->unit, 20);
        sb_addf(sb, " | %s |\n", t->lower_is_worse ? "lower is worse" : "higher is worse");
    }
    sb_add(sb, "\n");
}

/* The level-2 headings of a rendered report, in order, with their anchors
 * (the first pass's; the contents line and the evidence links of the second
 * add no heading, so the anchors stay the same). */
struct toc {
    struct md_slugs slugs; /* every heading's anchor */
    char **text;           /* owned: level-2 headings' plain text */
    const char **slug;     /* into slugs */
    size_t n, cap;
};

static void toc_free(struct toc *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->text[i]);
    free(t->text);
    free(t->slug);
    md_slugs_free(&t->slugs);
}

/* Reads the ATX headings of md (outside fenced code) as cmark will: the
 * text after the marks, backslash escapes undone. */
static void toc_read(const char *md, struct toc *t)
{
    bool fenced = false;
    size_t cap_slug = 0;
    for (const char *line = md; *line;) {
        size_t len = strcspn(line, "\n");
        if (len >= 3 && strncmp(line, "```", 3) == 0) {
            fenced = !fenced;
        } else if (!fenced && len > 1 && line[0] == '#') {
            size_t level = 0;
            while (level < len && line[level] == '#')
                level++;
            if (level <= 6 && level < len && line[level] == ' ') {
                struct strbuf text = STRBUF_INIT;
                for (size_t i = level + 1; i < len; i++) {
                    if (line[i] == '\\' && i + 1 < len && ispunct((unsigned char)line[i + 1]))
                        i++;
                    sb_addc(&text, line[i]);
                }
                while (text.len && text.buf[text.len - 1] == ' ')
                    text.buf[--text.len] = '\0';
                const char *slug = md_slugs_add(&t->slugs, sb_str(&text));
                if (level == 2) {
                    xgrow(&t->text, &t->cap, t->n + 1, sizeof *t->text);
                    xgrow(&t->slug, &cap_slug, t->n + 1, sizeof *t->slug);
                    t->text[t->n] = sb_detach(&text);
                    t->slug[t->n++] = slug;
                }
                sb_free(&text);
            }
        }
        line += len + (line[len] == '\n');
    }
}

/* The anchor of the section titled `title`, or NULL. */
static const char *toc_find(const struct toc *t, const char *title)
{
    for (size_t i = 0; t && title && i < t->n; i++)
        if (strcmp(t->text[i], title) == 0)
            return t->slug[i];
    return NULL;
}

/* "[CPU](#cpu) · [CPU profile](#cpu-profile)": the sections that hold a
 * finding's evidence. */
static void evidence_links(const struct toc *t, const struct finding *f, struct strbuf *out)
{
    const char *titles[2] = {section_title(f->resource), NULL};
    if (same(f->resource, "cpu") || same(f->resource, "process") || same(f->resource, "sched"))
        titles[1] = "CPU profile"; /* the flame graph: where its advice points */
    for (size_t i = 0; i < 2; i++) {
        const char *slug = toc_find(t, titles[i]);
        if (!slug)
            continue;
        if (out->len)
            sb_add(out, " \xC2\xB7 ");
        sb_addc(out, '[');
        md_label(out, titles[i], MD_MAX_TEXT);
        sb_addf(out, "](#%s)", slug);
    }
}

/* One line of links to every section, under the verdict. */
static void contents(const struct toc *t, struct strbuf *sb)
{
    if (!t || t->n < 2)
        return;
    sb_add(sb, "**Contents:** ");
    for (size_t i = 0; i < t->n; i++) {
        if (i)
            sb_add(sb, " \xC2\xB7 ");
        sb_addc(sb, '[');
        md_label(sb, t->text[i], MD_MAX_TEXT);
        sb_addf(sb, "](#%s)", t->slug[i]);
    }
    sb_add(sb, "\n\n");
}

static void findings(const struct report *r, const struct toc *t, struct strbuf *sb)
{
    sb_add(sb, "## Findings\n\n");
    size_t serious = 0;
    for (size_t i = 0; i < r->nfindings; i++)
        if (r->findings[i].sev >= SEV_WARNING)
            serious++;
    if (serious == 0) {
        sb_add(sb, "No findings at warning or above.\n\n");
        md_window_limits(r, sb);
    }
    struct strbuf links = STRBUF_INIT;
    for (size_t i = 0; i < r->nfindings; i++) {
        sb_reset(&links);
        evidence_links(t, &r->findings[i], &links);
        md_finding(sb, &r->findings[i], i + 1, r->findings[i].nevidence, sb_str(&links));
    }
    sb_free(&links);
}

static void render_pass(const struct report *r, const struct toc *t, struct strbuf *out)
{
    title_and_verdict(r, out);
    contents(t, out);
    findings(r, t, out);
    use_table(r, out);
    resource_sections(r, out);
    system_section(r, out);
    collectors(r, out);
    thresholds(r, out);
    /* exactly one trailing newline */
    while (out->len >= 2 && out->buf[out->len - 1] == '\n' && out->buf[out->len - 2] == '\n')
        out->buf[--out->len] = '\0';
}

void markdown_render(const struct report *r, struct strbuf *out)
{
    /* Twice: the first pass's headings give the anchors that the contents
     * line and the findings' evidence links of the second point to. */
    struct strbuf first = STRBUF_INIT;
    render_pass(r, NULL, &first);
    struct toc t = {0};
    toc_read(sb_str(&first), &t);
    sb_free(&first);
    render_pass(r, &t, out);
    toc_free(&t);
}

static int render_markdown(const struct report *r, const struct out_sink *out)
{
    return md_write_file(r, out, "report.md", markdown_render);
}

const struct renderer renderer_markdown = {"markdown", render_markdown};
