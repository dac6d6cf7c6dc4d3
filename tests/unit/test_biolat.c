/* The block I/O latency collector's pure parts (src/collect/biolat.c):
 * device names, the model fill, and the disk.latency rule built on it. */
#include "harness.h"
#include "rule_util.h"
#include "../../src/analyze/analyze.h"
#include "../../src/model/model.h"
#include "../../src/collect/biolat.h"
#include "../../src/procfs/blockdev.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    CHECK_STR(report_find_hist(r, "biosize.vda")->hdr.unit, "KiB");
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
