#include "harness.h"
#include "collect_life.h"
#include "../../src/collect/collector.h"
#include "../../src/collect/disk.h"
#include "../../src/procfs/blockdev.h"
#include "../../src/model/model.h"
#include "../../src/run/probe.h"
#include "../../src/util/hostfs.h"
#include <math.h>
#include <stdlib.h>

static long row_of(const struct table *t, const char *dev)
{
    for (size_t i = 0; t && i < t->nrows; i++) {
        const char *s = table_str(t, i, "device");
        if (s && strcmp(s, dev) == 0)
            return (long)i;
    }
    return -1;
}

static double last_value(const struct report *r, const char *name)
{
    const struct series *s = report_find_series(r, name);
    return s && s->n ? s->v[s->n - 1] : NAN;
}

TEST(disk_parse_field_counts)
{
    const char *text =
        "   8       0 sda 1 2 3 4 5 6 7 8 9 10 11\n"
        " 252      16 vdb 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n"
        " 259       0 nvme0n1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
        " 259       1 future 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19\n"
        "   8      32 short 1 2 3 4 5 6 7 8 9 10\n"
        "   8      48 neg 1 2 -3 4 5 6 7 8 9 10 11\n"
        "   8      64 huge 99999999999999999999999 2 3 4 5 6 7 8 9 10 11\n"
        "   8       0 sda 7 7 7 7 7 7 7 7 7 7 7\n"
        "\n";
    struct diskstats d = {0};
    CHECK(diskstats_parse(text, &d) == 4); /* short, neg, huge, duplicate sda */
    REQUIRE(d.n == 4);
    const struct diskstat *a = diskstats_find(&d, "sda");
    REQUIRE(a);
    CHECK(a->nstats == 11 && a->major == 8 && a->minor == 0);
    CHECK(a->rd_ios == 1 && a->wr_ticks == 8 && a->io_ticks == 10 && a->time_in_queue == 11);
    CHECK(a->dc_ios == 0 && a->fl_ios == 0);
    const struct diskstat *v = diskstats_find(&d, "vdb");
    CHECK(v && v->nstats == 15 && v->dc_ios == 12 && v->dc_ticks == 15 && v->fl_ios == 0);
    const struct diskstat *nv = diskstats_find(&d, "nvme0n1");
    CHECK(nv && nv->nstats == 17 && nv->fl_ios == 16 && nv->fl_ticks == 17);
    const struct diskstat *f = diskstats_find(&d, "future");
    CHECK(f && f->nstats == 19 && f->fl_ticks == 17);
    diskstats_free(&d);
}

TEST(disk_class_and_names)
{
    CHECK_STR(disk_class("nvme0n1", 0, true), "nvme");
    CHECK_STR(disk_class("vda", 1, true), "virtio");
    CHECK_STR(disk_class("xvdb", 1, true), "virtio");
    CHECK_STR(disk_class("nbd3", 0, false), "network");
    CHECK_STR(disk_class("rbd0", 0, true), "network");
    CHECK_STR(disk_class("sda", 1, true), "hdd");
    CHECK_STR(disk_class("sda", 0, true), "ssd");
    CHECK_STR(disk_class("sda", -1, true), "unknown");
    CHECK_STR(disk_class("dm-0", 0, false), "unknown");
    CHECK_STR(disk_class("vd", 1, true), "hdd"); /* "vd" alone is no virtio name */
    CHECK(disk_is_virtual_name("loop0") && disk_is_virtual_name("dm-12"));
    CHECK(disk_is_virtual_name("md127") && disk_is_virtual_name("sr0"));
    CHECK(disk_is_virtual_name("zram0") && disk_is_virtual_name("ram15"));
    CHECK(!disk_is_virtual_name("mdx") && !disk_is_virtual_name("sda"));
    CHECK(!disk_is_virtual_name("loop") && !disk_is_virtual_name("srv"));
    char out[64];
    CHECK(disk_sysfs_name("cciss/c0d0", out, sizeof out));
    CHECK_STR(out, "cciss!c0d0");
    CHECK(!disk_sysfs_name("..", out, sizeof out));
    CHECK(!disk_sysfs_name(".", out, sizeof out));
    CHECK(!disk_sysfs_name("", out, sizeof out));
}

TEST(disk_rates_iostat_semantics)
{
    struct diskstat d = {.rd_ios = 10, .rd_sectors = 80, .rd_ticks = 30, .wr_ios = 30,
                         .wr_sectors = 240, .wr_ticks = 90, .dc_ios = 10, .dc_sectors = 80,
                         .dc_ticks = 30, .fl_ios = 5, .io_ticks = 2500, .time_in_queue = 400};
    struct disk_rates rt;
    disk_rates_compute(&d, 2000, &rt);
    CHECK_NUM(rt.r_per_s, 5, 1e-9);
    CHECK_NUM(rt.w_per_s, 15, 1e-9);
    CHECK_NUM(rt.rkb_per_s, 20, 1e-9);
    CHECK_NUM(rt.wkb_per_s, 60, 1e-9);
    CHECK_NUM(rt.r_await_ms, 3, 1e-9);
    CHECK_NUM(rt.w_await_ms, 3, 1e-9);
    CHECK_NUM(rt.await_ms, 150.0 / 50.0, 1e-9);
    CHECK_NUM(rt.aqu_sz, 0.2, 1e-9);
    CHECK_NUM(rt.util_pct, 100, 1e-9); /* 125 % capped */
    CHECK_NUM(rt.avg_rq_kib, 400 * 0.5 / 50, 1e-9);
    CHECK_NUM(rt.iops, 25, 1e-9);
    CHECK(rt.ios == 55);

    struct diskstat cur = {.rd_ios = 5, .wr_ios = 100, .io_ticks = 3};
    struct diskstat prev = {.rd_ios = 10, .wr_ios = 40, .io_ticks = 4294967290u};
    struct diskstat delta;
    diskstat_delta(&cur, &prev, &delta);
    CHECK(delta.rd_ios == 0 && delta.wr_ios == 60 && delta.io_ticks == 0);
}

/* Captured on the build host around a 50 MiB O_DIRECT dd; t1 is treated as
 * 1.000 s after t0. */
TEST(disk_life_real_fixture)
{
    const char *dirs[] = {"real/t0", "real/t1"};
    const double times[] = {0.0, 1.0};
    struct report *r = life_play(&collector_disk, "disk", dirs, times, 2, NULL);
    const struct table *t = report_find_table(r, "disk");
    REQUIRE(t);
    CHECK(t->nrows == 1); /* idle loop0-7 and zram0 are left out */
    long i = row_of(t, "vda");
    REQUIRE(i == 0);
    CHECK_STR(table_str(t, 0, "class"), "virtio");
    /* deltas: reads 90 (21744 sectors, 52 ms), writes 56 (103208 sectors,
     * 45 ms), io_ticks 56 ms, weighted 97 ms, no discards or flushes */
    CHECK_NUM(table_num(t, 0, "r_per_s"), 90, 1e-9);
    CHECK_NUM(table_num(t, 0, "w_per_s"), 56, 1e-9);
    CHECK_NUM(table_num(t, 0, "rkb_per_s"), 10872, 1e-9);
    CHECK_NUM(table_num(t, 0, "wkb_per_s"), 51604, 1e-9);
    CHECK_NUM(table_num(t, 0, "r_await_ms"), 52.0 / 90.0, 1e-9);
    CHECK_NUM(table_num(t, 0, "w_await_ms"), 45.0 / 56.0, 1e-9);
    CHECK_NUM(table_num(t, 0, "await_ms"), 97.0 / 146.0, 1e-9);
    CHECK_NUM(table_num(t, 0, "aqu_sz"), 0.097, 1e-9);
    CHECK_NUM(table_num(t, 0, "util_pct"), 5.6, 1e-9);
    CHECK_NUM(table_num(t, 0, "avg_rq_kib"), 62476.0 / 146.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "disk.util_pct_max"), 5.6, 1e-9);
    CHECK_NUM(report_metric_value(r, "disk.await_ms_max"), 97.0 / 146.0, 1e-9);

    const struct series *u = report_find_series(r, "disk.vda.util_pct");
    REQUIRE(u);
    CHECK(u->chart && u->n == 1);
    CHECK(isnan(u->warn) && isnan(u->crit)); /* lines are analysis's */
    CHECK_STR(u->hdr.resource, "disk");
    CHECK_NUM(u->v[0], 5.6, 1e-9);
    CHECK_NUM(last_value(r, "disk.vda.iops"), 146, 1e-9);
    CHECK_NUM(last_value(r, "disk.vda.aqu_sz"), 0.097, 1e-9);
    CHECK_NUM(last_value(r, "disk.vda.await_ms"), 97.0 / 146.0, 1e-9);
    CHECK(report_find_series(r, "disk.loop0.util_pct") == NULL);
    CHECK(report_find_series(r, "disk.zram0.util_pct") == NULL);
    report_free(r);
}

/* Hand-made: an 11-counter (14-field) sda, a partition, an NVMe disk that
 * vanishes, vdb whose read counters and io_ticks go backwards, loop0 busy
 * and loop1 idle, a "/" name, a markup name, "..", a disk that appears only
 * in the second reading, and three malformed lines per reading.  2 s apart. */
TEST(disk_life_odd_fixture)
{
    const char *dirs[] = {"odd/t0", "odd/t1"};
    const double times[] = {0.0, 2.0};
    struct report *r = life_play(&collector_disk, "disk", dirs, times, 2, NULL);
    const struct table *t = report_find_table(r, "disk");
    REQUIRE(t);
    CHECK(t->nrows == 6);
    CHECK(row_of(t, "sda1") < 0 && row_of(t, "nvme0n1") < 0 && row_of(t, "loop1") < 0);
    CHECK(row_of(t, "..") < 0 && row_of(t, "sdb") < 0 && row_of(t, "sdc") < 0);

    long i = row_of(t, "sda");
    REQUIRE(i == 0);
    CHECK_STR(table_str(t, (size_t)i, "class"), "hdd");
    CHECK_NUM(table_num(t, (size_t)i, "r_per_s"), 25, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "w_per_s"), 50, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "rkb_per_s"), 100, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "wkb_per_s"), 200, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "r_await_ms"), 2, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "w_await_ms"), 1.5, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "await_ms"), 250.0 / 150.0, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "aqu_sz"), 0.3, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "util_pct"), 25, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "avg_rq_kib"), 4, 1e-9);

    i = row_of(t, "vdb");
    REQUIRE(i >= 0);
    CHECK_STR(table_str(t, (size_t)i, "class"), "virtio");
    CHECK_NUM(table_num(t, (size_t)i, "r_per_s"), 0, 0);
    CHECK(isnan(table_num(t, (size_t)i, "r_await_ms"))); /* no reads: empty cell */
    CHECK_NUM(table_num(t, (size_t)i, "w_per_s"), 5, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "w_await_ms"), 3, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "await_ms"), 3, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "util_pct"), 0, 0); /* io_ticks went back */
    CHECK_NUM(table_num(t, (size_t)i, "aqu_sz"), 0.015, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "wkb_per_s"), 20, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "avg_rq_kib"), 4, 1e-9);

    i = row_of(t, "loop0");
    REQUIRE(i >= 0);
    CHECK_STR(table_str(t, (size_t)i, "class"), "unknown");
    CHECK_NUM(table_num(t, (size_t)i, "r_per_s"), 4, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "util_pct"), 0.2, 1e-9);

    i = row_of(t, "nbd0");
    REQUIRE(i >= 0);
    CHECK_STR(table_str(t, (size_t)i, "class"), "network");
    CHECK_NUM(table_num(t, (size_t)i, "util_pct"), 0, 0);
    CHECK(isnan(table_num(t, (size_t)i, "await_ms")));
    CHECK(isnan(table_num(t, (size_t)i, "avg_rq_kib")));

    i = row_of(t, "cciss/c0d0");
    REQUIRE(i >= 0);
    CHECK_STR(table_str(t, (size_t)i, "class"), "ssd");
    CHECK_NUM(table_num(t, (size_t)i, "r_await_ms"), 2, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "rkb_per_s"), 40, 1e-9);

    i = row_of(t, "we<b>ird");
    REQUIRE(i == 5);
    CHECK_STR(table_str(t, (size_t)i, "class"), "unknown");
    CHECK_NUM(table_num(t, (size_t)i, "await_ms"), 2, 1e-9);
    CHECK_NUM(table_num(t, (size_t)i, "util_pct"), 0.4, 1e-9);

    CHECK_NUM(report_metric_value(r, "disk.util_pct_max"), 25, 1e-9);
    CHECK_NUM(report_metric_value(r, "disk.await_ms_max"), 3, 1e-9);
    CHECK_NUM(last_value(r, "disk.sda.util_pct"), 25, 1e-9);
    CHECK_NUM(last_value(r, "disk.sda.iops"), 75, 1e-9);
    CHECK_NUM(last_value(r, "disk.we<b>ird.iops"), 2, 1e-9);
    CHECK(isnan(last_value(r, "disk.nbd0.await_ms")));
    CHECK(report_find_series(r, "disk.nvme0n1.util_pct") == NULL);
    CHECK(report_find_series(r, "disk.loop1.util_pct") == NULL);
    CHECK_NUM(last_value(r, "disk.loop0.iops"), 4, 1e-9);
    const struct ledger_entry *e = report_ledger(r, "disk", "Disks");
    CHECK_CONTAINS(e->notes, "6 malformed");
    report_free(r);
}

/* No tick at all (window shorter than one interval): stop takes the final
 * reading itself. */
TEST(disk_life_stop_reads_when_time_passed)
{
    struct collect_config cfg = {0};
    struct host_caps caps = {0};
    struct report *r = report_new();
    struct collect_ctx ctx = {.r = r, .cfg = &cfg, .caps = &caps, .now_s = 0,
                              .clock_s = collect_tick_clock};
    char root[4096], err[256] = "";
    void *st = NULL;
    snprintf(root, sizeof root, "%s/disk/odd/t0", fixtures_dir());
    hostfs_set_root(root);
    REQUIRE(collector_disk.start(&ctx, &st, err, sizeof err) == 0);
    snprintf(root, sizeof root, "%s/disk/odd/t1", fixtures_dir());
    hostfs_set_root(root);
    ctx.now_s = 2.0;
    CHECK(collector_disk.stop(&ctx, st, err, sizeof err) == 0);
    collector_disk.destroy(st);
    hostfs_set_root(NULL);
    const struct table *t = report_find_table(r, "disk");
    REQUIRE(t);
    CHECK_NUM(table_num(t, (size_t)row_of(t, "sda"), "util_pct"), 25, 1e-9);
    CHECK(report_find_series(r, "disk.sda.util_pct") == NULL);
    report_free(r);
}

TEST(disk_missing_diskstats)
{
    struct collect_config cfg = {0};
    struct host_caps caps = {0};
    struct report *r = report_new();
    struct collect_ctx ctx = {.r = r, .cfg = &cfg, .caps = &caps, .now_s = 0,
                              .clock_s = collect_tick_clock};
    char root[4096], err[256] = "";
    snprintf(root, sizeof root, "%s/net/odd/t0", fixtures_dir()); /* no diskstats there */
    hostfs_set_root(root);
    CHECK(!collector_disk.can_run(&ctx, err, sizeof err));
    CHECK_CONTAINS(err, "/proc/diskstats");
    void *st = NULL;
    err[0] = '\0';
    CHECK(collector_disk.start(&ctx, &st, err, sizeof err) != 0);
    CHECK_CONTAINS(err, "/proc/diskstats");
    collector_disk.destroy(st);
    hostfs_set_root(NULL);
    report_free(r);
}
