/* Tasks in D state (src/collect/procs/dstate.c): the parsers on real and hostile
 * text, the mount a stuck task waits on, and four ticks of the procs
 * collector over tests/fixtures/dstate (described in its make-fixtures.py). */
#include "harness.h"
#include "collect_life.h"
#include "../../src/collect/procs/dstate.h"
#include "../../src/collect/procs/procs.h"
#include "../../src/model/model.h"
#include "../../src/util/hostfs.h"
#include <errno.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

TEST(dstate_parse_schedstat_values)
{
    uint64_t n = 0;
    CHECK(dstate_parse_schedstat("7140848 8002685 3\n", 18, &n) == 0 && n == 3);
    CHECK(dstate_parse_schedstat("12 0 18446744073709551615", 25, &n) == 0 &&
          n == UINT64_MAX);
    /* a kernel without schedstat prints zeros: no run count to compare */
    CHECK(dstate_parse_schedstat("0 0 0\n", 6, &n) == -ENODATA);
    CHECK(dstate_parse_schedstat("1 2\n", 4, &n) == -EINVAL);
    CHECK(dstate_parse_schedstat("1 2 x\n", 6, &n) == -EINVAL);
    CHECK(dstate_parse_schedstat("1 2 3x", 6, &n) == -EINVAL);
    CHECK(dstate_parse_schedstat("1 2 99999999999999999999", 24, &n) == -EINVAL);
    char big[200];
    memset(big, '1', sizeof big);
    CHECK(dstate_parse_schedstat(big, sizeof big, &n) == -EINVAL);
    /* not NUL-terminated: only len bytes count */
    CHECK(dstate_parse_schedstat("5 6 7 8", 5, &n) == 0 && n == 7);
}

TEST(dstate_parse_exec_start_header_and_field)
{
    static const char ok[] = "cat (4242, #threads: 1)\n"
                             "-------------------------------------------------------------\n"
                             "se.exec_start                                :      29231149.588682\n"
                             "se.vruntime                                  :         11552.791008\n";
    double ms = 0;
    CHECK(dstate_parse_exec_start(ok, sizeof ok - 1, &ms) == 0 && ms > 29231149.58 &&
          ms < 29231149.59);
    /* a task names itself: its comm is in the header, never read as a field */
    static const char forged[] = "x\nse.exec_start:1 (4242, #threads: 1)\n"
                                 "-----------------------------------\n"
                                 "se.vruntime                                  :  1.0\n";
    CHECK(dstate_parse_exec_start(forged, sizeof forged - 1, &ms) == -ENOENT);
    static const char bad[] = "t (1, #threads: 1)\n---\nse.exec_start : -5\n";
    CHECK(dstate_parse_exec_start(bad, sizeof bad - 1, &ms) == -EINVAL);
    static const char nohead[] = "se.exec_start : 5.0\n";
    CHECK(dstate_parse_exec_start(nohead, sizeof nohead - 1, &ms) == -EINVAL);
    /* cut before the value's end: only len bytes count */
    CHECK(dstate_parse_exec_start(ok, 150, &ms) == -EINVAL);
}

/* What the collector relies on: a sleeping task's se.exec_start is when it
 * went to sleep, on the clock of this thread's own. */
TEST(dstate_exec_start_dates_a_sleep)
{
    pid_t c = fork();
    if (c == 0) {
        pause();
        _exit(0);
    }
    CHECK(c > 0);
    if (c <= 0)
        return;
    usleep(300 * 1000);
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/sched", (int)c);
    char buf[512], self[512];
    FILE *f = fopen(p, "r"), *g = fopen("/proc/thread-self/sched", "r");
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0, m = g ? fread(self, 1, sizeof self, g) : 0;
    if (f)
        fclose(f);
    if (g)
        fclose(g);
    kill(c, SIGKILL);
    waitpid(c, NULL, 0);
    double child = 0, now = 0;
    if (n == 0 && m == 0) {
        test_skip("no /proc/PID/sched on this kernel");
        return;
    }
    CHECK(dstate_parse_exec_start(buf, n, &child) == 0);
    CHECK(dstate_parse_exec_start(self, m, &now) == 0);
    CHECK(now - child > 250 && now - child < 5000);
}

TEST(dstate_parse_stack_summary_and_family)
{
    char sum[DSTATE_STACK_TEXT + 1];
    const char *fam;
    /* captured on a hung FUSE mount (6.18) */
    static const char fuse[] = "[<0>] request_wait_answer+0x1d8/0x290\n"
                               "[<0>] __fuse_simple_request+0x120/0x330\n"
                               "[<0>] fuse_lookup_name+0xea/0x250\n"
                               "[<0>] fuse_lookup+0xb2/0x1e0\n"
                               "[<0>] __lookup_slow+0x87/0x150\n"
                               "[<0>] walk_component+0x108/0x190\n"
                               "[<0>] path_lookupat+0xa7/0x180\n"
                               "[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e\n";
    dstate_parse_stack(fuse, sizeof fuse - 1, sum, sizeof sum, &fam);
    CHECK_STR(fam, "fuse");
    CHECK_STR(sum, "request_wait_answer < __fuse_simple_request < fuse_lookup_name < "
                   "fuse_lookup < __lookup_slow < walk_component");
    /* behind another task's lookup: no file system named */
    static const char vfs[] = "[<0>] d_alloc_parallel+0x392/0x470\n[<0>] __lookup_slow+0x5e/0x150\n";
    dstate_parse_stack(vfs, sizeof vfs - 1, sum, sizeof sum, &fam);
    CHECK_STR(fam, "");
    CHECK_STR(sum, "d_alloc_parallel < __lookup_slow");
    /* a page-cache wait names the file system below it, not "block" */
    static const char ext4[] = "[<0>] folio_wait_bit_common+0x13e/0x330\n"
                               "[<0>] filemap_read+0x2d1/0x360\n"
                               "[<0>] ext4_file_read_iter+0x5c/0x180\n";
    dstate_parse_stack(ext4, sizeof ext4 - 1, sum, sizeof sum, &fam);
    CHECK_STR(fam, "ext4");
    static const char blk[] = "[<0>] io_schedule+0x46/0x70\n[<0>] blkdev_direct_IO+0x3/0x9\n";
    dstate_parse_stack(blk, sizeof blk - 1, sum, sizeof sum, &fam);
    CHECK_STR(fam, "block");
    /* module frames carry " [nfs]"; a prefix of a name never matches */
    static const char nfs[] = "[<0>] rpc_wait_bit_killable+0x1e/0xa0 [sunrpc]\n"
                              "[<0>] nfs4_do_call_sync+0x1/0x2 [nfsv4]\n";
    dstate_parse_stack(nfs, sizeof nfs - 1, sum, sizeof sum, &fam);
    CHECK_STR(fam, "nfs");
    CHECK_STR(sum, "rpc_wait_bit_killable < nfs4_do_call_sync");
    static const char notfs[] = "[<0>] fusexyz+0x1/0x2\n[<0>] request_wait_answerX+0x1/0x2\n";
    dstate_parse_stack(notfs, sizeof notfs - 1, sum, sizeof sum, &fam);
    CHECK_STR(fam, "");
    /* hostile bytes in a name are not shown; the summary stays bounded */
    static const char odd[] = "[<0>] a\x1b[31mb+0x1/0x2\n";
    dstate_parse_stack(odd, sizeof odd - 1, sum, sizeof sum, &fam);
    CHECK_STR(sum, "a?[31mb");
    char many[4096];
    size_t o = 0;
    for (int i = 0; i < 20; i++)
        o += (size_t)snprintf(many + o, sizeof many - o, "[<0>] %060d+0x1/0x2\n", i);
    dstate_parse_stack(many, o, sum, 50, &fam);
    CHECK(strlen(sum) < 50);
    dstate_parse_stack(many, o, sum, sizeof sum, &fam);
    CHECK(strlen(sum) <= DSTATE_STACK_TEXT);
    /* garbage and empty text */
    dstate_parse_stack("no brackets\n]", 13, sum, sizeof sum, &fam);
    CHECK_STR(fam, "");
    dstate_parse_stack("", 0, sum, sizeof sum, &fam);
    CHECK_STR(sum, "");
}

TEST(dstate_fstype_families)
{
    CHECK(dstate_fstype_in_family("fuse.sshfs", "fuse"));
    CHECK(dstate_fstype_in_family("fuseblk", "fuse"));
    CHECK(dstate_fstype_in_family("fuse", "fuse"));
    CHECK(!dstate_fstype_in_family("fusectl", "fuse"));
    CHECK(dstate_fstype_in_family("nfs4", "nfs"));
    CHECK(!dstate_fstype_in_family("nfsd", "nfs"));
    CHECK(dstate_fstype_in_family("ext3", "ext4"));
    CHECK(!dstate_fstype_in_family("ext4", "xfs"));
    CHECK(!dstate_fstype_in_family("ext4", ""));
    CHECK(dstate_family_remote("nfs") && dstate_family_remote("fuse"));
    CHECK(!dstate_family_remote("ext4") && !dstate_family_remote("block"));
    CHECK(!dstate_family_remote(""));
}

TEST(dstate_sigkill_pending_bit)
{
    static const char killed[] = "Name:\tcat\nSigQ:\t1/9\nSigPnd:\t0000000000000100\n"
                                 "ShdPnd:\t0000000000004000\n";
    CHECK(dstate_sigkill_pending(killed, sizeof killed - 1));
    static const char term[] = "SigPnd:\t0000000000004000\nShdPnd:\t0000000000000100\n";
    CHECK(!dstate_sigkill_pending(term, sizeof term - 1)); /* the thread's own set decides */
    CHECK(dstate_sigkill_pending("SigPnd:\t300", 11));     /* SIGKILL with another */
    CHECK(!dstate_sigkill_pending("SigPnd:\t2ff", 11));
    CHECK(!dstate_sigkill_pending("SigPnd:\t1", 9));
    CHECK(!dstate_sigkill_pending("Name:\tx\n", 8));
    CHECK(!dstate_sigkill_pending("SigPnd:", 7));
}

static const char mounts[] =
    "22 1 253:1 / / rw - ext4 /dev/vda1 rw\n"
    "40 22 0:52 / /mnt/fz rw - fuse.sshfs me@host:/srv rw\n"
    "41 22 0:53 / /mnt/fz2 rw - fuse.other other rw\n"
    "43 22 0:60 / /srv/nfs rw - nfs4 server:/export rw\n"
    "44 43 0:61 / /srv/nfs rw - nfs4 server2:/over rw\n"
    "45 22 0:62 / /mnt/with\\040space rw - fuse.y y rw\n";

TEST(dstate_pick_mount_by_path_only_and_ambiguous)
{
    struct dstate_mount m;
    size_t nf;
    /* two FUSE mounts: the one a path is on */
    const char *p1[] = {"/home/me", "/mnt/fz/work/file"};
    CHECK(dstate_pick_mount(mounts, "fuse", p1, 2, &m, &nf) == DM_BY_PATH);
    CHECK_STR(m.mountpoint, "/mnt/fz");
    CHECK_STR(m.fstype, "fuse.sshfs");
    CHECK_STR(m.source, "me@host:/srv");
    CHECK_STR(m.devno, "0:52");
    CHECK(nf == 3);
    /* "/mnt/fz2x" is not under "/mnt/fz2", nor under "/mnt/fz" */
    const char *p2[] = {"/mnt/fz2x/a"};
    CHECK(dstate_pick_mount(mounts, "fuse", p2, 1, &m, &nf) == DM_AMBIGUOUS);
    CHECK_STR(m.fstype, "fuse");
    CHECK_STR(m.mountpoint, "");
    /* one mount point mounted twice counts as two: without a path, no choice */
    CHECK(dstate_pick_mount(mounts, "nfs", NULL, 0, &m, &nf) == DM_AMBIGUOUS && nf == 2);
    const char *p3[] = {"/srv/nfs/x"};
    CHECK(dstate_pick_mount(mounts, "nfs", p3, 1, &m, &nf) == DM_BY_PATH);
    CHECK_STR(m.source, "server2:/over");
    /* escaped mount point */
    const char *p4[] = {"/mnt/with space/f"};
    CHECK(dstate_pick_mount(mounts, "fuse", p4, 1, &m, &nf) == DM_BY_PATH);
    CHECK_STR(m.mountpoint, "/mnt/with space");
    /* unknown family: only a path on a remote mount counts */
    const char *p5[] = {"/home/me", "/mnt/fz2"};
    CHECK(dstate_pick_mount(mounts, "", p5, 2, &m, &nf) == DM_BY_PATH);
    CHECK_STR(m.mountpoint, "/mnt/fz2");
    const char *p6[] = {"/home/me"};
    CHECK(dstate_pick_mount(mounts, "", p6, 1, &m, &nf) == DM_NONE);
    /* a local family: the path's mount */
    CHECK(dstate_pick_mount(mounts, "ext4", p6, 1, &m, &nf) == DM_BY_PATH);
    CHECK_STR(m.devno, "253:1");
    /* one mount of the family and no path on it */
    static const char one[] = "22 1 253:1 / / rw - ext4 /dev/vda1 rw\n"
                              "40 22 0:52 / /mnt/fz rw - fuse.sshfs s rw\n";
    CHECK(dstate_pick_mount(one, "fuse", p6, 1, &m, &nf) == DM_ONLY_ONE);
    CHECK_STR(m.mountpoint, "/mnt/fz");
    CHECK(dstate_pick_mount(one, "cifs", p6, 1, &m, &nf) == DM_NONE);
    CHECK(dstate_pick_mount("", "fuse", p6, 1, &m, &nf) == DM_NONE);
}

TEST(dstate_pick_mount_never_matches_a_cut_mount_point)
{
    /* a mount point longer than the parser keeps: its prefix must not claim
     * paths that are not under it */
    char text[1024], longmp[400], path[420];
    memset(longmp, 'a', sizeof longmp - 1);
    longmp[0] = '/';
    longmp[sizeof longmp - 1] = '\0';
    snprintf(text, sizeof text, "22 1 253:1 / / rw - ext4 /dev/vda1 rw\n"
                                "40 22 0:52 / %s rw - fuse.z z rw\n", longmp);
    snprintf(path, sizeof path, "%.255s/f", longmp); /* what the cut prefix would claim */
    const char *p[] = {path};
    struct dstate_mount m;
    size_t nf;
    /* it is still the only FUSE mount (counted), but not by path */
    CHECK(dstate_pick_mount(text, "fuse", p, 1, &m, &nf) == DM_ONLY_ONE);
    CHECK(dstate_pick_mount(text, "", p, 1, &m, &nf) == DM_NONE);
}

static int row_of(const struct table *t, double tid)
{
    for (size_t i = 0; i < t->nrows; i++)
        if (table_num(t, i, "tid") == tid)
            return (int)i;
    return -1;
}

TEST(dstate_four_ticks_over_fixtures)
{
    static const char *const dirs[] = {"t1", "t1", "t2", "t3", "t4"};
    static const double times[] = {0, 0.5, 1.0, 1.5, 2.0};
    struct report *r = life_play(&collector_procs, "dstate", dirs, times, 5, NULL);
    REQUIRE(r);
    const struct table *t = report_find_table(r, "proc.dstate");
    REQUIRE(t);
    /* stuck the whole time (1.5 s over 4 ticks) first; then by ticks in D */
    int a = row_of(t, 201), b = row_of(t, 202), c = row_of(t, 300), d = row_of(t, 400),
        e = row_of(t, 500), f = row_of(t, 600);
    REQUIRE(a >= 0 && b >= 0 && c >= 0 && d >= 0 && e >= 0 && f >= 0);
    CHECK(t->nrows == 6);
    CHECK(a < 2 && b < 2 && f == 2 && e == 3 && c == 4 && d == 5);

    size_t i = (size_t)a;
    CHECK_NUM(table_num(t, i, "pid"), 200, 0);
    CHECK_STR(table_str(t, i, "comm"), "stuckd");
    CHECK_STR(table_str(t, i, "thread"), "worker-1");
    CHECK_NUM(table_num(t, i, "ticks_in_d"), 4, 0);
    CHECK_NUM(table_num(t, i, "stuck_s"), 1.5, 1e-9);
    CHECK_NUM(table_num(t, i, "stuck_ticks"), 4, 0);
    CHECK_NUM(table_num(t, i, "at_end"), 1, 0);
    CHECK_NUM(table_num(t, i, "kill_pending"), 1, 0);
    CHECK_STR(table_str(t, i, "wchan"), "request_wait_answer");
    CHECK_STR(table_str(t, i, "fs"), "fuse");
    CHECK_STR(table_str(t, i, "fs_kind"), "fuse");
    /* its cwd is on /, its deleted file's name on /mnt/fz */
    CHECK_STR(table_str(t, i, "mount"), "/mnt/fz");
    CHECK_STR(table_str(t, i, "mount_how"), "path");
    CHECK_STR(table_str(t, i, "fstype"), "fuse.sshfs");
    CHECK_STR(table_str(t, i, "source"), "me@host:/srv");
    CHECK_STR(table_str(t, i, "devno"), "0:52");
    CHECK(table_str(t, i, "device") == NULL);
    CHECK_CONTAINS(table_str(t, i, "stack"), "request_wait_answer < __fuse_simple_request");

    /* behind the lookup: the family comes from its cwd's mount */
    i = (size_t)b;
    CHECK_NUM(table_num(t, i, "stuck_s"), 1.5, 1e-9);
    CHECK_NUM(table_num(t, i, "kill_pending"), 0, 0);
    CHECK_STR(table_str(t, i, "fs"), "fuse");
    CHECK_STR(table_str(t, i, "mount"), "/mnt/fz");
    CHECK_STR(table_str(t, i, "stack"), "d_alloc_parallel < __lookup_slow < walk_component < "
                                        "do_syscall_64");

    /* ext4 under vda1: the device is the whole disk */
    i = (size_t)f;
    CHECK_NUM(table_num(t, i, "stuck_s"), 1.0, 1e-9);
    CHECK_NUM(table_num(t, i, "stuck_ticks"), 3, 0);
    CHECK_NUM(table_num(t, i, "at_end"), 0, 0);
    CHECK_STR(table_str(t, i, "fs"), "ext4");
    CHECK_STR(table_str(t, i, "fs_kind"), "local");
    CHECK_STR(table_str(t, i, "mount"), "/");
    CHECK_STR(table_str(t, i, "device"), "vda");

    /* no schedstat: two ticks in D in a row count as one wait */
    i = (size_t)e;
    CHECK_NUM(table_num(t, i, "stuck_s"), 0.5, 1e-9);
    CHECK_NUM(table_num(t, i, "stuck_ticks"), 2, 0);
    CHECK_CONTAINS(t->note, "no schedstat");

    /* in D at every tick but running in between: no long wait */
    i = (size_t)c;
    CHECK_NUM(table_num(t, i, "ticks_in_d"), 4, 0);
    CHECK(isnan(table_num(t, i, "stuck_s")));
    CHECK(table_str(t, i, "stack") == NULL); /* nothing read for short waits */
    CHECK(isnan(table_num(t, i, "kill_pending")));
    i = (size_t)d;
    CHECK_NUM(table_num(t, i, "ticks_in_d"), 1, 0);
    CHECK(isnan(table_num(t, i, "stuck_s")));

    CHECK_NUM(report_metric_value(r, "proc.dstate_tasks"), 6, 0);
    CHECK_NUM(report_metric_value(r, "proc.dstate_stuck_tasks"), 4, 0);
    CHECK_NUM(report_metric_value(r, "proc.dstate_stuck_max_s"), 1.5, 1e-9);
    CHECK(isnan(report_metric_value(r, "proc.dstate_untracked")));
    /* tasks per tick, threads included: 201 202 300 500 600, +400, 201 202 300 600, 201 202 300 */
    const struct series *s = report_find_series(r, "proc.dstate_tasks");
    REQUIRE(s && s->n == 4);
    CHECK_NUM(s->v[0], 5, 0);
    CHECK_NUM(s->v[1], 6, 0);
    CHECK_NUM(s->v[2], 4, 0);
    CHECK_NUM(s->v[3], 3, 0);
    /* processes whose main thread is in D (the zombie leader is not) */
    const struct series *sp = report_find_series(r, "proc.dstate");
    REQUIRE(sp && sp->n == 4);
    CHECK_NUM(sp->v[0], 3, 0);
    CHECK_NUM(sp->v[1], 4, 0);
    report_free(r);
}

/* ------------------------------------------- a mount made during the run */

static void put(const char *root, const char *rel, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", root, rel);
    FILE *f = fopen(p, "w");
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

static void task_tree(const char *root, int tid, const char *cwd)
{
    static const char *const dirs[] = {"proc/%d", "proc/%d/task", "proc/%d/task/%d",
                                       "proc/%d/task/%d/ns", "proc/%d/task/%d/fd"};
    char p[512], rel[128];
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(rel, sizeof rel, dirs[i], tid, tid);
        snprintf(p, sizeof p, "%s/%s", root, rel);
        mkdir(p, 0700);
    }
    snprintf(p, sizeof p, "%s/proc/%d/task/%d/ns/mnt", root, tid, tid);
    if (symlink("mnt:[4026531840]", p) != 0)
        return;
    snprintf(p, sizeof p, "%s/proc/%d/task/%d/cwd", root, tid, tid);
    if (symlink(cwd, p) != 0)
        return;
    snprintf(rel, sizeof rel, "proc/%d/task/%d/schedstat", tid, tid);
    put(root, rel, "100 100 5\n");
    snprintf(rel, sizeof rel, "proc/%d/task/%d/wchan", tid, tid);
    put(root, rel, "request_wait_answer");
}

static void mountinfo_of(const char *root, int tid, bool with_fuse)
{
    char rel[128];
    snprintf(rel, sizeof rel, "proc/%d/task/%d/mountinfo", tid, tid);
    put(root, rel, with_fuse ? "22 1 253:1 / / rw - ext4 /dev/vda1 rw\n"
                               "40 22 0:52 / /mnt/fz rw - fuse.sshfs me@host:/srv rw\n"
                             : "22 1 253:1 / / rw - ext4 /dev/vda1 rw\n");
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(p);
}

static struct pid_stat in_d(int pid, const char *comm)
{
    struct pid_stat ps;
    memset(&ps, 0, sizeof ps);
    ps.pid = pid;
    ps.state = 'D';
    ps.num_threads = 1;
    ps.starttime = 1000 + (uint64_t)pid;
    snprintf(ps.comm, sizeof ps.comm, "%s", comm);
    return ps;
}

/* Task 700 is resolved at tick 2 in the namespace's first mount table; a
 * FUSE mount appears; task 800 in the same namespace waits in it from tick
 * 3 and is resolved at tick 4 against the table of that tick (it was
 * matched against tick 2's table, without the mount: none found). */
TEST(dstate_matches_a_mount_made_after_the_first_resolve)
{
    char root[] = "/tmp/perfreport-dstate-XXXXXX";
    REQUIRE(mkdtemp(root));
    char p[512];
    snprintf(p, sizeof p, "%s/proc", root);
    REQUIRE(mkdir(p, 0700) == 0);
    task_tree(root, 700, "/");
    task_tree(root, 800, "/mnt/fz");
    mountinfo_of(root, 700, false);
    mountinfo_of(root, 800, false);
    hostfs_set_root(root);
    struct dstate *d = dstate_new();
    struct pid_stat a = in_d(700, "early"), b = in_d(800, "late");
    for (int tick = 1; tick <= 4; tick++) {
        if (tick == 3) {
            mountinfo_of(root, 700, true);
            mountinfo_of(root, 800, true);
        }
        dstate_tick_begin(d, tick * 0.5);
        if (tick <= 2)
            dstate_process(d, &a);
        else
            dstate_process(d, &b);
        dstate_tick_end(d);
    }
    struct report *r = report_new();
    dstate_to_model(d, r);
    dstate_free(d);
    hostfs_set_root(NULL);
    nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    const struct table *t = report_find_table(r, "proc.dstate");
    REQUIRE(t);
    int ia = row_of(t, 700), ib = row_of(t, 800);
    REQUIRE(ia >= 0 && ib >= 0);
    CHECK(table_str(t, (size_t)ia, "mount") == NULL); /* on ext4, no family known */
    CHECK_STR(table_str(t, (size_t)ib, "mount"), "/mnt/fz");
    CHECK_STR(table_str(t, (size_t)ib, "mount_how"), "path");
    CHECK_STR(table_str(t, (size_t)ib, "fstype"), "fuse.sshfs");
    CHECK(!strstr(t->note, "mount table was longer"));
    report_free(r);
}

/* The reads of tasks in D (schedstat, wchan, follow-ups) stop at
 * DSTATE_TASK_READS a tick, and the note says so. */
static char *note_after(int tasks)
{
    hostfs_set_root("/nonexistent-perfreport-root");
    struct dstate *d = dstate_new();
    for (int tick = 1; tick <= 2; tick++) {
        dstate_tick_begin(d, tick * 0.5);
        for (int i = 0; i < tasks; i++) {
            struct pid_stat ps = in_d(1000 + i, "many");
            dstate_process(d, &ps);
        }
        dstate_tick_end(d);
    }
    hostfs_set_root(NULL);
    struct report *r = report_new();
    dstate_to_model(d, r);
    dstate_free(d);
    const struct table *t = report_find_table(r, "proc.dstate");
    char *note = t && t->note ? strdup(t->note) : NULL;
    report_free(r);
    return note;
}

TEST(dstate_reads_of_tasks_in_d_are_bounded_a_tick)
{
    char *few = note_after(DSTATE_TASK_READS / 4), *many = note_after(DSTATE_TASK_READS + 100);
    REQUIRE(few && many);
    CHECK(!strstr(few, "more tasks were in D"));
    CHECK_CONTAINS(many, "At 2 ticks more tasks were in D than 512 reads a tick follow");
    free(few);
    free(many);
}
