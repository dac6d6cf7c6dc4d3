/* The rules over the procs collector's per-tick tables: tasks hung in D
 * state (proc.uninterruptible) and steady memory growth (memory.growth), on
 * synthetic models; their boundaries are rows of test_rules.c's table. */
#include "harness.h"
#include "rule_util.h"
#include "../../src/analyze/analyze.h"
#include "../../src/model/model.h"
#include <math.h>
#include <string.h>

/* A quiet 2-CPU host over 10 s and 20 ticks, 4 GiB of memory. */
static struct report *host(void)
{
    struct report *r = quiet_host();
    for (int i = 1; i <= 20; i++)
        report_add_tick(r, 0.5 * i);
    test_metric(r, "cpu.count", 2);
    test_metric(r, "cpu.util_pct", 3);
    test_metric(r, "mem.total_kib", 4 << 20);
    test_metric(r, "mem.available_kib", 3 << 20);
    test_metric(r, "mem.available_pct", 75);
    return r;
}

static const char *const dcols[] = {"pid", "tid", "comm", "thread", "ticks_in_d", "stuck_s",
                                    "stuck_ticks", "at_end", "wchan", "frozen", "kill_pending", "fs",
                                    "fs_kind", "mount", "mount_how", "fstype", "source", "device",
                                    "devno", "stack", NULL};

static struct table *dtable(struct report *r)
{
    struct table *t = report_find_table(r, "proc.dstate");
    if (t)
        return t;
    t = report_table(r, "proc.dstate", "tasks in D", "process");
    for (const char *const *c = dcols; *c; c++)
        table_add_col(t, *c, *c, "", 0);
    return t;
}

/* A row; mount NULL leaves the mount columns empty. */
static void task(struct report *r, double pid, double tid, const char *comm, double stuck_s,
                 double ticks, const char *fs, const char *kind, const char *mount,
                 const char *fstype, const char *devno, const char *device)
{
    struct table *t = dtable(r);
    size_t i = table_add_row(t);
    table_set_num(t, i, "pid", pid);
    table_set_num(t, i, "tid", tid);
    table_set_str(t, i, "comm", comm);
    table_set_num(t, i, "ticks_in_d", ticks);
    if (!isnan(stuck_s)) {
        table_set_num(t, i, "stuck_s", stuck_s);
        table_set_num(t, i, "stuck_ticks", ticks);
    }
    table_set_num(t, i, "at_end", 1);
    table_set_str(t, i, "wchan", "request_wait_answer");
    table_set_num(t, i, "kill_pending", tid == 101 ? 1 : 0);
    if (fs) {
        table_set_str(t, i, "fs", fs);
        table_set_str(t, i, "fs_kind", kind);
        table_set_str(t, i, "stack", "request_wait_answer < __fuse_simple_request");
    }
    if (mount) {
        table_set_str(t, i, "mount", mount);
        table_set_str(t, i, "mount_how", "path");
        table_set_str(t, i, "fstype", fstype);
        table_set_str(t, i, "source", "src");
        table_set_str(t, i, "devno", devno);
    }
    if (device)
        table_set_str(t, i, "device", device);
}

TEST(rules_dstate_hung_fuse_mount_is_critical_and_names_it)
{
    struct report *r = host();
    /* three threads of one process and one other process, stuck the whole
     * window (20 ticks) on /mnt/fz; one on an NFS mount; a brief one */
    task(r, 100, 101, "walker", 9.5, 20, "fuse", "fuse", "/mnt/fz", "fuse.sshfs", "0:38", NULL);
    task(r, 100, 102, "walker", 9.5, 20, "", NULL, "/mnt/fz", "fuse.sshfs", "0:38", NULL);
    task(r, 100, 103, "walker", 9.0, 19, "fuse", "fuse", "/mnt/fz", "fuse.sshfs", "0:38", NULL);
    task(r, 200, 200, "ls", 4.0, 9, "fuse", "fuse", "/mnt/fz", "fuse.sshfs", "0:38", NULL);
    task(r, 300, 300, "df", 3.0, 7, "nfs", "network", "/srv/nfs", "nfs4", "0:60", NULL);
    task(r, 400, 400, "dd", NAN, 1, NULL, NULL, NULL, NULL, NULL, NULL);
    task(r, 500, 500, "cp", 1.5, 4, NULL, NULL, NULL, NULL, NULL, NULL);
    test_metric(r, "load.load1", 6.5);
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "proc.uninterruptible");
    REQUIRE(f);
    CHECK(f->sev == SEV_CRITICAL);
    CHECK(r->findings == f); /* it heads the report */
    CHECK_STR(f->title, "4 tasks in 2 processes hung in uninterruptible sleep on /mnt/fz "
                        "(fuse.sshfs) for up to 9.5 s (the whole window): walker (pid 100), "
                        "ls (pid 200)");
    CHECK_STR(f->culprit, "/mnt/fz");
    CHECK(evidence_has(r, "proc.uninterruptible", "9.5 s ≥ 2 s (warning; critical at 10 s)"));
    CHECK(evidence_has(r, "proc.uninterruptible", "through 20 of the window's 20 ticks"));
    CHECK(evidence_has(r, "proc.uninterruptible", "walker (pid 100): 3 tasks stuck, the longest "
                                                  "9.5 s in one wait and still in it at the end"));
    CHECK(evidence_has(r, "proc.uninterruptible", "a SIGKILL is pending: it cannot even be killed"));
    CHECK(evidence_has(r, "proc.uninterruptible", "Mount /mnt/fz: fuse.sshfs from src (dev 0:38)"));
    CHECK(evidence_has(r, "proc.uninterruptible", "1 other task stuck on something else"));
    CHECK(evidence_has(r, "proc.uninterruptible", "2 tasks seen in D only briefly"));
    CHECK(evidence_has(r, "proc.uninterruptible", "Load average 6.50 (1 min) while 0.1 of 2 CPUs"));
    CHECK_CONTAINS(f->recommendation, "echo 1 > /sys/fs/fuse/connections/38/abort");
    CHECK_CONTAINS(f->recommendation, "umount -l /mnt/fz");
    report_free(r);

    /* NFS alone, not the whole window: a warning with the server's advice */
    r = host();
    task(r, 300, 300, "df", 3.0, 7, "nfs", "network", "/srv/nfs", "nfs4", "0:60", NULL);
    analyze_run(r);
    f = report_find_finding(r, "proc.uninterruptible");
    REQUIRE(f);
    CHECK(f->sev == SEV_WARNING);
    CHECK_STR(f->title, "1 task in 1 process hung in uninterruptible sleep on /srv/nfs (nfs4) "
                        "for up to 3 s: df (pid 300)");
    CHECK_CONTAINS(f->recommendation, "umount -f -l /srv/nfs");
    CHECK(!evidence_has(r, "proc.uninterruptible", "Load average"));
    report_free(r);
}

/* Three nginx tasks a cgroup freezer holds, in D for 30 s. */
static void frozen_tasks(struct report *r)
{
    for (int k = 0; k < 3; k++) {
        task(r, 700 + k, 700 + k, "nginx", 30, 20, NULL, NULL, NULL, NULL, NULL, NULL);
        table_set_num(dtable(r), dtable(r)->nrows - 1, "frozen", 1);
    }
}

/* docker pause: every task of the container in D in the freezer for the
 * whole window, one thread stuck for real beside them. */
TEST(rules_dstate_frozen_tasks_are_not_hung)
{
    struct report *r = host();
    frozen_tasks(r);
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "proc.uninterruptible");
    REQUIRE(f);
    CHECK(f->sev == SEV_INFO);
    CHECK_CONTAINS(f->title, "3 tasks in 3 processes frozen by a cgroup freezer for up to 30 s");
    CHECK_CONTAINS(f->recommendation, "THAWED");
    report_free(r);

    r = host();
    frozen_tasks(r);
    task(r, 600, 600, "app", 5, 11, NULL, NULL, NULL, NULL, NULL, NULL);
    analyze_run(r);
    f = report_find_finding(r, "proc.uninterruptible");
    REQUIRE(f);
    CHECK(f->sev == SEV_WARNING);
    CHECK_STR(f->title, "1 task in 1 process hung in uninterruptible sleep for up to 5 s: "
                        "app (pid 600)");
    bool said = false;
    for (size_t i = 0; i < f->nevidence; i++)
        said = said || strstr(f->evidence[i], "3 tasks frozen by a cgroup freezer");
    CHECK(said);
    report_free(r);
}

TEST(rules_dstate_short_waits_and_nothing_known)
{
    /* waits under 2 s, however many ticks in D: nothing */
    struct report *r = host();
    task(r, 400, 400, "dd", NAN, 20, NULL, NULL, NULL, NULL, NULL, NULL);
    task(r, 500, 500, "cp", 1.99, 5, "ext4", "local", "/", "ext4", "253:1", "vda");
    analyze_run(r);
    CHECK(report_find_finding(r, "proc.uninterruptible") == NULL);
    report_free(r);

    /* nothing read about it (no root): the process is the culprit, and the
     * advice says how to look */
    r = host();
    task(r, 600, 600, "app", 5, 11, NULL, NULL, NULL, NULL, NULL, NULL);
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "proc.uninterruptible");
    REQUIRE(f);
    CHECK_STR(f->culprit, "app (pid 600)");
    CHECK_STR(f->title, "1 task in 1 process hung in uninterruptible sleep for up to 5 s: "
                        "app (pid 600)");
    CHECK_CONTAINS(f->recommendation, "cat /proc/600/stack");
    report_free(r);
}

/* A window of n ticks 0.5 s apart, n / 2 seconds long. */
static struct report *window_of(int n)
{
    struct report *r = report_new();
    for (int i = 1; i <= n; i++)
        report_add_tick(r, 0.5 * i);
    r->window.actual_s = r->window.planned_s = 0.5 * n;
    return r;
}

/* A 2.2 s wait through a 2.5 s window is a warning, not "hung for the
 * whole window" (critical needs a wait that began before the window, or
 * half the critical line, 5 s). */
TEST(rules_dstate_whole_short_window_is_no_hang)
{
    struct report *r = window_of(5);
    task(r, 800, 800, "sync", 2.2, 5, "ext4", "local", "/", "ext4", "253:1", NULL);
    analyze_run(r);
    CHECK(sev_of(r, "proc.uninterruptible") == SEV_WARNING);
    report_free(r);
}

/* The same window, a wait dated from before it (6 s, the task last ran
 * before the first tick): hung for the whole window. */
TEST(rules_dstate_whole_window_from_before_is_a_hang)
{
    struct report *r = window_of(8);
    task(r, 801, 801, "hangwalk", 6.2, 8, "fuse", "remote", "/mnt/fz", "fuse", NULL, NULL);
    analyze_run(r);
    CHECK(sev_of(r, "proc.uninterruptible") == SEV_CRITICAL);
    report_free(r);
}

TEST(rules_dstate_on_a_saturated_disk_is_part_of_its_story)
{
    struct report *r = host();
    add_disk(r, "vda", "virtio", 97, 12, 80, 10, 300); /* saturated */
    task(r, 700, 700, "postgres", 4, 9, "ext4", "local", "/var/lib", "ext4", "253:1", "vda");
    task(r, 700, 701, "postgres", NAN, 8, NULL, NULL, NULL, NULL, NULL, NULL);
    task(r, 800, 800, "cp", NAN, 2, NULL, NULL, NULL, NULL, NULL, NULL);
    analyze_run(r);
    CHECK(report_find_finding(r, "proc.uninterruptible") == NULL);
    const struct finding *d = report_find_finding(r, "disk.saturation");
    REQUIRE(d);
    CHECK(evidence_has(r, "disk.saturation", "Also seen, explained by this (proc.uninterruptible)"));
    /* the disk's own list of tasks in D names a process once, not per thread */
    CHECK(evidence_has(r, "disk.saturation", "(uninterruptible, usually I/O): postgres (pid 700) in "
                                             "9 samples, cp (pid 800) in 2 samples"));
    CHECK_CONTAINS(d->title, "vda");
    report_free(r);

    /* a paused container's tasks are in D too, but not waiting for the disk */
    r = host();
    add_disk(r, "vda", "virtio", 97, 12, 80, 10, 300); /* saturated */
    task(r, 900, 900, "nginx", 9, 20, NULL, NULL, NULL, NULL, NULL, NULL);
    table_set_num(dtable(r), 0, "frozen", 1);
    analyze_run(r);
    REQUIRE(report_find_finding(r, "disk.saturation"));
    CHECK(!evidence_has(r, "disk.saturation", "usually I/O"));
    report_free(r);

    /* stuck on another disk than the saturated one: two stories */
    r = host();
    add_disk(r, "vda", "virtio", 97, 12, 80, 10, 300); /* saturated */
    task(r, 700, 700, "postgres", 4, 9, "xfs", "local", "/data", "xfs", "253:16", "vdb");
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "proc.uninterruptible");
    REQUIRE(f);
    CHECK_STR(f->culprit, "vdb");
    CHECK_CONTAINS(f->title, "on /data (xfs, vdb)");
    CHECK_CONTAINS(f->recommendation, "does not complete I/O");
    CHECK(report_find_finding(r, "disk.saturation") != NULL);
    report_free(r);
}

/* ---- memory.growth ---- */

/* 3 GiB available: 20 MiB/s takes it in 2.56 min, critical once memory is
 * short (PSI memory at 15 %); with 75 % available and no stalls a warning
 * (a compiler or a warming cache grows like this too). */
TEST(rules_growth_steady_leak_names_process_rate_and_time)
{
    struct report *r = host();
    growth_row(r, 42, "leaky", 20480, 100, 31, 0.98, 5, NULL);
    analyze_run(r);
    CHECK(sev_of(r, "memory.growth") == SEV_WARNING);
    CHECK(evidence_has(r, "memory.growth", "Kept at warning: memory is not short yet"));
    report_free(r);

    r = host();
    test_metric(r, "psi.memory.some.pct", 15);
    growth_row(r, 42, "leaky", 20480, 100, 31, 0.98, 5, NULL);
    growth_row(r, 43, "slow", 600, 90, 30, 1, 60, NULL); /* 36 MiB over a minute: 87 min */
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "memory.growth");
    REQUIRE(f);
    CHECK(f->sev == SEV_CRITICAL);
    CHECK_STR(f->culprit, "leaky (pid 42)");
    CHECK_STR(f->title, "Memory of leaky (pid 42) grows steadily by 20 MiB/s: the 3 GiB "
                        "available runs out in about 2.56 min at this rate");
    CHECK(evidence_has(r, "memory.growth", "2.56 min ≤ 10 min (critical)"));
    CHECK(evidence_has(r, "memory.growth", "Resident memory 48.8 MiB -> 149 MiB in 5.0 s"));
    CHECK(evidence_has(r, "memory.growth", "rose in 100% of the intervals (steady growth; 70% "
                                           "needed)"));
    CHECK(evidence_has(r, "memory.growth", "1 other process also grew steadily"));
    CHECK_CONTAINS(f->recommendation, "perfreport -p 42 -d 60");
    report_free(r);

    /* the available memory's low point counts, not the window's average */
    r = host();
    test_metric(r, "mem.available_pct_min", 12.5); /* 512 MiB of 4 GiB */
    growth_row(r, 44, "app", 1024, 95, 30, NAN, 30, NULL);
    analyze_run(r);
    f = report_find_finding(r, "memory.growth");
    REQUIRE(f);
    CHECK(f->sev == SEV_CRITICAL);
    CHECK_CONTAINS(f->title, "the 512 MiB available runs out in about 8.53 min");
    report_free(r);
}

TEST(rules_growth_needs_steady_anonymous_growth_in_every_third)
{
    /* each line is quiet for one reason, next to its boundary that fires */
    static const struct {
        double slope, rise, third, anon, secs;
        bool fires;
    } c[] = {
        {20480, 69.9, 30, 1, 5, false},  /* rising in too few intervals */
        {20480, 70, 30, 1, 5, true},
        {20480, 100, 14.9, 1, 5, false}, /* a third without its share: warm-up or a step */
        {20480, 100, 15, 1, 5, true},
        {20480, 100, NAN, 1, 5, false},  /* window unknown: a plateau cannot be told */
        {20480, 100, 30, 0.49, 5, false}, /* mostly file cache */
        {20480, 100, 30, 0.5, 5, true},
        {20480, 100, 30, NAN, 5, true},  /* missed by the start scan: no anonymous figure */
        {3276.7, 100, 30, 1, 5, false},  /* 15.99 MiB in all: a few MiB are no trend */
        {3276.8, 100, 30, 1, 5, true},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        struct report *r = host();
        test_metric(r, "mem.available_kib", 64 << 10); /* so that any rate here is harmful */
        growth_row(r, 42, "app", c[k].slope, c[k].rise, c[k].third, c[k].anon, c[k].secs,
                   NULL);
        analyze_run(r);
        bool got = report_find_finding(r, "memory.growth") != NULL;
        if (got != c[k].fires)
            test_fail(__FILE__, __LINE__, "case %zu: memory.growth %s", k,
                      got ? "fired" : "stayed quiet");
        report_free(r);
    }
}

TEST(rules_growth_explains_the_memory_pressure_it_causes)
{
    struct report *r = host();
    test_metric(r, "mem.available_kib", 600 << 10);
    test_metric(r, "mem.available_pct", 14.6);
    static const char *const pc[] = {"pid", "comm", "rss_kib", NULL};
    struct table *tm = report_table(r, "proc.top_mem", "top mem", "process");
    for (const char *const *k = pc; *k; k++)
        table_add_col(tm, *k, *k, "", 0);
    size_t i = table_add_row(tm);
    table_set_num(tm, i, "pid", 42);
    table_set_str(tm, i, "comm", "leaky");
    table_set_num(tm, i, "rss_kib", 3 << 20);
    growth_row(r, 42, "leaky", 4096, 100, 30, 1, 30, NULL);
    analyze_run(r);
    CHECK(report_find_finding(r, "memory.pressure") == NULL);
    const struct finding *f = report_find_finding(r, "memory.growth");
    REQUIRE(f);
    CHECK(r->findings == f);
    CHECK(evidence_has(r, "memory.growth", "Also seen, explained by this (memory.pressure)"));
    report_free(r);
}
