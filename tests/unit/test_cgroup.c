#include "harness.h"
#include "collect_life.h"
#include "../../src/collect/cgroup/cgroup.h"
#include "../../src/model/model.h"
#include "../../src/run/options.h"
#include "../../src/util/hostfs.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------- parsers */

TEST(cgroup_mountinfo_hybrid_real)
{
    hostfs_set_root(fixture("cgroup/hybrid/t0"));
    struct strbuf sb = STRBUF_INIT;
    REQUIRE(hostfs_read("/proc/self/mountinfo", &sb, 0) == 0);
    struct cg_mounts ms;
    size_t n = cg_parse_mountinfo(sb_str(&sb), &ms);
    sb_free(&sb);
    CHECK(n == 5);
    if (n == 5) {
        CHECK(ms.v[0].v2);
        CHECK_STR(ms.v[0].mnt, "/sys/fs/cgroup/unified");
        CHECK_STR(ms.v[1].mnt, "/sys/fs/cgroup/cpu");
        CHECK(ms.v[1].ctrls == CG_CTRL_CPU);
        CHECK_STR(ms.v[2].mnt, "/sys/fs/cgroup/cpuacct");
        CHECK(ms.v[2].ctrls == CG_CTRL_CPUACCT);
        CHECK_STR(ms.v[3].mnt, "/sys/fs/cgroup/memory");
        CHECK(ms.v[3].ctrls == CG_CTRL_MEMORY);
        CHECK_STR(ms.v[3].root, "/");
        CHECK_STR(ms.v[4].mnt, "/sys/fs/cgroup/blkio"); /* I/O limits */
        CHECK(ms.v[4].ctrls == CG_CTRL_BLKIO);
    }
    cg_mounts_free(&ms);
}

TEST(cgroup_mountinfo_escaped_and_comounted)
{
    hostfs_set_root(fixture("cgroup/v1/t0"));
    struct strbuf sb = STRBUF_INIT;
    REQUIRE(hostfs_read("/proc/self/mountinfo", &sb, 0) == 0);
    struct cg_mounts ms;
    size_t n = cg_parse_mountinfo(sb_str(&sb), &ms);
    sb_free(&sb);
    CHECK(n == 2); /* systemd and pids hierarchies carry nothing we read */
    if (n == 2) {
        CHECK(!ms.v[0].v2);
        CHECK_STR(ms.v[0].mnt, "/sys/fs/cgroup/cpu,cpuacct");
        CHECK(ms.v[0].ctrls == (CG_CTRL_CPU | CG_CTRL_CPUACCT));
        CHECK_STR(ms.v[1].mnt, "/sys/fs/cgroup/mem ory");
    }
    cg_mounts_free(&ms);

    /* other escapes, a bind mount of the same hierarchy, a cgroup2 after v1,
     * optional fields before the separator, a truncated line */
    const char *txt =
        "40 31 0:35 /sub /mnt/a\\011b\\134c rw - cgroup cgroup rw,memory\n"
        "41 31 0:35 /sub /mnt/again rw shared:3 master:2 - cgroup cgroup rw,memory\n"
        "42 31 0:36 / /mnt/v\\0402 rw shared:9 - cgroup2 cgroup2 rw\n"
        "43 31 0:37 / /mnt/x rw - cgroup\n";
    n = cg_parse_mountinfo(txt, &ms);
    CHECK(n == 2);
    if (n == 2) {
        CHECK(ms.v[0].v2);
        CHECK_STR(ms.v[0].mnt, "/mnt/v 2");
        CHECK_STR(ms.v[1].mnt, "/mnt/a\tb\\c");
        CHECK_STR(ms.v[1].root, "/sub");
    }
    cg_mounts_free(&ms);
    CHECK(cg_parse_mountinfo("", &ms) == 0);
    cg_mounts_free(&ms);
}

TEST(cgroup_parse_cpu_max_and_limits)
{
    int64_t q;
    uint64_t per, b;
    bool unl;
    CHECK(cg_parse_cpu_max("max 100000\n", &q, &per) == 0);
    CHECK(q == -1 && per == 100000);
    CHECK(cg_parse_cpu_max("20000 100000\n", &q, &per) == 0);
    CHECK(q == 20000 && per == 100000);
    CHECK(cg_parse_cpu_max("20000\n", &q, &per) != 0);
    CHECK(cg_parse_cpu_max("maxi 100000", &q, &per) != 0);
    CHECK(cg_parse_cpu_max("20000 0", &q, &per) != 0);
    CHECK(cg_parse_mem_limit("max\n", &b, &unl) == 0 && unl);
    CHECK(cg_parse_mem_limit("9223372036854771712\n", &b, &unl) == 0 && unl);
    CHECK(cg_parse_mem_limit("67108864\n", &b, &unl) == 0 && !unl && b == 67108864);
    CHECK(cg_parse_mem_limit("-1\n", &b, &unl) != 0);
    CHECK(cg_parse_mem_limit("12 34\n", &b, &unl) != 0);
}

TEST(cgroup_parse_kv_exact_keys)
{
    const char *v1 = "nr_periods 110\nnr_throttled 100\nthrottled_time 9000000000\n";
    const char *ev = "max_x 1\nlow 0\n max 9\noom 3\noom_kill 4\noom_group_kill 0\n";
    uint64_t v;
    CHECK(cg_kv_u64(v1, "nr_throttled", &v) && v == 100);
    CHECK(cg_kv_u64(v1, "throttled_time", &v) && v == 9000000000ULL);
    CHECK(!cg_kv_u64(v1, "throttled_usec", &v));
    CHECK(!cg_kv_u64(v1, "nr_period", &v));
    CHECK(cg_kv_u64(ev, "max", &v) && v == 9);
    CHECK(cg_kv_u64(ev, "oom", &v) && v == 3);
    CHECK(cg_kv_u64(ev, "oom_kill", &v) && v == 4);
    CHECK(!cg_kv_u64("oom_kill x\n", "oom_kill", &v));
    CHECK(!cg_kv_u64("", "oom_kill", &v));
}

TEST(cgroup_parse_psi_some_total)
{
    uint64_t t;
    CHECK(cg_parse_psi_some_total("some avg10=6.85 avg60=1.71 avg300=0.70 total=6186473\n"
                                  "full avg10=0.00 avg60=0.00 avg300=0.00 total=5\n",
                                  &t) == 0);
    CHECK(t == 6186473);
    CHECK(cg_parse_psi_some_total("full avg10=0 total=5\n", &t) != 0);
    CHECK(cg_parse_psi_some_total("some avg10=0 total=\n", &t) != 0);
}

TEST(cgroup_parse_proc_cgroup)
{
    struct strbuf sb = STRBUF_INIT;
    hostfs_set_root(fixture("cgroup/hybrid/t0"));
    REQUIRE(hostfs_read("/proc/4242/cgroup", &sb, 0) == 0);
    struct cg_proc_paths pp;
    CHECK(cg_parse_proc_cgroup(sb_str(&sb), &pp) == 0);
    CHECK_STR(pp.v2, "/");
    CHECK_STR(pp.cpu, "/");
    CHECK_STR(pp.cpuacct, "/");
    CHECK_STR(pp.memory, "/process_api/5f71620ff32eca1d6d22a1a03c274a9c");
    cg_proc_paths_free(&pp);
    sb_free(&sb);

    CHECK(cg_parse_proc_cgroup("3:cpu,cpuacct:/a:b c\n1:name=systemd:/x\n", &pp) == 0);
    CHECK_STR(pp.cpu, "/a:b c");
    CHECK_STR(pp.cpuacct, "/a:b c");
    CHECK(pp.v2 == NULL && pp.memory == NULL && pp.freezer == NULL);
    cg_proc_paths_free(&pp);
    /* the v1 freezer (a paused container's tasks show D) */
    CHECK(cg_parse_proc_cgroup("7:freezer:/docker/abc\n6:freezerx:/no\n", &pp) == 0);
    CHECK_STR(pp.freezer, "/docker/abc");
    cg_proc_paths_free(&pp);
    CHECK(cg_parse_proc_cgroup("garbage\n", &pp) != 0);
    cg_proc_paths_free(&pp);
}

TEST(cgroup_throttled_pct_rules)
{
    bool est;
    CHECK_NUM(cg_throttled_pct(true, 5000000000ULL, 1000000000ULL, 100, 50000, &est), 20, 1e-9);
    CHECK(!est);
    CHECK_NUM(cg_throttled_pct(true, 0, 1000, 1, 20000, &est), 100, 0);
    CHECK_NUM(cg_throttled_pct(true, 0, 0, 0, -1, &est), 0, 0);
    CHECK_NUM(cg_throttled_pct(false, 0, 8000000000ULL, 100, 20000, &est), 400, 1e-9);
    CHECK(est);
    CHECK(isnan(cg_throttled_pct(false, 0, 5, 0, -1, &est)));
}

/* ---------------------------------------------------------- life cycle */

struct run {
    struct report *r;
    int start_rc, stop_rc;
    char err[512];
};

/* start() on fixture <dir>/t0 at 0 s, [tick on t1 at 5 s], stop() on t1 at 10 s. */
static void run_fixture(struct run *x, const char *dir, struct collect_config *o, bool tick)
{
    char t0[1024], t1[1024];
    snprintf(t0, sizeof t0, "%s/t0", fixture(dir));
    snprintf(t1, sizeof t1, "%s/t1", fixture(dir));
    memset(x, 0, sizeof *x);
    x->r = report_new();
    struct collect_ctx ctx = {.r = x->r, .cfg = o, .clock_s = collect_tick_clock};
    void *st = NULL;
    hostfs_set_root(t0);
    ctx.now_s = 0;
    x->start_rc = collector_cgroup.start(&ctx, &st, x->err, sizeof x->err);
    if (x->start_rc == 0) {
        hostfs_set_root(t1);
        if (tick) {
            ctx.now_s = 5;
            report_add_tick(x->r, 5);
            collector_cgroup.tick(&ctx, st);
        }
        ctx.now_s = 10;
        x->stop_rc = collector_cgroup.stop(&ctx, st, x->err, sizeof x->err);
    }
    collector_cgroup.destroy(st);
    hostfs_set_root(NULL);
}

static long find_row(const struct table *t, const char *path)
{
    for (size_t i = 0; t && i < t->nrows; i++) {
        const char *p = table_str(t, i, "path");
        if (p && strcmp(p, path) == 0)
            return (long)i;
    }
    return -1;
}

TEST(cgroup_hybrid_merges_v1_and_v2)
{
    struct collect_config o = {0};
    o.pid = 4242;
    struct run x;
    run_fixture(&x, "cgroup/hybrid", &o, false);
    CHECK(x.start_rc == 0 && x.stop_rc == 0);
    struct table *t = report_find_table(x.r, "cgroup");
    REQUIRE(t);
    CHECK_NUM(report_metric_value(x.r, "cgroup.count"), 6, 0);

    /* real capture: the root's cpuacct.usage moved 86985848 ns */
    long root = find_row(t, "/");
    REQUIRE(root >= 0);
    CHECK_NUM(table_num(t, (size_t)root, "cpu_pct"), 0.86985848, 1e-6);
    CHECK(isnan(table_num(t, (size_t)root, "mem_limit_kib"))); /* huge = unlimited */
    CHECK(isnan(table_num(t, (size_t)root, "mem_pct")));
    CHECK(isnan(table_num(t, (size_t)root, "quota_cpus")));
    CHECK_NUM(table_num(t, (size_t)root, "mem_kib"), 379256832 / 1024.0, 1e-6);
    CHECK_NUM(table_num(t, (size_t)root, "psi_cpu_some_pct"), (7053572 - 7049816) / 1e5, 1e-9);
    CHECK_NUM(table_num(t, (size_t)root, "target"), 0, 0);

    /* one path in four hierarchies: usage from cpuacct, throttling from cpu,
     * memory from memory, pressure from unified */
    long a = find_row(t, "/system.slice/app.service");
    REQUIRE(a >= 0);
    size_t r = (size_t)a;
    CHECK_NUM(table_num(t, r, "cpu_pct"), 50, 1e-9);
    CHECK_NUM(table_num(t, r, "quota_cpus"), 0.5, 1e-12);
    CHECK_NUM(table_num(t, r, "nr_periods"), 100, 0);
    CHECK_NUM(table_num(t, r, "nr_throttled"), 50, 0);
    CHECK_NUM(table_num(t, r, "throttled_periods_pct"), 50, 1e-9);
    CHECK_NUM(table_num(t, r, "throttled_ms"), 1000, 1e-9);
    CHECK_NUM(table_num(t, r, "throttled_pct"), 20, 1e-9);
    CHECK_NUM(table_num(t, r, "mem_kib"), 225280, 1e-9);
    CHECK_NUM(table_num(t, r, "mem_limit_kib"), 262144, 1e-9);
    CHECK_NUM(table_num(t, r, "mem_pct"), 85.9375, 1e-9);
    CHECK_NUM(table_num(t, r, "mem_failcnt"), 4, 0);
    CHECK_NUM(table_num(t, r, "oom_kills"), 1, 0);
    CHECK_NUM(table_num(t, r, "oom_kills_total"), 1, 0);
    CHECK_NUM(table_num(t, r, "psi_cpu_some_pct"), 20, 1e-9);
    CHECK_NUM(table_num(t, r, "psi_memory_some_pct"), 5, 1e-9);
    CHECK_NUM(table_num(t, r, "psi_io_some_pct"), 1, 1e-9);

    /* cpu hierarchy only: usage bounded by quota x periods */
    long e = find_row(t, "/perfreport-est");
    REQUIRE(e >= 0);
    CHECK(isnan(table_num(t, (size_t)e, "cpu_pct")));
    CHECK_NUM(table_num(t, (size_t)e, "throttled_pct"), 400, 1e-9);
    CHECK_NUM(table_num(t, (size_t)e, "nr_throttled"), 100, 0);
    CHECK_CONTAINS(t->note, "estimated");

    /* -p 4242: its v1 memory cgroup, not "/" */
    long p = find_row(t, "/process_api/5f71620ff32eca1d6d22a1a03c274a9c");
    REQUIRE(p >= 0);
    CHECK_NUM(table_num(t, (size_t)p, "target"), 1, 0);
    CHECK_NUM(table_num(t, (size_t)p, "mem_kib"), 7278592 / 1024.0, 1e-6); /* at stop */
    CHECK(isnan(table_num(t, (size_t)p, "mem_limit_kib")));
    CHECK(find_row(t, "/process_api") < 0); /* nothing to show: no CPU, no limit */
    /* busiest first */
    CHECK(find_row(t, "/system.slice") == 0);
    report_free(x.r);
}

TEST(cgroup_v2_window_deltas_odd_names_removed)
{
    struct collect_config o = {0};
    o.pid = 777;
    struct run x;
    run_fixture(&x, "cgroup/v2", &o, false);
    CHECK(x.start_rc == 0 && x.stop_rc == 0);
    struct table *t = report_find_table(x.r, "cgroup");
    REQUIRE(t);
    CHECK_NUM(report_metric_value(x.r, "cgroup.count"), 6, 0);

    long w = find_row(t, "/system.slice/web.service");
    REQUIRE(w >= 0);
    size_t r = (size_t)w;
    CHECK_NUM(table_num(t, r, "cpu_pct"), 20, 1e-9);
    CHECK_NUM(table_num(t, r, "quota_cpus"), 0.2, 1e-12);
    CHECK_NUM(table_num(t, r, "nr_periods"), 100, 0);
    CHECK_NUM(table_num(t, r, "nr_throttled"), 95, 0);
    CHECK_NUM(table_num(t, r, "throttled_periods_pct"), 95, 1e-9);
    CHECK_NUM(table_num(t, r, "throttled_ms"), 7000, 1e-9);
    CHECK_NUM(table_num(t, r, "throttled_pct"), 350, 1e-9);
    CHECK_NUM(table_num(t, r, "mem_kib"), 102400, 0);
    CHECK_NUM(table_num(t, r, "mem_limit_kib"), 204800, 0);
    CHECK_NUM(table_num(t, r, "mem_pct"), 50, 1e-9);
    CHECK_NUM(table_num(t, r, "mem_failcnt"), 4, 0);
    CHECK_NUM(table_num(t, r, "oom_kills"), 2, 0);
    CHECK_NUM(table_num(t, r, "oom_kills_total"), 3, 0);
    CHECK_NUM(table_num(t, r, "psi_cpu_some_pct"), 30, 1e-9);
    CHECK_NUM(table_num(t, r, "psi_memory_some_pct"), 2, 1e-9);
    CHECK_NUM(table_num(t, r, "psi_io_some_pct"), 0, 0);

    long u = find_row(t, "/user.slice");
    REQUIRE(u >= 0);
    CHECK_NUM(table_num(t, (size_t)u, "cpu_pct"), 10, 1e-9);
    CHECK(isnan(table_num(t, (size_t)u, "quota_cpus"))); /* "max 100000" */
    CHECK(isnan(table_num(t, (size_t)u, "mem_limit_kib")));
    CHECK_NUM(table_num(t, (size_t)u, "throttled_pct"), 0, 0);

    /* host-controlled name stored as-is; it is the -p target */
    long odd = find_row(t, "/user.slice/we ird <script>alert(1)<script> & co");
    REQUIRE(odd >= 0);
    CHECK_NUM(table_num(t, (size_t)odd, "cpu_pct"), 120, 1e-9);
    CHECK_NUM(table_num(t, (size_t)odd, "mem_pct"), 95, 1e-9);
    CHECK_NUM(table_num(t, (size_t)odd, "target"), 1, 0);
    CHECK(odd == 1); /* after "/" (300 %) */

    long root = find_row(t, "/");
    REQUIRE(root >= 0);
    CHECK_NUM(table_num(t, (size_t)root, "cpu_pct"), 300, 1e-9);
    CHECK_NUM(table_num(t, (size_t)root, "psi_io_some_pct"), 5, 1e-9);

    CHECK(find_row(t, "/gone.scope") < 0);
    long nw = find_row(t, "/new.scope");
    REQUIRE(nw >= 0); /* created in the window: counted from zero */
    CHECK_NUM(table_num(t, (size_t)nw, "cpu_pct"), 5, 1e-9);
    CHECK(find_row(t, "/system.slice") < 0); /* idle, unlimited */
    CHECK_CONTAINS(t->note, "1 removed during the window");
    CHECK_CONTAINS(t->note, "v2 at /sys/fs/cgroup");
    report_free(x.r);
}

TEST(cgroup_v1_comounted_escaped_mount_target)
{
    struct collect_config o = {0};
    o.pid = 4242;
    struct run x;
    run_fixture(&x, "cgroup/v1", &o, false);
    CHECK(x.start_rc == 0 && x.stop_rc == 0);
    struct table *t = report_find_table(x.r, "cgroup");
    REQUIRE(t);
    long d = find_row(t, "/docker/abc");
    REQUIRE(d >= 0);
    size_t r = (size_t)d;
    CHECK_NUM(table_num(t, r, "cpu_pct"), 20, 1e-9);
    CHECK_NUM(table_num(t, r, "quota_cpus"), 0.2, 1e-12);
    CHECK_NUM(table_num(t, r, "nr_periods"), 100, 0);
    CHECK_NUM(table_num(t, r, "nr_throttled"), 95, 0);
    CHECK_NUM(table_num(t, r, "throttled_ms"), 8000, 1e-9);
    CHECK_NUM(table_num(t, r, "throttled_pct"), 400, 1e-9);
    CHECK_NUM(table_num(t, r, "mem_kib"), 61440, 0);
    CHECK_NUM(table_num(t, r, "mem_limit_kib"), 65536, 0);
    CHECK_NUM(table_num(t, r, "mem_pct"), 93.75, 1e-9);
    CHECK_NUM(table_num(t, r, "mem_failcnt"), 15, 0);
    CHECK_NUM(table_num(t, r, "oom_kills"), 2, 0);
    CHECK_NUM(table_num(t, r, "oom_kills_total"), 3, 0);
    CHECK(isnan(table_num(t, r, "psi_cpu_some_pct"))); /* no PSI on v1 */
    CHECK_NUM(table_num(t, r, "target"), 1, 0);

    long b = find_row(t, "/batch"); /* cpuacct.stat only, in USER_HZ ticks */
    REQUIRE(b >= 0);
    CHECK_NUM(table_num(t, (size_t)b, "cpu_pct"), 400.0 / (double)sysconf(_SC_CLK_TCK) * 10,
              1e-9);
    long h = find_row(t, "/huge");
    REQUIRE(h >= 0);
    CHECK_NUM(table_num(t, (size_t)h, "cpu_pct"), 1, 1e-9);
    CHECK_NUM(table_num(t, (size_t)h, "mem_kib"), 1024, 0);
    CHECK(isnan(table_num(t, (size_t)h, "mem_limit_kib")));
    CHECK(isnan(table_num(t, (size_t)h, "mem_pct")));
    long root = find_row(t, "/");
    REQUIRE(root >= 0);
    CHECK_NUM(table_num(t, (size_t)root, "cpu_pct"), 100, 1e-9);
    CHECK_NUM(report_metric_value(x.r, "cgroup.count"), 5, 0);
    CHECK_CONTAINS(t->note, "/sys/fs/cgroup/mem ory");
    report_free(x.r);
}

TEST(cgroup_target_by_path_and_tick_series)
{
    struct collect_config o = {0};
    o.cgroup = "system.slice//web.service/";
    struct run x;
    run_fixture(&x, "cgroup/v2", &o, true);
    CHECK(x.start_rc == 0 && x.stop_rc == 0);
    struct table *t = report_find_table(x.r, "cgroup");
    REQUIRE(t);
    long w = find_row(t, "/system.slice/web.service");
    REQUIRE(w >= 0);
    CHECK_NUM(table_num(t, (size_t)w, "target"), 1, 0);
    const struct series *c = report_find_series(x.r, "cgroup.target.cpu_pct");
    const struct series *th = report_find_series(x.r, "cgroup.target.throttled_pct");
    REQUIRE(c && th && c->n == 1 && th->n == 1);
    CHECK_NUM(c->v[0], 40, 1e-9); /* 2 s of CPU in 5 s */
    CHECK_NUM(th->v[0], 350, 1e-9);
    CHECK(c->chart && th->chart);
    report_free(x.r);
}

TEST(cgroup_target_not_found_fails_clearly)
{
    struct collect_config o = {0};
    o.cgroup = "/nope";
    struct run x;
    run_fixture(&x, "cgroup/hybrid", &o, false);
    CHECK(x.start_rc != 0);
    CHECK_STR(x.err, "cgroup /nope not found under /sys/fs/cgroup/unified or the v1 "
                     "cpu/cpuacct/memory/blkio hierarchies");
    report_free(x.r);
    run_fixture(&x, "cgroup/v1", &o, false);
    CHECK_STR(x.err, "cgroup /nope not found in the v1 cpu/cpuacct/memory hierarchies");
    report_free(x.r);
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    size_t l = strlen(text);
    ssize_t w = write(fd, text, l);
    int rc = (w == (ssize_t)l) ? 0 : (w < 0 ? -errno : -EIO);
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

TEST(cgroup_can_run_without_cgroupfs)
{
    char dir[] = "/tmp/perfreport-cg-XXXXXX";
    REQUIRE(mkdtemp(dir));
    char p[256];
    snprintf(p, sizeof p, "%s/proc", dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/proc/self", dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/proc/self/mountinfo", dir);
    CHECK(write_file(p, "22 27 0:21 / /proc rw - proc proc rw\n"
                        "36 31 0:33 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n") == 0);
    hostfs_set_root(dir);
    char reason[256] = "";
    struct collect_ctx ctx = {0};
    CHECK(!collector_cgroup.can_run(&ctx, reason, sizeof reason));
    CHECK_CONTAINS(reason, "no cgroup filesystem");
    hostfs_set_root(NULL);
    unlink(p);
    snprintf(p, sizeof p, "%s/proc/self", dir);
    rmdir(p);
    snprintf(p, sizeof p, "%s/proc", dir);
    rmdir(p);
    rmdir(dir);
}

/* 40 nested levels: depth 0..32 read, the rest counted as skipped. */
TEST(cgroup_walk_depth_bound)
{
    char dir[] = "/tmp/perfreport-cg-XXXXXX";
    REQUIRE(mkdtemp(dir));
    char p[4096];
    snprintf(p, sizeof p, "%s/proc", dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/proc/self", dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/proc/self/mountinfo", dir);
    CHECK(write_file(p, "30 23 0:26 / /cg rw - cgroup2 cgroup2 rw\n") == 0);
    snprintf(p, sizeof p, "%s/cg", dir);
    mkdir(p, 0700);
    for (int i = 0; i < 40; i++) {
        strcat(p, "/d");
        mkdir(p, 0700);
    }
    hostfs_set_root(dir);
    struct collect_config o = {0};
    struct report *r = report_new();
    struct collect_ctx ctx = {.r = r, .cfg = &o, .clock_s = collect_tick_clock};
    void *st = NULL;
    char err[256] = "";
    CHECK(collector_cgroup.start(&ctx, &st, err, sizeof err) == 0);
    ctx.now_s = 1;
    CHECK(collector_cgroup.stop(&ctx, st, err, sizeof err) == 0);
    collector_cgroup.destroy(st);
    CHECK_NUM(report_metric_value(r, "cgroup.count"), 33, 0);
    const struct table *t = report_find_table(r, "cgroup");
    CHECK(t && t->nrows == 0);
    if (t)
        CHECK_CONTAINS(t->note, "1 not read");
    report_free(r);
    hostfs_set_root(NULL);
    /* clean up deepest first */
    snprintf(p, sizeof p, "%s/cg", dir);
    size_t base = strlen(p);
    for (int i = 0; i < 40; i++)
        strcat(p, "/d");
    while (strlen(p) > base) {
        rmdir(p);
        p[strlen(p) - 2] = '\0';
    }
    rmdir(p);
    snprintf(p, sizeof p, "%s/proc/self/mountinfo", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/proc/self", dir);
    rmdir(p);
    snprintf(p, sizeof p, "%s/proc", dir);
    rmdir(p);
    rmdir(dir);
}

/* A flat v2 tree of 4010 cgroups: 4000 read, the rest counted. */
TEST(cgroup_walk_count_bound)
{
    char dir[] = "/tmp/perfreport-cg-XXXXXX";
    REQUIRE(mkdtemp(dir));
    char p[512];
    snprintf(p, sizeof p, "%s/proc", dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/proc/self", dir);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/proc/self/mountinfo", dir);
    CHECK(write_file(p, "30 23 0:26 / /cg rw - cgroup2 cgroup2 rw\n") == 0);
    snprintf(p, sizeof p, "%s/cg", dir);
    mkdir(p, 0700);
    for (int i = 0; i < 4010; i++) {
        snprintf(p, sizeof p, "%s/cg/c%d", dir, i);
        mkdir(p, 0700);
    }
    hostfs_set_root(dir);
    struct collect_config o = {0};
    o.cgroup = "/c4009"; /* the target is read even past the cap */
    struct report *r = report_new();
    struct collect_ctx ctx = {.r = r, .cfg = &o, .clock_s = collect_tick_clock};
    void *st = NULL;
    char err[256] = "";
    CHECK(collector_cgroup.start(&ctx, &st, err, sizeof err) == 0);
    ctx.now_s = 1;
    CHECK(collector_cgroup.stop(&ctx, st, err, sizeof err) == 0);
    collector_cgroup.destroy(st);
    double count = report_metric_value(r, "cgroup.count");
    CHECK(count == 4000 || count == 4001); /* 4001 when readdir left c4009 out */
    const struct table *t = report_find_table(r, "cgroup");
    REQUIRE(t);
    CHECK(t->nrows == 1);
    CHECK_STR(table_str(t, 0, "path"), "/c4009");
    CHECK_NUM(table_num(t, 0, "target"), 1, 0);
    CHECK_CONTAINS(t->note, "more than 4000 cgroups");
    report_free(r);
    hostfs_set_root(NULL);
    for (int i = 0; i < 4010; i++) {
        snprintf(p, sizeof p, "%s/cg/c%d", dir, i);
        rmdir(p);
    }
    snprintf(p, sizeof p, "%s/cg", dir);
    rmdir(p);
    snprintf(p, sizeof p, "%s/proc/self/mountinfo", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/proc/self", dir);
    rmdir(p);
    snprintf(p, sizeof p, "%s/proc", dir);
    rmdir(p);
    rmdir(dir);
}

/* ---------------------------------------------------------------- live */

static double now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

TEST(cgroup_live_v1_quota_throttles_burner)
{
    if (geteuid() != 0) {
        test_skip("needs root to create a v1 cpu cgroup");
        return;
    }
    if (access("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", F_OK) != 0) {
        test_skip("no v1 cpu hierarchy at /sys/fs/cgroup/cpu");
        return;
    }
    char cg[256], f[320], path[64], num[32];
    snprintf(path, sizeof path, "/perfreport-test-%d", (int)getpid());
    snprintf(cg, sizeof cg, "/sys/fs/cgroup/cpu%s", path);
    if (mkdir(cg, 0755) != 0) {
        test_fail(__FILE__, __LINE__, "mkdir %s: %s", cg, strerror(errno));
        return;
    }
    pid_t child = -1;
    struct report *r = NULL;
    void *st = NULL;
    snprintf(f, sizeof f, "%s/cpu.cfs_quota_us", cg);
    if (write_file(f, "20000") != 0) {
        test_fail(__FILE__, __LINE__, "cannot set %s", f);
        goto out;
    }
    child = fork();
    if (child < 0) {
        test_fail(__FILE__, __LINE__, "fork: %s", strerror(errno));
        goto out;
    }
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        volatile unsigned long spin = 0;
        for (;;)
            spin++;
    }
    snprintf(f, sizeof f, "%s/cgroup.procs", cg);
    snprintf(num, sizeof num, "%d", (int)child);
    if (write_file(f, num) != 0) {
        test_fail(__FILE__, __LINE__, "cannot move %d into %s", (int)child, cg);
        goto out;
    }
    struct collect_config o = {0};
    r = report_new();
    struct collect_ctx ctx = {.r = r, .cfg = &o};
    char err[512] = "";
    double t0 = now_mono();
    if (collector_cgroup.start(&ctx, &st, err, sizeof err) != 0) {
        test_fail(__FILE__, __LINE__, "start: %s", err);
        goto out;
    }
    struct timespec ts = {1, 100000000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    ctx.now_s = now_mono() - t0;
    if (collector_cgroup.stop(&ctx, st, err, sizeof err) != 0) {
        test_fail(__FILE__, __LINE__, "stop: %s", err);
        goto out;
    }
    const struct table *t = report_find_table(r, "cgroup");
    long row = find_row(t, path);
    CHECK(row >= 0);
    if (row >= 0) {
        double thr = table_num(t, (size_t)row, "throttled_pct");
        double n = table_num(t, (size_t)row, "nr_throttled");
        if (!(thr > 5))
            test_fail(__FILE__, __LINE__, "throttled_pct %.1f, expected > 5", thr);
        if (!(n > 0))
            test_fail(__FILE__, __LINE__, "nr_throttled %.0f, expected > 0", n);
        CHECK_NUM(table_num(t, (size_t)row, "quota_cpus"), 0.2, 1e-9);
    }
out:
    if (st)
        collector_cgroup.destroy(st);
    report_free(r);
    if (child > 0) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    /* the cgroup empties asynchronously after the child is reaped */
    for (int i = 0; i < 100 && rmdir(cg) != 0 && errno == EBUSY; i++)
        usleep(10000);
    if (access(cg, F_OK) == 0)
        test_fail(__FILE__, __LINE__, "could not remove %s", cg);
}

/* ------------------------------------------------- I/O limits, memory growth */

TEST(cgroup_parse_io_max_and_blkio_limits)
{
    struct cg_io_limit l[8];
    size_t n = cg_parse_io_max("8:0 rbps=max wbps=1048576 riops=max wiops=100\n"
                               "259:0 rbps=10485760 wbps=max riops=max wiops=max\n",
                               l, 8);
    REQUIRE(n == 3);
    CHECK(l[0].major == 8 && l[0].minor == 0 && l[0].kind == CG_IO_WBPS && l[0].limit == 1048576);
    CHECK(l[1].kind == CG_IO_WIOPS && l[1].limit == 100);
    CHECK(l[2].major == 259 && l[2].kind == CG_IO_RBPS && l[2].limit == 10485760);
    CHECK(cg_parse_io_max("8:0 rbps=1 wbps=2 riops=3 wiops=4\n", l, 2) == 2); /* bounded */
    /* hostile: junk values, no device, a major past 32 bits, glued fields,
     * 0, an overflowing number; one good limit */
    n = cg_parse_io_max("8:0 wbps=12x\nfoo bar\n:1 wbps=5\n8:0 wbps=-1 rbps=0\n"
                        "4294967296:0 wbps=5\n8:0wbps=5\n8:1\n8:1 wbps=\n"
                        "8:1 riops=7 wiops=max\n8:2 wbps=99999999999999999999\n"
                        "8:3 wbps=+5 rbps=0x10 wiops= 5\n",
                        l, 8);
    CHECK(n == 1);
    CHECK(l[0].major == 8 && l[0].minor == 1 && l[0].kind == CG_IO_RIOPS && l[0].limit == 7);
    CHECK(cg_parse_io_max("", l, 8) == 0);

    /* v1, real: "254:0 2097152"; an empty file is no limit */
    n = cg_parse_blkio_limits("254:0 2097152\n8:16 500\n", CG_IO_WBPS, l, 8);
    REQUIRE(n == 2);
    CHECK(l[0].major == 254 && l[0].minor == 0 && l[0].limit == 2097152 &&
          l[0].kind == CG_IO_WBPS);
    CHECK(l[1].major == 8 && l[1].minor == 16 && l[1].limit == 500);
    CHECK(cg_parse_blkio_limits("", CG_IO_RIOPS, l, 8) == 0);
    CHECK(cg_parse_blkio_limits("254:0 20 30\n254:0 x\n254 5\n254:0 0\n", CG_IO_RBPS, l, 8) == 0);
    CHECK_STR(cg_io_kind_name(CG_IO_RIOPS), "riops");
}

TEST(cgroup_parse_io_counters)
{
    uint64_t v = 99;
    const char *st = "259:0 rbytes=1048576 wbytes=0 rios=8 wios=0 dbytes=0 dios=0\n"
                     "8:0 rbytes=0 wbytes=4194304 rios=0 wios=128 dbytes=0 dios=0 cost.usage=12\n";
    CHECK(cg_parse_io_stat(st, 8, 0, CG_IO_WBPS, &v) && v == 4194304);
    CHECK(cg_parse_io_stat(st, 8, 0, CG_IO_WIOPS, &v) && v == 128);
    CHECK(cg_parse_io_stat(st, 259, 0, CG_IO_RIOPS, &v) && v == 8);
    CHECK(!cg_parse_io_stat(st, 8, 16, CG_IO_WBPS, &v)); /* no I/O to that device */
    CHECK(!cg_parse_io_stat("8:0 wbytes=12x\n", 8, 0, CG_IO_WBPS, &v));
    CHECK(!cg_parse_io_stat("8:0 xwbytes=12\n", 8, 0, CG_IO_WBPS, &v));

    /* v1, captured on the test VM during a throttled write */
    struct strbuf sb = STRBUF_INIT;
    hostfs_set_root(fixture("cgroup/io/t1"));
    REQUIRE(hostfs_read("/sys/fs/cgroup/blkio/prtest-io/blkio.throttle.io_service_bytes_recursive",
                        &sb, 0) == 0);
    CHECK(cg_parse_blkio_stat(sb_str(&sb), 254, 0, CG_IO_WBPS, &v) && v == 5046272);
    CHECK(cg_parse_blkio_stat(sb_str(&sb), 254, 0, CG_IO_RBPS, &v) && v == 151552);
    CHECK(!cg_parse_blkio_stat(sb_str(&sb), 254, 1, CG_IO_RBPS, &v));
    REQUIRE(hostfs_read("/sys/fs/cgroup/blkio/prtest-io/blkio.throttle.io_serviced", &sb, 0) == 0);
    CHECK(cg_parse_blkio_stat(sb_str(&sb), 254, 0, CG_IO_WIOPS, &v) && v > 0);
    hostfs_set_root(NULL);
    sb_free(&sb);
    CHECK(!cg_parse_blkio_stat("Total 0\n", 254, 0, CG_IO_WBPS, &v));
    CHECK(!cg_parse_blkio_stat("254:0 Write 12 13\n254:0 Writes 5\n", 254, 0, CG_IO_WBPS, &v));
}

TEST(cgroup_parse_mem_stat_anon_file)
{
    uint64_t a, f;
    CHECK(cg_parse_mem_stat("anon 104857600\nfile 5\nanon_thp 0\n", &a, &f));
    CHECK(a == 104857600 && f == 5);
    /* v1: the hierarchical totals, not the cgroup's own rss/cache */
    CHECK(cg_parse_mem_stat("cache 7\nrss 8\ntotal_cache 70\ntotal_rss 80\n", &a, &f));
    CHECK(a == 80 && f == 70);
    CHECK(cg_parse_mem_stat("cache 7\nrss 8\n", &a, &f) && a == 8 && f == 7);
    CHECK(!cg_parse_mem_stat("anon 5\n", &a, &f));
    CHECK(!cg_parse_mem_stat("anon x\nfile 5\n", &a, &f));
}

static long find_io_row(const struct table *t, const char *path, const char *kind)
{
    for (size_t i = 0; t && i < t->nrows; i++) {
        const char *p = table_str(t, i, "path"), *k = table_str(t, i, "limit");
        if (p && k && strcmp(p, path) == 0 && strcmp(k, kind) == 0)
            return (long)i;
    }
    return -1;
}

/* Hand-made v2 tree, five readings 2 s apart: db.service held at its write
 * limit with 90 % io pressure, its other limits far above its use, a burst
 * that meets its limit once, hostile io.max text, page cache that grows
 * beside flat anon, and perfreport's own growth in its cgroup. */
TEST(cgroup_io_and_memory_watch_v2)
{
    const char *dirs[] = {"io2/t0", "io2/t1", "io2/t2", "io2/t3", "io2/t4"};
    const double times[] = {0, 2, 4, 6, 8};
    struct report *r = life_play(&collector_cgroup, "cgroup", dirs, times, 5, NULL);
    const struct table *io = report_find_table(r, "cgroup.io");
    REQUIRE(io);
    CHECK(io->nrows == 5);
    long w = find_io_row(io, "/system.slice/db.service", "wbps");
    REQUIRE(w >= 0);
    CHECK_STR(table_str(io, (size_t)w, "device"), "sda");
    CHECK_STR(table_str(io, (size_t)w, "devno"), "8:0");
    CHECK_NUM(table_num(io, (size_t)w, "limit_kib_per_s"), 1024, 0);
    CHECK_NUM(table_num(io, (size_t)w, "rate_kib_per_s"), 1024, 1e-9);
    CHECK_NUM(table_num(io, (size_t)w, "use_pct"), 100, 1e-9);
    CHECK_NUM(table_num(io, (size_t)w, "psi_io_some_pct"), 90, 1e-9);
    CHECK(isnan(table_num(io, (size_t)w, "limit_iops")));
    char name[64];
    snprintf(name, sizeof name, "cgroup.io.%ld.use_pct", w);
    const struct series *s = report_find_series(r, name);
    REQUIRE(s);
    CHECK(s->n == 4);
    for (size_t i = 0; i < s->n; i++)
        CHECK_NUM(s->v[i], 100, 1e-9);
    long io_ = find_io_row(io, "/system.slice/db.service", "wiops");
    REQUIRE(io_ >= 0);
    CHECK_NUM(table_num(io, (size_t)io_, "rate_iops"), 32, 1e-9);
    CHECK_NUM(table_num(io, (size_t)io_, "use_pct"), 32, 1e-9);
    long nv = find_io_row(io, "/system.slice/db.service", "rbps");
    REQUIRE(nv >= 0);
    CHECK_STR(table_str(io, (size_t)nv, "device"), "nvme0n1"); /* from /proc/partitions */
    CHECK_NUM(table_num(io, (size_t)nv, "use_pct"), 5, 1e-9);
    long b = find_io_row(io, "/system.slice/burst.service", "wbps");
    REQUIRE(b >= 0);
    CHECK_NUM(table_num(io, (size_t)b, "peak_use_pct"), 100, 1e-9);
    CHECK_NUM(table_num(io, (size_t)b, "use_pct"), 25, 1e-9);
    snprintf(name, sizeof name, "cgroup.io.%ld.use_pct", b);
    CHECK_NUM(series_at(r, name, 0), 100, 1e-9);
    CHECK_NUM(series_at(r, name, 1), 0, 0);
    long h = find_io_row(io, "/system.slice/we ird <b>.service", "riops");
    REQUIRE(h >= 0);
    CHECK_STR(table_str(io, (size_t)h, "devno"), "8:1");
    CHECK_STR(table_str(io, (size_t)h, "device"), "8:1"); /* no name for it */
    CHECK_NUM(table_num(io, (size_t)h, "rate_iops"), 1, 1e-9);
    CHECK(isnan(table_num(io, (size_t)h, "psi_io_some_pct")));

    const struct table *g = report_find_table(r, "cgroup.memory_growth");
    REQUIRE(g);
    long d = find_row(g, "/system.slice/db.service");
    REQUIRE(d >= 0);
    CHECK_NUM(table_num(g, (size_t)d, "anon_growth_kib_per_s"), 10240, 1e-6);
    CHECK_NUM(table_num(g, (size_t)d, "anon_rise_pct"), 100, 0);
    CHECK_NUM(table_num(g, (size_t)d, "anon_first_kib"), 100 * 1024, 0);
    CHECK_NUM(table_num(g, (size_t)d, "anon_kib"), 180 * 1024, 0);
    CHECK_NUM(table_num(g, (size_t)d, "file_growth_kib_per_s"), 0, 1e-6);
    CHECK_NUM(table_num(g, (size_t)d, "mem_limit_kib"), 512 * 1024, 0);
    CHECK_NUM(table_num(g, (size_t)d, "mem_kib"), 280 * 1024, 0);
    CHECK_NUM(table_num(g, (size_t)d, "samples"), 5, 0);
    CHECK_NUM(table_num(g, (size_t)d, "seconds"), 8, 1e-9);
    long c = find_row(g, "/system.slice/cache.service");
    REQUIRE(c >= 0);
    CHECK_NUM(table_num(g, (size_t)c, "anon_growth_kib_per_s"), 0, 1e-6);
    CHECK_NUM(table_num(g, (size_t)c, "anon_rise_pct"), 0, 0);
    CHECK_NUM(table_num(g, (size_t)c, "file_growth_kib_per_s"), 10240, 1e-6);
    /* perfreport's own 1 MiB/s is not its cgroup's growth, nor its parent's */
    long ps = find_row(g, "/user.slice/perf.scope");
    REQUIRE(ps >= 0);
    CHECK_NUM(table_num(g, (size_t)ps, "anon_growth_kib_per_s"), 0, 1e-6);
    CHECK_NUM(table_num(g, (size_t)ps, "anon_first_kib"), 3 * 1024, 0);
    long us = find_row(g, "/user.slice");
    REQUIRE(us >= 0);
    CHECK_NUM(table_num(g, (size_t)us, "anon_growth_kib_per_s"), 0, 1e-6);
    CHECK(find_row(g, "/") < 0); /* the root is the host's */
    CHECK(isnan(table_num(g, (size_t)us, "mem_limit_kib")));
    report_free(r);
}

/* Captured on the test VM (hybrid): a writer at its 2 MiB/s v1 blkio limit
 * with the v2 cgroup of the same path, a 16 MiB/s grower in a memory cgroup
 * below perfreport's own. */
TEST(cgroup_io_and_memory_watch_hybrid_real)
{
    const char *dirs[] = {"io/t0", "io/t1", "io/t2"};
    const double times[] = {0, 1, 2};
    struct report *r = life_play(&collector_cgroup, "cgroup", dirs, times, 3, NULL);
    const struct table *io = report_find_table(r, "cgroup.io");
    REQUIRE(io);
    CHECK(io->nrows == 2);
    long w = find_io_row(io, "/prtest-io", "wbps");
    REQUIRE(w >= 0);
    CHECK_STR(table_str(io, (size_t)w, "device"), "vda");
    CHECK_NUM(table_num(io, (size_t)w, "limit_kib_per_s"), 2048, 0);
    /* 7602176 - 2359296 bytes written in 2 s */
    CHECK_NUM(table_num(io, (size_t)w, "rate_kib_per_s"), (7602176.0 - 2359296) / 2 / 1024, 1e-6);
    CHECK(table_num(io, (size_t)w, "use_pct") > 95);
    /* from the unified hierarchy, same path: (3583756 - 1114608) us in 2 s */
    CHECK_NUM(table_num(io, (size_t)w, "psi_io_some_pct"), (3583756.0 - 1114608) / 2e6 * 100,
              1e-6);
    long rd = find_io_row(io, "/prtest-io", "riops");
    REQUIRE(rd >= 0);
    CHECK_NUM(table_num(io, (size_t)rd, "rate_iops"), 0, 0);
    const struct table *g = report_find_table(r, "cgroup.memory_growth");
    REQUIRE(g);
    long k = find_row(g, "/process_api/85e3a5393713369625d237feb8a774bf/prtest-grow");
    REQUIRE(k >= 0);
    CHECK_NUM(table_num(g, (size_t)k, "anon_growth_kib_per_s"),
              (58036224.0 - 19410944) / 2 / 1024, 1e-6);
    CHECK_NUM(table_num(g, (size_t)k, "mem_limit_kib"), 512 * 1024, 0);
    long own = find_row(g, "/process_api/85e3a5393713369625d237feb8a774bf");
    REQUIRE(own >= 0);
    /* perfreport's RssAnon (2048, 3072, 4096 KiB) is taken out of its own cgroup */
    CHECK_NUM(table_num(g, (size_t)own, "anon_kib"), 60907520.0 / 1024 - 4096, 1e-6);
    report_free(r);
}
