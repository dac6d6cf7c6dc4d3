/* Helpers for the tests of rules: a finding's severity and evidence, and a
 * quiet 10 s host to build a case on. */
#ifndef PERFREPORT_TEST_RULE_UTIL_H
#define PERFREPORT_TEST_RULE_UTIL_H
#include "harness.h"
#include "../../src/analyze/analyze.h"
#include "../../src/model/model.h"
#include <math.h>
#include <stdbool.h>
#include <string.h>

/* SEV_NONE when the finding is absent. */
static inline enum severity sev_of(const struct report *r, const char *id)
{
    const struct finding *f = report_find_finding(r, id);
    return f ? f->sev : SEV_NONE;
}

/* Does a line of finding id's evidence contain needle? */
static inline bool evidence_has(const struct report *r, const char *id, const char *needle)
{
    const struct finding *f = report_find_finding(r, id);
    for (size_t i = 0; f && i < f->nevidence; i++)
        if (strstr(f->evidence[i], needle))
            return true;
    return false;
}

/* Metric name = v (title and unit the name, resource "test"). */
static inline void test_metric(struct report *r, const char *name, double v)
{
    report_metric(r, name, name, "", "test", v);
}

/* Table name, made with columns cols (NULL-terminated) unless it exists. */
static inline struct table *test_table(struct report *r, const char *name,
                                       const char *const *cols)
{
    struct table *t = report_find_table(r, name);
    if (t)
        return t;
    t = report_table(r, name, name, "test");
    for (; *cols; cols++)
        table_add_col(t, *cols, *cols, "", 1);
    return t;
}

/* A row of table disk: device dev of class cls at util % busy, aqu
 * requests queued, await ms, rps reads and wps writes a second. */
static inline void add_disk(struct report *r, const char *dev, const char *cls, double util,
                            double aqu, double await, double rps, double wps)
{
    static const char *const c[] = {"device", "class", "r_per_s", "w_per_s", "rkb_per_s",
                                    "wkb_per_s", "r_await_ms", "w_await_ms", "await_ms",
                                    "aqu_sz", "util_pct", "avg_rq_kib", NULL};
    struct table *t = test_table(r, "disk", c);
    size_t i = table_add_row(t);
    table_set_str(t, i, "device", dev);
    table_set_str(t, i, "class", cls);
    table_set_num(t, i, "r_per_s", rps);
    table_set_num(t, i, "w_per_s", wps);
    table_set_num(t, i, "rkb_per_s", rps * 4);
    table_set_num(t, i, "wkb_per_s", wps * 16);
    table_set_num(t, i, "r_await_ms", await);
    table_set_num(t, i, "w_await_ms", await);
    table_set_num(t, i, "await_ms", await);
    table_set_num(t, i, "aqu_sz", aqu);
    table_set_num(t, i, "util_pct", util);
    table_set_num(t, i, "avg_rq_kib", 12);
}

/* A 10 s window on a host with nothing queued; not analyzed yet. */
static inline struct report *quiet_host(void)
{
    struct report *r = report_new();
    r->window.actual_s = 10;
    r->window.planned_s = 10;
    report_metric(r, "cpu.runq_per_cpu", "", "", "cpu", 0.1);
    return r;
}
/* A row of table memory.growth (the procs collector's): process pid
 * growing `slope` KiB/s from 50,000 KiB over secs, rising in `rise` % of
 * the intervals, its smallest third `third` % of the growth (NAN: unknown),
 * anon_share of it anonymous (NAN: unknown), in memory cgroup cgroup
 * (NULL: unknown). */
static inline void growth_row(struct report *r, double pid, const char *comm, double slope,
                              double rise, double third, double anon_share, double secs,
                              const char *cgroup)
{
    static const char *const cols[] = {"pid", "comm", "rss_start_kib", "rss_end_kib",
                                       "growth_kib", "slope_kib_per_s", "rise_pct",
                                       "min_third_pct", "anon_growth_kib", "span_s", "cgroup",
                                       NULL};
    struct table *t = test_table(r, "memory.growth", cols);
    size_t i = table_add_row(t);
    table_set_num(t, i, "pid", pid);
    table_set_str(t, i, "comm", comm);
    table_set_num(t, i, "rss_start_kib", 50000);
    table_set_num(t, i, "rss_end_kib", 50000 + slope * secs);
    table_set_num(t, i, "growth_kib", slope * secs);
    table_set_num(t, i, "slope_kib_per_s", slope);
    table_set_num(t, i, "rise_pct", rise);
    if (!isnan(third))
        table_set_num(t, i, "min_third_pct", third);
    if (!isnan(anon_share))
        table_set_num(t, i, "anon_growth_kib", anon_share * slope * secs);
    table_set_num(t, i, "span_s", secs);
    if (cgroup)
        table_set_str(t, i, "cgroup", cgroup);
}

/* The default thresholds, as analyze_run loads them, for a rule run alone. */
static inline void load_default_thresholds(struct report *r)
{
    char err[256];
    CHECK(thresholds_load(r, NULL, err, sizeof err) == 0);
}
#endif
