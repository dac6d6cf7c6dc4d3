/* Process findings from the per-task D-state table: tasks hung in
 * uninterruptible sleep, and the mount or device they wait for. */
#include "analyze_internal.h"
#include "../util/fmtnum.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A wait that lasted through nearly every tick of the window: the task was
 * stuck for as long as we looked, whatever the window's length. */
#define WHOLE_WINDOW_SHARE 0.9
#define PROCS_NAMED 3   /* processes named in the title */
#define PROCS_DETAILED 5 /* processes with an evidence line each */

static const char *str_or(const struct table *t, size_t row, const char *col, const char *dflt)
{
    const char *s = table_str(t, row, col);
    return s && *s ? s : dflt;
}

/* What a row waits on, as one key: the mount point (a remote file system's,
 * or a local one's without a device), the block device under a local file
 * system (so that the finding folds into that disk's saturation), the file
 * system family, or "" when nothing is known. */
static const char *wait_key(const struct table *t, size_t row)
{
    const char *dev = str_or(t, row, "device", NULL);
    if (dev)
        return dev;
    const char *fstype = str_or(t, row, "fstype", NULL);
    if (fstype)
        return str_or(t, row, "mount", "");
    return str_or(t, row, "fs", "");
}

/* Row i's longest wait, judged; past the warning (*s.sev) and not frozen:
 * a stuck task. */
static bool stuck_row(struct report *r, const struct threshold *thr, const struct table *t,
                      size_t i, struct sig *s)
{
    *s = sig_with(r, thr, table_num(t, i, "stuck_s"), NULL);
    return s->sev >= SEV_WARNING && !dstate_frozen(t, i);
}

struct group {
    const char *key;
    size_t tasks;
    double longest;
};

/* The process a row belongs to, for counting processes. */
static bool seen_pid(const double *pids, size_t n, double pid)
{
    for (size_t i = 0; i < n; i++)
        if (pids[i] == pid)
            return true;
    return false;
}

static void load_evidence(struct finding *f, const struct report *r, int *corr)
{
    double load1 = report_metric_value(r, NM_LOAD_LOAD1);
    double cpus = report_metric_value(r, NM_CPU_COUNT);
    double util = report_metric_value(r, NM_CPU_UTIL_PCT);
    if (isnan(load1) || isnan(cpus) || isnan(util) || cpus <= 0)
        return;
    /* Linux counts tasks in D in the load average: load far above the CPUs
     * that are busy is tasks waiting, not work. */
    double busy = util / 100.0 * cpus;
    if (load1 - busy >= 1) {
        finding_evidence(f, "Load average %.2f (1 min) while %.1f of %.0f CPUs were busy (%.0f%%): "
                            "the load is tasks waiting, not running",
                         load1, busy, cpus, util);
        (*corr)++;
    } else {
        finding_evidence(f, "Load average %.2f (1 min) on %.0f CPUs %.0f%% busy (the 1-minute "
                            "average rises slowly: a short window shows little of a hang)",
                         load1, cpus, util);
    }
}

static void advice(struct finding *f, const char *fs, const char *kind, const char *mount,
                   const char *devno, const char *pid_example)
{
    struct strbuf a = STRBUF_INIT;
    unsigned maj = 0, min = 0;
    bool have_dev = devno && sscanf(devno, "%u:%u", &maj, &min) == 2;
    if (fs && strcmp(fs, "fuse") == 0) {
        sb_addf(&a, "The FUSE daemon serving %s stopped answering: find it (it holds /dev/fuse "
                    "open) and check whether it is alive, stopped or itself blocked on its "
                    "backend. Tasks in D cannot be killed, not even with SIGKILL, until their "
                    "request completes: ",
                mount ? mount : "the mount");
        if (have_dev && maj == 0)
            sb_addf(&a, "abort the connection with `echo 1 > /sys/fs/fuse/connections/%u/abort` "
                        "(mount -t fusectl none /sys/fs/fuse/connections first when it is empty)",
                    min);
        else
            sb_add(&a, "abort its connection under /sys/fs/fuse/connections");
        sb_addf(&a, ", then `umount -l %s`. Until then do not ls, df or cd into it: each access "
                    "adds a hung task.",
                mount ? mount : "MOUNT");
    } else if (kind && strcmp(kind, "network") == 0) {
        sb_addf(&a, "The server behind %s does not answer: check the network path and the "
                    "server (dmesg: \"server not responding\"; for NFS, nfsstat -m and rpcinfo "
                    "-p SERVER). On a hard mount the tasks wait until it comes back and cannot "
                    "be killed; `umount -f -l %s` gives up on it (their I/O then fails). Until "
                    "then do not ls or df the mount: each access adds a hung task.",
                mount ? mount : "the mount", mount ? mount : "MOUNT");
    } else if (kind) {
        sb_addf(&a, "The storage under %s does not complete I/O: look for I/O errors, resets "
                    "and timeouts (dmesg | grep -i -e 'I/O error' -e timeout -e reset), the "
                    "device's health (smartctl, nvme smart-log) and, on a VM, the hypervisor's "
                    "storage. A merely saturated disk shows as disk.saturation.",
                mount ? mount : "these tasks");
    } else {
        sb_addf(&a, "Read where the tasks wait: cat /proc/%s/stack (as root) and their wchan. "
                    "A wait in a file system or block layer function points at that mount or "
                    "device (dmesg shows its errors); a wait on a lock (rwsem, mutex, "
                    "d_alloc_parallel) is behind another task: find the one stuck first.",
                pid_example);
    }
    finding_set_recommendation(f, sb_str(&a));
    sb_free(&a);
}

/* Only frozen tasks waited long: said at info, with the cgroups to thaw. */
static void frozen_finding(struct report *r, const struct rule *self, const struct threshold *thr,
                           const struct table *t)
{
    size_t tasks = 0, npids = 0;
    double pids[64], longest = 0;
    long row = -1;
    for (size_t i = 0; i < t->nrows; i++) {
        struct sig s = sig_with(r, thr, table_num(t, i, "stuck_s"), NULL);
        if (s.sev < SEV_WARNING || !dstate_frozen(t, i))
            continue;
        tasks++;
        double pid = table_num(t, i, "pid");
        if (!seen_pid(pids, npids, pid) && npids < sizeof pids / sizeof pids[0])
            pids[npids++] = pid;
        if (row < 0 || s.v > longest) {
            longest = s.v;
            row = (long)i;
        }
    }
    if (row < 0)
        return;
    char lab[160], dur[32];
    proc_label(t, (size_t)row, lab, sizeof lab);
    fmt_quantity(dur, sizeof dur, longest, "s");
    struct strbuf title = STRBUF_INIT;
    sb_addf(&title, "%zu task%s in %zu process%s frozen by a cgroup freezer for up to %s (%s%s): "
                    "stopped on purpose, not hung",
            tasks, plural((double)tasks), npids, npids == 1 ? "" : "es", dur, lab,
            npids > 1 ? " and others" : "");
    struct finding *f = rule_add(r, self, SEV_INFO, &title);
    finding_evidence(f, "Their cgroup's freezer.state is FROZEN (or they wait in "
                        "__refrigerator, the freezer's wait): state D, but neither I/O nor a "
                        "lock; they run again when the cgroup is thawed");
    finding_set_recommendation(f, "If nobody paused them on purpose: grep freezer /proc/PID/cgroup "
                                  "names the cgroup; its freezer.state says FROZEN, and writing "
                                  "THAWED to it (docker unpause, for a container) lets them run.");
    finding_set_culprit(f, lab);
    f->score = rank_score(SEV_INFO, 0, NAN, 0);
}

void rule_proc_uninterruptible(struct report *r, const struct rule *self)
{
    const struct table *t = report_find_table(r, NM_PROC_DSTATE);
    const struct threshold *thr = report_find_threshold(r, "proc.dstate_wait_s");
    if (!t || !thr)
        return;
    /* tasks past the warning, grouped by what they wait on */
    struct group g[64];
    size_t ng = 0, stuck = 0, brief = 0;
    size_t nfrozen = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        struct sig s;
        if (!stuck_row(r, thr, t, i, &s)) {
            if (s.sev < SEV_WARNING)
                brief++;
            else
                nfrozen++;
            continue;
        }
        stuck++;
        const char *key = wait_key(t, i);
        size_t k = 0;
        while (k < ng && strcmp(g[k].key, key) != 0)
            k++;
        if (k == ng) {
            if (ng == sizeof g / sizeof g[0])
                continue;
            g[ng++] = (struct group){key, 0, 0};
        }
        g[k].tasks++;
        if (s.v > g[k].longest)
            g[k].longest = s.v;
    }
    if (!stuck) {
        frozen_finding(r, self, thr, t);
        return;
    }
    /* the cause most tasks wait on, a known one before "" */
    size_t gi = 0;
    for (size_t k = 1; k < ng; k++) {
        bool known = *g[k].key, best_known = *g[gi].key;
        if (known != best_known ? known
                                : g[k].tasks != g[gi].tasks ? g[k].tasks > g[gi].tasks
                                                             : g[k].longest > g[gi].longest)
            gi = k;
    }
    const char *key = g[gi].key;

    /* its rows: the longest wait, the processes, what they have in common */
    struct sig worst = {.v = NAN, .cov = NAN};
    long wrow = -1;
    double pids[64];
    size_t npids = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        struct sig s;
        if (!stuck_row(r, thr, t, i, &s) || strcmp(wait_key(t, i), key) != 0)
            continue;
        sig_keep_worst(&worst, &wrow, &s, (size_t)i);
        double pid = table_num(t, i, "pid");
        if (!seen_pid(pids, npids, pid) && npids < sizeof pids / sizeof pids[0])
            pids[npids++] = pid;
    }
    size_t w = (size_t)wrow;
    enum severity sev = worst.sev;
    double ticks = table_num(t, w, "stuck_ticks");
    /* hung: stuck at every tick, in a wait that began before the window (the
     * collector dates it from when the task last ran), or, where the kernel
     * does not say when, long enough to mean it: in a 2.5 s window a 2.2 s
     * fsync covers every tick */
    double window = r->window.actual_s;
    /* the window's ticks, not a watch bundle's from before its trigger */
    size_t wticks = r->nticks - report_window_first_tick(r);
    bool whole = wticks >= 2 && !isnan(ticks) &&
                 ticks >= WHOLE_WINDOW_SHARE * (double)wticks &&
                 ((window > 0 && worst.v >= window) || worst.v >= thr->crit / 2);
    if (whole)
        sev = SEV_CRITICAL;
    const char *fs = str_or(t, w, "fs", NULL);
    const char *mount = table_str(t, w, "fstype") ? str_or(t, w, "mount", NULL) : NULL;
    const char *fstype = str_or(t, w, "fstype", NULL);
    const char *device = str_or(t, w, "device", NULL);

    char wlab[160], dur[32];
    proc_label(t, w, wlab, sizeof wlab);
    fmt_quantity(dur, sizeof dur, worst.v, "s");
    size_t ntasks = g[gi].tasks;
    struct strbuf title = STRBUF_INIT;
    sb_addf(&title, "%zu task%s in %zu process%s hung in uninterruptible sleep", ntasks,
            plural((double)ntasks), npids, npids == 1 ? "" : "es");
    if (mount)
        sb_addf(&title, " on %s (%s%s%s)", mount, fstype, device ? ", " : "", device ? device : "");
    else if (device)
        sb_addf(&title, " on %s", device);
    else if (fs)
        sb_addf(&title, " in %s", strcmp(fs, "block") == 0 ? "block I/O" : fs);
    sb_addf(&title, " for up to %s%s: ", dur, whole ? " (the whole window)" : "");
    size_t named = 0;
    double shown[PROCS_NAMED];
    for (size_t i = 0; i < t->nrows && named < PROCS_NAMED; i++) {
        struct sig s;
        double pid = table_num(t, i, "pid");
        if (!stuck_row(r, thr, t, i, &s) || strcmp(wait_key(t, i), key) != 0 ||
            seen_pid(shown, named, pid))
            continue;
        char lab[160];
        proc_label(t, i, lab, sizeof lab);
        sb_addf(&title, "%s%s", named ? ", " : "", lab);
        shown[named++] = pid;
    }
    if (npids > named)
        sb_addf(&title, " and %zu more", npids - named);
    struct finding *f = rule_add(r, self, sev, &title);

    char l0[240];
    double tid = table_num(t, w, "tid");
    snprintf(l0, sizeof l0, "Longest single uninterruptible wait (%s, tid %.0f)", wlab, tid);
    sig_evidence(f, l0, &worst);
    if (whole)
        finding_evidence(f, "It lasted through %.0f of the window's %zu ticks without running "
                            "(critical: stuck for as long as the window looked)",
                         ticks, wticks);
    /* one line per process: its threads, what they wait in, whether killed */
    double done[PROCS_DETAILED];
    size_t ndone = 0;
    for (size_t i = 0; i < t->nrows && ndone < PROCS_DETAILED; i++) {
        struct sig s;
        double pid = table_num(t, i, "pid");
        if (!stuck_row(r, thr, t, i, &s) || strcmp(wait_key(t, i), key) != 0 ||
            seen_pid(done, ndone, pid))
            continue;
        done[ndone++] = pid;
        size_t nthr = 0;
        bool killed = false;
        for (size_t k = 0; k < t->nrows; k++) {
            struct sig sk;
            if (table_num(t, k, "pid") != pid || !stuck_row(r, thr, t, k, &sk))
                continue;
            nthr++;
            killed = killed || table_num(t, k, "kill_pending") > 0;
        }
        char lab[160], d1[32];
        proc_label(t, i, lab, sizeof lab);
        fmt_quantity(d1, sizeof d1, s.v, "s");
        struct strbuf e = STRBUF_INIT;
        sb_addf(&e, "%s: %zu task%s stuck, the longest %s in one wait", lab, nthr,
                plural((double)nthr), d1);
        if (table_num(t, i, "at_end") > 0)
            sb_add(&e, " and still in it at the end");
        sb_addf(&e, ", in %s", str_or(t, i, "wchan", "an unknown function"));
        if (killed)
            sb_add(&e, "; a SIGKILL is pending: it cannot even be killed");
        const char *stack = str_or(t, i, "stack", NULL);
        if (stack)
            sb_addf(&e, "; kernel stack %s", stack);
        finding_evidence(f, "%s", sb_str(&e));
        sb_free(&e);
    }
    if (npids > ndone)
        finding_evidence(f, "%zu more process%s with stuck tasks (see the table of tasks in D "
                            "state)",
                         npids - ndone, npids - ndone == 1 ? "" : "es");
    if (mount) {
        const char *how = str_or(t, w, "mount_how", "");
        finding_evidence(f, "Mount %s: %s from %s (dev %s); %s", mount, fstype,
                         str_or(t, w, "source", "?"), str_or(t, w, "devno", "?"),
                         strcmp(how, "path") == 0
                             ? "their working directory or open files are on it"
                             : "the only mount of that kind their namespace has, named by "
                               "their kernel stacks");
    } else if (fs && table_str(t, w, "mount")) {
        finding_evidence(f, "Waiting in %s: %s", fs, table_str(t, w, "mount"));
    }
    if (stuck > ntasks)
        finding_evidence(f, "%zu other task%s stuck on something else (see the table)",
                         stuck - ntasks, plural((double)(stuck - ntasks)));
    if (brief)
        finding_evidence(f, "%zu task%s seen in D only briefly (normal for I/O)", brief,
                         plural((double)brief));
    if (nfrozen)
        finding_evidence(f, "%zu task%s frozen by a cgroup freezer (stopped on purpose, not "
                            "counted)",
                         nfrozen, plural((double)nfrozen));
    int corr = (ntasks > 1) ? 1 : 0;
    load_evidence(f, r, &corr);
    char pidtxt[24];
    snprintf(pidtxt, sizeof pidtxt, "%.0f", table_num(t, w, "pid"));
    advice(f, fs, str_or(t, w, "fs_kind", NULL), mount, table_str(t, w, "devno"), pidtxt);
    /* the cause, as the other findings name it: a disk folds into its saturation */
    if (device)
        finding_set_culprit(f, device);
    else if (mount)
        finding_set_culprit(f, mount);
    else
        finding_set_culprit(f, wlab);
    f->score = rank_score(sev, sev > worst.sev ? 1 : worst.excess, NAN, corr);
}
