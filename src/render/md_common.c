/* Markdown pieces shared by report.md and summary.md: see md_common.h. */
#include "md_common.h"
#include "escape.h"
#include "json_common.h"
#include "../model/names.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Host or model text: truncated, then escaped; "-" when absent. */
void md_text(struct strbuf *sb, const char *s, size_t max)
{
    if (!s || !*s) {
        sb_addc(sb, '-');
        return;
    }
    char *t = trunc_utf8(s, max);
    esc_md(sb, t);
    free(t);
}

/* md_text for a whole table cell. */
void md_cell(struct strbuf *sb, const char *s, size_t max)
{
    if (!s || !*s) {
        sb_addc(sb, '-');
        return;
    }
    char *t = trunc_utf8(s, max);
    esc_md_cell(sb, t);
    free(t);
}

/* md_text for the text of an image ("![...](file)"). */
void md_label(struct strbuf *sb, const char *s, size_t max)
{
    char *t = trunc_utf8(s && *s ? s : "-", max);
    esc_md_label(sb, t);
    free(t);
}

/* Adaptive precision for numbers without a declared number of decimals. */
void md_number(struct strbuf *sb, double v)
{
    double a = fabs(v);
    if (!isfinite(v))
        sb_addc(sb, '-');
    else if (v == trunc(v) && a < 1e15)
        sb_addf(sb, "%.0f", v);
    else if (a >= 100)
        sb_addf(sb, "%.0f", v);
    else if (a >= 10)
        sb_addf(sb, "%.1f", v);
    else
        sb_addf(sb, "%.2f", v);
}

const char *md_sev_word(enum severity s)
{
    switch (s) {
    case SEV_CRITICAL: return "CRITICAL";
    case SEV_WARNING: return "WARNING";
    case SEV_INFO: return "INFO";
    default: return "OK";
    }
}

void md_verdict(const struct report *r, struct strbuf *sb)
{
    enum severity worst = report_worst_severity(r);
    sb_addf(sb, "**%s:** ", r->failed ? "FAILED" : worst == SEV_INFO ? "OK" : md_sev_word(worst));
    if (r->headline && *r->headline)
        md_text(sb, r->headline, 400);
    else if (r->nfindings)
        md_text(sb, r->findings[0].title, 400);
    else
        sb_add(sb, "No findings at warning or above.");
}

void md_context(const struct report *r, struct strbuf *sb)
{
    const char *kernel = kv_get(&r->host, "kernel");
    double cpus = kv_num(&r->host, "cpus");
    sb_add(sb, "Host ");
    md_text(sb, kv_get(&r->host, "hostname"), MD_MAX_TEXT);
    if (kernel) {
        sb_add(sb, " · kernel ");
        md_text(sb, kernel, MD_MAX_TEXT);
    }
    if (isfinite(cpus)) {
        sb_addf(sb, " · %.0f CPUs", cpus);
    } else if (isfinite(report_metric_value(r, NM_CPU_COUNT))) {
        sb_addf(sb, " · %.0f CPUs", report_metric_value(r, NM_CPU_COUNT));
    }
    sb_addf(sb, " · %.1f s window", r->window.actual_s);
    if (r->window.interrupted || fabs(r->window.actual_s - r->window.planned_s) >= 1)
        sb_addf(sb, " (planned %.0f s)", r->window.planned_s);
    if (r->window.interval_s > 0) {
        sb_add(sb, ", sampled every ");
        md_number(sb, r->window.interval_s);
        sb_add(sb, " s");
    }
    sb_add(sb, " · ");
    md_text(sb, r->window.target ? r->window.target : "system-wide", MD_MAX_TEXT);
    char iso[40];
    format_iso8601_utc(&r->window.start_wall, iso, sizeof iso);
    if (iso[0]) {
        /* 2024-05-01T12:00:00Z -> 2024-05-01 12:00:00 UTC */
        iso[10] = ' ';
        iso[19] = '\0';
        sb_addf(sb, " · started %s UTC", iso);
    }
}

void md_finding(struct strbuf *sb, const struct finding *f, size_t number, size_t max_evidence)
{
    char marker[32];
    int w = snprintf(marker, sizeof marker, "%zu. ", number);
    char pad[32];
    memset(pad, ' ', (size_t)w);
    pad[w] = '\0';
    sb_addf(sb, "%s**%s:** ", marker, md_sev_word(f->sev));
    md_text(sb, f->title, 400);
    sb_add(sb, "\n");
    size_t shown = f->nevidence < max_evidence ? f->nevidence : max_evidence;
    for (size_t k = 0; k < shown; k++) {
        sb_addf(sb, "%s- ", pad);
        md_text(sb, f->evidence[k], 400);
        sb_add(sb, "\n");
    }
    if (shown < f->nevidence)
        sb_addf(sb, "%s- (%zu more in the report)\n", pad, f->nevidence - shown);
    if (f->recommendation && *f->recommendation) {
        sb_addf(sb, "\n%s**What to do:** ", pad);
        md_text(sb, f->recommendation, 600);
        sb_add(sb, "\n");
    }
    sb_add(sb, "\n");
}
