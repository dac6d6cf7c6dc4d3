#include "harness.h"
#include "../../src/model/model.h"
#include <math.h>

TEST(model_series_pads_missing_ticks_with_nan)
{
    struct report *r = report_new();
    struct series *s = report_series(r, "x", "X", "%", "cpu");
    report_add_tick(r, 1);
    report_add_tick(r, 2);
    series_set(r, s, 5);
    CHECK(s->n == 2);
    CHECK(isnan(s->v[0]));
    CHECK_NUM(s->v[1], 5, 0);
    CHECK(report_series(r, "x", NULL, NULL, NULL) == s);
    report_free(r);
}

TEST(model_table_cells_by_column_name)
{
    struct report *r = report_new();
    struct table *t = report_table(r, "disk", "Disks", "disk");
    table_add_col(t, "device", "Device", "", 0);
    table_add_col(t, "util_pct", "Util", "%", 1);
    size_t row = table_add_row(t);
    table_set_str(t, row, "device", "vda");
    table_set_num(t, row, "util_pct", 42.5);
    CHECK_STR(table_str(t, 0, "device"), "vda");
    CHECK_NUM(table_num(t, 0, "util_pct"), 42.5, 0);
    CHECK(isnan(table_num(t, 0, "nope")));
    CHECK(report_find_table(r, "disk") == t);
    report_free(r);
}

TEST(model_worst_severity_and_metrics)
{
    struct report *r = report_new();
    CHECK(report_worst_severity(r) == SEV_NONE);
    report_add_finding(r, "a", SEV_INFO, "cpu", "t");
    struct finding *f = report_add_finding(r, "b", SEV_WARNING, "cpu", "t");
    finding_evidence(f, "x %d", 3);
    CHECK_STR(f->evidence[0], "x 3");
    CHECK(report_worst_severity(r) == SEV_WARNING);
    report_metric(r, "m", "M", "%", "cpu", 3);
    report_metric(r, "m", "M", "%", "cpu", 4);
    CHECK_NUM(report_metric_value(r, "m"), 4, 0);
    CHECK(isnan(report_metric_value(r, "absent")));
    report_free(r);
}

TEST(model_remove_finding_keeps_the_others)
{
    struct report *r = report_new();
    report_add_finding(r, "a", SEV_INFO, "cpu", "A");
    struct finding *b = report_add_finding(r, "b", SEV_CRITICAL, "mem", "B");
    finding_evidence(b, "owned %s", "text"); /* freed with it (ASan, valgrind) */
    finding_set_culprit(b, "x");
    report_add_finding(r, "c", SEV_WARNING, "disk", "C");
    report_remove_finding(r, (struct finding *)report_find_finding(r, "b"));
    CHECK(r->nfindings == 2);
    CHECK(report_find_finding(r, "b") == NULL);
    CHECK_STR(r->findings[0].id, "a");
    CHECK_STR(r->findings[1].id, "c");
    CHECK_STR(r->findings[1].title, "C");
    CHECK(report_worst_severity(r) == SEV_WARNING);
    report_remove_finding(r, &r->findings[1]); /* the last one */
    CHECK(r->nfindings == 1);
    CHECK_STR(r->findings[0].id, "a");
    report_free(r);
}

TEST(model_hist_percentiles_interpolate_in_log2_buckets)
{
    struct report *r = report_new();
    struct hist *h = report_hist(r, "runqlat", "Run-queue latency", "us", "cpu");
    CHECK(isnan(hist_percentile(h, 0.5)));
    hist_add_bucket(h, 3, 50);  /* [8,16) */
    hist_add_bucket(h, 10, 50); /* [1024,2048) */
    CHECK(h->count == 100);
    CHECK_NUM(hist_percentile(h, 0.25), 12, 1e-9);    /* halfway through [8,16) */
    CHECK_NUM(hist_percentile(h, 0.5), 16, 1e-9);     /* top of the first bucket */
    CHECK_NUM(hist_percentile(h, 0.99), 2027.52, 1e-6);
    h->max = 1500;
    CHECK_NUM(hist_percentile(h, 0.99), 1500, 1e-9); /* never above the known max */
    CHECK(report_find_hist(r, "runqlat") == h);
    /* the same linear model, counted from the top; nothing above max */
    CHECK_NUM(hist_count_above(h, 8), 100, 1e-9);
    CHECK_NUM(hist_count_above(h, 12), 75, 1e-9);   /* half of [8,16) */
    CHECK_NUM(hist_count_above(h, 16), 50, 1e-9);
    CHECK_NUM(hist_count_above(h, 1500), 50.0 * 548 / 1024, 1e-9);
    CHECK_NUM(hist_count_above(h, 1501), 0, 1e-9);  /* above the maximum */
    h->max = 2047.5;
    CHECK_NUM(hist_count_above(h, 2047), 1, 1e-9);  /* at least the max itself */
    h->max = NAN;
    CHECK_NUM(hist_count_above(h, 1536), 25, 1e-9); /* half of [1024,2048) */
    CHECK_NUM(hist_count_above(h, 4096), 0, 1e-9);
    report_free(r);
}
