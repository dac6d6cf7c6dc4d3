/* The cgroup I/O throttling, cgroup memory growth and UDP receive-buffer
 * rules at their thresholds, on synthetic models (the names of
 * src/model/NAMES.md). */
#include "harness.h"
#include "rule_util.h"
#include "../../src/analyze/analyze.h"
#include "../../src/model/model.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A host with ten 1 s ticks. */
static struct report *host10(void)
{
    struct report *r = quiet_host();
    for (int i = 1; i <= 10; i++)
        report_add_tick(r, i);
    return r;
}

/* ---- cgroup.io_throttled ---------------------------------------------------- */

/* A wbps limit of 2 MiB/s on vda for `path`: `at` of its 10 intervals at
 * `hi` % of the limit, the rest at 5 %; psi: the cgroup's io pressure. */
static void io_limit(struct report *r, const char *path, int at, double hi, double psi)
{
    static const char *const c[] = {"path", "name", "device", "devno", "limit",
                                    "limit_kib_per_s", "rate_kib_per_s", "use_pct",
                                    "peak_use_pct", "psi_io_some_pct", NULL};
    struct table *t = test_table(r, "cgroup.io", c);
    size_t row = table_add_row(t);
    table_set_str(t, row, "path", path);
    table_set_str(t, row, "device", "vda");
    table_set_str(t, row, "devno", "254:0");
    table_set_str(t, row, "limit", "wbps");
    table_set_num(t, row, "limit_kib_per_s", 2048);
    double use = (at * hi + (10 - at) * 5) / 10;
    table_set_num(t, row, "rate_kib_per_s", 2048 * use / 100);
    table_set_num(t, row, "use_pct", use);
    table_set_num(t, row, "peak_use_pct", at ? hi : 5);
    if (!isnan(psi))
        table_set_num(t, row, "psi_io_some_pct", psi);
    char name[64];
    snprintf(name, sizeof name, "cgroup.io.%zu.use_pct", row);
    struct series *s = report_series(r, name, name, "%", "cgroup");
    /* series_set writes the latest tick: fill them one tick at a time */
    s->n = 0;
    for (int i = 0; i < 10; i++) {
        size_t keep = r->nticks;
        r->nticks = (size_t)i + 1;
        series_set(r, s, i < at ? hi : 5);
        r->nticks = keep;
    }
}

static struct report *io_case(int at, double hi, double psi)
{
    struct report *r = host10();
    io_limit(r, "/system.slice/db.service", at, hi, psi);
    analyze_run(r);
    return r;
}

static enum severity io_sev(int at, double hi, double psi)
{
    struct report *r = io_case(at, hi, psi);
    enum severity s = sev_of(r, "cgroup.io_throttled");
    report_free(r);
    return s;
}

TEST(rules_io_throttled_needs_a_third_of_the_window_at_the_limit)
{
    CHECK(io_sev(2, 100, 90) == SEV_NONE); /* a burst: 2 of 10 intervals */
    CHECK(io_sev(3, 100, 90) == SEV_CRITICAL);
    struct report *r = io_case(3, 100, 90);
    CHECK(evidence_has(r, "cgroup.io_throttled", "3 of 10 intervals at or past 90% of it"));
    report_free(r);
    /* "at the limit" is 90 % of it in an interval */
    CHECK(io_sev(10, 89.9, 90) == SEV_NONE);
    CHECK(io_sev(10, 90, 90) == SEV_CRITICAL);
    CHECK(io_sev(0, 5, 90) == SEV_NONE); /* a limit far above the use */
}

TEST(rules_io_throttled_severity_is_the_tasks_wait)
{
    CHECK(io_sev(10, 100, 9.9) == SEV_INFO);
    CHECK(io_sev(10, 100, 10) == SEV_WARNING);
    CHECK(io_sev(10, 100, 25) == SEV_CRITICAL);
    struct report *r = io_case(10, 100, 10);
    CHECK(evidence_has(r, "cgroup.io_throttled", "10% ≥ 10% (warning; critical at 25%)"));
    report_free(r);
    /* no PSI for it (a v1-only host): held, but the harm is unknown */
    CHECK(io_sev(10, 100, NAN) == SEV_INFO);
    r = io_case(10, 100, NAN);
    CHECK(evidence_has(r, "cgroup.io_throttled", "is not measured"));
    report_free(r);
}

TEST(rules_io_throttled_names_cgroup_device_and_limit)
{
    struct report *r = host10();
    io_limit(r, "/idle.service", 0, 5, 0);
    io_limit(r, "/system.slice/docker-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope",
             10, 99, 80);
    table_set_str(report_find_table(r, "cgroup.io"), 1, "name", "docker 0123456789ab");
    static const char *const dc[] = {"device", "util_pct", NULL};
    struct table *d = test_table(r, "disk", dc);
    table_set_num(d, table_add_row(d), "util_pct", 12);
    table_set_str(d, 0, "device", "vda");
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "cgroup.io_throttled");
    REQUIRE(f);
    CHECK(f == &r->findings[0]);
    CHECK_CONTAINS(f->title, "(docker 0123456789ab) write-throttled on vda: 1.98 MiB/s against "
                             "its 2 MiB/s limit, held there 100% of the window; its tasks "
                             "waited for I/O 80% of the time");
    CHECK_CONTAINS(f->culprit, "/system.slice/docker-0123456789abcdef");
    CHECK(evidence_has(r, "cgroup.io_throttled", "Limit wbps 2 MiB/s on vda (254:0)"));
    CHECK(evidence_has(r, "cgroup.io_throttled", "vda itself was busy 12%"));
    CHECK_CONTAINS(r->headline, "write-throttled on vda");
    const struct use_row *u = NULL;
    for (size_t i = 0; i < r->nuse; i++)
        if (strcmp(r->use[i].resource, "cgroup") == 0)
            u = &r->use[i];
    REQUIRE(u);
    CHECK_CONTAINS(u->sat.text, "I/O held at its limit");
    CHECK(u->sat.sev == SEV_CRITICAL);
    report_free(r);
}

/* ---- cgroup.memory_growth --------------------------------------------------- */

/* A row of cgroup.memory_growth: anonymous memory growing `slope` KiB/s over
 * `secs`, from 100 MiB, rising in `rise` % of intervals, kept to the end. */
static void grow(struct report *r, const char *path, double slope, double rise, double limit_kib,
                 double secs)
{
    static const char *const c[] = {"path", "name", "anon_first_kib", "anon_kib",
                                    "anon_growth_kib_per_s", "anon_rise_pct", "file_kib",
                                    "file_growth_kib_per_s", "mem_kib", "mem_limit_kib",
                                    "samples", "seconds", NULL};
    struct table *t = test_table(r, "cgroup.memory_growth", c);
    size_t i = table_add_row(t);
    table_set_str(t, i, "path", path);
    table_set_num(t, i, "anon_first_kib", 102400);
    table_set_num(t, i, "anon_kib", 102400 + slope * secs);
    table_set_num(t, i, "anon_growth_kib_per_s", slope);
    table_set_num(t, i, "anon_rise_pct", rise);
    table_set_num(t, i, "file_kib", 5000);
    table_set_num(t, i, "file_growth_kib_per_s", 0);
    table_set_num(t, i, "mem_kib", 110000 + slope * secs);
    if (!isnan(limit_kib))
        table_set_num(t, i, "mem_limit_kib", limit_kib);
    table_set_num(t, i, "samples", 11);
    table_set_num(t, i, "seconds", secs);
}

/* The limit that leaves `min` minutes at `slope` KiB/s after a window of secs. */
static double limit_for(double slope, double min, double secs)
{
    return 102400 + slope * secs + slope * 60 * min;
}

static enum severity growth_sev(double slope, double rise, double min, double secs)
{
    struct report *r = host10();
    test_metric(r, "mem.available_kib", 100e6);
    grow(r, "/app", slope, rise, limit_for(slope, min, secs), secs);
    analyze_run(r);
    enum severity s = sev_of(r, "cgroup.memory_growth");
    report_free(r);
    return s;
}

TEST(rules_memory_growth_gates_and_time_to_full)
{
    /* gates: 64 KiB/s, risen in 70 % of the intervals */
    CHECK(growth_sev(63.9, 100, 1, 600) == SEV_NONE);
    CHECK(growth_sev(64, 100, 1, 600) == SEV_CRITICAL);
    CHECK(growth_sev(1024, 69.9, 1, 600) == SEV_NONE);
    CHECK(growth_sev(1024, 70, 1, 600) == SEV_CRITICAL);
    /* severity: minutes until the limit (lower is worse), 60 and 10 */
    CHECK(growth_sev(1024, 100, 60.1, 600) == SEV_INFO);
    CHECK(growth_sev(1024, 100, 60, 600) == SEV_WARNING);
    CHECK(growth_sev(1024, 100, 10, 600) == SEV_CRITICAL);
    /* not projected past 60 windows: 10 min from a 9 s window is a trend */
    CHECK(growth_sev(1024, 100, 10, 10) == SEV_CRITICAL);
    CHECK(growth_sev(1024, 100, 10, 9.9) == SEV_INFO);
}

TEST(rules_memory_growth_must_be_kept_and_anonymous)
{
    /* grew and exited before the end: the slope's growth is not there */
    struct report *r = host10();
    grow(r, "/ci/job", 1024, 100, 204800, 10);
    table_set_num(report_find_table(r, "cgroup.memory_growth"), 0, "anon_kib", 102400 + 5000);
    analyze_run(r);
    CHECK(sev_of(r, "cgroup.memory_growth") == SEV_NONE);
    report_free(r);
    /* page cache from a file copy grows 20 MiB/s, steadily, to the cgroup's
     * limit; anonymous memory does not: reclaim takes the cache back */
    r = host10();
    grow(r, "/copy", 0, 100, 204800 + 110000, 10);
    struct table *t = report_find_table(r, "cgroup.memory_growth");
    table_set_num(t, 0, "file_growth_kib_per_s", 20480);
    table_set_num(t, 0, "file_kib", 5000 + 204800);
    table_set_num(t, 0, "mem_kib", 110000 + 204800);
    analyze_run(r);
    CHECK(report_find_finding(r, "cgroup.memory_growth") == NULL);
    report_free(r);
}

TEST(rules_memory_growth_names_the_deepest_cgroup_and_the_tightest_limit)
{
    struct report *r = host10();
    test_metric(r, "mem.available_kib", 8e6);
    grow(r, "/kubepods", 2048, 100, NAN, 10);
    grow(r, "/kubepods/pod1", 2048, 100, 512000, 10); /* its limit binds */
    grow(r, "/kubepods/pod1/leaky", 2000, 100, NAN, 10);
    grow(r, "/other", 0, 0, NAN, 10);
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "cgroup.memory_growth");
    REQUIRE(f);
    CHECK_STR(f->culprit, "/kubepods/pod1/leaky");
    /* (512000 - 122880 KiB) / 2000 KiB/s = 195 s */
    CHECK_CONTAINS(f->title, "cgroup /kubepods/pod1/leaky grows 1.95 MiB/s of anonymous memory: "
                             "the 500 MiB limit of /kubepods/pod1 is reached in 3 min at this "
                             "pace");
    CHECK(f->sev == SEV_CRITICAL);
    report_free(r);

    /* no limit: the host's available memory */
    r = host10();
    test_metric(r, "mem.available_kib", 1024 * 1024);
    grow(r, "/batch", 1024, 90, NAN, 30);
    analyze_run(r);
    f = report_find_finding(r, "cgroup.memory_growth");
    REQUIRE(f);
    CHECK_CONTAINS(f->title, "the host's available memory (1 GiB) runs out in 17 min");
    CHECK(f->sev == SEV_WARNING);
    report_free(r);
}

/* 16 MiB/s in a cgroup 5 min from its limit, on a host with 40 GiB
 * available (42 min): one story, the cgroup's, naming the process.  The
 * same process in another cgroup is a story of its own.  Without a limit
 * (a session's cgroup), the process's story: the host's memory runs out. */
TEST(rules_process_growth_inside_a_growing_cgroup_is_one_story)
{
    struct report *r0 = host10();
    test_metric(r0, "mem.available_kib", 40 * 1024 * 1024);
    grow(r0, "/user.slice", 16384, 100, NAN, 30);
    growth_row(r0, 42, "leaky", 16384, 100, 33, 1, 30, "/user.slice/session-1.scope");
    analyze_run(r0);
    CHECK(report_find_finding(r0, "cgroup.memory_growth") == NULL);
    const struct finding *pf = report_find_finding(r0, "memory.growth");
    REQUIRE(pf);
    CHECK_STR(pf->culprit, "leaky (pid 42)");
    CHECK(evidence_has(r0, "memory.growth", "(cgroup.memory_growth): cgroup /user.slice grows"));
    report_free(r0);

    const char *cg[] = {"/app/worker", "/other"};
    for (int k = 0; k < 2; k++) {
        struct report *r = host10();
        test_metric(r, "mem.available_kib", 40 * 1024 * 1024);
        grow(r, "/app", 16384, 100, limit_for(16384, 5, 30), 30);
        growth_row(r, 42, "leaky", 16384, 100, 33, 1, 30, cg[k]);
        analyze_run(r);
        const struct finding *c = report_find_finding(r, "cgroup.memory_growth");
        REQUIRE(c);
        CHECK(c->sev == SEV_CRITICAL);
        CHECK_STR(c->culprit, "/app");
        const struct finding *p = report_find_finding(r, "memory.growth");
        if (k == 0) {
            CHECK(p == NULL);
            CHECK(evidence_has(r, "cgroup.memory_growth", "(memory.growth): Memory of leaky (pid 42)"));
        } else {
            REQUIRE(p);
            CHECK(p->sev == SEV_WARNING);
        }
        report_free(r);
    }
}

/* ---- net.rcvbuf_drops -------------------------------------------------------- */

static struct report *udp_case(double drops, double pct, bool socket)
{
    struct report *r = host10();
    test_metric(r, "udp.rcvbuf_errors", drops);
    test_metric(r, "udp.rcvbuf_errors_per_s", drops / 10);
    if (!isnan(pct))
        test_metric(r, "udp.rcvbuf_drop_pct", pct);
    if (socket) {
        static const char *const c[] = {"proto", "local", "port", "drops", "drops_per_s",
                                        "rx_queue_kib", "pid", "process", "uid", NULL};
        struct table *t = test_table(r, "net.udp_drops", c);
        size_t i = table_add_row(t);
        table_set_str(t, i, "proto", "udp");
        table_set_str(t, i, "local", "127.0.0.1:5001");
        table_set_num(t, i, "port", 5001);
        table_set_num(t, i, "drops", drops);
        table_set_num(t, i, "drops_per_s", drops / 10);
        table_set_num(t, i, "rx_queue_kib", 6.2);
        table_set_num(t, i, "pid", 4242);
        table_set_str(t, i, "process", "udpsink");
        table_set_num(t, i, "uid", 0);
    }
    analyze_run(r);
    return r;
}

TEST(rules_rcvbuf_drops_gate_and_share)
{
    struct report *r = udp_case(9, 50, true); /* a handful */
    CHECK(sev_of(r, "net.rcvbuf_drops") == SEV_NONE);
    report_free(r);
    r = udp_case(10, 0.99, true);
    CHECK(sev_of(r, "net.rcvbuf_drops") == SEV_INFO);
    report_free(r);
    r = udp_case(10, 1, true);
    CHECK(sev_of(r, "net.rcvbuf_drops") == SEV_WARNING);
    report_free(r);
    r = udp_case(10, 5, true);
    CHECK(sev_of(r, "net.rcvbuf_drops") == SEV_CRITICAL);
    report_free(r);
    r = udp_case(5000, NAN, false); /* no delivered count: a rate alone */
    CHECK(sev_of(r, "net.rcvbuf_drops") == SEV_INFO);
    report_free(r);
}

TEST(rules_rcvbuf_drops_names_socket_and_reader)
{
    struct report *r = udp_case(20000, 90, true);
    const struct finding *f = report_find_finding(r, "net.rcvbuf_drops");
    REQUIRE(f);
    CHECK(f == &r->findings[0]);
    CHECK_STR(f->title, "UDP receive buffers overflowed: 90.0% of datagrams dropped (2000/s), "
                        "most at 127.0.0.1:5001 read by udpsink (pid 4242)");
    CHECK_STR(f->culprit, "udpsink (pid 4242)");
    CHECK(evidence_has(r, "net.rcvbuf_drops", "Socket udp 127.0.0.1:5001: 20000 drops"));
    CHECK_CONTAINS(f->recommendation, "SO_RCVBUF");
    CHECK_CONTAINS(f->recommendation, "net.core.rmem_max");
    CHECK_CONTAINS(f->recommendation, "SO_REUSEPORT");
    const struct use_row *u = NULL;
    for (size_t i = 0; i < r->nuse; i++)
        if (strcmp(r->use[i].resource, "network") == 0)
            u = &r->use[i];
    REQUIRE(u);
    CHECK_CONTAINS(u->err.text, "UDP receive-buffer drops 90.0%");
    CHECK(u->err.sev == SEV_CRITICAL);
    report_free(r);
}
