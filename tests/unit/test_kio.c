/* Histogram rendering (SVG, Markdown, JSON), the runqlat/biolat/iolayers
 * model helpers and parsers, and the rules built on them. */
#include "harness.h"
#include "test_util.h"
#include "../../src/analyze/analyze.h"
#include "../../src/collect/biolat.h"
#include "../../src/collect/iolayers.h"
#include "../../src/collect/runqlat.h"
#include "../../src/model/model.h"
#include "../../src/render/hists.h"
#include "../../src/render/json_common.h"
#include "../../src/render/markdown.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- labels and values ---- */

TEST(hist_bucket_labels_are_unit_aware)
{
    char b[64];
    hist_bucket_label("us", 0, b, sizeof b);
    CHECK_STR(b, "0-2 us");
    hist_bucket_label("us", 1, b, sizeof b);
    CHECK_STR(b, "2-4 us");
    hist_bucket_label("us", 8, b, sizeof b);
    CHECK_STR(b, "256-512 us");
    hist_bucket_label("us", 9, b, sizeof b); /* 512-1024 us: upper bound is past 1000 */
    CHECK_STR(b, "0.512-1.02 ms");
    hist_bucket_label("us", 20, b, sizeof b);
    CHECK_STR(b, "1.05-2.1 s");
    hist_bucket_label("KiB", 2, b, sizeof b);
    CHECK_STR(b, "4-8 KiB");
    hist_bucket_label("KiB", 10, b, sizeof b);
    CHECK_STR(b, "1-2 MiB");
    hist_bucket_label("widgets", 3, b, sizeof b);
    CHECK_STR(b, "8-16 widgets");
    hist_fmt_value(1500, "us", b, sizeof b);
    CHECK_STR(b, "1.5 ms");
    hist_fmt_value(999, "us", b, sizeof b);
    CHECK_STR(b, "999 us");
    hist_fmt_value(2048, "KiB", b, sizeof b);
    CHECK_STR(b, "2 MiB");
    hist_fmt_value(NAN, "us", b, sizeof b);
    CHECK_STR(b, "-");
}

static struct hist *sample_hist(struct report *r)
{
    struct hist *h = report_hist(r, "biolat.vd<a>.read", "vd<a> & \"read\" latency", "us", "disk");
    hist_add_bucket(h, 3, 10);   /* 8-16 us */
    hist_add_bucket(h, 4, 40);   /* 16-32 us */
    hist_add_bucket(h, 6, 45);   /* 64-128 us (bucket 5 empty inside the range) */
    hist_add_bucket(h, 11, 5);   /* 2.05-4.1 ms */
    h->sum = 20000;
    h->max = 3000;
    return h;
}

TEST(hist_filename_sanitises_host_text)
{
    struct report *r = report_new();
    struct hist *h = sample_hist(r);
    char f[128];
    hist_filename(h, f, sizeof f);
    CHECK_STR(f, "hist-biolat.vd_a_.read.svg");
    CHECK(hist_by_filename(r, "hist-biolat.vd_a_.read.svg") == h);
    CHECK(hist_by_filename(r, "hist-nope.svg") == NULL);
    report_free(r);
}

TEST(hist_svg_matches_golden_and_is_valid_xml)
{
    struct report *r = report_new();
    struct hist *h = sample_hist(r);
    struct strbuf sb = STRBUF_INIT;
    svg_hist_render(h, &sb);
    const char *golden = fixture("golden/hist.svg");
    const char *upd = getenv("PERFREPORT_UPDATE_GOLDEN");
    if (upd && strcmp(upd, "1") == 0) {
        FILE *f = fopen(golden, "wb");
        REQUIRE(f);
        fwrite(sb.buf, 1, sb.len, f);
        fclose(f);
    }
    size_t glen = 0;
    char *want = test_slurp(golden, &glen);
    REQUIRE(want);
    CHECK(glen == sb.len && memcmp(want, sb.buf, glen) == 0);
    if (system("command -v xmllint >/dev/null 2>&1") == 0) {
        char *cmd = xasprintf("xmllint --noout --nonet '%s'", golden);
        CHECK(system(cmd) == 0);
        free(cmd);
    }
    const char *s = sb_str(&sb);
    /* trimmed to buckets 3..11: 9 bars, the empty ones inside included */
    size_t bars = 0;
    for (const char *p = strstr(s, "<rect x="); p; p = strstr(p + 1, "<rect x="))
        bars++;
    CHECK(bars == 9);
    CHECK_CONTAINS(s, ">8-16 us</text>");
    CHECK_CONTAINS(s, ">2.05-4.1 ms</text>");
    CHECK_NOT_CONTAINS(s, ">4-8 us<");
    CHECK_NOT_CONTAINS(s, ">4.1-8.19 ms<");
    CHECK_CONTAINS(s, "vd&lt;a&gt; &amp; &quot;read&quot; latency");
    CHECK_NOT_CONTAINS(s, "vd<a>");
    CHECK_CONTAINS(s, "count 100 \xC2\xB7 max 3 ms");
    CHECK_CONTAINS(s, ">p50 ");
    CHECK_CONTAINS(s, ">p90 ");
    CHECK_CONTAINS(s, ">p99 ");
    /* deterministic */
    struct strbuf again = STRBUF_INIT;
    svg_hist_render(h, &again);
    CHECK(again.len == sb.len && memcmp(again.buf, sb.buf, sb.len) == 0);
    sb_free(&again);
    free(want);
    sb_free(&sb);
    report_free(r);
}

TEST(hist_svg_empty_histogram)
{
    struct report *r = report_new();
    struct hist *h = report_hist(r, "fsync", "fsync latency", "us", "io");
    struct strbuf sb = STRBUF_INIT;
    svg_hist_render(h, &sb);
    CHECK_CONTAINS(sb_str(&sb), "no samples in this window");
    CHECK_NOT_CONTAINS(sb_str(&sb), "<rect x=");
    sb_free(&sb);
    report_free(r);
}

TEST(hist_markdown_section_table_and_image)
{
    struct report *r = report_new();
    sample_hist(r);
    struct strbuf md = STRBUF_INIT;
    markdown_render(r, &md);
    const char *s = sb_str(&md);
    CHECK_CONTAINS(s, "## Disks\n");
    CHECK_CONTAINS(s, "### vd\\<a\\> \\& \"read\" latency\n");
    /* p50: target 50 of 100, bucket 4 holds 11..50 -> 32; p90 in bucket 6 */
    CHECK_CONTAINS(s, "100 samples · p50 32 us · p90 ");
    CHECK_CONTAINS(s, " · max 3 ms\n");
    CHECK_CONTAINS(s, "     8-16 us |         10 |  10.0% | #######\n");
    CHECK_CONTAINS(s, "   64-128 us |         45 |  45.0% | ##############################\n");
    CHECK_CONTAINS(s, "    32-64 us |          0 |   0.0% |\n");
    CHECK_CONTAINS(s, "](hist-biolat.vd_a_.read.svg)\n");
    sb_free(&md);
    report_free(r);
}

TEST(hist_json_has_buckets_and_percentiles)
{
    struct report *r = report_new();
    sample_hist(r);
    struct strbuf js = STRBUF_INIT;
    CHECK(json_report_render(r, &js) == 0);
    const char *s = sb_str(&js);
    CHECK_CONTAINS(s, "\"histograms\": [");
    CHECK_CONTAINS(s, "\"name\": \"biolat.vd\\u003ca\\u003e.read\"");
    CHECK_CONTAINS(s, "\"count\": 100");
    CHECK_CONTAINS(s, "\"p50\": 32");
    CHECK_CONTAINS(s, "\"max\": 3000");
    CHECK_CONTAINS(s, "\"lo\": 2048");
    CHECK_CONTAINS(s, "\"hi\": 4096");
    CHECK_NOT_CONTAINS(s, "\"lo\": 32,"); /* empty bucket 5 is left out */
    sb_free(&js);
    report_free(r);
}

/* ---- collectors' helpers ---- */

TEST(biolat_device_names_from_uevent_and_partitions)
{
    char out[64];
    CHECK(bio_uevent_devname("MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\n", out,
                             sizeof out) == 0);
    CHECK_STR(out, "vda");
    CHECK(bio_uevent_devname("MAJOR=254\nDEVTYPE=disk\n", out, sizeof out) == -1);
    CHECK(bio_uevent_devname("DEVNAME=", out, sizeof out) == -1);
    const char *parts = "major minor  #blocks  name\n\n 254        0  268435456 vda\n"
                        " 254        1  268434415 vda1\n 259        0  1000 nvme0n1\n";
    CHECK(bio_partitions_name(parts, 254, 0, out, sizeof out) == 0);
    CHECK_STR(out, "vda");
    CHECK(bio_partitions_name(parts, 259, 0, out, sizeof out) == 0);
    CHECK_STR(out, "nvme0n1");
    CHECK(bio_partitions_name(parts, 8, 0, out, sizeof out) == -1);
    CHECK(bio_partitions_name("garbage\n\n", 8, 0, out, sizeof out) == -1);
    CHECK_STR(bio_kind_name(BIO_FLUSH), "flush");
    CHECK_STR(bio_kind_name((enum bio_kind)99), "other");
}

TEST(biolat_fill_table_and_hists)
{
    struct report *r = report_new();
    struct bio_dev d;
    memset(&d, 0, sizeof d);
    d.major = 254;
    snprintf(d.name, sizeof d.name, "vda");
    d.cls = "virtio";
    d.h[BIO_READ].slots[6] = 99; /* 64-128 us */
    d.h[BIO_READ].slots[14] = 1; /* 16-32 ms */
    d.h[BIO_READ].max = 20000;
    d.h[BIO_WRITE].slots[9] = 50;
    d.h[BIO_WRITE].max = 1000;
    d.h[BIO_SIZE].slots[2] = 150;
    d.seen = 1u << BIO_READ | 1u << BIO_WRITE | 1u << BIO_SIZE;
    biolat_fill(r, &d, 1);
    CHECK(report_find_hist(r, "biolat.vda.read") != NULL);
    CHECK(report_find_hist(r, "biolat.vda.write") != NULL);
    CHECK(report_find_hist(r, "biosize.vda") != NULL);
    CHECK(report_find_hist(r, "biolat.vda.flush") == NULL);
    CHECK_STR(report_find_hist(r, "biosize.vda")->unit, "KiB");
    const struct table *t = report_find_table(r, "disk.latency");
    REQUIRE(t && t->nrows == 1);
    CHECK_STR(table_str(t, 0, "device"), "vda");
    CHECK_STR(table_str(t, 0, "class"), "virtio");
    CHECK_NUM(table_num(t, 0, "ios"), 150, 0);
    CHECK_NUM(table_num(t, 0, "max_ms"), 20, 1e-9);
    /* read p50: 50 of 100 inside bucket 6 -> 64 + 50/99*64 us */
    CHECK_NUM(table_num(t, 0, "read_p50_ms"), (64 + 50.0 / 99 * 64) / 1000, 1e-9);
    /* p99 over all 150: target 148.5, write bucket 9 ends at 149 -> inside it */
    CHECK_NUM(table_num(t, 0, "p99_ms"), (512 + 49.5 / 50 * 512) / 1000, 1e-9);
    report_free(r);
}

TEST(runqlat_fill_ranks_processes_and_sums_cpus)
{
    struct report *r = report_new();
    struct khist cpus[3];
    memset(cpus, 0, sizeof cpus);
    cpus[0].slots[3] = 10;
    cpus[0].max = 12;
    cpus[2].slots[12] = 5;
    cpus[2].max = 6000;
    runqlat_fill_hists(r, cpus, 3, NULL);
    const struct hist *all = report_find_hist(r, "runqlat");
    REQUIRE(all);
    CHECK(all->count == 15);
    CHECK_NUM(all->max, 6000, 0);
    CHECK(report_find_hist(r, "runqlat.cpu0") != NULL);
    CHECK(report_find_hist(r, "runqlat.cpu1") == NULL); /* no waits there */
    CHECK(report_find_hist(r, "runqlat.cpu2") != NULL);
    CHECK_NUM(report_metric_value(r, "sched.runq_waits"), 15, 0);
    CHECK_NUM(report_metric_value(r, "sched.runq_max_us"), 6000, 0);

    struct runq_proc p[12];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 12; i++) {
        p[i].pid = 100 + (uint32_t)i;
        snprintf(p[i].comm, sizeof p[i].comm, "t%d", i);
        p[i].total_ns = (uint64_t)(i + 1) * 1000000;
        p[i].count = 10;
        p[i].max_ns = 500000;
    }
    memcpy(p[5].comm, "exactly16chars!!", 16); /* no terminator in the kernel copy */
    runqlat_fill_table(r, p, 12, "only pid 1");
    const struct table *t = report_find_table(r, "sched.runq_wait");
    REQUIRE(t && t->nrows == RUNQ_TOP);
    CHECK_NUM(table_num(t, 0, "pid"), 111, 0);
    CHECK_NUM(table_num(t, 0, "total_ms"), 12, 1e-9);
    CHECK_NUM(table_num(t, 0, "avg_us"), 1200, 1e-9);
    CHECK_NUM(table_num(t, 0, "max_us"), 500, 1e-9);
    CHECK_STR(table_str(t, 6, "comm"), "exactly16chars!!");
    CHECK_STR(t->note, "only pid 1");
    report_free(r);
}

/* Waits that ended behind perfreport's own threads are shown apart and
 * counted in their own metric, never in the host's histogram. */
TEST(runqlat_behind_self_kept_apart)
{
    struct report *r = report_new();
    struct khist cpus[1], self;
    memset(cpus, 0, sizeof cpus);
    memset(&self, 0, sizeof self);
    cpus[0].slots[4] = 100;
    cpus[0].max = 30;
    self.slots[12] = 3;
    self.sum = 15000;
    self.max = 7000;
    runqlat_fill_hists(r, cpus, 1, &self);
    const struct hist *all = report_find_hist(r, "runqlat");
    const struct hist *me = report_find_hist(r, "runqlat.behind_self");
    REQUIRE(all && me);
    CHECK(all->count == 100);
    CHECK(hist_percentile(all, 0.99) < 32);
    CHECK(me->count == 3);
    CHECK_NUM(me->max, 7000, 0);
    CHECK_NUM(report_metric_value(r, "sched.runq_behind_self"), 3, 0);
    report_free(r);

    /* none behind us: the metric says 0 and no empty histogram is drawn */
    r = report_new();
    memset(&self, 0, sizeof self);
    runqlat_fill_hists(r, cpus, 1, &self);
    CHECK(report_find_hist(r, "runqlat.behind_self") == NULL);
    CHECK_NUM(report_metric_value(r, "sched.runq_behind_self"), 0, 0);
    report_free(r);
}

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
    const struct table *l = report_find_table(r, "io.layers");
    REQUIRE(l && l->nrows == 3);
    CHECK_CONTAINS(l->note, "Read hit rate 72.5 %:");
    CHECK(report_find_hist(r, "fsync") != NULL);
    report_free(r);
}

/* ---- rules at their boundaries ---- */

static struct report *quiet_host(void)
{
    struct report *r = report_new();
    r->window.actual_s = 10;
    r->window.planned_s = 10;
    report_metric(r, "cpu.runq_per_cpu", "", "", "cpu", 0.1);
    return r;
}

static enum severity sev_of(const struct report *r, const char *id)
{
    const struct finding *f = report_find_finding(r, id);
    return f ? f->sev : SEV_NONE;
}

static bool evidence_has(const struct report *r, const char *id, const char *needle)
{
    const struct finding *f = report_find_finding(r, id);
    for (size_t i = 0; f && i < f->nevidence; i++)
        if (strstr(f->evidence[i], needle))
            return true;
    return false;
}

/* A quiet host whose runqlat histogram holds nfast waits in bucket fast
 * and nslow in bucket slow, the longest max_us; not analyzed yet. */
static struct report *runq_host(unsigned fast, uint64_t nfast, unsigned slow, uint64_t nslow,
                                double max_us)
{
    struct report *r = quiet_host();
    struct hist *h = report_hist(r, "runqlat", "runq", "us", "cpu");
    hist_add_bucket(h, fast, nfast);
    hist_add_bucket(h, slow, nslow);
    h->max = max_us;
    return r;
}

/* 980 short waits and 20 in a slow bucket; max pins the interpolated p99. */
static struct report *runq_case(double max_us, unsigned slow_bucket)
{
    struct report *r = runq_host(2, 980, slow_bucket, 20, max_us);
    struct runq_proc p = {.pid = 42, .comm = "burner", .total_ns = 900000000, .count = 500,
                          .max_ns = 30000000};
    runqlat_fill_table(r, &p, 1, NULL);
    analyze_run(r);
    return r;
}

TEST(rule_runqueue_latency_boundaries)
{
    struct report *r = runq_case(4999, 12);
    CHECK(sev_of(r, "sched.runqueue_latency") == SEV_NONE);
    report_free(r);
    r = runq_case(5000, 12);
    CHECK(sev_of(r, "sched.runqueue_latency") == SEV_WARNING);
    CHECK(evidence_has(r, "sched.runqueue_latency", "5000"));
    CHECK_CONTAINS(report_find_finding(r, "sched.runqueue_latency")->title, "burner (pid 42)");
    CHECK(evidence_has(r, "sched.runqueue_latency", "run queue per CPU"));
    report_free(r);
    r = runq_case(20000, 14);
    CHECK(sev_of(r, "sched.runqueue_latency") == SEV_CRITICAL);
    CHECK(evidence_has(r, "sched.runqueue_latency", "(critical)"));
    report_free(r);
}

TEST(rule_runqueue_latency_few_waits_is_info)
{
    struct report *r = runq_host(2, 0, 14, 10, 30000);
    analyze_run(r);
    CHECK(sev_of(r, "sched.runqueue_latency") == SEV_INFO);
    report_free(r);
}

/* A quiet window: 200 waits, 3 of them slow.  p99 is past 5 ms, but three
 * slow wakeups are not a queue. */
TEST(rule_runqueue_latency_few_slow_waits_is_info)
{
    struct report *r = runq_host(4, 197, 13, 3, 9000);
    REQUIRE(hist_percentile(report_find_hist(r, "runqlat"), 0.99) >= 5000);
    analyze_run(r);
    CHECK(sev_of(r, "sched.runqueue_latency") == SEV_INFO);
    CHECK(evidence_has(r, "sched.runqueue_latency", "Only about 3 waits reached 5000 us"));
    report_free(r);

    r = runq_host(4, 195, 13, 5, 9000); /* the same tail with 5 slow waits: a warning */
    analyze_run(r);
    CHECK(sev_of(r, "sched.runqueue_latency") == SEV_WARNING);
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

static struct report *fsync_case(double per_s, double window_pct)
{
    struct report *r = quiet_host();
    report_metric(r, "io.fsync_per_s", "", "/s", "io", per_s);
    report_metric(r, "io.fsync_ms", "", "ms", "io", window_pct * 100);
    struct table *t = report_table(r, "io.fsync", "fsync", "io");
    table_add_col(t, "pid", "", "", 0);
    table_add_col(t, "comm", "", "", 0);
    table_add_col(t, "calls", "", "", 0);
    table_add_col(t, "window_pct", "", "%", 1);
    table_add_col(t, "p99_us", "", "us", 0);
    size_t i = table_add_row(t);
    table_set_num(t, i, "pid", 77);
    table_set_str(t, i, "comm", "fsyncer");
    table_set_num(t, i, "calls", per_s * 10);
    table_set_num(t, i, "window_pct", window_pct);
    table_set_num(t, i, "p99_us", 1500);
    analyze_run(r);
    return r;
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

static struct report *bio_case(double p99_ms, double ios, double await_ms)
{
    struct report *r = quiet_host();
    struct table *t = report_table(r, "disk.latency", "bio", "disk");
    static const char *const c[] = {"device", "class", "read_p50_ms", "read_p99_ms",
                                    "write_p50_ms", "write_p99_ms", "p99_ms", "max_ms", "ios"};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
        table_add_col(t, c[k], c[k], "", 2);
    size_t i = table_add_row(t);
    table_set_str(t, i, "device", "vda");
    table_set_str(t, i, "class", "virtio");
    table_set_num(t, i, "write_p50_ms", 0.5);
    table_set_num(t, i, "write_p99_ms", p99_ms);
    table_set_num(t, i, "p99_ms", p99_ms);
    table_set_num(t, i, "max_ms", p99_ms * 2);
    table_set_num(t, i, "ios", ios);
    struct table *d = report_table(r, "disk", "disk", "disk");
    table_add_col(d, "device", "", "", 0);
    table_add_col(d, "class", "", "", 0);
    table_add_col(d, "await_ms", "", "ms", 2);
    table_add_col(d, "w_per_s", "", "/s", 2);
    i = table_add_row(d);
    table_set_str(d, i, "device", "vda");
    table_set_str(d, i, "class", "virtio");
    table_set_num(d, i, "await_ms", await_ms);
    table_set_num(d, i, "w_per_s", ios / 10);
    analyze_run(r);
    return r;
}

TEST(rule_disk_latency_uses_bio_p99)
{
    /* virtio class: warning 20 ms, critical 50 ms */
    struct report *r = bio_case(19.9, 1000, 1);
    CHECK(sev_of(r, "disk.latency") == SEV_NONE);
    report_free(r);
    r = bio_case(20, 1000, 1);
    CHECK(sev_of(r, "disk.latency") == SEV_WARNING);
    CHECK_CONTAINS(report_find_finding(r, "disk.latency")->title, "p99 I/O latency 20.0 ms");
    CHECK(evidence_has(r, "disk.latency", "p99 device latency (virtio class)"));
    report_free(r);
    r = bio_case(50, 1000, 1);
    CHECK(sev_of(r, "disk.latency") == SEV_CRITICAL);
    report_free(r);
    r = bio_case(80, 20, 1); /* 20 I/Os: the p99 is one request */
    CHECK(sev_of(r, "disk.latency") == SEV_INFO);
    report_free(r);
    /* a p99 that is fine wins over a high average from iostat */
    r = bio_case(5, 1000, 30);
    CHECK(sev_of(r, "disk.latency") == SEV_NONE);
    report_free(r);
}

TEST(rules_kio_quiet_host_no_warning)
{
    struct report *r = runq_host(3, 5000, 6, 50, 90);
    report_metric(r, "io.page_lookups", "", "", "io", 50000);
    report_metric(r, "io.cache_hit_pct", "", "%", "io", 99.5);
    report_metric(r, "io.fsync_per_s", "", "/s", "io", 0.5);
    analyze_run(r);
    CHECK(report_worst_severity(r) < SEV_WARNING);
    CHECK(report_find_finding(r, "sched.runqueue_latency") == NULL);
    report_free(r);
}
