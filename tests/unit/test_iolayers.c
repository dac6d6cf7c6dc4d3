/* The I/O layers collector's ratios and model fill (src/collect/iolayers.c)
 * and the rules built on them: read cache misses, fsync. */
#include "harness.h"
#include "rule_util.h"
#include "../../src/analyze/analyze.h"
#include "../../src/model/model.h"
#include "../../src/collect/iolayers.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(iolayers_ratios_and_fill)
{
    CHECK(isnan(io_hit_pct(0, 0)));
    CHECK_NUM(io_hit_pct(1000, 0), 100, 0);
    CHECK_NUM(io_hit_pct(1000, 275), 72.5, 1e-9);
    CHECK_NUM(io_hit_pct(1000, 5000), 0, 0); /* readahead beyond the reads: clamp */
    CHECK(isnan(io_coalesce_pct(0, 5)));
    CHECK_NUM(io_coalesce_pct(8934, 2145), 100.0 * (1 - 2145.0 / 8934), 1e-9);
    CHECK_NUM(io_coalesce_pct(10, 50), 0, 0);

    struct report *r = report_new();
    uint64_t cnt[IO_C_N] = {0};
    cnt[IO_C_VFS_READS] = 45230;
    cnt[IO_C_VFS_WRITES] = 8934;
    cnt[IO_C_PAGE_LOOKUPS] = 4000;
    cnt[IO_C_PAGES_ADDED] = 1100;
    cnt[IO_C_BLK_WRITES] = 2145;
    struct khist all;
    memset(&all, 0, sizeof all);
    all.slots[10] = 30;
    all.sum = 30 * 1500;
    all.max = 2000;
    struct io_sync_proc procs[2];
    memset(procs, 0, sizeof procs);
    procs[0].pid = 7;
    memcpy(procs[0].comm, "small", 6);
    procs[0].h.slots[10] = 1;
    procs[0].h.sum = 1500;
    procs[1].pid = 8;
    memcpy(procs[1].comm, "fsyncer", 8);
    procs[1].h.slots[10] = 29;
    procs[1].h.sum = 29 * 1500;
    procs[1].h.max = 2000;
    procs[1].writes = 20;
    cnt[IO_C_SYNC_WRITES] = 20;
    iolayers_fill(r, cnt, &all, procs, 2, 10, NULL);
    CHECK_NUM(report_metric_value(r, "io.cache_hit_pct"), 72.5, 1e-9);
    CHECK_NUM(report_metric_value(r, "io.fsync_per_s"), 3, 1e-9);
    CHECK_NUM(report_metric_value(r, "io.fsync_ms"), 45, 1e-9);
    const struct table *f = report_find_table(r, "io.fsync");
    REQUIRE(f && f->nrows == 2);
    CHECK_STR(table_str(f, 0, "comm"), "fsyncer");
    CHECK_NUM(table_num(f, 0, "total_ms"), 43.5, 1e-9);
    CHECK_NUM(table_num(f, 0, "window_pct"), 43.5 / 1000 / 10 * 100, 1e-9);
    CHECK_NUM(table_num(f, 0, "max_us"), 2000, 0);
    CHECK_NUM(table_num(f, 0, "sync_writes"), 20, 0);
    CHECK_NUM(table_num(f, 1, "sync_writes"), 0, 0);
    CHECK_NUM(report_metric_value(r, "io.sync_writes"), 20, 0);
    const struct table *l = report_find_table(r, "io.layers");
    REQUIRE(l && l->nrows == 3);
    CHECK_CONTAINS(l->note, "Read hit rate 72.5 %:");
    CHECK(report_find_hist(r, "fsync") != NULL);
    report_free(r);
}

static struct report *cache_case(double lookups, double hit)
{
    struct report *r = quiet_host();
    report_metric(r, "io.page_lookups", "", "", "io", lookups);
    report_metric(r, "io.pages_added", "", "", "io", lookups * (100 - hit) / 100);
    report_metric(r, "io.cache_hit_pct", "", "%", "io", hit);
    analyze_run(r);
    return r;
}

TEST(rule_cache_misses_boundaries)
{
    /* 100,000 lookups in 10 s: at 90 % the misses fill 4 MiB/s, past the
     * 1 MiB/s that makes them matter. */
    struct report *r = cache_case(100000, 90.1);
    CHECK(sev_of(r, "io.cache_misses") == SEV_NONE);
    report_free(r);
    r = cache_case(100000, 90);
    CHECK(sev_of(r, "io.cache_misses") == SEV_WARNING);
    CHECK(evidence_has(r, "io.cache_misses", "90"));
    report_free(r);
    r = cache_case(100000, 70);
    CHECK(sev_of(r, "io.cache_misses") == SEV_CRITICAL);
    report_free(r);
    /* A program starting cold: 1000 lookups, 30 % hits = 2.7 MiB in 10 s. */
    r = cache_case(1000, 30);
    CHECK(sev_of(r, "io.cache_misses") == SEV_INFO);
    CHECK(evidence_has(r, "io.cache_misses", "small volume"));
    report_free(r);
    r = cache_case(999, 10); /* too few lookups to judge */
    CHECK(sev_of(r, "io.cache_misses") == SEV_NONE);
    report_free(r);
}

TEST(rule_cache_misses_fold_into_memory_exhaustion)
{
    /* An OOM kill in the window: memory ran out, reclaim emptied the page
     * cache, and the misses (critical at 38 %) are part of that story, never
     * ranked above it (scenario s05 saw them outrank the kill). */
    struct report *r = quiet_host();
    report_metric(r, "io.page_lookups", "", "", "io", 100000);
    report_metric(r, "io.pages_added", "", "", "io", 62000);
    report_metric(r, "io.cache_hit_pct", "", "%", "io", 38);
    report_metric(r, "mem.oom_kill", "", "", "memory", 1);
    analyze_run(r);
    REQUIRE(r->nfindings >= 1);
    CHECK_STR(r->findings[0].id, "memory.oom");
    CHECK(sev_of(r, "io.cache_misses") == SEV_NONE); /* folded, not a finding of its own */
    CHECK(evidence_has(r, "memory.oom", "(io.cache_misses)"));
    report_free(r);
    /* Without memory trouble the misses stand on their own. */
    r = cache_case(100000, 38);
    CHECK(sev_of(r, "io.cache_misses") == SEV_CRITICAL);
    report_free(r);
}

static struct report *sync_case(double per_s, double window_pct, double sync_writes)
{
    struct report *r = quiet_host();
    report_metric(r, "io.fsync_per_s", "", "/s", "io", per_s);
    report_metric(r, "io.fsync_ms", "", "ms", "io", window_pct * 100);
    struct table *t = report_table(r, "io.fsync", "fsync", "io");
    table_add_col(t, "pid", "", "", 0);
    table_add_col(t, "comm", "", "", 0);
    table_add_col(t, "calls", "", "", 0);
    table_add_col(t, "sync_writes", "", "", 0);
    table_add_col(t, "window_pct", "", "%", 1);
    table_add_col(t, "p99_us", "", "us", 0);
    size_t i = table_add_row(t);
    table_set_num(t, i, "pid", 77);
    table_set_str(t, i, "comm", "fsyncer");
    table_set_num(t, i, "calls", per_s * 10);
    table_set_num(t, i, "sync_writes", sync_writes);
    table_set_num(t, i, "window_pct", window_pct);
    table_set_num(t, i, "p99_us", 1500);
    analyze_run(r);
    return r;
}

static struct report *fsync_case(double per_s, double window_pct)
{
    return sync_case(per_s, window_pct, 0);
}

TEST(rule_fsync_boundaries_and_culprit)
{
    struct report *r = fsync_case(9.9, 9.9);
    CHECK(sev_of(r, "io.fsync") == SEV_NONE);
    report_free(r);
    r = fsync_case(10, 1);
    CHECK(sev_of(r, "io.fsync") == SEV_WARNING);
    CHECK_CONTAINS(report_find_finding(r, "io.fsync")->title, "fsyncer (pid 77)");
    CHECK(evidence_has(r, "io.fsync", "10"));
    report_free(r);
    r = fsync_case(1, 50); /* few calls, but the process is blocked half the window */
    CHECK(sev_of(r, "io.fsync") == SEV_CRITICAL);
    CHECK_STR(report_find_finding(r, "io.fsync")->culprit, "fsyncer (pid 77)");
    report_free(r);
    r = fsync_case(100, 1);
    CHECK(sev_of(r, "io.fsync") == SEV_CRITICAL);
    report_free(r);
}

/* A writer to an O_DSYNC file makes no fsync call: the finding says which
 * kind of synchronous I/O its calls were. */
TEST(rule_fsync_names_sync_writes)
{
    struct report *r = sync_case(94, 60, 940); /* all of its calls were O_DSYNC writes */
    CHECK(sev_of(r, "io.fsync") == SEV_CRITICAL);
    const struct finding *f = report_find_finding(r, "io.fsync");
    REQUIRE(f);
    CHECK_CONTAINS(f->title, "synchronous writes (O_SYNC/O_DSYNC)");
    CHECK_CONTAINS(f->title, "fsyncer (pid 77) made 940");
    CHECK(evidence_has(r, "io.fsync", "940 of fsyncer (pid 77)'s 940 calls were writes"));
    report_free(r);
    r = sync_case(94, 60, 100); /* mostly fsync calls: named as such */
    f = report_find_finding(r, "io.fsync");
    REQUIRE(f);
    CHECK_CONTAINS(f->title, "Frequent fsync:");
    CHECK(evidence_has(r, "io.fsync", "100 of fsyncer (pid 77)'s 940 calls"));
    report_free(r);
}
