#include "harness.h"
#include "collect_life.h"
#include "../../src/collect/memory.h"
#include "../../src/util/hostfs.h"
#include "../../src/util/strbuf.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>

static char *load(const char *root, const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    hostfs_set_root(fixture(root));
    int rc = hostfs_read(path, &sb, 0);
    hostfs_set_root(NULL);
    if (rc) {
        sb_free(&sb);
        return NULL;
    }
    return sb_detach(&sb);
}

TEST(memory_parse_meminfo_captured)
{
    char *text = load("memory/t1", "/proc/meminfo");
    REQUIRE(text != NULL);
    struct meminfo m;
    REQUIRE(parse_meminfo(text, &m) == 0);
    CHECK(m.total == 24684084);
    CHECK(m.free == 24235392);
    CHECK(m.available == 24321912);
    CHECK(!m.available_estimated);
    CHECK(m.buffers == 2012);
    CHECK(m.cached == 267864);
    CHECK(m.dirty == 400);
    CHECK(m.writeback == 0);
    CHECK(m.anon == 23304);
    CHECK(m.slab == 93756);
    CHECK(m.swap_total == 0);
    CHECK(m.have & MI_SWAP_TOTAL);
    free(text);
}

TEST(memory_parse_vmstat_captured)
{
    char *text = load("memory/t0", "/proc/vmstat");
    REQUIRE(text != NULL);
    struct vmstat vm;
    REQUIRE(parse_vmstat(text, &vm) == 0);
    CHECK(vm.pgfault == 2645702);
    CHECK(vm.pgmajfault == 1062);
    CHECK(vm.pgscan == 0 && vm.pgsteal == 0 && vm.oom_kill == 0);
    CHECK(vm.have == (VM_PGFAULT | VM_PGMAJFAULT | VM_PSWPIN | VM_PSWPOUT | VM_PGSCAN |
                      VM_PGSCAN_DIRECT | VM_PGSTEAL | VM_OOM_KILL));
    free(text);
}

TEST(memory_vmstat_pgscan_sources)
{
    char *text = load("memory/swap/t1", "/proc/vmstat");
    REQUIRE(text != NULL);
    struct vmstat vm;
    REQUIRE(parse_vmstat(text, &vm) == 0);
    /* kswapd 3000 + direct 600 + khugepaged 400; never proactive or
     * pgscan_direct_throttle (which only shares the prefix). */
    CHECK(vm.pgscan == 4000);
    CHECK(vm.pgscan_direct == 600);
    CHECK(vm.pgsteal == 2400 + 350 + 50);
    CHECK(vm.oom_kill == 3);
    free(text);
}

TEST(memory_lifecycle_captured_no_swap)
{
    struct life l;
    life_init(&l, &collector_memory);
    REQUIRE(life_start(&l, "memory/t0") == 0);
    CHECK(life_tick(&l, "memory/t1", 1.0) == 0);
    REQUIRE(life_stop(&l, "memory/t1", 1.0) == 0);
    struct report *r = l.r;
    double pct = 24321912.0 * 100 / 24684084.0; /* 98.53 % */
    CHECK_NUM(report_metric_value(r, "mem.total_kib"), 24684084, 0);
    CHECK_NUM(report_metric_value(r, "mem.available_kib"), 24321912, 0);
    CHECK_NUM(report_metric_value(r, "mem.available_pct"), pct, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.available_pct_min"), pct, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.dirty_kib"), 400, 0);
    CHECK_NUM(report_metric_value(r, "mem.writeback_kib"), 0, 0);
    CHECK_NUM(report_metric_value(r, "mem.cached_kib"), 267864, 0);
    CHECK_NUM(report_metric_value(r, "mem.anon_kib"), 23304, 0);
    CHECK_NUM(report_metric_value(r, "mem.slab_kib"), 93756, 0);
    CHECK_NUM(report_metric_value(r, "mem.pgfault_per_s"), 2650700 - 2645702, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.pgmajfault_per_s"), 0, 0);
    CHECK_NUM(report_metric_value(r, "mem.pgscan_per_s"), 0, 0);
    CHECK_NUM(report_metric_value(r, "mem.pgscan_direct_per_s"), 0, 0);
    CHECK_NUM(report_metric_value(r, "mem.pgsteal_per_s"), 0, 0);
    CHECK_NUM(report_metric_value(r, "mem.pswpin_per_s"), 0, 0);
    CHECK_NUM(report_metric_value(r, "mem.oom_kill"), 0, 0);
    /* This host has no swap: absent, not 0. */
    CHECK(report_find_metric(r, "swap.total_kib") == NULL);
    CHECK(report_find_metric(r, "swap.used_kib") == NULL);
    CHECK(report_find_metric(r, "swap.used_pct") == NULL);
    CHECK(report_find_series(r, "swap.used_pct") == NULL);

    const struct series *s = report_find_series(r, "mem.available_pct");
    REQUIRE(s != NULL);
    CHECK(s->chart);
    CHECK(isnan(s->warn) && isnan(s->crit)); /* lines are analysis's */
    CHECK_STR(s->hdr.resource, "memory");
    CHECK_NUM(series_at(r, "mem.available_pct", 0), pct, 1e-9);
    CHECK_NUM(series_at(r, "mem.dirty_kib", 0), 400, 0);
    CHECK_NUM(series_at(r, "mem.pgmajfault_per_s", 0), 0, 0);
    CHECK_NUM(series_at(r, "mem.pgscan_per_s", 0), 0, 0);
    life_end(&l);
}

TEST(memory_lifecycle_swap_and_reclaim)
{
    struct life l;
    life_init(&l, &collector_memory);
    REQUIRE(life_start(&l, "memory/swap/t0") == 0);
    CHECK(life_tick(&l, "memory/swap/t0", 1.0) == 0);
    CHECK(life_tick(&l, "memory/swap/t1", 2.0) == 0);
    REQUIRE(life_stop(&l, "memory/swap/t1", 2.0) == 0);
    struct report *r = l.r;
    /* available 15 % then 8 % of 1000000 KiB. */
    CHECK_NUM(report_metric_value(r, "mem.available_pct"), 11.5, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.available_pct_min"), 8.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.available_kib"), 115000, 1e-9);
    /* swap used 262144 (25 %) then 524288 (50 %) of 1048576. */
    CHECK_NUM(report_metric_value(r, "swap.total_kib"), 1048576, 0);
    CHECK_NUM(report_metric_value(r, "swap.used_kib"), 393216, 1e-9);
    CHECK_NUM(report_metric_value(r, "swap.used_pct"), 37.5, 1e-9);
    CHECK_NUM(series_at(r, "swap.used_pct", 0), 25, 1e-9);
    CHECK_NUM(series_at(r, "swap.used_pct", 1), 50, 1e-9);
    /* Rates over the 2 s window. */
    CHECK_NUM(report_metric_value(r, "mem.pgfault_per_s"), 2000, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.pgmajfault_per_s"), 100, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.pswpin_per_s"), 200, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.pswpout_per_s"), 500, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.pgscan_per_s"), (4000 - 1100) / 2.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.pgscan_direct_per_s"), 250, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.pgsteal_per_s"), (2800 - 850) / 2.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.oom_kill"), 1, 0);
    /* Per tick: nothing moved in the first second. */
    CHECK_NUM(series_at(r, "mem.pgscan_per_s", 0), 0, 0);
    CHECK_NUM(series_at(r, "mem.pgscan_per_s", 1), 2900, 1e-9);
    CHECK_NUM(series_at(r, "mem.pgmajfault_per_s", 1), 200, 1e-9);
    CHECK_NUM(series_at(r, "mem.dirty_kib", 1), 6000, 0);
    CHECK_NUM(report_metric_value(r, "mem.dirty_kib"), 6000, 0);
    CHECK_NUM(report_metric_value(r, "mem.writeback_kib"), 300, 0);
    life_end(&l);
}

TEST(memory_missing_memavailable_fallback)
{
    char *text = load("memory/old", "/proc/meminfo");
    REQUIRE(text != NULL);
    struct meminfo m;
    REQUIRE(parse_meminfo(text, &m) == 0);
    CHECK(m.available_estimated);
    CHECK(m.available == 512000 + 102400 + 409600);
    free(text);

    struct life l;
    life_init(&l, &collector_memory);
    REQUIRE(life_start(&l, "memory/old") == 0);
    REQUIRE(life_stop(&l, "memory/old", 1.0) == 0);
    struct report *r = l.r;
    /* No ticks: the gauges come from the end reading.  1024000 of 2048000. */
    CHECK_NUM(report_metric_value(r, "mem.available_pct"), 50.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.available_pct_min"), 50.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "mem.available_kib"), 1024000, 0);
    /* Old kernel: no oom_kill counter, so no oom metric (not 0). */
    CHECK(report_find_metric(r, "mem.oom_kill") == NULL);
    CHECK(report_find_metric(r, "swap.used_pct") == NULL);
    CHECK_NUM(report_metric_value(r, "mem.pgscan_per_s"), 0, 0);
    life_end(&l);
}

TEST(memory_parse_malformed_lines_skipped)
{
    char *text = load("memory/malformed", "/proc/meminfo");
    REQUIRE(text != NULL);
    struct meminfo m;
    REQUIRE(parse_meminfo(text, &m) == 0);
    CHECK(m.total == 4000000); /* the first MemTotal wins */
    CHECK(m.free == 1000000);
    CHECK(m.cached == 500000);  /* the overflowing line was skipped */
    CHECK(m.buffers == 100000);
    CHECK(!(m.have & MI_DIRTY)); /* "10 MB" is not a meminfo unit */
    CHECK(!(m.have & MI_SWAP_FREE));
    /* Both MemAvailable lines are bad: estimated instead. */
    CHECK(m.available_estimated);
    CHECK(m.available == 1600000);
    free(text);

    text = load("memory/malformed", "/proc/vmstat");
    REQUIRE(text != NULL);
    struct vmstat vm;
    REQUIRE(parse_vmstat(text, &vm) == 0);
    CHECK(vm.have == VM_PSWPIN);
    CHECK(vm.pswpin == 7);
    free(text);
}

TEST(memory_lifecycle_malformed_no_crash)
{
    struct life l;
    life_init(&l, &collector_memory);
    REQUIRE(life_start(&l, "memory/malformed") == 0);
    CHECK(life_tick(&l, "memory/malformed", 1.0) == 0);
    REQUIRE(life_stop(&l, "memory/malformed", 2.0) == 0);
    struct report *r = l.r;
    CHECK_NUM(report_metric_value(r, "mem.available_pct"), 40.0, 1e-9);
    CHECK(report_find_metric(r, "mem.dirty_kib") == NULL);
    CHECK(report_find_metric(r, "mem.pgfault_per_s") == NULL);
    CHECK(report_find_metric(r, "swap.used_pct") == NULL);
    CHECK_NUM(report_metric_value(r, "mem.pswpin_per_s"), 0, 0);
    life_end(&l);
}

TEST(memory_parse_rejects_garbage)
{
    struct meminfo m;
    struct vmstat vm;
    CHECK(parse_meminfo("", &m) == -EINVAL);
    CHECK(parse_meminfo("MemFree: 5 kB\n", &m) == -EINVAL);
    CHECK(parse_meminfo("MemTotal: 0 kB\n", &m) == -EINVAL);
    CHECK(parse_vmstat("", &vm) == -EINVAL);
    CHECK(parse_vmstat("nr_free_pages 5\n", &vm) == -EINVAL);
    /* No newline at the end, CRLF. */
    CHECK(parse_meminfo("MemTotal: 100 kB\r\nMemAvailable: 25 kB", &m) == 0);
    CHECK(m.total == 100 && m.available == 25 && !m.available_estimated);
}

TEST(memory_start_fails_without_meminfo)
{
    struct life l;
    life_init(&l, &collector_memory);
    CHECK(life_start(&l, "psi/nopsi") == -ENOENT);
    CHECK_CONTAINS(l.err, "/proc/meminfo");
    life_end(&l);
}
