/* perf_event counters: multiplex scaling and ratios on readings written
 * down by hand, and the two hardware-counter rules at their thresholds. */
#include "harness.h"
#include "rule_util.h"
#include "../../src/collect/counters.h"
#include "../../src/model/names.h"
#include <math.h>

TEST(counters_scale_multiplexed_reading)
{
    bool scaled = false;
    /* Counted for half the enabled time: the count doubles, and says so. */
    struct ctr_reading c = {.have = true, .value = 1000000000, .enabled = 1000000000,
                            .running = 500000000};
    CHECK_NUM(ctr_scaled(&c, &scaled), 2.0e9, 1e-3);
    CHECK(scaled);
    /* Scheduled the whole time: as read, and the flag is left alone. */
    scaled = false;
    c = (struct ctr_reading){.have = true, .value = 123456, .enabled = 7000, .running = 7000};
    CHECK_NUM(ctr_scaled(&c, &scaled), 123456, 0);
    CHECK(!scaled);
    /* Enabled but never scheduled (multiplexed out), or never read: no
     * value rather than 0. */
    c = (struct ctr_reading){.have = true, .value = 0, .enabled = 5000, .running = 0};
    CHECK(isnan(ctr_scaled(&c, &scaled)));
    c = (struct ctr_reading){.have = false};
    CHECK(isnan(ctr_scaled(&c, &scaled)));
}

TEST(counters_rate_per_window_second)
{
    /* 2500 context switches in a 2.5 s window. */
    struct ctr_reading c = {.have = true, .value = 2500, .enabled = 2500000000ULL,
                            .running = 2500000000ULL};
    CHECK_NUM(ctr_rate(&c, 2.5), 1000, 1e-9);
    /* A target's task event counts only while it runs: its 0.1 s enabled
     * does not make 3 faults 30/s over a 3 s window. */
    c = (struct ctr_reading){.have = true, .value = 3, .enabled = 100000000, .running = 100000000};
    CHECK_NUM(ctr_rate(&c, 3.0), 1.0, 1e-9);
    /* A target that never ran: 0/s, not unknown. */
    c = (struct ctr_reading){.have = true, .value = 0, .enabled = 0, .running = 0};
    CHECK_NUM(ctr_rate(&c, 3.0), 0, 0);
    CHECK(isnan(ctr_rate(&c, 0)));
}

/* A memory-bound CPU as perf stat would see it, half multiplexed. */
static void memory_bound_cpu(double v[HW_NEV], bool *scaled)
{
    static const struct ctr_reading rd[HW_NEV] = {
        [HW_CYCLES] = {true, 1000000000, 1000000000, 500000000},
        [HW_INSTR] = {true, 150000000, 1000000000, 500000000},
        [HW_CACHE_REFS] = {true, 25000000, 1000000000, 500000000},
        [HW_CACHE_MISSES] = {true, 10000000, 1000000000, 500000000},
        [HW_BRANCHES] = {true, 30000000, 1000000000, 1000000000},
        [HW_BRANCH_MISSES] = {true, 600000, 1000000000, 1000000000},
    };
    for (int e = 0; e < HW_NEV; e++)
        v[e] = ctr_scaled(&rd[e], scaled);
}

TEST(counters_hw_figures_from_scaled_readings)
{
    double v[HW_NEV];
    bool scaled = false;
    memory_bound_cpu(v, &scaled);
    CHECK(scaled);
    struct hw_figures f = hw_figures_of(v);
    CHECK_NUM(f.cycles, 2.0e9, 1e-3);
    CHECK_NUM(f.instructions, 0.3e9, 1e-3);
    CHECK_NUM(f.ipc, 0.15, 1e-12);
    CHECK_NUM(f.cache_miss_pct, 40.0, 1e-9);
    CHECK_NUM(f.branch_miss_pct, 2.0, 1e-9);

    /* Total of two CPUs: a busy one and one that counted no cache events
     * (opened without them); ratios come from the summed counts. */
    double other[HW_NEV] = {[HW_CYCLES] = 2.0e9, [HW_INSTR] = 2.5e9, [HW_CACHE_REFS] = NAN,
                            [HW_CACHE_MISSES] = NAN, [HW_BRANCHES] = 10e6,
                            [HW_BRANCH_MISSES] = 1.4e6};
    double acc[HW_NEV];
    for (int e = 0; e < HW_NEV; e++)
        acc[e] = NAN;
    hw_accumulate(acc, v);
    hw_accumulate(acc, other);
    struct hw_figures t = hw_figures_of(acc);
    CHECK_NUM(t.ipc, 2.8e9 / 4.0e9, 1e-12);
    CHECK_NUM(t.cache_miss_pct, 40.0, 1e-9);
    CHECK_NUM(t.branch_miss_pct, 2.0e6 / 40e6 * 100, 1e-9);

    /* No cycles counted: no IPC (not infinity, not 0). */
    double none[HW_NEV] = {[HW_CYCLES] = 0, [HW_INSTR] = 5, [HW_CACHE_REFS] = NAN,
                           [HW_CACHE_MISSES] = 3, [HW_BRANCHES] = NAN, [HW_BRANCH_MISSES] = NAN};
    struct hw_figures z = hw_figures_of(none);
    CHECK(isnan(z.ipc) && isnan(z.cache_miss_pct) && isnan(z.branch_miss_pct));
}

static struct report *hw_host(double cycles, double ipc, double miss_pct, double branch_pct)
{
    struct report *r = quiet_host();
    report_metric(r, NM_HW_CYCLES, "", "", "cpu", cycles);
    report_metric(r, NM_HW_IPC, "", "", "cpu", ipc);
    report_metric(r, NM_HW_CACHE_MISS_PCT, "", "%", "cpu", miss_pct);
    report_metric(r, NM_HW_BRANCH_MISS_PCT, "", "%", "cpu", branch_pct);
    analyze_run(r);
    return r;
}

TEST(counters_rule_memory_bound_boundaries)
{
    static const struct {
        double cycles, ipc, miss;
        enum severity want;
    } cases[] = {
        {2e9, 0.41, 40, SEV_NONE},     /* IPC just above warn */
        {2e9, 0.40, 40, SEV_WARNING},  /* at warn: fires */
        {2e9, 0.21, 40, SEV_WARNING},
        {2e9, 0.20, 40, SEV_CRITICAL}, /* at crit */
        {2e9, 0.15, 19.9, SEV_NONE},   /* low IPC without misses: not memory */
        {2e9, 0.15, 20, SEV_CRITICAL}, /* misses at their warn */
        {0.9e9, 0.15, 40, SEV_NONE},   /* too few cycles to judge */
        {1e9, 0.15, 40, SEV_CRITICAL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct report *r = hw_host(cases[i].cycles, cases[i].ipc, cases[i].miss, 1);
        enum severity got = sev_of(r, "cpu.ipc_memory_bound");
        if (got != cases[i].want)
            test_fail(__FILE__, __LINE__, "case %zu: severity %d, want %d", i, (int)got,
                      (int)cases[i].want);
        if (cases[i].want)
            CHECK(evidence_has(r, "cpu.ipc_memory_bound", "≤ 0.4") ||
                  evidence_has(r, "cpu.ipc_memory_bound", "≤ 0.2"));
        report_free(r);
    }
    /* No PMU: no hw metrics, no finding. */
    struct report *r = quiet_host();
    analyze_run(r);
    CHECK(sev_of(r, "cpu.ipc_memory_bound") == SEV_NONE);
    CHECK(sev_of(r, "cpu.branch_misses") == SEV_NONE);
    report_free(r);
}

TEST(counters_rule_branch_misses_boundaries)
{
    static const struct {
        double cycles, pct;
        enum severity want;
    } cases[] = {
        {2e9, 4.99, SEV_NONE}, {2e9, 5, SEV_WARNING}, {2e9, 9.9, SEV_WARNING},
        {2e9, 10, SEV_CRITICAL}, {0.5e9, 30, SEV_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct report *r = hw_host(cases[i].cycles, 1.5, 1, cases[i].pct);
        enum severity got = sev_of(r, "cpu.branch_misses");
        if (got != cases[i].want)
            test_fail(__FILE__, __LINE__, "case %zu: severity %d, want %d", i, (int)got,
                      (int)cases[i].want);
        CHECK(sev_of(r, "cpu.ipc_memory_bound") == SEV_NONE);
        report_free(r);
    }
}
