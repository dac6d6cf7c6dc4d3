/* Markdown pieces shared by report.md and summary.md: see md_common.h. */
#include "md_common.h"
#include "renderer.h"
#include "escape.h"
#include "json_common.h"
#include "../model/names.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s cut to max characters, then through esc; "-" when absent. */
static void cut_and_escape(struct strbuf *sb, const char *s, size_t max,
                           void (*esc)(struct strbuf *, const char *))
{
    if (!s || !*s) {
        sb_addc(sb, '-');
        return;
    }
    char *t = trunc_utf8(s, max);
    esc(sb, t);
    free(t);
}

void md_text(struct strbuf *sb, const char *s, size_t max) { cut_and_escape(sb, s, max, esc_md); }

void md_cell(struct strbuf *sb, const char *s, size_t max)
{
    cut_and_escape(sb, s, max, esc_md_cell);
}

void md_label(struct strbuf *sb, const char *s, size_t max)
{
    cut_and_escape(sb, s && *s ? s : "-", max, esc_md_label); /* "-" escaped, as before */
}

int md_write_file(const struct report *r, const struct out_sink *out, const char *name,
                  void (*render)(const struct report *, struct strbuf *))
{
    struct strbuf sb = STRBUF_INIT;
    render(r, &sb);
    int rc = out->write(out->ctx, name, sb_str(&sb), sb.len);
    sb_free(&sb);
    return rc;
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

void md_window_limits(const struct report *r, struct strbuf *sb)
{
    if (r->failed || report_worst_severity(r) >= SEV_WARNING)
        return;
    double s = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    if (s > 0)
        sb_addf(sb, "What a %.0f s window cannot show: ", s);
    else
        sb_add(sb, "What a short window cannot show: ");
    sb_add(sb, "load that comes and goes over minutes or hours, slow growth (memory, file "
               "descriptors, disk space) and anything before the window. Run perfreport again "
               "while the problem is happening, or from a timer (examples/systemd) to follow "
               "the host.\n\n");
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

void md_finding(struct strbuf *sb, const struct finding *f, size_t number, size_t max_evidence,
                const char *links)
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
    if (links && *links)
        sb_addf(sb, "\n%s**Evidence:** %s\n", pad, links);
    sb_add(sb, "\n");
}

/* Whether code point cp is punctuation or a symbol that an anchor drops:
 * Latin-1 signs, general punctuation, arrows, mathematical operators. */
static bool slug_drops(unsigned cp)
{
    return (cp >= 0xA0 && cp <= 0xBF) || cp == 0xD7 || cp == 0xF7 ||
           (cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x3000 && cp <= 0x303F);
}

const char *md_slugs_add(struct md_slugs *sl, const char *text)
{
    struct strbuf base = STRBUF_INIT;
    const unsigned char *p = (const unsigned char *)text;
    size_t len = strlen(text);
    while (len) {
        unsigned cp;
        size_t n = utf8_decode(p, len, &cp);
        if (n == 0) {
            n = 1; /* invalid bytes: dropped */
        } else if (cp < 0x80) {
            if ((cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9') || cp == '-' || cp == '_')
                sb_addc(&base, (char)cp);
            else if (cp >= 'A' && cp <= 'Z')
                sb_addc(&base, (char)(cp - 'A' + 'a'));
            else if (cp == ' ')
                sb_addc(&base, '-');
        } else if (!slug_drops(cp)) {
            sb_addn(&base, (const char *)p, n);
        }
        p += n;
        len -= n;
    }
    struct strbuf slug = STRBUF_INIT;
    for (unsigned k = 0;; k++) {
        sb_reset(&slug);
        sb_add(&slug, sb_str(&base));
        if (k)
            sb_addf(&slug, "-%u", k);
        bool taken = false;
        for (size_t i = 0; i < sl->n && !taken; i++)
            taken = strcmp(sl->v[i], sb_str(&slug)) == 0;
        if (!taken)
            break;
    }
    sb_free(&base);
    xgrow(&sl->v, &sl->cap, sl->n + 1, sizeof *sl->v);
    sl->v[sl->n] = sb_detach(&slug);
    return sl->v[sl->n++];
}

void md_slugs_free(struct md_slugs *sl)
{
    for (size_t i = 0; i < sl->n; i++)
        free(sl->v[i]);
    free(sl->v);
    *sl = (struct md_slugs){0};
}
