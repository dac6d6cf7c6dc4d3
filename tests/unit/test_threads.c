/* The thread profile of a -p run: the /proc status parser, the per-thread
 * tables (src/collect/threads.c, threads_tables.c), their join and the
 * rule cpu.thread_bottleneck (src/analyze/threads.c). */
#include "harness.h"
#include "collect_life.h"
#include "rule_util.h"
#include "../../src/analyze/analyze.h"
#include "../../src/model/model.h"
#include "../../src/collect/threads.h"
#include "../../src/kbpf/threads_tables.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TEST(threads_parse_switches_lines)
{
    uint64_t v = 1, nv = 1;
    const char *ok = "Name:\thot\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n";
    CHECK(threads_parse_switches(ok, strlen(ok), &v, &nv) == 0);
    CHECK(v == 12 && nv == 3);
    const char *crlf = "voluntary_ctxt_switches: 7\r\nnonvoluntary_ctxt_switches: 0\r\n";
    CHECK(threads_parse_switches(crlf, strlen(crlf), &v, &nv) == 0);
    CHECK(v == 7 && nv == 0);
    /* the key must start a line: "nonvoluntary_..." is not "voluntary_..." */
    const char *only_non = "nonvoluntary_ctxt_switches:\t3\n";
    CHECK(threads_parse_switches(only_non, strlen(only_non), &v, &nv) == -ENOENT);
    const char *bad = "voluntary_ctxt_switches:\tx1\nnonvoluntary_ctxt_switches:\t3\n";
    CHECK(threads_parse_switches(bad, strlen(bad), &v, &nv) == -ENOENT);
    const char *huge = "voluntary_ctxt_switches:\t99999999999999999999999\n"
                       "nonvoluntary_ctxt_switches:\t3\n";
    CHECK(threads_parse_switches(huge, strlen(huge), &v, &nv) == -ENOENT);
    /* not NUL-terminated: the length bounds the parse */
    char cut[] = "voluntary_ctxt_switches:\t5\nnonvoluntary_ctxt_switches:\t9";
    CHECK(threads_parse_switches(cut, strlen(cut) - 1, &v, &nv) == -ENOENT);
    CHECK(threads_parse_switches(cut, strlen(cut), &v, &nv) == 0 && nv == 9);
    char nul[] = "voluntary_ctxt_switches:\t5\0nonvoluntary_ctxt_switches:\t9\n";
    CHECK(threads_parse_switches(nul, sizeof nul - 1, &v, &nv) == -ENOENT);
}

TEST(threads_fill_top_and_rest)
{
    struct report *r = report_new();
    size_t n = THREADS_TOP + 5;
    struct thread_delta *d = calloc(n, sizeof *d);
    REQUIRE(d);
    for (size_t i = 0; i < n; i++) {
        d[i].tid = (uint32_t)(100 + i);
        snprintf(d[i].comm, sizeof d[i].comm, "w%zu", i);
        d[i].state = 'S';
        d[i].user_s = 0.01 * (double)i; /* the last ones are the busiest */
        d[i].vol = 20;
    }
    d[n - 1].user_s = 1.5;
    d[n - 1].sys_s = 0.5;
    threads_fill(r, 42, d, n, 2.0, n + 7, 7, 1);
    const struct table *t = report_find_table(r, "threads.cpu");
    REQUIRE(t && t->nrows == THREADS_TOP);
    CHECK_NUM(table_num(t, 0, "tid"), (double)(100 + n - 1), 0);
    CHECK_NUM(table_num(t, 0, "cpu_pct"), 100, 1e-9);
    CHECK_NUM(table_num(t, 0, "user_pct"), 75, 1e-9);
    CHECK_NUM(table_num(t, 0, "vol_per_s"), 10, 1e-9);
    CHECK(table_num(t, 1, "cpu_pct") >= table_num(t, 2, "cpu_pct"));
    /* the five least busy (0, 0.5, 1, 1.5, 2 % of a CPU) are summed */
    REQUIRE(t->note);
    CHECK_CONTAINS(t->note, "5 more threads used 5.0% of one CPU together");
    CHECK_CONTAINS(t->note, "7 threads were not read");
    CHECK_CONTAINS(t->note, "1 threads ended");
    CHECK_NUM(report_metric_value(r, "threads.count"), (double)(n + 7), 0);
    CHECK_NUM(report_metric_value(r, "threads.pid"), 42, 0);
    free(d);
    report_free(r);
}

TEST(threads_offcpu_by_class)
{
    struct report *r = report_new();
    struct thread_off v[] = {
        {7, WC_PARK, true, 3000000000ull},  /* 3 s parked on a condition variable */
        {9, WC_IO, false, 100000000ull},
        {7, WC_PIPE, false, 500000000ull},  /* 0.5 s on a pipe */
        {9, WC_LOCK, true, 200000000ull},
    };
    threads_fill_offcpu(r, v, 4, 5.0, 3);
    const struct table *t = report_find_table(r, "threads.offcpu");
    REQUIRE(t && t->nrows == 2);
    CHECK_NUM(table_num(t, 0, "tid"), 7, 0);
    CHECK_NUM(table_num(t, 0, "total_ms"), 3500, 1e-6);
    CHECK_NUM(table_num(t, 0, "window_pct"), 70, 1e-9);
    CHECK_NUM(table_num(t, 0, "futex_ms"), 3000, 1e-6);
    CHECK_NUM(table_num(t, 0, "park_ms"), 3000, 1e-6);
    CHECK_NUM(table_num(t, 0, "idle_ms"), 0, 1e-6);
    CHECK_NUM(table_num(t, 0, "pipe_ms"), 500, 1e-6);
    CHECK_NUM(table_num(t, 0, "ipc_ms"), 0, 1e-6);
    CHECK_NUM(table_num(t, 1, "io_ms"), 100, 1e-6);
    CHECK_NUM(table_num(t, 1, "lock_ms"), 200, 1e-6);
    REQUIRE(t->note);
    CHECK_CONTAINS(t->note, "3 events not kept per thread");
    report_free(r);
}

/* A -p run's tables: thread 11 "hotspin" runs cpu % and waits runq_ms for
 * a CPU; threads 12 and 10 wait wait_pct % of the 10 s window in futex
 * calls of class cls (parked for work from it, or joining it).  Joined and
 * judged. */
static struct report *thread_case_cls(double cpu, double runq_ms, double wait_pct,
                                      enum wait_class cls)
{
    struct report *r = quiet_host();
    struct thread_delta d[3] = {
        {.tid = 11, .comm = "hotspin", .state = 'R', .user_s = cpu / 100 * 10, .invol = 50},
        {.tid = 12, .comm = "waiter-1", .state = 'S', .vol = 900},
        {.tid = 10, .comm = "app", .state = 'S'},
    };
    threads_fill(r, 10, d, 3, 10.0, 3, 0, 0);
    struct thread_val on[1] = {{.tid = 11, .comm = "hotspin", .count = 480}};
    threads_fill_oncpu(r, on, 1, 0);
    struct thread_val rq[1] = {{.tid = 11, .comm = "hotspin", .count = 10,
                                .total_ns = (uint64_t)(runq_ms * 1e6), .max_ns = 2000000}};
    threads_fill_runq(r, rq, 1, 0);
    struct thread_off off[2] = {
        {12, cls, true, (uint64_t)(wait_pct / 100 * 10e9)},
        {10, cls, true, (uint64_t)(wait_pct / 100 * 10e9)},
    };
    threads_fill_offcpu(r, off, 2, 10.0, 0);
    analyze_run(r);
    return r;
}

static struct report *thread_case(double cpu, double runq_ms, double wait_pct)
{
    return thread_case_cls(cpu, runq_ms, wait_pct, WC_PARK);
}

TEST(rule_thread_bottleneck_boundaries)
{
    struct report *r = thread_case(96, 0, 90);
    CHECK(sev_of(r, "cpu.thread_bottleneck") == SEV_CRITICAL);
    const struct finding *f = report_find_finding(r, "cpu.thread_bottleneck");
    REQUIRE(f);
    CHECK_CONTAINS(f->title, "hotspin (tid 11) of app (pid 10)");
    CHECK_CONTAINS(f->title, "2 of its 2 other threads");
    CHECK_STR(f->culprit, "app (pid 10)");
    CHECK_CONTAINS(f->recommendation, "perf record -g -t 11");
    CHECK(evidence_has(r, "cpu.thread_bottleneck", "480 on-CPU samples"));
    const struct table *t = report_find_table(r, "threads");
    REQUIRE(t && t->nrows == 3);
    CHECK_NUM(table_num(t, 0, "samples"), 480, 0);
    CHECK_NUM(table_num(t, 1, "samples"), 0, 0); /* measured, none */
    CHECK_NUM(table_num(t, 1, "futex_ms"), 9000, 1e-6);
    report_free(r);

    /* below 80 % running or runnable: no finding */
    r = thread_case(79, 0, 90);
    CHECK(sev_of(r, "cpu.thread_bottleneck") == SEV_NONE);
    report_free(r);
    /* starved by a busy host: 40 % on a CPU + 4.5 s runnable = 85 % */
    r = thread_case(40, 4500, 90);
    CHECK(sev_of(r, "cpu.thread_bottleneck") == SEV_WARNING);
    CHECK(evidence_has(r, "cpu.thread_bottleneck", "the host's CPUs are busy too"));
    t = report_find_table(r, "threads");
    REQUIRE(t);
    CHECK_NUM(table_num(t, 0, "demand_pct"), 85, 1e-9);
    report_free(r);
    /* a hot thread whose peers do not wait on it: a hot loop, not a bottleneck */
    r = thread_case(99, 0, 49);
    CHECK(sev_of(r, "cpu.thread_bottleneck") == SEV_NONE);
    report_free(r);
    /* the others join it: a program with one worker, waiting for it to end */
    r = thread_case_cls(99, 0, 99, WC_JOIN);
    CHECK(sev_of(r, "cpu.thread_bottleneck") == SEV_NONE);
    t = report_find_table(r, "threads");
    REQUIRE(t);
    CHECK_NUM(table_num(t, 1, "join_ms"), 9900, 1e-6);
    report_free(r);
    /* blocked on a mutex the hot thread holds */
    r = thread_case_cls(96, 0, 90, WC_LOCK);
    CHECK(sev_of(r, "cpu.thread_bottleneck") == SEV_CRITICAL);
    report_free(r);
}

/* Analysis runs again on a loaded bundle: the join is not repeated. */
TEST(threads_join_once)
{
    struct report *r = thread_case(96, 0, 90);
    size_t ntables = r->ntables;
    while (r->nfindings)
        report_remove_finding(r, &r->findings[0]);
    analyze_run(r);
    CHECK(r->ntables == ntables);
    const struct table *t = report_find_table(r, "threads");
    REQUIRE(t && t->nrows == 3);
    CHECK(sev_of(r, "cpu.thread_bottleneck") == SEV_CRITICAL);
    report_free(r);
}

/* The collector over two captured /proc trees 2 s apart: deltas per
 * thread, a thread that ended, a tid reused by a new thread, a thread
 * whose files are gone, a comm with ") " in it. */
TEST(threads_collector_fixture)
{
    struct life l;
    life_init(&l, &collector_threads);
    char why[128];
    CHECK(!l.c->can_run(&l.ctx, why, sizeof why)); /* system-wide: not this collector */
    CHECK_CONTAINS(why, "-p PID");
    l.cfg.pid = 42;
    CHECK(l.c->can_run(&l.ctx, why, sizeof why));
    REQUIRE(life_start(&l, "threads/t0") == 0);
    REQUIRE(life_stop(&l, "threads/t2", 2.0) == 0);
    double hz = (double)sysconf(_SC_CLK_TCK);
    const struct table *t = report_find_table(l.r, "threads.cpu");
    REQUIRE(t && t->nrows == 4);
    CHECK_STR(table_str(t, 0, "comm"), "hot) spin");
    CHECK_NUM(table_num(t, 0, "tid"), 43, 0);
    CHECK_NUM(table_num(t, 0, "user_pct"), 190 / hz / 2 * 100, 1e-9);
    CHECK_NUM(table_num(t, 0, "sys_pct"), 6 / hz / 2 * 100, 1e-9);
    CHECK_NUM(table_num(t, 0, "invol_per_s"), 100, 1e-9);
    CHECK_NUM(table_num(t, 0, "vol_per_s"), 1, 1e-9);
    CHECK_STR(table_str(t, 0, "state"), "R");
    /* tid 46 is a new thread (another start time): all its time counts */
    CHECK_NUM(table_num(t, 1, "tid"), 46, 0);
    CHECK_NUM(table_num(t, 1, "cpu_pct"), 40 / hz / 2 * 100, 1e-9);
    CHECK_NUM(table_num(t, 1, "invol_per_s"), 1.5, 1e-9);
    CHECK_NUM(table_num(t, 2, "tid"), 44, 0);
    CHECK_NUM(table_num(t, 3, "cpu_pct"), 0, 0);
    REQUIRE(t->note);
    CHECK_CONTAINS(t->note, "2 threads ended during the window");
    CHECK(strstr(t->note, "not read") == NULL);
    CHECK_NUM(report_metric_value(l.r, "threads.count"), 5, 0); /* 47 listed, unreadable */
    /* the target gone at the end: the collector says so */
    CHECK(life_stop(&l, "threads/none", 3.0) != 0);
    CHECK_CONTAINS(l.err, "pid 42");
    life_end(&l);
}

/* A big process: the waiter is not among the busiest threads listed, but
 * the per-thread off-CPU table has it; the title counts every thread. */
TEST(rule_thread_bottleneck_waiter_beyond_the_busiest)
{
    struct report *r = quiet_host();
    struct thread_delta d[2] = {
        {.tid = 11, .comm = "hotspin", .state = 'R', .user_s = 9.9},
        {.tid = 12, .comm = "worker", .state = 'R', .user_s = 2},
    };
    threads_fill(r, 10, d, 2, 10.0, 1000, 0, 0);
    struct thread_off off[2] = {
        {500, WC_PARK, true, 9000000000ull}, /* parked for work from it */
        {12, WC_SLEEP, false, 1000000000ull}, /* sleeps: waits for no one */
    };
    threads_fill_offcpu(r, off, 2, 10.0, 0);
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "cpu.thread_bottleneck");
    REQUIRE(f);
    CHECK_CONTAINS(f->title, "1 of its 999 other threads");
    CHECK(evidence_has(r, "cpu.thread_bottleneck", "Time thread 500 waited"));
    report_free(r);
}
