/* The run-queue latency collector's model fill (src/collect/runqlat.c) and
 * the sched.runqueue_latency rule at its boundaries; a quiet host of the
 * kernel-side collectors raises nothing. */
#include "harness.h"
#include "rule_util.h"
#include "../../src/analyze/analyze.h"
#include "../../src/model/model.h"
#include "../../src/collect/runqlat.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(runqlat_fill_ranks_processes_and_sums_cpus)
{
    struct report *r = report_new();
    struct khist cpus[3];
    memset(cpus, 0, sizeof cpus);
    cpus[0].slots[3] = 10;
    cpus[0].max = 12;
    cpus[2].slots[12] = 5;
    cpus[2].max = 6000;
    runqlat_fill_hists(r, cpus, 3, NULL);
    const struct hist *all = report_find_hist(r, "runqlat");
    REQUIRE(all);
    CHECK(all->count == 15);
    CHECK_NUM(all->max, 6000, 0);
    CHECK(report_find_hist(r, "runqlat.cpu0") != NULL);
    CHECK(report_find_hist(r, "runqlat.cpu1") == NULL); /* no waits there */
    CHECK(report_find_hist(r, "runqlat.cpu2") != NULL);
    CHECK_NUM(report_metric_value(r, "sched.runq_waits"), 15, 0);
    CHECK_NUM(report_metric_value(r, "sched.runq_max_us"), 6000, 0);

    struct runq_proc p[12];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 12; i++) {
        p[i].pid = 100 + (uint32_t)i;
        snprintf(p[i].comm, sizeof p[i].comm, "t%d", i);
        p[i].total_ns = (uint64_t)(i + 1) * 1000000;
        p[i].count = 10;
        p[i].max_ns = 500000;
    }
    memcpy(p[5].comm, "exactly16chars!!", 16); /* no terminator in the kernel copy */
    runqlat_fill_table(r, p, 12, "only pid 1");
    const struct table *t = report_find_table(r, "sched.runq_wait");
    REQUIRE(t && t->nrows == RUNQ_TOP);
    CHECK_NUM(table_num(t, 0, "pid"), 111, 0);
    CHECK_NUM(table_num(t, 0, "total_ms"), 12, 1e-9);
    CHECK_NUM(table_num(t, 0, "avg_us"), 1200, 1e-9);
    CHECK_NUM(table_num(t, 0, "max_us"), 500, 1e-9);
    CHECK_STR(table_str(t, 6, "comm"), "exactly16chars!!");
    CHECK_STR(t->note, "only pid 1");
    report_free(r);
}

/* Waits that ended behind perfreport's own threads are shown apart and
 * counted in their own metric, never in the host's histogram. */
TEST(runqlat_behind_self_kept_apart)
{
    struct report *r = report_new();
    struct khist cpus[1], self;
    memset(cpus, 0, sizeof cpus);
    memset(&self, 0, sizeof self);
    cpus[0].slots[4] = 100;
    cpus[0].max = 30;
    self.slots[12] = 3;
    self.sum = 15000;
    self.max = 7000;
    runqlat_fill_hists(r, cpus, 1, &self);
    const struct hist *all = report_find_hist(r, "runqlat");
    const struct hist *me = report_find_hist(r, "runqlat.behind_self");
    REQUIRE(all && me);
    CHECK(all->count == 100);
    CHECK(hist_percentile(all, 0.99) < 32);
    CHECK(me->count == 3);
    CHECK_NUM(me->max, 7000, 0);
    CHECK_NUM(report_metric_value(r, "sched.runq_behind_self"), 3, 0);
    report_free(r);

    /* none behind us: the metric says 0 and no empty histogram is drawn */
    r = report_new();
    memset(&self, 0, sizeof self);
    runqlat_fill_hists(r, cpus, 1, &self);
    CHECK(report_find_hist(r, "runqlat.behind_self") == NULL);
    CHECK_NUM(report_metric_value(r, "sched.runq_behind_self"), 0, 0);
    report_free(r);
}

/* A quiet host whose runqlat histogram holds nfast waits in bucket fast
 * and nslow in bucket slow, the longest max_us; not analyzed yet. */
static struct report *runq_host(unsigned fast, uint64_t nfast, unsigned slow, uint64_t nslow,
                                double max_us)
{
    struct report *r = quiet_host();
    struct hist *h = report_hist(r, "runqlat", "runq", "us", "cpu");
    hist_add_bucket(h, fast, nfast);
    hist_add_bucket(h, slow, nslow);
    h->max = max_us;
    return r;
}

/* 980 short waits and 20 in a slow bucket; max pins the interpolated p99. */
static struct report *runq_case(double max_us, unsigned slow_bucket)
{
    struct report *r = runq_host(2, 980, slow_bucket, 20, max_us);
    struct runq_proc p = {.pid = 42, .comm = "burner", .total_ns = 900000000, .count = 500,
                          .max_ns = 30000000};
    runqlat_fill_table(r, &p, 1, NULL);
    analyze_run(r);
    return r;
}

TEST(rule_runqueue_latency_boundaries)
{
    struct report *r = runq_case(4999, 12);
    CHECK(sev_of(r, "sched.runqueue_latency") == SEV_NONE);
    report_free(r);
    r = runq_case(5000, 12);
    CHECK(sev_of(r, "sched.runqueue_latency") == SEV_WARNING);
    CHECK(evidence_has(r, "sched.runqueue_latency", "p99 5 ms ≥ 5 ms (warning"));
    CHECK_CONTAINS(report_find_finding(r, "sched.runqueue_latency")->title, "burner (pid 42)");
    CHECK(evidence_has(r, "sched.runqueue_latency", "run queue per CPU"));
    report_free(r);
    r = runq_case(20000, 14);
    CHECK(sev_of(r, "sched.runqueue_latency") == SEV_CRITICAL);
    CHECK(evidence_has(r, "sched.runqueue_latency", "(critical)"));
    report_free(r);
}

/* The same tail when the process that waited longest lost 54 ms of the
 * 10 s window (rcu_preempt behind an ls walk): information; 100 ms (1 %)
 * is a warning. */
TEST(rule_runqueue_latency_cheap_waits_are_info)
{
    double total_ms[] = {54, 100};
    enum severity want[] = {SEV_INFO, SEV_WARNING};
    for (int k = 0; k < 2; k++) {
        struct report *r = runq_host(2, 980, 12, 20, 5290);
        struct runq_proc p = {.pid = 15, .comm = "rcu_preempt",
                              .total_ns = (uint64_t)(total_ms[k] * 1e6), .count = 500,
                              .max_ns = 6000000};
        runqlat_fill_table(r, &p, 1, NULL);
        analyze_run(r);
        CHECK(sev_of(r, "sched.runqueue_latency") == want[k]);
        if (k == 0)
            CHECK(evidence_has(r, "sched.runqueue_latency", "lost 0.54% of the window"));
        report_free(r);
    }
}

TEST(rule_runqueue_latency_few_waits_is_info)
{
    struct report *r = runq_host(2, 0, 14, 10, 30000);
    analyze_run(r);
    CHECK(sev_of(r, "sched.runqueue_latency") == SEV_INFO);
    report_free(r);
}

/* Saturated CPUs and a long run-queue wait are one story: the wait is
 * folded into cpu.saturation's evidence instead of competing with it. */
TEST(rule_runqueue_latency_folds_into_cpu_saturation)
{
    struct report *r = runq_host(2, 980, 14, 20, 20000);
    struct runq_proc p = {.pid = 42, .comm = "burner", .total_ns = 900000000, .count = 500,
                          .max_ns = 30000000};
    runqlat_fill_table(r, &p, 1, NULL);
    report_metric(r, "cpu.util_pct", "CPU utilisation", "%", "cpu", 99);
    report_metric(r, "cpu.runq_per_cpu", "Run queue per CPU", "", "cpu", 2.5);
    analyze_run(r);
    CHECK(report_find_finding(r, "sched.runqueue_latency") == NULL);
    const struct finding *f = report_find_finding(r, "cpu.saturation");
    REQUIRE(f);
    CHECK(f->sev == SEV_CRITICAL);
    CHECK(evidence_has(r, "cpu.saturation",
                       "Also seen, explained by this (sched.runqueue_latency): Run-queue latency "
                       "high: p99 "));
    CHECK(evidence_has(r, "cpu.saturation", "burner (pid 42) waited 900 ms summed over its threads"));
    report_free(r);
}

/* A quiet window: 200 waits, 3 of them slow.  p99 is past 5 ms, but three
 * slow wakeups are not a queue. */
TEST(rule_runqueue_latency_few_slow_waits_is_info)
{
    struct report *r = runq_host(4, 197, 13, 3, 9000);
    REQUIRE(hist_percentile(report_find_hist(r, "runqlat"), 0.99) >= 5000);
    analyze_run(r);
    CHECK(sev_of(r, "sched.runqueue_latency") == SEV_INFO);
    CHECK(evidence_has(r, "sched.runqueue_latency", "Only about 3 waits reached 5000 us"));
    report_free(r);

    r = runq_host(4, 195, 13, 5, 9000); /* the same tail with 5 slow waits: a warning */
    analyze_run(r);
    CHECK(sev_of(r, "sched.runqueue_latency") == SEV_WARNING);
    report_free(r);
}

TEST(rules_kio_quiet_host_no_warning)
{
    struct report *r = runq_host(3, 5000, 6, 50, 90);
    report_metric(r, "io.page_lookups", "", "", "io", 50000);
    report_metric(r, "io.cache_hit_pct", "", "%", "io", 99.5);
    report_metric(r, "io.fsync_per_s", "", "/s", "io", 0.5);
    analyze_run(r);
    CHECK(report_worst_severity(r) < SEV_WARNING);
    CHECK(report_find_finding(r, "sched.runqueue_latency") == NULL);
    report_free(r);
}
