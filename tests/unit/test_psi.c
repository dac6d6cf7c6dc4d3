#include "harness.h"
#include "collect_life.h"
#include "../../src/collect/psi.h"
#include "../../src/util/hostfs.h"
#include "../../src/util/strbuf.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>

static int load_psi(const char *root, const char *res, struct psi_file *f)
{
    struct strbuf sb = STRBUF_INIT;
    hostfs_set_root(fixture(root));
    int rc = hostfs_readf(&sb, 0, "/proc/pressure/%s", res);
    hostfs_set_root(NULL);
    if (rc == 0)
        rc = parse_psi(sb_str(&sb), f);
    sb_free(&sb);
    return rc;
}

TEST(psi_parse_captured)
{
    struct psi_file f;
    REQUIRE(load_psi("psi/t0", "cpu", &f) == 0);
    CHECK(f.some.have && f.full.have);
    CHECK_NUM(f.some.avg10, 0.15, 1e-12);
    CHECK_NUM(f.some.avg60, 0.92, 1e-12);
    CHECK_NUM(f.some.avg300, 0.62, 1e-12);
    CHECK(f.some.total == 6243476);
    CHECK(f.full.total == 0);
    REQUIRE(load_psi("psi/t0", "io", &f) == 0);
    CHECK_NUM(f.full.avg10, 0.75, 1e-12);
    CHECK(f.full.total == 3284954);
}

TEST(psi_stall_pct_edges)
{
    CHECK_NUM(psi_stall_pct(1000000, 1250000, 1.0), 25.0, 1e-9);
    CHECK_NUM(psi_stall_pct(0, 1000000, 2.0), 50.0, 1e-9);
    CHECK_NUM(psi_stall_pct(500, 100, 1.0), 0, 0);       /* backwards */
    CHECK_NUM(psi_stall_pct(0, 1010000, 1.0), 100.0, 0); /* timing skew */
    CHECK(isnan(psi_stall_pct(0, 10, 0.0)));
    CHECK(isnan(psi_stall_pct(0, 10, -1.0)));
}

TEST(psi_lifecycle_captured)
{
    struct life l;
    life_init(&l, &collector_psi);
    char reason[256] = "";
    life_root("psi/t0");
    CHECK(collector_psi.can_run(&l.ctx, reason, sizeof reason));
    REQUIRE(life_start(&l, "psi/t0") == 0);
    CHECK(life_tick(&l, "psi/t1", 1.0) == 0);
    REQUIRE(life_stop(&l, "psi/t1", 1.0) == 0);
    struct report *r = l.r;
    /* cpu some: 6268329 - 6243476 = 24853 us stalled in 1 s. */
    CHECK_NUM(report_metric_value(r, "psi.cpu.some.pct"), 2.4853, 1e-9);
    CHECK_NUM(report_metric_value(r, "psi.cpu.full.pct"), 0, 0);
    CHECK_NUM(report_metric_value(r, "psi.io.some.pct"), 0.0212, 1e-9);
    CHECK_NUM(report_metric_value(r, "psi.io.full.pct"), 0.0014, 1e-9);
    CHECK_NUM(report_metric_value(r, "psi.memory.some.pct"), 0, 0);
    CHECK_NUM(report_metric_value(r, "psi.memory.full.pct"), 0, 0);
    CHECK_NUM(report_metric_value(r, "psi.cpu.some.avg10_max"), 0.15, 1e-12);
    CHECK_NUM(report_metric_value(r, "psi.io.some.avg10_max"), 0.76, 1e-12);
    CHECK_NUM(report_metric_value(r, "psi.io.full.avg10_max"), 0.75, 1e-12);
    CHECK_NUM(series_at(r, "psi.cpu.some.pct", 0), 2.4853, 1e-9);
    CHECK_NUM(series_at(r, "psi.io.full.pct", 0), 0.0014, 1e-9);

    static const char *const charted[] = {"psi.cpu.some.pct", "psi.io.some.pct",
                                          "psi.memory.some.pct"};
    for (size_t i = 0; i < 3; i++) {
        const struct series *s = report_find_series(r, charted[i]);
        REQUIRE(s != NULL);
        CHECK(s->chart);
        CHECK(isnan(s->warn) && isnan(s->crit)); /* lines are analysis's */
        CHECK_STR(s->hdr.resource, "psi");
    }
    const struct series *full = report_find_series(r, "psi.memory.full.pct");
    REQUIRE(full != NULL);
    CHECK(!full->chart);
    life_end(&l);
}

TEST(psi_lifecycle_resource_missing_and_backwards)
{
    struct life l;
    life_init(&l, &collector_psi);
    char reason[256] = "";
    life_root("psi/partial/t0");
    CHECK(collector_psi.can_run(&l.ctx, reason, sizeof reason)); /* io missing is fine */
    REQUIRE(life_start(&l, "psi/partial/t0") == 0);
    CHECK(life_tick(&l, "psi/partial/t1", 1.0) == 0);
    CHECK(life_tick(&l, "psi/partial/t2", 2.0) == 0);
    REQUIRE(life_stop(&l, "psi/partial/t2", 2.0) == 0);
    struct report *r = l.r;

    CHECK_NUM(series_at(r, "psi.cpu.some.pct", 0), 20.0, 1e-9);
    CHECK_NUM(series_at(r, "psi.cpu.some.pct", 1), 10.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "psi.cpu.some.pct"), 15.0, 1e-9);
    /* avg10 max over the ticks, not the reading before the window. */
    CHECK_NUM(report_metric_value(r, "psi.cpu.some.avg10_max"), 12.5, 1e-12);
    /* cpu has no "full" line here (kernel < 5.13): absent. */
    CHECK(report_find_metric(r, "psi.cpu.full.pct") == NULL);
    CHECK(report_find_metric(r, "psi.cpu.full.avg10_max") == NULL);
    CHECK(report_find_series(r, "psi.cpu.full.pct") == NULL);

    CHECK_NUM(series_at(r, "psi.memory.some.pct", 0), 30.0, 1e-9);
    CHECK_NUM(series_at(r, "psi.memory.some.pct", 1), 100.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "psi.memory.some.pct"), 65.0, 1e-9);
    CHECK_NUM(report_metric_value(r, "psi.memory.some.avg10_max"), 41.0, 1e-12);
    /* full total went backwards in t2: 0 for that tick and for the window. */
    CHECK_NUM(series_at(r, "psi.memory.full.pct", 0), 15.0, 1e-9);
    CHECK_NUM(series_at(r, "psi.memory.full.pct", 1), 0, 0);
    CHECK_NUM(report_metric_value(r, "psi.memory.full.pct"), 0, 0);
    CHECK_NUM(report_metric_value(r, "psi.memory.full.avg10_max"), 20.0, 1e-12);

    /* The missing resource is skipped entirely. */
    CHECK(report_find_metric(r, "psi.io.some.pct") == NULL);
    CHECK(report_find_metric(r, "psi.io.some.avg10_max") == NULL);
    CHECK(report_find_series(r, "psi.io.some.pct") == NULL);
    life_end(&l);
}

TEST(psi_can_run_false_without_proc_pressure)
{
    struct life l;
    life_init(&l, &collector_psi);
    char reason[256] = "";
    life_root("psi/nopsi");
    CHECK(!collector_psi.can_run(&l.ctx, reason, sizeof reason));
    CHECK_STR(reason, "PSI not available: /proc/pressure/cpu missing (kernel built without "
                      "CONFIG_PSI or booted with psi=0)");
    /* start on such a host fails cleanly too. */
    CHECK(life_start(&l, "psi/nopsi") == -ENOENT);
    CHECK_CONTAINS(l.err, "/proc/pressure");
    life_end(&l);
}

TEST(psi_parse_malformed_lines_skipped)
{
    struct psi_file f;
    REQUIRE(load_psi("psi/malformed", "cpu", &f) == 0);
    /* Only the last "some" line is complete; an unknown extra field is ok. */
    CHECK(f.some.have);
    CHECK(f.some.total == 777);
    CHECK_NUM(f.some.avg10, 4.0, 0);
    CHECK_NUM(f.some.avg300, 6.0, 0);
    CHECK(!f.full.have); /* its total overflows */
    CHECK(load_psi("psi/malformed", "io", &f) == -EINVAL);
    CHECK(load_psi("psi/malformed", "memory", &f) == -EINVAL);
    CHECK(parse_psi("some avg10=1 avg60=2 avg300=3", &f) == -EINVAL); /* no total */
    CHECK(parse_psi("some avg10=-1 avg60=2 avg300=3 total=4", &f) == -EINVAL);
    CHECK(parse_psi("full avg10=1 avg60=2 avg300=3 total=4\r\n", &f) == 0);
    CHECK(!f.some.have && f.full.have && f.full.total == 4);
}

TEST(psi_lifecycle_malformed_no_crash)
{
    struct life l;
    life_init(&l, &collector_psi);
    char reason[256] = "";
    life_root("psi/malformed");
    CHECK(collector_psi.can_run(&l.ctx, reason, sizeof reason));
    REQUIRE(life_start(&l, "psi/malformed") == 0);
    CHECK(life_tick(&l, "psi/malformed", 1.0) == 0);
    REQUIRE(life_stop(&l, "psi/malformed", 2.0) == 0);
    struct report *r = l.r;
    CHECK_NUM(report_metric_value(r, "psi.cpu.some.pct"), 0, 0);
    CHECK_NUM(report_metric_value(r, "psi.cpu.some.avg10_max"), 4.0, 0);
    /* io and memory were unparseable at start: skipped. */
    CHECK(report_find_metric(r, "psi.io.some.pct") == NULL);
    CHECK(report_find_metric(r, "psi.memory.some.pct") == NULL);
    life_end(&l);
}
