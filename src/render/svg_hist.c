/* SVG of one log2 histogram: a bar per bucket between the first and the
 * last non-empty one, p50/p90/p99 as dashed vertical lines, count and max
 * in the heading.  Deterministic (fixed geometry and number formatting) so
 * it is golden-tested; no ids or scripts, so several can share a page. */
#include "hists.h"
#include "escape.h"
#include "../model/model.h"
#include "../util/fmtnum.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 640
#define H 220
#define X0 56.0
#define X1 628.0
#define Y0 48.0  /* top of the bars (percentile labels above) */
#define Y1 160.0 /* baseline; bucket labels below */

#define C_BAR "#2563eb"
#define C_P50 "#047857" /* labels at 4.5:1 or more on white */
#define C_P90 "#b45309"
#define C_P99 "#b91c1c"
#define C_GRID "#e5e7eb"
#define C_AXIS "#9ca3af"
#define C_TEXT "#374151"

void hist_filename(const struct hist *h, char *out, size_t n)
{
    int w = snprintf(out, n, "hist-%s.svg", h->hdr.name);
    if (w < 0)
        return;
    for (size_t i = 5; i < n && out[i]; i++) {
        char c = out[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        if (!ok)
            out[i] = '_';
    }
}

void hist_fmt_value(double v, const char *unit, char *out, size_t n)
{
    if (!isfinite(v)) {
        snprintf(out, n, "-");
        return;
    }
    fmt_quantity(out, n, v, unit);
}

static double bucket_lo(unsigned b) { return b == 0 ? 0 : ldexp(1.0, (int)b); }
static double bucket_hi(unsigned b) { return ldexp(1.0, (int)b + 1); }

void hist_bucket_label(const char *unit, unsigned b, char *out, size_t n)
{
    const char *u;
    double d = fmt_scale(bucket_hi(b), unit, &u);
    char lo[48], hi[48];
    fmt_sig3(lo, sizeof lo, bucket_lo(b) / d);
    fmt_sig3(hi, sizeof hi, bucket_hi(b) / d);
    snprintf(out, n, "%s-%s%s%s", lo, hi, *u ? " " : "", u);
}

int hist_range(const struct hist *h, unsigned *first, unsigned *last)
{
    int found = 0;
    for (unsigned b = 0; b < HIST_BUCKETS; b++) {
        if (!h->buckets[b])
            continue;
        if (!found)
            *first = b;
        *last = b;
        found = 1;
    }
    return found;
}

/* x of value v: linear inside its bucket, as hist_percentile() interpolates. */
static double value_x(double v, unsigned first, unsigned last, double bw)
{
    unsigned b = first;
    while (b < last && v >= bucket_hi(b))
        b++;
    double lo = bucket_lo(b), hi = bucket_hi(b);
    double f = (v - lo) / (hi - lo);
    if (f < 0)
        f = 0;
    if (f > 1)
        f = 1;
    return X0 + ((double)(b - first) + f) * bw;
}

static void marker(struct strbuf *sb, const struct hist *h, const char *label, double p,
                   const char *color, int row, unsigned first, unsigned last, double bw)
{
    double v = hist_percentile(h, p);
    if (!isfinite(v))
        return;
    double x = value_x(v, first, last, bw);
    char val[64];
    hist_fmt_value(v, h->hdr.unit, val, sizeof val);
    double ty = 24.0 + 11.0 * row;
    sb_addf(sb,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
            "stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\n",
            x, ty + 2, x, Y1, color);
    /* labels near the right edge grow leftwards so they stay inside */
    const char *anchor = x > X1 - 90 ? "end" : "start";
    sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"%s\">%s ", 
            *anchor == 'e' ? x - 3 : x + 3, ty, anchor, color, label);
    esc_xml(sb, val);
    sb_add(sb, "</text>\n");
}

void svg_hist_render(const struct hist *h, struct strbuf *sb)
{
    const char *title = h->hdr.title && *h->hdr.title ? h->hdr.title : h->hdr.name;
    char *short_title = trunc_utf8(title, 70);
    char smax[64], cnt[32];
    hist_fmt_value(h->max, h->hdr.unit, smax, sizeof smax);
    snprintf(cnt, sizeof cnt, "%llu", (unsigned long long)h->count);

    sb_addf(sb,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
            "height=\"%d\" role=\"img\" font-family=\"Helvetica, Arial, sans-serif\" "
            "font-size=\"10\">\n",
            W, H, W, H);
    sb_add(sb, "<title>");
    esc_xml(sb, title);
    sb_addf(sb, ": %s samples", cnt);
    if (isfinite(h->max)) {
        sb_add(sb, ", max ");
        esc_xml(sb, smax);
    }
    sb_add(sb, "</title>\n");
    sb_addf(sb, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", W, H);
    sb_add(sb, "<text x=\"8\" y=\"14\" font-size=\"12\" font-weight=\"bold\" fill=\"#111827\">");
    esc_xml(sb, short_title);
    sb_add(sb, "</text>\n");
    free(short_title);
    sb_addf(sb, "<text x=\"%.1f\" y=\"14\" text-anchor=\"end\" fill=\"%s\">count %s", X1,
            C_TEXT, cnt);
    if (isfinite(h->max)) {
        sb_add(sb, " \xC2\xB7 max ");
        esc_xml(sb, smax);
    }
    sb_add(sb, "</text>\n");

    unsigned first = 0, last = 0;
    if (!hist_range(h, &first, &last)) {
        sb_addf(sb,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\" "
                "font-size=\"12\">no samples in this window</text>\n</svg>\n",
                (X0 + X1) / 2, (Y0 + Y1) / 2, C_TEXT);
        return;
    }
    uint64_t top = 0;
    for (unsigned b = first; b <= last; b++)
        if (h->buckets[b] > top)
            top = h->buckets[b];
    unsigned nb = last - first + 1;
    double bw = (X1 - X0) / nb;

    /* y grid at 0, 50 and 100 % of the tallest bar */
    sb_addf(sb, "<g stroke=\"%s\" stroke-width=\"1\">\n", C_GRID);
    for (int k = 0; k <= 2; k++) {
        double y = Y1 - (Y1 - Y0) * k / 2.0;
        sb_addf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", X0, y, X1, y);
    }
    sb_add(sb, "</g>\n");
    sb_addf(sb, "<g fill=\"%s\" text-anchor=\"end\">\n", C_TEXT);
    for (int k = 0; k <= 2; k++) {
        double y = Y1 - (Y1 - Y0) * k / 2.0;
        sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\">%llu</text>\n", X0 - 5, y + 3.5,
                (unsigned long long)(top * (unsigned)k / 2));
    }
    sb_add(sb, "</g>\n");
    /* the count axis says what it counts */
    sb_addf(sb,
            "<text transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\" "
            "fill=\"%s\">count</text>\n",
            10.0, (Y0 + Y1) / 2, C_TEXT);

    /* bars with a hover title each */
    sb_addf(sb, "<g fill=\"%s\">\n", C_BAR);
    for (unsigned b = first; b <= last; b++) {
        double hgt = top ? (Y1 - Y0) * (double)h->buckets[b] / (double)top : 0;
        if (h->buckets[b] && hgt < 2)
            hgt = 2; /* a tail bucket of a few waits among thousands stays visible */
        double x = X0 + (double)(b - first) * bw;
        char label[64];
        hist_bucket_label(h->hdr.unit, b, label, sizeof label);
        double pct = 100.0 * (double)h->buckets[b] / (double)h->count;
        sb_addf(sb, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\">", x + 1,
                Y1 - hgt, bw - 2 > 1 ? bw - 2 : 1, hgt);
        sb_add(sb, "<title>");
        esc_xml(sb, label);
        sb_addf(sb, ": %llu (%.1f%%)</title></rect>\n", (unsigned long long)h->buckets[b], pct);
    }
    sb_add(sb, "</g>\n");

    /* bucket labels, slanted so long ranges fit under narrow bars */
    sb_addf(sb, "<g fill=\"%s\" text-anchor=\"end\" font-size=\"9\">\n", C_TEXT);
    unsigned step = nb > 24 ? 2 : 1;
    for (unsigned b = first; b <= last; b += step) {
        double x = X0 + ((double)(b - first) + 0.5) * bw;
        char label[64];
        hist_bucket_label(h->hdr.unit, b, label, sizeof label);
        sb_addf(sb, "<text transform=\"translate(%.1f %.1f) rotate(-35)\">", x + 3, Y1 + 10);
        esc_xml(sb, label);
        sb_add(sb, "</text>\n");
    }
    sb_add(sb, "</g>\n");
    sb_addf(sb,
            "<path d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"1\"/>\n",
            X0, Y0, Y1, X1, C_AXIS);

    marker(sb, h, "p50", 0.50, C_P50, 0, first, last, bw);
    marker(sb, h, "p90", 0.90, C_P90, 1, first, last, bw);
    marker(sb, h, "p99", 0.99, C_P99, 2, first, last, bw);
    sb_add(sb, "</svg>\n");
}
