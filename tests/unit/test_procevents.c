/* The process event collector (src/collect/procevents.c): the model fill,
 * the churn rule, and events outside the window. */
#include "harness.h"
#include "rule_util.h"
#include "../../src/analyze/analyze.h"
#include "../../src/collect/procevents.h"
#include "../../src/model/model.h"
#include "../../src/util/strbuf.h"
#include <arpa/inet.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A 2 s window on a 2-CPU host: `execs` runs of "true" started by sh (and
 * two by cron), all short-lived, whose lives took cpu_s of CPU together. */
static struct report *churn_model(uint64_t execs, double cpu_s)
{
    struct report *r = report_new();
    struct pe_data d;
    memset(&d, 0, sizeof d);
    d.execs = execs;
    d.exits = d.execs;
    d.shorts = d.execs;
    d.hist[0] = d.execs;
    d.nex = 2;
    d.ex = calloc(2, sizeof *d.ex);
    strcpy(d.ex[0].comm, "true");
    strcpy(d.ex[0].pcomm, "sh");
    d.ex[0].n = d.execs - 2;
    strcpy(d.ex[1].comm, "true");
    strcpy(d.ex[1].pcomm, "cron");
    d.ex[1].n = 2;
    d.nxt = 1;
    d.xt = calloc(1, sizeof *d.xt);
    strcpy(d.xt[0].comm, "true");
    d.xt[0].exits = 10;
    d.xt[0].life_ns = 10 * 1500000ull;
    d.xt[0].cpu_ns = (uint64_t)(cpu_s * 1e9);
    d.xt[0].churn_ns = d.xt[0].cpu_ns;
    procevents_fill(r, &d, 2);
    pe_data_free(&d);
    report_metric(r, "cpu.count", "CPUs", "", "cpu", 2);
    load_default_thresholds(r);
    analyze_run(r);
    return r;
}

TEST(procevents_fill_and_churn_rule)
{
    struct report *r = churn_model(40, 0.01);
    const struct table *t = report_find_table(r, "proc.execs");
    REQUIRE(t && t->nrows == 1);
    CHECK_STR(table_str(t, 0, "parent_comm"), "sh");
    CHECK_NUM(table_num(t, 0, "avg_lifetime_ms"), 1.5, 1e-9);
    CHECK_NUM(table_num(t, 0, "cpu_pct"), 0.5, 1e-9); /* 10 ms over 2 s */
    CHECK_NUM(report_metric_value(r, "proc.churn_cpu_pct"), 0.5, 1e-9);
    CHECK(report_find_hist(r, "proc.lifetime") != NULL);
    /* 20 execs/s that cost 0.25 % of the CPUs: listed, not a problem */
    const struct finding *f = report_find_finding(r, "process.churn");
    REQUIRE(f);
    CHECK(f->sev == SEV_INFO);
    CHECK_CONTAINS(f->title, "\"true\"");
    CHECK_CONTAINS(f->title, "\"sh\"");
    report_free(r);
    /* 19.5 execs/s costing nothing: no finding */
    r = churn_model(39, 0.01);
    CHECK(report_find_finding(r, "process.churn") == NULL);
    report_free(r);
}

/* Severity is what the short-lived processes cost, as a share of all
 * CPUs: 10 % a warning, 30 % critical, whatever the rate. */
TEST(procevents_churn_judged_by_cost)
{
    static const struct {
        uint64_t execs;
        double cpu_s; /* over 2 s on 2 CPUs: 0.4 s is 10 % */
        enum severity want;
    } cases[] = {
        {40, 0.396, SEV_INFO}, {40, 0.4, SEV_WARNING}, {40, 1.2, SEV_CRITICAL},
        {10, 0.4, SEV_WARNING}, /* few but expensive short-lived processes */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct report *r = churn_model(cases[k].execs, cases[k].cpu_s);
        const struct finding *f = report_find_finding(r, "process.churn");
        REQUIRE(f);
        CHECK(f->sev == cases[k].want);
        CHECK_CONTAINS(f->title, "costing");
        report_free(r);
    }
}

TEST(procevents_outside_the_window_listed_not_judged)
{
    /* 300 execs while perfreport started, 10 in a 2 s window: the rate is
     * the window's (5/s, no finding); the 300 are listed apart. */
    struct report *r = report_new();
    struct pe_data d;
    memset(&d, 0, sizeof d);
    d.execs = 10;
    d.execs_before = 300;
    d.execs_after = 4;
    d.nex = 2;
    d.ex = calloc(2, sizeof *d.ex);
    strcpy(d.ex[0].comm, "true");
    strcpy(d.ex[0].pcomm, "sh");
    d.ex[0].n = 10;
    d.ex[0].n_after = 4;
    strcpy(d.ex[1].comm, "startx");
    strcpy(d.ex[1].pcomm, "init");
    d.ex[1].n_before = 300;
    procevents_fill(r, &d, 2);
    pe_data_free(&d);
    CHECK_NUM(report_metric_value(r, "proc.exec_per_s"), 5, 1e-9);
    CHECK_NUM(report_metric_value(r, "proc.execs_before_window"), 300, 1e-9);
    const struct table *t = report_find_table(r, "proc.execs");
    /* "startx" ran only before the window: it is not a window row. */
    REQUIRE(t && t->nrows == 1);
    CHECK_STR(table_str(t, 0, "comm"), "true");
    CHECK_NUM(table_num(t, 0, "execs"), 10, 1e-9);
    const struct table *o = report_find_table(r, "proc.execs_outside");
    REQUIRE(o && o->nrows == 2);
    CHECK_STR(table_str(o, 0, "comm"), "startx");
    CHECK_NUM(table_num(o, 0, "execs_before"), 300, 1e-9);
    CHECK_NUM(table_num(o, 1, "execs_after"), 4, 1e-9);
    load_default_thresholds(r);
    analyze_run(r);
    CHECK(report_find_finding(r, "process.churn") == NULL);
    report_free(r);

    /* Churn in the window: the finding says what happened outside it. */
    r = report_new();
    memset(&d, 0, sizeof d);
    d.execs = 100;
    d.execs_before = 7;
    procevents_fill(r, &d, 2);
    pe_data_free(&d);
    load_default_thresholds(r);
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "process.churn");
    REQUIRE(f);
    int said = 0;
    for (size_t i = 0; i < f->nevidence; i++)
        said |= strstr(f->evidence[i], "7 execs before it opened, 0 after it closed") != NULL;
    CHECK(said);
    report_free(r);
}
