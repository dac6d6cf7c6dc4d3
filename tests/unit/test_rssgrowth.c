/* Per-process RSS growth (src/collect/procs/rssgrowth.c) on synthetic ticks: the
 * shapes a leak, a warm-up, one allocation and alloc/free cycles make. */
#include "harness.h"
#include "../../src/collect/procs/rssgrowth.h"
#include <math.h>
#include <stdint.h>

/* A 6 s window, ticks every 0.5 s: rss(t) of one process (pid 10). */
static size_t run(double (*rss)(double), struct rssgrowth_result *out)
{
    struct rssgrowth *g = rssgrowth_new(6.0);
    for (int i = 1; i <= 12; i++) {
        double t = 0.5 * i;
        rssgrowth_tick(g, t);
        rssgrowth_observe(g, 10, 777, (uint64_t)rss(t));
        rssgrowth_observe(g, 11, 888, 50000); /* flat: never listed */
    }
    size_t n = rssgrowth_results(g, out, 4);
    rssgrowth_free(g);
    return n;
}

static double leak(double t) { return 100000 + 10240 * t; }           /* 10 MiB/s */
static double warmup(double t) { return t < 3 ? 100000 + 40000 * t : 220000; }
static double step(double t) { return t < 3.2 ? 100000 : 612000; }   /* 500 MiB at once */
static double cycle(double t) { return 100000 + 50000 * fmod(t, 2.0); }

static double min_third(const struct rssgrowth_result *r)
{
    double m = INFINITY;
    for (int k = 0; k < 3; k++)
        m = fmin(m, r->third_pct[k]);
    return m;
}

TEST(rssgrowth_steady_leak)
{
    struct rssgrowth_result r[4];
    REQUIRE(run(leak, r) == 1);
    CHECK(r[0].pid == 10 && r[0].starttime == 777);
    CHECK(r[0].points == 12);
    CHECK_NUM(r[0].slope_kib_per_s, 10240, 1e-6);
    CHECK_NUM(r[0].growth_kib, 10240 * 5.5, 1e-6);
    CHECK_NUM(r[0].first_kib, 105120, 1e-9);
    CHECK_NUM(r[0].rise_pct, 100, 1e-9);
    CHECK_NUM(r[0].span_s, 5.5, 1e-9);
    CHECK(r[0].alive_at_end);
    /* thirds of the 5.5 s from the first tick to the window's end, ending
     * at 2.33 s and 4.17 s; each holds the growth up to its last tick
     * (2 s, 4 s, 6 s): 0.5->2, 2->4, 4->6 */
    CHECK_NUM(r[0].third_pct[0], 100 * 1.5 / 5.5, 1e-9);
    CHECK_NUM(r[0].third_pct[1], 100 * 2.0 / 5.5, 1e-9);
    CHECK_NUM(r[0].third_pct[2], 100 * 2.0 / 5.5, 1e-9);
}

TEST(rssgrowth_plateau_step_and_cycles_are_not_steady)
{
    struct rssgrowth_result r[4];
    /* rises, then flat: the last third holds nothing */
    REQUIRE(run(warmup, r) == 1);
    CHECK_NUM(r[0].third_pct[2], 0, 1e-9);
    CHECK(r[0].rise_pct < 50);
    /* one step: a single rising interval, two thirds without growth */
    REQUIRE(run(step, r) == 1);
    CHECK_NUM(r[0].rise_pct, 100.0 / 11, 1e-9);
    CHECK_NUM(min_third(&r[0]), 0, 1e-9);
    CHECK(r[0].slope_kib_per_s > 50000); /* the slope alone would look alarming */
    /* up and down: no net growth (most intervals rise, like a sawtooth's) */
    size_t n = run(cycle, r);
    CHECK(n == 0 || r[0].growth_kib <= 0);
}

TEST(rssgrowth_recycled_pid_newborn_and_bounds)
{
    struct rssgrowth *g = rssgrowth_new(6.0);
    for (int i = 1; i <= 12; i++) {
        double t = 0.5 * i;
        rssgrowth_tick(g, t);
        /* pid 20 is a different process from tick 7 on (another starttime) */
        rssgrowth_observe(g, 20, i < 7 ? 1 : 2, (uint64_t)(1000 + 5000 * t));
        /* pid 30 is born at the second tick */
        if (i >= 2)
            rssgrowth_observe(g, 30, 3, (uint64_t)(1000 + 5000 * t));
        /* kernel threads have no RSS; pid 40 exits after tick 8 */
        rssgrowth_observe(g, 2, 1, 0);
        if (i <= 8)
            rssgrowth_observe(g, 40, 4, (uint64_t)(1000 + 9000 * t));
        rssgrowth_observe(g, 50, 5, (uint64_t)(1000 + 5000 * t));
        /* read twice in one tick: counted once */
        rssgrowth_observe(g, 50, 5, (uint64_t)(1000 + 5000 * t));
    }
    struct rssgrowth_result r[8];
    /* only processes there from the first tick: a newborn's start-up is no trend */
    size_t n = rssgrowth_results(g, r, 8);
    REQUIRE(n == 2);
    CHECK(r[0].pid == 40 && !r[0].alive_at_end && r[0].points == 8);
    CHECK(r[1].pid == 50 && r[1].alive_at_end && r[1].points == 12);
    CHECK_NUM(r[1].slope_kib_per_s, 5000, 1e-6);
    CHECK_NUM(r[1].rise_pct, 100, 1e-9);
    CHECK(rssgrowth_untracked(g) == 0);
    /* at most `max` results, fastest first */
    CHECK(rssgrowth_results(g, r, 1) == 1 && r[0].pid == 40);
    rssgrowth_free(g);

    /* the tracker is bounded; the window's length unknown: no thirds */
    g = rssgrowth_new(0);
    for (int i = 1; i <= 5; i++) {
        rssgrowth_tick(g, i);
        for (int pid = 1; pid <= RSSGROWTH_TRACK_MAX + 3; pid++)
            rssgrowth_observe(g, pid, 1, (uint64_t)(100 * i + (pid == 7 ? 1000 * i : 0)));
    }
    CHECK(rssgrowth_untracked(g) == 3 * 5);
    n = rssgrowth_results(g, r, 1);
    REQUIRE(n == 1);
    CHECK(r[0].pid == 7);
    CHECK(isnan(r[0].third_pct[0]) && isnan(r[0].third_pct[2]));
    rssgrowth_free(g);
}

/* Processes born after the first tick take no tracker: with room for one
 * more at the first tick, the newborns of later ticks leave it free and are
 * not counted as untracked (they took it, and the next ones were counted). */
TEST(rssgrowth_newborns_take_no_tracker)
{
    struct rssgrowth *g = rssgrowth_new(0);
    for (int i = 1; i <= 5; i++) {
        rssgrowth_tick(g, i);
        for (int pid = 1; pid < RSSGROWTH_TRACK_MAX; pid++)
            rssgrowth_observe(g, pid, 1, (uint64_t)(100 * i + (pid == 9 ? 1000 * i : 0)));
        if (i > 1) /* two newborns a tick, growing fastest */
            for (int k = 0; k < 2; k++)
                rssgrowth_observe(g, RSSGROWTH_TRACK_MAX + 10 * i + k, 1,
                                  (uint64_t)(100000 * i));
    }
    CHECK(rssgrowth_untracked(g) == 0);
    struct rssgrowth_result r[1];
    REQUIRE(rssgrowth_results(g, r, 1) == 1);
    CHECK(r[0].pid == 9 && r[0].points == 5);
    rssgrowth_free(g);
}
