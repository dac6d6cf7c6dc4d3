/* Rates are computed over the time the collector's own reads really cover,
 * not over the ticks' nominal times, and a stretch without samples is
 * recorded and shown.  The collectors run on a synthetic clock here: start
 * reads long before the window opens (BPF loads on a busy host), as a
 * real run does. */
#include "harness.h"
#include "collect_life.h"
#include "test_util.h"
#include "../../src/collect/cgroup/cgroup.h"
#include "../../src/collect/psi.h"
#include "../../src/render/charts.h"
#include "../../src/render/renderer.h"
#include "../../src/util/hostfs.h"
#include "../../src/util/strbuf.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double g_clock; /* seconds, what the collectors' clock reads */
static double fake_clock(const struct collect_ctx *ctx)
{
    (void)ctx;
    return g_clock;
}

static long row_of(const struct table *t, const char *path)
{
    for (size_t i = 0; t && i < t->nrows; i++) {
        const char *p = table_str(t, i, "path");
        if (p && strcmp(p, path) == 0)
            return (long)i;
    }
    return -1;
}

/* The cgroup/v2 fixture's deltas are those of a 10 s span (test_cgroup.c):
 * read at 100 s and 110 s on the clock while the window (now_s) runs only
 * 7 s, because the start read came 3 s before the window opened. */
TEST(rates_cgroup_divide_by_own_read_interval)
{
    struct collect_config o = {0};
    o.pid = 777;
    struct report *r = report_new();
    struct collect_ctx ctx = {.r = r, .cfg = &o, .clock_s = fake_clock};
    void *st = NULL;
    char err[256] = "";
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/t0", fixture("cgroup/v2"));
    hostfs_set_root(dir);
    ctx.now_s = 0;
    g_clock = 100;
    int rc = collector_cgroup.start(&ctx, &st, err, sizeof err);
    if (rc == 0) {
        snprintf(dir, sizeof dir, "%s/t1", fixture("cgroup/v2"));
        hostfs_set_root(dir);
        ctx.now_s = 7;
        g_clock = 110;
        rc = collector_cgroup.stop(&ctx, st, err, sizeof err);
    }
    collector_cgroup.destroy(st);
    hostfs_set_root(NULL);
    CHECK(rc == 0);
    const struct table *t = report_find_table(r, "cgroup");
    REQUIRE(t);
    long w = row_of(t, "/system.slice/web.service"), root = row_of(t, "/");
    REQUIRE(w >= 0 && root >= 0);
    /* Over 7 s these would be 28.6 %, 42.9 % and 428.6 %: impossible on
     * the fixture's host, and what the cgroup table showed under load. */
    CHECK_NUM(table_num(t, (size_t)w, "cpu_pct"), 20, 1e-9);
    CHECK_NUM(table_num(t, (size_t)w, "psi_cpu_some_pct"), 30, 1e-9);
    CHECK_NUM(table_num(t, (size_t)root, "cpu_pct"), 300, 1e-9);
    report_free(r);
}

/* PSI: 24853 us of CPU stall between the fixture's two reads.  The tick
 * says 1 s, but the reads are 3 s apart (start read 2 s before the window
 * opened): 0.828 % stalled, not 2.49 %. */
TEST(rates_psi_divide_by_own_read_interval)
{
    struct life l;
    life_init(&l, &collector_psi);
    l.ctx.clock_s = fake_clock;
    g_clock = 50;
    REQUIRE(life_start(&l, "psi/t0") == 0);
    g_clock = 53;
    CHECK(life_tick(&l, "psi/t1", 1.0) == 0);
    REQUIRE(life_stop(&l, "psi/t1", 1.0) == 0);
    CHECK_NUM(series_at(l.r, "psi.cpu.some.pct", 0), 24853 / 3e4, 1e-9);
    CHECK_NUM(report_metric_value(l.r, "psi.cpu.some.pct"), 24853 / 3e4, 1e-9);
    life_end(&l);
}

/* A report sampled every 0.5 s whose process was stopped for 3 s. */
static struct report *gap_report(void)
{
    struct report *r = report_new();
    r->window.interval_s = 0.5;
    r->window.planned_s = r->window.actual_s = 5;
    struct series *s = report_series(r, "cpu.util_pct", "CPU utilisation", "%", "cpu");
    s->chart = true;
    static const double t[] = {0.5, 1.0, 4.0, 4.5, 5.0};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        report_add_tick(r, t[i]);
        series_set(r, s, 10.0 * (double)(i + 1));
    }
    return r;
}

TEST(rates_gap_recorded_in_model)
{
    struct report *r = gap_report();
    REQUIRE(r->ngaps == 1);
    CHECK_NUM(r->gaps[0].start_s, 1.0, 0);
    CHECK_NUM(r->gaps[0].len_s, 3.0, 1e-12);
    CHECK(!report_gap_before(r, 1));
    CHECK(report_gap_before(r, 2));
    CHECK(!report_gap_before(r, 3));
    report_free(r);

    /* Late but not 2x late (a starved tick), or no interval: no gap. */
    r = report_new();
    r->window.interval_s = 1;
    report_add_tick(r, 1.0);
    report_add_tick(r, 2.9);
    CHECK(r->ngaps == 0);
    r->window.interval_s = 0;
    report_add_tick(r, 9.0);
    CHECK(r->ngaps == 0);
    report_free(r);
}

/* Counts the path moves ("M") of the chart's stroked line. */
static int line_moves(const char *svg)
{
    const char *p = strstr(svg, "stroke-width=\"1.6\"");
    if (!p)
        return -1;
    const char *d = p;
    while (d > svg && strncmp(d, "<path d=\"", 9) != 0)
        d--;
    int moves = 0;
    for (const char *q = d + 9; q < p && *q != '"'; q++)
        moves += *q == 'M';
    return moves;
}

TEST(rates_gap_shown_in_report_and_chart)
{
    struct report *r = gap_report();
    struct mem_sink m = {0};
    struct out_sink sink = {mem_sink_write, &m, NULL};
    for (size_t i = 0; renderer_registry[i]; i++)
        CHECK(renderer_registry[i]->render(r, &sink) == 0);
    const char *md = mem_get(&m, "report.md"), *js = mem_get(&m, "report.json");
    REQUIRE(md && js);
    CHECK_CONTAINS(md, "**Sampling gap:** no sample from 1.0 s to 4.0 s (3.0 s");
    CHECK_CONTAINS(js, "\"gaps\"");
    CHECK_CONTAINS(js, "\"length_s\": 3");
    mem_free(&m);

    struct strbuf svg = STRBUF_INIT;
    svg_series_render(r, r->series[0], &svg);
    /* Two runs (0.5-1.0 and 4.0-5.0), not one straight line across 1-4 s. */
    CHECK(line_moves(sb_str(&svg)) == 2);
    sb_free(&svg);
    report_free(r);
}

/* A window of a run's most ticks (or a forged bundle's) draws a chart of
 * bounded size in linear time: a run longer than two points a pixel goes
 * through each pixel column's first, lowest, highest and last point, so a
 * lone spike still shows; a gap every other tick (each a run of its own)
 * is found without scanning every gap each time. */
TEST(rates_long_window_chart_bounded)
{
    struct report *r = report_new();
    r->window.interval_s = 1;
    struct series *s = report_series(r, "cpu.util_pct", "CPU", "%", "cpu");
    for (int i = 1; i <= REPORT_MAX_TICKS; i++) {
        report_add_tick(r, i);
        series_set(r, s, i == 51234 ? 100 : 10 + (i % 7));
    }
    struct strbuf svg = STRBUF_INIT;
    svg_series_render(r, s, &svg);
    CHECK(svg.len < 200 * 1024);
    CHECK(line_moves(sb_str(&svg)) == 1);
    CHECK_CONTAINS(sb_str(&svg), "max 100 %");
    /* the spike's point: y of 100 on this chart's 0..100 axis is the top */
    CHECK_CONTAINS(sb_str(&svg), " 28.0L");
    sb_free(&svg);
    report_free(r);

    r = report_new();
    r->window.interval_s = 1;
    s = report_series(r, "x", "X", "", "cpu");
    double t = 0;
    for (int i = 0; i < REPORT_MAX_TICKS; i++) {
        t += i % 2 ? 10 : 1; /* 10 s after a 1 s interval: a gap before every odd tick */
        report_add_tick(r, t);
        series_set(r, s, 1);
    }
    CHECK(r->ngaps == REPORT_MAX_TICKS / 2);
    CHECK(report_gap_before(r, 1) && !report_gap_before(r, 2) && report_gap_before(r, 99999));
    svg_series_render(r, s, &svg);
    /* a run from each odd tick to the next; the first and last tick alone (dots) */
    CHECK(line_moves(sb_str(&svg)) == REPORT_MAX_TICKS / 2 - 1);
    sb_free(&svg);
    report_free(r);
}
