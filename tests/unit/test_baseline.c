/* --baseline: the comparison with an earlier run goes into the model. */
#include "harness.h"
#include "../../src/replay/diff_baseline.h"
#include "../../src/model/model.h"
#include "../../src/util/xalloc.h"
#include "test_util.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct report *run(double util, enum severity sev)
{
    struct report *r = report_new();
    kv_add(&r->host, "hostname", "Host name", "web1");
    r->window.start_wall.tv_sec = 1764122400; /* 2025-11-26 02:00:00 UTC */
    r->window.actual_s = r->window.planned_s = 10;
    report_metric(r, "cpu.util_pct", "CPU utilisation", "%", "cpu", util);
    if (sev != SEV_NONE) {
        struct finding *f = report_add_finding(r, "cpu.saturation", sev, "cpu", "CPU saturated");
        f->score = sev == SEV_CRITICAL ? 320 : 220;
    }
    return r;
}

static const struct table *changes(const struct report *r)
{
    return report_find_table(r, "baseline.changes");
}

TEST(baseline_regression_named_in_headline_and_table)
{
    struct report *base = run(40, SEV_WARNING);
    struct report *now = run(99, SEV_CRITICAL);
    /* a second finding, in both runs: the headline's "(+1 more finding)" */
    report_add_finding(base, "proc.churn", SEV_INFO, "process", "Process churn")->score = 100;
    report_add_finding(now, "proc.churn", SEV_INFO, "process", "Process churn")->score = 100;
    report_set_headline(now, "CPU saturated (+1 more finding)");
    baseline_apply(now, base);
    CHECK_STR(now->headline, "CPU saturated (worse since the baseline, web1, 2025-11-26 02:00 UTC) "
                             "(+1 more finding)");
    const struct table *t = changes(now);
    REQUIRE(t && t->nrows >= 1);
    CHECK_STR(table_str(t, 0, "what"), "CPU saturated");
    CHECK_STR(table_str(t, 0, "change"), "worse");
    CHECK_STR(table_str(t, 0, "baseline"), "warning");
    CHECK_STR(table_str(t, 0, "now"), "critical");
    CHECK_STR(kv_get(&now->host, "baseline"), "web1, 2025-11-26 02:00 UTC");
    report_free(base);
    report_free(now);

    /* a finding the baseline did not have: "new" */
    base = run(10, SEV_NONE);
    now = run(99, SEV_CRITICAL);
    report_set_headline(now, "CPU saturated");
    baseline_apply(now, base);
    CHECK_STR(now->headline, "CPU saturated (new since the baseline, web1, 2025-11-26 02:00 UTC)");
    CHECK_STR(table_str(changes(now), 0, "change"), "new");
    CHECK(table_str(changes(now), 0, "baseline") == NULL); /* shown as "-" */
    report_free(base);
    report_free(now);
}

TEST(baseline_same_run_no_clear_change)
{
    struct report *base = run(60, SEV_WARNING);
    struct report *now = run(60, SEV_WARNING);
    report_set_headline(now, "CPU saturated");
    baseline_apply(now, base);
    CHECK_STR(now->headline, "CPU saturated"); /* not a regression: unchanged */
    const struct table *t = changes(now);
    REQUIRE(t);
    CHECK(t->nrows == 0);
    CHECK(t->note && strstr(t->note, "No clear change"));
    report_free(base);
    report_free(now);
}

/* A run written with --baseline reads back: its "baseline.changes" table has
 * text columns (decimals -1), which the loader refused (issue 34, 1). */
TEST(baseline_table_reads_back)
{
    struct report *base = run(40, SEV_WARNING);
    struct report *now = run(99, SEV_CRITICAL);
    baseline_apply(now, base);
    char *text = test_report_json(now);
    struct report *back = test_report_parse(text);
    REQUIRE(back);
    const struct table *t = changes(back);
    REQUIRE(t && t->nrows == changes(now)->nrows && t->ncols == 4);
    CHECK_STR(table_str(t, 0, "change"), "worse");
    CHECK(t->cols[0].decimals == -1);
    free(text);
    report_free(back);
    report_free(base);
    report_free(now);
}
