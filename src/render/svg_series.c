/* Small standalone SVG line chart of one series over the window.
 *
 * Output is deterministic (fixed geometry, fixed number formatting) so it can
 * be compared against a golden file.  No ids, scripts, styles or external
 * references: the same text is inlined into index.html (several charts per
 * page) and written as chart-*.svg. */
#include "charts.h"
#include "escape.h"
#include "../model/model.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdbool.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 640
#define H 180
#define X0 52.0  /* plot area, left (room for y labels) */
#define X1 628.0 /* plot area, right */
#define Y0 28.0  /* plot area, top (room for the title) */
#define Y1 152.0 /* plot area, bottom (x labels below) */

#define C_LINE "#2563eb"
#define C_WARN "#b45309" /* 5.0:1 on white, as a label too */
#define C_CRIT "#b91c1c" /* 6.5:1 */
#define C_GRID "#e5e7eb"
#define C_AXIS "#9ca3af"
#define C_TEXT "#374151"

/* Points get an invisible hover target with their value only while that stays
 * cheap; long windows rely on the min/avg/max summary. */
#define MAX_POINT_TITLES 240

/* Compact, locale-free number: 3 significant-ish digits, k/M/G above 10^4,
 * trailing zeros removed, never "-0". */
static void fmt_num(double v, char *out, size_t n)
{
    double a = fabs(v);
    const char *suffix = "";
    double x = v;
    int dec;
    if (a >= 1e9) {
        x = v / 1e9;
        suffix = "G";
    } else if (a >= 1e6) {
        x = v / 1e6;
        suffix = "M";
    } else if (a >= 1e4) {
        x = v / 1e3;
        suffix = "k";
    }
    double ax = fabs(x);
    if (*suffix)
        dec = ax >= 100 ? 0 : 1;
    else
        dec = ax >= 100 ? 0 : ax >= 10 ? 1 : 2;
    char num[64];
    snprintf(num, sizeof num, "%.*f", dec, x);
    if (strchr(num, '.')) {
        size_t len = strlen(num);
        while (len > 0 && num[len - 1] == '0')
            num[--len] = '\0';
        if (len > 0 && num[len - 1] == '.')
            num[--len] = '\0';
    }
    if (strcmp(num, "-0") == 0)
        snprintf(num, sizeof num, "0");
    snprintf(out, n, "%s%s", num, suffix);
}

/* 1, 2, 2.5 or 5 times a power of ten, >= raw. */
static double nice_step(double raw)
{
    if (!(raw > 0) || !isfinite(raw))
        return 1;
    double mag = pow(10, floor(log10(raw)));
    double f = raw / mag;
    double nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
    return nf * mag;
}

static double time_step(double tmax)
{
    /* hours and days too: perfreport history charts runs over weeks */
    static const double steps[] = {0.5,  1,    2,    5,     10,    15,    30,   60,
                                   120,  300,  600,  900,   1800,  3600,  7200, 10800,
                                   21600, 43200, 86400};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (tmax / steps[i] <= 8)
            return steps[i];
    return nice_step(tmax / 8 / 86400) * 86400;
}

static double value_at(const struct series *s, size_t i)
{
    double v = s->v[i];
    return isfinite(v) ? v : NAN;
}

/* tmin is 0, or the first tick before the window (perfreport watch's
 * minutes before its trigger). */
struct scale {
    double tmin, tmax, ymin, ymax;
};

static double px(const struct scale *sc, double t)
{
    return X0 + (t - sc->tmin) / (sc->tmax - sc->tmin) * (X1 - X0);
}
static double py(const struct scale *sc, double v)
{
    return Y1 - (v - sc->ymin) / (sc->ymax - sc->ymin) * (Y1 - Y0);
}

static void threshold_line(struct strbuf *sb, const struct scale *sc, double v, const char *color,
                           const char *label)
{
    if (!isfinite(v))
        return;
    char num[32];
    fmt_num(v, num, sizeof num);
    double y = py(sc, v);
    sb_addf(sb,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
            "stroke-width=\"1.2\" stroke-dasharray=\"5 4\"/>\n",
            X0, y, X1, y, color);
    sb_addf(sb,
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">%s %s</text>\n",
            X1 - 2, y - 3, color, label, num);
}

/* perfreport watch: the trigger's moment, a vertical line with its reason
 * (a host fact: escaped, cut) as the hover text, and where the window
 * opened when the chart starts before it. */
static void trigger_line(struct strbuf *sb, const struct report *r, const struct scale *sc)
{
    if (!r->window.triggered || !(r->window.trigger_s >= sc->tmin) ||
        !(r->window.trigger_s <= sc->tmax))
        return;
    double x = px(sc, r->window.trigger_s);
    sb_addf(sb,
            "<g><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
            "stroke-width=\"1.5\"/>\n<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">trigger</text>"
            "<title>Triggered by ",
            x, Y0, x, Y1, C_CRIT, x + 3, Y0 + 9, C_CRIT);
    const char *why = kv_get(&r->host, "trigger");
    char *cut = trunc_utf8(why ? why : "?", 200);
    esc_xml(sb, cut);
    free(cut);
    sb_add(sb, "</title></g>\n");
    if (sc->tmin < 0 && r->window.trigger_s < 0)
        sb_addf(sb,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"1\" stroke-dasharray=\"2 3\"><title>window open</title></line>\n",
                px(sc, 0), Y0, px(sc, 0), Y1, C_AXIS);
}

/* A run longer than this (two points a pixel of the plot) is drawn through
 * the first, lowest, highest and last point of each pixel column: the same
 * picture, and a chart of a 100,000-tick window stays ~100 KiB. */
#define MAX_RUN_POINTS (2 * (size_t)(X1 - X0))

/* Adds the points of ticks k (in order) to the line and the area. */
static void add_point(struct strbuf *line, struct strbuf *area, const struct report *r,
                      const struct series *s, const struct scale *sc, size_t k, bool first)
{
    double x = px(sc, r->ticks[k]), y = py(sc, value_at(s, k));
    sb_addf(line, "%c%.1f %.1f", first ? 'M' : 'L', x, y);
    sb_addf(area, "L%.1f %.1f", x, y);
}

/* The points of the run [i, j): all of them, or per pixel column its first,
 * lowest, highest and last, in time order. */
static void add_run(struct strbuf *line, struct strbuf *area, const struct report *r,
                    const struct series *s, const struct scale *sc, size_t i, size_t j)
{
    if (j - i <= MAX_RUN_POINTS) {
        for (size_t k = i; k < j; k++)
            add_point(line, area, r, s, sc, k, k == i);
        return;
    }
    size_t k = i;
    while (k < j) {
        size_t k0 = k, lo = k, hi = k;
        double col = floor(px(sc, r->ticks[k]));
        for (k++; k < j && floor(px(sc, r->ticks[k])) == col; k++) {
            if (value_at(s, k) < value_at(s, lo))
                lo = k;
            if (value_at(s, k) > value_at(s, hi))
                hi = k;
        }
        size_t pts[4] = {k0, lo < hi ? lo : hi, lo < hi ? hi : lo, k - 1};
        for (size_t q = 0; q < 4; q++)
            if (q == 0 || pts[q] > pts[q - 1])
                add_point(line, area, r, s, sc, pts[q], k0 == i && q == 0);
            else
                pts[q] = pts[q - 1];
    }
}

/* Draws the contiguous runs of finite values; a NAN or a sampling gap (the
 * model's, perfreport stopped) ends a run so gaps show: no straight line
 * across a stretch nothing was measured in. */
static void draw_runs(struct strbuf *sb, const struct report *r, const struct series *s,
                      size_t n, const struct scale *sc)
{
    struct strbuf line = STRBUF_INIT, area = STRBUF_INIT, dots = STRBUF_INIT;
    size_t i = 0;
    while (i < n) {
        if (isnan(value_at(s, i))) {
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < n && !isnan(value_at(s, j)) && !report_gap_before(r, j))
            j++;
        if (j - i == 1) {
            /* A lone sample has no segment to draw: show it as a dot. */
            sb_addf(&dots, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2\" fill=\"%s\"/>\n",
                    px(sc, r->ticks[i]), py(sc, value_at(s, i)), C_LINE);
        } else {
            double base = py(sc, sc->ymin < 0 && sc->ymax > 0 ? 0 : sc->ymin);
            sb_addf(&area, "M%.1f %.1f", px(sc, r->ticks[i]), base);
            add_run(&line, &area, r, s, sc, i, j);
            sb_addf(&area, "L%.1f %.1fZ", px(sc, r->ticks[j - 1]), base);
        }
        i = j;
    }
    if (area.len)
        sb_addf(sb, "<path d=\"%s\" fill=\"%s\" fill-opacity=\"0.08\" stroke=\"none\"/>\n",
                sb_str(&area), C_LINE);
    if (line.len)
        sb_addf(sb,
                "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.6\" "
                "stroke-linejoin=\"round\" stroke-linecap=\"round\"/>\n",
                sb_str(&line), C_LINE);
    sb_add(sb, sb_str(&dots));
    sb_free(&line);
    sb_free(&area);
    sb_free(&dots);
}

static void point_titles(struct strbuf *sb, const struct report *r, const struct series *s,
                         size_t n, const struct scale *sc)
{
    if (n > MAX_POINT_TITLES)
        return;
    sb_add(sb, "<g fill=\"" C_LINE "\" fill-opacity=\"0\">\n");
    for (size_t i = 0; i < n; i++) {
        double v = value_at(s, i);
        if (isnan(v))
            continue;
        char num[32], t[32];
        fmt_num(v, num, sizeof num);
        fmt_num(r->ticks[i], t, sizeof t);
        sb_addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>%s s: %s", px(sc, r->ticks[i]),
                py(sc, v), t, num);
        if (s->hdr.unit && *s->hdr.unit) {
            sb_addc(sb, ' ');
            esc_xml(sb, s->hdr.unit);
        }
        sb_add(sb, "</title></circle>\n");
    }
    sb_add(sb, "</g>\n");
}

void svg_series_render(const struct report *r, const struct series *s, struct strbuf *sb)
{
    size_t n = s->n < r->nticks ? s->n : r->nticks;
    /* The plot's range is every tick's; the heading's min, avg and max the
     * window's, as the findings beside the chart are (a watch bundle's
     * samples from before its trigger are drawn, not summarised). */
    size_t wfirst = report_window_first_tick(r);
    double vmin = INFINITY, vmax = -INFINITY, sum = 0;
    double wmin = INFINITY, wmax = -INFINITY;
    size_t cnt = 0, wcnt = 0;
    for (size_t i = 0; i < n; i++) {
        double v = value_at(s, i);
        if (isnan(v))
            continue;
        vmin = v < vmin ? v : vmin;
        vmax = v > vmax ? v : vmax;
        cnt++;
        if (i < wfirst)
            continue;
        wmin = v < wmin ? v : wmin;
        wmax = v > wmax ? v : wmax;
        sum += v;
        wcnt++;
    }

    struct scale sc;
    sc.tmin = r->nticks > 0 && r->ticks[0] < 0 ? r->ticks[0] : 0;
    sc.tmax = n > 0 && r->ticks[n - 1] > 0 ? r->ticks[n - 1] : 1;
    if (r->nticks > 0 && r->ticks[r->nticks - 1] > sc.tmax)
        sc.tmax = r->ticks[r->nticks - 1];
    double hi = cnt ? vmax : 0, lo = cnt ? vmin : 0;
    if (isfinite(s->warn) && s->warn > hi)
        hi = s->warn;
    if (isfinite(s->crit) && s->crit > hi)
        hi = s->crit;
    if (lo > 0)
        lo = 0;
    if (hi < 0)
        hi = 0;
    double step = nice_step((hi - lo) / 4);
    if (hi == lo)
        step = 0.25; /* flat zero series: axis 0..1 */
    sc.ymin = floor(lo / step + 1e-9) * step;
    sc.ymax = ceil(hi / step - 1e-9) * step;
    if (sc.ymax <= sc.ymin)
        sc.ymax = sc.ymin + 4 * step;

    const char *unit = s->hdr.unit ? s->hdr.unit : "";
    const char *title = s->hdr.title && *s->hdr.title ? s->hdr.title : s->hdr.name;
    char *short_title = trunc_utf8(title, 56);

    char smin[32], savg[32], smax[32];
    if (wcnt) {
        fmt_num(wmin, smin, sizeof smin);
        fmt_num(sum / (double)wcnt, savg, sizeof savg);
        fmt_num(wmax, smax, sizeof smax);
    }
    /* said so when the chart shows more than the window */
    const char *scope = wfirst ? "window: " : "";

    sb_addf(sb,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
            "height=\"%d\" role=\"img\" font-family=\"Helvetica, Arial, sans-serif\" "
            "font-size=\"10\" data-t0=\"%g\" data-t1=\"%g\" data-x0=\"%g\" data-x1=\"%g\" "
            "data-y0=\"%g\" data-y1=\"%g\">\n", /* the plot's clock, for the page's heat maps */
            W, H, W, H, sc.tmin, sc.tmax, X0, X1, Y0, Y1);
    sb_add(sb, "<title>");
    esc_xml(sb, title);
    if (*unit) {
        sb_add(sb, " (");
        esc_xml(sb, unit);
        sb_add(sb, ")");
    }
    if (wcnt)
        sb_addf(sb, ": %smin %s, avg %s, max %s", scope, smin, savg, smax);
    else
        sb_addf(sb, ": no data%s", wfirst ? " in the window" : "");
    sb_add(sb, "</title>\n");
    sb_addf(sb, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", W, H);

    /* heading: title (unit) on the left, summary on the right */
    sb_add(sb, "<text x=\"8\" y=\"16\" font-size=\"12\" font-weight=\"bold\" fill=\"#111827\">");
    esc_xml(sb, short_title);
    if (*unit) {
        sb_add(sb, " (");
        esc_xml(sb, unit);
        sb_add(sb, ")");
    }
    sb_add(sb, "</text>\n");
    sb_addf(sb, "<text x=\"%.1f\" y=\"16\" text-anchor=\"end\" fill=\"%s\">", X1, C_TEXT);
    if (wcnt) {
        sb_addf(sb, "%smin %s \xC2\xB7 avg %s \xC2\xB7 max %s", scope, smin, savg, smax);
        if (*unit) {
            sb_addc(sb, ' ');
            esc_xml(sb, unit);
        }
    } else {
        sb_addf(sb, "no data%s", wfirst ? " in the window" : "");
    }
    sb_add(sb, "</text>\n");
    free(short_title);

    /* y grid and labels */
    sb_addf(sb, "<g stroke=\"%s\" stroke-width=\"1\">\n", C_GRID);
    long nsteps = lround((sc.ymax - sc.ymin) / step);
    for (long k = 0; k <= nsteps; k++) {
        double y = py(&sc, sc.ymin + (double)k * step);
        sb_addf(sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", X0, y, X1, y);
    }
    sb_add(sb, "</g>\n");
    sb_addf(sb, "<g fill=\"%s\" text-anchor=\"end\">\n", C_TEXT);
    for (long k = 0; k <= nsteps; k++) {
        double v = sc.ymin + (double)k * step;
        char num[32];
        fmt_num(v, num, sizeof num);
        sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", X0 - 5, py(&sc, v) + 3.5, num);
    }
    sb_add(sb, "</g>\n");

    /* x axis: UTC clock time at round seconds (what an incident timeline
     * and other tools' graphs use); seconds into the window when the start
     * is unknown */
    double tstep = time_step(sc.tmax - sc.tmin);
    bool clock = r->window.start_wall.tv_sec > 0;
    double start = clock ? (double)r->window.start_wall.tv_sec +
                               (double)r->window.start_wall.tv_nsec / 1e9
                         : 0;
    double first = clock ? ceil((start + sc.tmin) / tstep - 1e-9) * tstep - start
                         : ceil(sc.tmin / tstep - 1e-9) * tstep;
    sb_addf(sb, "<g fill=\"%s\" text-anchor=\"middle\">\n", C_TEXT);
    for (long k = 0; first + (double)k * tstep <= sc.tmax + 1e-9; k++) {
        double t = first + (double)k * tstep;
        char label[40];
        if (clock) {
            double at = start + t;
            time_t sec = (time_t)floor(at + 1e-6);
            struct tm tm;
            /* past a day the date matters more than the seconds */
            const char *fmt = tstep >= 86400                ? "%Y-%m-%d"
                              : sc.tmax - sc.tmin >= 86400 ? "%m-%d %H:%M"
                                                                              : "%H:%M:%S";
            if (!gmtime_r(&sec, &tm) || !strftime(label, sizeof label, fmt, &tm))
                snprintf(label, sizeof label, "?");
            if (tstep < 1) /* half seconds */
                snprintf(label + strlen(label), sizeof label - strlen(label), ".%d",
                         (int)floor((at - (double)sec) * 10 + 0.5) % 10);
        } else {
            char num[32];
            fmt_num(t, num, sizeof num);
            snprintf(label, sizeof label, "%ss", num);
        }
        sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", px(&sc, t), Y1 + 14, label);
    }
    sb_add(sb, "</g>\n");
    sb_addf(sb,
            "<path d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" stroke=\"%s\" stroke-width=\"1\"/>\n",
            X0, Y0, Y1, X1, C_AXIS);
    sb_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">%s</text>\n",
            X1, Y1 + 26, C_TEXT, clock ? "time (UTC)" : "time (s)");

    threshold_line(sb, &sc, s->warn, C_WARN, "warn");
    threshold_line(sb, &sc, s->crit, C_CRIT, "crit");
    trigger_line(sb, r, &sc);

    if (cnt) {
        draw_runs(sb, r, s, n, &sc);
        point_titles(sb, r, s, n, &sc);
    } else {
        sb_addf(sb,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\" "
                "font-size=\"12\">no data in this window</text>\n",
                (X0 + X1) / 2, (Y0 + Y1) / 2, C_TEXT);
    }
    sb_add(sb, "</svg>\n");
}
