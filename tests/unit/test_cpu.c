#include "harness.h"
#include "collect_life.h"
#include "../../src/collect/cpu.h"
#include "../../src/util/hostfs.h"
#include "../../src/util/strbuf.h"
#include <errno.h>
#include <math.h>

static int load_stat(const char *root, struct proc_stat *st)
{
    struct strbuf sb = STRBUF_INIT;
    hostfs_set_root(fixture(root));
    int rc = hostfs_read("/proc/stat", &sb, 0);
    if (rc == 0)
        rc = parse_proc_stat(sb_str(&sb), st);
    sb_free(&sb);
    hostfs_set_root(NULL);
    return rc;
}

TEST(cpu_parse_stat_captured)
{
    struct proc_stat st;
    REQUIRE(load_stat("cpu/t0", &st) == 0);
    /* cpu  2915 0 1781 96821 417 0 56 9 0 0 */
    CHECK(st.total.v[CPU_USER] == 2915);
    CHECK(st.total.v[CPU_SYSTEM] == 1781);
    CHECK(st.total.v[CPU_IDLE] == 96821);
    CHECK(st.total.v[CPU_IOWAIT] == 417);
    CHECK(st.total.v[CPU_SOFTIRQ] == 56);
    CHECK(st.total.v[CPU_STEAL] == 9);
    CHECK(st.ncpus == 2);
    const struct cpu_entry *c1 = proc_stat_cpu(&st, 1);
    REQUIRE(c1 != NULL);
    CHECK(c1->t.v[CPU_USER] == 1749);
    CHECK(c1->t.v[CPU_IOWAIT] == 394);
    CHECK(proc_stat_cpu(&st, 2) == NULL);
    CHECK(st.ctxt == 368861);
    CHECK(st.intr == 165232);
    CHECK(st.processes == 8171);
    CHECK(st.procs_running == 2);
    CHECK(st.procs_blocked == 0);
    CHECK(st.have == (STAT_HAVE_CTXT | STAT_HAVE_INTR | STAT_HAVE_PROCESSES |
                      STAT_HAVE_RUNNING | STAT_HAVE_BLOCKED));
    proc_stat_free(&st);
}

TEST(cpu_split_captured_interval)
{
    struct proc_stat a, b;
    REQUIRE(load_stat("cpu/t0", &a) == 0);
    REQUIRE(load_stat("cpu/t1", &b) == 0);
    /* 1 s on 2 CPUs at 100 Hz: 200 jiffies; user +102, system +2, idle +96. */
    struct cpu_split sp;
    cpu_split(&a.total, &b.total, &sp);
    CHECK(sp.valid);
    CHECK_NUM(sp.total_jiffies, 200, 0);
    CHECK_NUM(sp.util, 52.0, 1e-9);
    CHECK_NUM(sp.user, 51.0, 1e-9);
    CHECK_NUM(sp.system, 1.0, 1e-9);
    CHECK_NUM(sp.idle, 48.0, 1e-9);
    CHECK_NUM(sp.iowait, 0, 1e-9);
    /* cpu0 ran the busy loop: +101 user, nothing else. */
    cpu_split(&proc_stat_cpu(&a, 0)->t, &proc_stat_cpu(&b, 0)->t, &sp);
    CHECK_NUM(sp.util, 100.0, 1e-9);
    proc_stat_free(&a);
    proc_stat_free(&b);
}

TEST(cpu_split_guest_not_double_counted)
{
    struct cpu_times a = {{100, 0, 0, 100, 0, 0, 0, 0, 50, 0}};
    struct cpu_times b = {{200, 0, 0, 200, 0, 0, 0, 0, 150, 0}};
    /* guest +100 is inside user +100: total is 200, not 300. */
    struct cpu_split sp;
    cpu_split(&a, &b, &sp);
    CHECK_NUM(sp.total_jiffies, 200, 0);
    CHECK_NUM(sp.util, 50.0, 1e-9);
    CHECK_NUM(sp.user, 50.0, 1e-9);
}

TEST(cpu_split_iowait_steal_not_busy)
{
    struct cpu_times a = {{0}};
    struct cpu_times b = {{10, 0, 10, 20, 30, 0, 0, 30, 0, 0}};
    struct cpu_split sp;
    cpu_split(&a, &b, &sp);
    CHECK_NUM(sp.util, 20.0, 1e-9);
    CHECK_NUM(sp.iowait, 30.0, 1e-9);
    CHECK_NUM(sp.steal, 30.0, 1e-9);
    CHECK_NUM(sp.idle, 20.0, 1e-9);
}

TEST(cpu_split_zero_interval_invalid)
{
    struct cpu_times a = {{5, 5, 5, 5, 5, 5, 5, 5, 0, 0}};
    struct cpu_split sp;
    cpu_split(&a, &a, &sp);
    CHECK(!sp.valid);
    CHECK(isnan(sp.util));
    CHECK(isnan(sp.idle));
}

TEST(cpu_lifecycle_captured)
{
    struct life l;
    life_init(&l, &collector_cpu);
    REQUIRE(life_start(&l, "cpu/t0") == 0);
    CHECK(life_tick(&l, "cpu/t1", 1.0) == 0);
    REQUIRE(life_stop(&l, "cpu/t1", 1.0) == 0);
    struct report *r = l.r;

    CHECK_NUM(report_metric_value(r, "cpu.util_pct"), 52.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.user_pct"), 51.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.system_pct"), 1.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.idle_pct"), 48.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.iowait_pct"), 0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.steal_pct"), 0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.nice_pct"), 0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.count"), 2, 0);
    CHECK_NUM(report_metric_value(r, "cpu.util_max_cpu_pct"), 100.0, 1e-9);
    /* procs_running 3 at t1, minus ourselves, over 2 CPUs. */
    CHECK_NUM(report_metric_value(r, "cpu.runq_per_cpu"), 1.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.runq_per_cpu_max"), 1.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.procs_blocked"), 0, 0);
    CHECK_NUM(report_metric_value(r, "cpu.ctxsw_per_s"), 369191 - 368861, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.intr_per_s"), 165648 - 165232, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.forks_per_s"), 8198 - 8171, 1e-9);
    CHECK_NUM(report_metric_value(r, "load.load1"), 0.11, 1e-9);
    CHECK_NUM(report_metric_value(r, "load.load5"), 0.05, 1e-9);
    CHECK_NUM(report_metric_value(r, "load.load15"), 0.01, 1e-9);

    CHECK_NUM(series_at(r, "cpu.util_pct", 0), 52.0, 1e-9);
    CHECK_NUM(series_at(r, "cpu.user_pct", 0), 51.0, 1e-9);
    CHECK_NUM(series_at(r, "cpu.system_pct", 0), 1.0, 1e-9);
    CHECK_NUM(series_at(r, "cpu.iowait_pct", 0), 0, 1e-9);
    CHECK_NUM(series_at(r, "cpu.steal_pct", 0), 0, 1e-9);
    CHECK_NUM(series_at(r, "cpu.softirq_pct", 0), 0, 1e-9);
    CHECK_NUM(series_at(r, "cpu.runq_per_cpu", 0), 1.0, 1e-9);
    CHECK_NUM(series_at(r, "cpu.procs_blocked", 0), 0, 0);
    CHECK_NUM(series_at(r, "cpu.ctxsw_per_s", 0), 330, 1e-9);
    CHECK_NUM(series_at(r, "load.load1", 0), 0.11, 1e-9);

    const struct series *s = report_find_series(r, "cpu.util_pct");
    REQUIRE(s != NULL);
    CHECK(s->chart);
    CHECK(isnan(s->warn) && isnan(s->crit)); /* lines are analysis's (test_thresholds) */
    CHECK_STR(s->hdr.resource, "cpu");
    s = report_find_series(r, "cpu.runq_per_cpu");
    REQUIRE(s != NULL);
    CHECK(s->chart);
    CHECK(isnan(s->warn) && isnan(s->crit));
    CHECK(!report_find_series(r, "cpu.user_pct")->chart);

    const struct table *t = report_find_table(r, "cpu.per_cpu");
    REQUIRE(t != NULL);
    REQUIRE(t->nrows == 2);
    CHECK_STR(table_str(t, 0, "cpu"), "cpu0");
    CHECK_STR(table_str(t, 1, "cpu"), "cpu1");
    CHECK_NUM(table_num(t, 0, "util_pct"), 100.0, 1e-9);
    CHECK_NUM(table_num(t, 0, "user_pct"), 100.0, 1e-9);
    /* cpu1: user +1, system +2, idle +97 of 100 jiffies. */
    CHECK_NUM(table_num(t, 1, "util_pct"), 3.0, 1e-9);
    CHECK_NUM(table_num(t, 1, "system_pct"), 2.0, 1e-9);
    CHECK_NUM(table_num(t, 1, "idle_pct"), 97.0, 1e-9);
    CHECK(table_col(t, "iowait_pct") >= 0 && table_col(t, "irq_pct") >= 0 &&
          table_col(t, "softirq_pct") >= 0 && table_col(t, "steal_pct") >= 0);
    CHECK(t->note == NULL);
    life_end(&l);
}

TEST(cpu_lifecycle_cpu_offline_then_back)
{
    struct life l;
    life_init(&l, &collector_cpu);
    REQUIRE(life_start(&l, "cpu/hotplug/t0") == 0);
    CHECK(life_tick(&l, "cpu/hotplug/t1", 1.0) == 0); /* cpu1 offline */
    CHECK(life_tick(&l, "cpu/hotplug/t2", 2.0) == 0); /* back online */
    REQUIRE(life_stop(&l, "cpu/hotplug/t2", 2.0) == 0);
    struct report *r = l.r;

    /* Tick 1: user +80 system +10 idle +10; tick 2: +50 +10 +90. */
    CHECK_NUM(series_at(r, "cpu.util_pct", 0), 90.0, 1e-9);
    CHECK_NUM(series_at(r, "cpu.util_pct", 1), 40.0, 1e-9);
    /* Run queue uses the CPUs online at that reading: (3-1)/1, then (1-1)/2. */
    CHECK_NUM(series_at(r, "cpu.runq_per_cpu", 0), 2.0, 1e-9);
    CHECK_NUM(series_at(r, "cpu.runq_per_cpu", 1), 0.0, 1e-9);
    CHECK_NUM(series_at(r, "cpu.ctxsw_per_s", 0), 200, 1e-9);
    CHECK_NUM(series_at(r, "cpu.ctxsw_per_s", 1), 400, 1e-9);
    CHECK_NUM(series_at(r, "load.load1", 1), 3.25, 1e-9);

    /* Window t0 -> t2: user +130 system +20 idle +100 of 250. */
    CHECK_NUM(report_metric_value(r, "cpu.util_pct"), 60.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.user_pct"), 52.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.system_pct"), 8.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.idle_pct"), 40.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.count"), 2, 0);
    CHECK_NUM(report_metric_value(r, "cpu.runq_per_cpu"), 1.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.runq_per_cpu_max"), 2.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.procs_blocked"), 2.5, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.ctxsw_per_s"), 300, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.intr_per_s"), 150, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.forks_per_s"), 15, 1e-9);
    CHECK_NUM(report_metric_value(r, "load.load1"), 3.25, 1e-9);

    const struct table *t = report_find_table(r, "cpu.per_cpu");
    REQUIRE(t != NULL);
    REQUIRE(t->nrows == 2);
    /* cpu0: user +120 system +20 idle +30 of 170. */
    CHECK_NUM(table_num(t, 0, "util_pct"), 140.0 * 100 / 170, 1e-9);
    /* cpu1 from its first to its last reading: user +10, idle +70. */
    CHECK_STR(table_str(t, 1, "cpu"), "cpu1");
    CHECK_NUM(table_num(t, 1, "util_pct"), 12.5, 1e-9);
    CHECK_CONTAINS(t->note, "cpu1");
    CHECK_NOT_CONTAINS(t->note, "cpu0");
    CHECK_NUM(report_metric_value(r, "cpu.util_max_cpu_pct"), 140.0 * 100 / 170, 1e-9);
    life_end(&l);
}

TEST(cpu_lifecycle_counters_backwards)
{
    struct life l;
    life_init(&l, &collector_cpu);
    REQUIRE(life_start(&l, "cpu/backwards/t0") == 0);
    CHECK(life_tick(&l, "cpu/backwards/t1", 1.0) == 0);
    REQUIRE(life_stop(&l, "cpu/backwards/t1", 1.0) == 0);
    struct report *r = l.r;
    /* iowait 300 -> 250 counts as 0; guest +40 stays inside user +60.
     * total = 60 + 20 + 100 = 180. */
    CHECK_NUM(report_metric_value(r, "cpu.iowait_pct"), 0, 0);
    CHECK_NUM(report_metric_value(r, "cpu.util_pct"), 80.0 * 100 / 180, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.user_pct"), 60.0 * 100 / 180, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.idle_pct"), 100.0 * 100 / 180, 1e-9);
    CHECK_NUM(series_at(r, "cpu.iowait_pct", 0), 0, 0);
    /* ctxt 10000 -> 9000: 0, never negative. */
    CHECK_NUM(report_metric_value(r, "cpu.ctxsw_per_s"), 0, 0);
    CHECK_NUM(series_at(r, "cpu.ctxsw_per_s", 0), 0, 0);
    /* procs_running 0: floored at 0, not -1. */
    CHECK_NUM(series_at(r, "cpu.runq_per_cpu", 0), 0, 0);
    CHECK_NUM(report_metric_value(r, "cpu.runq_per_cpu"), 0, 0);
    life_end(&l);
}

TEST(cpu_lifecycle_zero_length_interval)
{
    struct life l;
    life_init(&l, &collector_cpu);
    REQUIRE(life_start(&l, "cpu/t0") == 0);
    CHECK(life_tick(&l, "cpu/t0", 0.0) == 0);
    REQUIRE(life_stop(&l, "cpu/t0", 0.0) == 0);
    struct report *r = l.r;
    CHECK(isnan(series_at(r, "cpu.util_pct", 0)));
    CHECK(isnan(series_at(r, "cpu.ctxsw_per_s", 0)));
    /* Not measured means absent, not 0. */
    CHECK(report_find_metric(r, "cpu.util_pct") == NULL);
    CHECK(report_find_metric(r, "cpu.ctxsw_per_s") == NULL);
    CHECK(report_find_metric(r, "cpu.util_max_cpu_pct") == NULL);
    /* Gauges still have a value: (2-1)/2. */
    CHECK_NUM(report_metric_value(r, "cpu.runq_per_cpu"), 0.5, 1e-9);
    CHECK_NUM(report_metric_value(r, "cpu.count"), 2, 0);
    const struct table *t = report_find_table(r, "cpu.per_cpu");
    REQUIRE(t != NULL);
    CHECK(t->nrows == 2);
    CHECK(isnan(table_num(t, 0, "util_pct")));
    life_end(&l);
}

TEST(cpu_parse_malformed_lines_skipped)
{
    struct proc_stat st;
    REQUIRE(load_stat("cpu/malformed", &st) == 0);
    /* The first valid aggregate wins; the bad one before it is skipped. */
    CHECK(st.total.v[CPU_USER] == 100);
    CHECK(st.total.v[CPU_IDLE] == 800);
    REQUIRE(st.ncpus == 2);
    CHECK(st.cpus[0].id == 0 && st.cpus[1].id == 1);
    /* Duplicate cpu0 later in the file does not replace the first. */
    CHECK(st.cpus[0].t.v[CPU_USER] == 50);
    CHECK(st.cpus[1].t.v[CPU_IDLE] == 400);
    CHECK(!(st.have & STAT_HAVE_CTXT)); /* "-5" and an overflow */
    CHECK(!(st.have & STAT_HAVE_INTR));
    CHECK(!(st.have & STAT_HAVE_BLOCKED));
    CHECK(st.have & STAT_HAVE_RUNNING);
    CHECK(st.procs_running == 4);
    proc_stat_free(&st);
}

TEST(cpu_parse_rejects_without_aggregate)
{
    struct proc_stat st;
    CHECK(parse_proc_stat("", &st) == -EINVAL);
    CHECK(parse_proc_stat("cpu0 1 2 3 4\nctxt 5\n", &st) == -EINVAL);
    CHECK(parse_proc_stat("cpu 1 2 3\n", &st) == -EINVAL); /* fewer than 4 fields */
    CHECK(parse_proc_stat("cpu 1 2 3 4 5 6 7 8 9 10 11 12\n", &st) == 0);
    CHECK(st.total.v[CPU_GUEST_NICE] == 10); /* extra future fields ignored */
    proc_stat_free(&st);
    /* A 2.4-era line with only 4 fields still parses; the rest stay 0. */
    CHECK(parse_proc_stat("cpu  10 0 10 80\ncpu0 10 0 10 80\n", &st) == 0);
    CHECK(st.total.v[CPU_IDLE] == 80 && st.total.v[CPU_IOWAIT] == 0);
    CHECK(st.ncpus == 1);
    proc_stat_free(&st);
    /* No trailing newline, CRLF. */
    CHECK(parse_proc_stat("cpu 1 2 3 4\r\nprocs_running 3", &st) == 0);
    CHECK(st.total.v[CPU_IDLE] == 4 && st.procs_running == 3);
    proc_stat_free(&st);
}

TEST(cpu_lifecycle_malformed_no_crash)
{
    struct life l;
    life_init(&l, &collector_cpu);
    REQUIRE(life_start(&l, "cpu/malformed") == 0);
    CHECK(life_tick(&l, "cpu/malformed", 1.0) == 0);
    REQUIRE(life_stop(&l, "cpu/malformed", 2.0) == 0);
    struct report *r = l.r;
    /* procs_running 4 over 2 CPUs, minus ourselves. */
    CHECK_NUM(report_metric_value(r, "cpu.runq_per_cpu"), 1.5, 1e-9);
    CHECK(report_find_metric(r, "cpu.ctxsw_per_s") == NULL);
    CHECK(report_find_metric(r, "cpu.procs_blocked") == NULL);
    /* The loadavg file is garbage: load metrics are absent. */
    CHECK(report_find_metric(r, "load.load1") == NULL);
    CHECK(report_find_series(r, "load.load1") == NULL);
    life_end(&l);
}

TEST(cpu_start_fails_without_proc_stat)
{
    struct life l;
    life_init(&l, &collector_cpu);
    CHECK(life_start(&l, "psi/nopsi") == -ENOENT);
    CHECK_CONTAINS(l.err, "/proc/stat");
    life_end(&l);
}

TEST(cpu_parse_loadavg)
{
    struct loadavg la;
    REQUIRE(parse_loadavg("0.11 0.05 0.01 3/98 8197\n", &la) == 0);
    CHECK_NUM(la.load1, 0.11, 1e-12);
    CHECK_NUM(la.load5, 0.05, 1e-12);
    CHECK_NUM(la.load15, 0.01, 1e-12);
    CHECK(la.running == 3 && la.threads == 98);
    CHECK(parse_loadavg("", &la) == -EINVAL);
    CHECK(parse_loadavg("not a load average", &la) == -EINVAL);
    CHECK(parse_loadavg("0.1 0.2", &la) == -EINVAL);
    CHECK(parse_loadavg("nan 0.2 0.3 1/2 3", &la) == -EINVAL);
    CHECK(parse_loadavg("-1 0.2 0.3 1/2 3", &la) == -EINVAL);
}
