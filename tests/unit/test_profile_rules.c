/* profile_summarize on a hand-built profile; cpu.hotspot and the
 * cpu.saturation evidence line on synthetic models. */
#include "harness.h"
#include "../../src/analyze/analyze.h"
#include "../../src/collect/profile.h"
#include "../../src/model/profile_summary.h"
#include "../../src/model/model.h"
#include "../../src/model/profile.h"
#include <stdbool.h>

static void add(struct profile *p, const char *proc, const char *a, const char *b, const char *c,
                uint64_t n)
{
    const char *f[] = {proc, a, b, c};
    uint8_t k[] = {FRAME_PROCESS, FRAME_USER, FRAME_USER, c && c[0] == 'k' ? FRAME_KERNEL : FRAME_USER};
    profile_add_stack(p, f, k, c ? 4 : 3, n);
}

static struct report *model(uint64_t hot, uint64_t other)
{
    struct report *r = report_new();
    thresholds_load(r, NULL, NULL, 0);
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    add(p, "burner", "main", "burn_outer", "burn_leaf", hot);
    add(p, "burner", "main", "burn_outer", NULL, 1);
    add(p, "<b>x</b>", "main", "work", "ksys_read", other);
    profile_summarize(r, p, NULL, NULL);
    report_add_profile(r, p);
    return r;
}

TEST(profile_summary_tables)
{
    struct report *r = model(60, 39);
    CHECK_NUM(report_metric_value(r, "profile.samples"), 100, 0);
    CHECK_NUM(report_metric_value(r, "profile.kernel_pct"), 39, 1e-9);
    CHECK_NUM(report_metric_value(r, "profile.user_pct"), 61, 1e-9);
    const struct table *t = report_find_table(r, "profile.top_self");
    REQUIRE(t && t->nrows == 3);
    CHECK_STR(table_str(t, 0, "function"), "burn_leaf");
    CHECK_STR(table_str(t, 0, "process"), "burner");
    CHECK_NUM(table_num(t, 0, "self_pct"), 60, 1e-9);
    CHECK_STR(table_str(t, 1, "function"), "ksys_read");
    CHECK_STR(table_str(t, 1, "kind"), "kernel");
    CHECK_STR(table_str(t, 1, "process"), "<b>x</b>");
    t = report_find_table(r, "profile.top_total");
    REQUIRE(t && t->nrows >= 2);
    CHECK_STR(table_str(t, 0, "function"), "main");
    CHECK_NUM(table_num(t, 0, "total_pct"), 100, 1e-9);
    CHECK_STR(table_str(t, 1, "function"), "burn_outer");
    CHECK_NUM(table_num(t, 1, "samples"), 61, 0);
    t = report_find_table(r, "profile.top_procs");
    REQUIRE(t && t->nrows == 2);
    CHECK_STR(table_str(t, 0, "process"), "burner");
    CHECK_NUM(table_num(t, 0, "samples"), 61, 0);
    CHECK_STR(table_str(t, 0, "hottest_stack"), "burn_leaf <- burn_outer <- main");
    report_free(r);
}

TEST(profile_rule_hotspot)
{
    /* 60 % in burn_leaf: past the critical share, but with no saturated CPU
     * it is a lead for optimisation (info) and says why. */
    struct report *r = model(60, 39);
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "cpu.hotspot");
    REQUIRE(f);
    CHECK(f->sev == SEV_INFO);
    bool said = false;
    for (size_t i = 0; i < f->nevidence; i++)
        said |= strstr(f->evidence[i], "not saturated") != NULL;
    CHECK(said);
    CHECK_CONTAINS(f->title, "burn_leaf");
    CHECK_CONTAINS(f->title, "burner");
    CHECK_STR(f->culprit, "burner");
    REQUIRE(f->nevidence >= 1);
    CHECK_CONTAINS(f->evidence[0], "50");
    report_free(r);

    /* 64 % in ksys_read of the other process, on a saturated CPU: critical */
    r = model(35, 64);
    report_metric(r, "cpu.util_pct", "CPU", "%", "cpu", 97);
    report_metric(r, "cpu.count", "CPUs", "", "cpu", 2);
    analyze_run(r);
    f = report_find_finding(r, "cpu.hotspot");
    REQUIRE(f);
    CHECK(f->sev == SEV_CRITICAL);
    CHECK_CONTAINS(f->title, "ksys_read");
    report_free(r);
    /* ... on a busy CPU (warning): no worse than the busy CPU */
    r = model(35, 64);
    report_metric(r, "cpu.util_pct", "CPU", "%", "cpu", 75);
    report_metric(r, "cpu.count", "CPUs", "", "cpu", 2);
    analyze_run(r);
    f = report_find_finding(r, "cpu.hotspot");
    REQUIRE(f);
    CHECK(f->sev == SEV_WARNING);
    report_free(r);

    r = model(24, 24); /* 49 samples: too few to judge */
    analyze_run(r);
    CHECK(report_find_finding(r, "cpu.hotspot") == NULL);
    report_free(r);

    /* 100 samples spread over four functions (25 % each): healthy */
    r = report_new();
    thresholds_load(r, NULL, NULL, 0);
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    add(p, "a", "main", "f1", NULL, 25);
    add(p, "a", "main", "f2", NULL, 25);
    add(p, "b", "main", "f3", NULL, 25);
    add(p, "b", "main", "f4", NULL, 25);
    profile_summarize(r, p, NULL, NULL);
    report_add_profile(r, p);
    analyze_run(r);
    CHECK(report_find_finding(r, "cpu.hotspot") == NULL);
    report_free(r);
}

TEST(profile_rule_saturation_cites_profile)
{
    struct report *r = model(60, 39);
    report_metric(r, "cpu.util_pct", "CPU", "%", "cpu", 99);
    report_metric(r, "cpu.count", "CPUs", "", "cpu", 2);
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "cpu.saturation");
    REQUIRE(f);
    bool cited = false;
    for (size_t i = 0; i < f->nevidence; i++)
        if (strstr(f->evidence[i], "hottest function is burn_leaf in burner (60% of 100"))
            cited = true;
    CHECK(cited);
    report_free(r);
}

TEST(profile_cpu_list)
{
    bool on[8] = {false};
    CHECK_NUM(profile_parse_cpu_list("0-2,5\n", on, 8), 4, 0);
    CHECK(on[0] && on[1] && on[2] && !on[3] && on[5]);
    bool on2[2] = {false};
    CHECK_NUM(profile_parse_cpu_list("0-7", on2, 2), 2, 0);
    CHECK_NUM(profile_parse_cpu_list("x", on, 8), -1, 0);
    CHECK_NUM(profile_parse_cpu_list("3-1", on, 8), -1, 0);
}

/* Room for two stacks a sample at half load, as a power of two. */
TEST(profile_stack_entries_by_window)
{
    CHECK_NUM(profile_stack_entries(49, 2, 10), 4096, 0);  /* 3,920 wanted */
    CHECK_NUM(profile_stack_entries(49, 2, 2), 1024, 0);   /* the least */
    CHECK_NUM(profile_stack_entries(49, 2, 30), 8192, 0);  /* the most */
    CHECK_NUM(profile_stack_entries(99, 64, 30), 8192, 0);
    CHECK_NUM(profile_stack_entries(49, 2, 0), 8192, 0);   /* unknown window */
    CHECK_NUM(profile_stack_entries(0, 2, 10), 8192, 0);
}

TEST(profile_hotspot_ranks_below_the_saturation_it_details)
{
    /* 95 % of the samples in one function: a critical hotspot on its own,
     * but the first line must still name the saturated CPU. */
    struct report *r = model(950, 49);
    report_metric(r, "cpu.util_pct", "CPU", "%", "cpu", 91);
    report_metric(r, "cpu.count", "CPUs", "", "cpu", 2);
    analyze_run(r);
    REQUIRE(r->nfindings >= 2);
    CHECK_STR(r->findings[0].id, "cpu.saturation");
    CHECK_STR(r->findings[1].id, "cpu.hotspot");
    CHECK(r->findings[1].score < r->findings[0].score);
    CHECK(r->findings[1].sev <= r->findings[0].sev);
    report_free(r);

    /* Without a saturated CPU the hotspot keeps its own rank. */
    r = model(950, 49);
    report_metric(r, "cpu.util_pct", "CPU", "%", "cpu", 40);
    report_metric(r, "cpu.count", "CPUs", "", "cpu", 2);
    analyze_run(r);
    REQUIRE(r->nfindings >= 1);
    CHECK_STR(r->findings[0].id, "cpu.hotspot");
    report_free(r);
}
