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

TEST(procevents_fill_and_churn_rule)
{
    for (int k = 0; k < 2; k++) {
        struct report *r = report_new();
        struct pe_data d;
        memset(&d, 0, sizeof d);
        d.execs = k ? 40 : 39; /* over 2 s: 20/s is the warning line */
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
        procevents_fill(r, &d, 2);
        pe_data_free(&d);
        const struct table *t = report_find_table(r, "proc.execs");
        REQUIRE(t && t->nrows == 1);
        CHECK_STR(table_str(t, 0, "parent_comm"), "sh");
        CHECK_NUM(table_num(t, 0, "avg_lifetime_ms"), 1.5, 1e-9);
        CHECK(report_find_hist(r, "proc.lifetime") != NULL);
        load_default_thresholds(r);
        analyze_run(r);
        const struct finding *f = report_find_finding(r, "process.churn");
        if (k) {
            REQUIRE(f);
            CHECK(f->sev == SEV_WARNING);
            CHECK_CONTAINS(f->title, "\"true\"");
            CHECK_CONTAINS(f->title, "\"sh\"");
        } else {
            CHECK(f == NULL);
        }
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
