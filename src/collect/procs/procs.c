/* Per-process collector: /proc/PID/{stat,statm,cmdline,limits,fd}.
 *
 * start() and stop() take a full snapshot of every process; CPU and fd growth
 * are deltas between the two, matched on (pid, starttime) so a recycled pid
 * is never mistaken for the process that had it before.  tick() only re-reads
 * /proc/PID/stat, reusing one buffer: its state follows the tasks in D state
 * (dstate.c) and its RSS each process's memory growth (rssgrowth.c).
 *
 * Processes appear and vanish while we read them, and their names are chosen
 * by whoever started them: every read may fail (the process is then skipped
 * and counted in proc.skipped) and every string is stored as raw bytes. */
#include "procs.h"
#include "dstate.h"
#include "rssgrowth.h"
#include "model/model.h"
#include "model/names.h"
#include "util/hostfs.h"
#include "util/proc_parse.h"
#include "util/redact.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOP_CPU_ROWS 15
#define TOP_MEM_ROWS 10
#define TOP_FD_ROWS 10
#define GROWTH_ROWS 10

static size_t g_scan_cap = PROC_SCAN_CAP;
void procs_set_scan_cap(size_t cap) { g_scan_cap = cap ? cap : PROC_SCAN_CAP; }

/* -------------------------------------------------------------- snapshots */

struct pinfo {
    int pid;
    char state;
    uint64_t starttime;
    uint64_t utime, stime;
    long threads;
    uint64_t rss_kib;
    uint64_t shared_kib; /* file-backed and shared memory of the RSS; UINT64_MAX = unknown */
    long fds;          /* -1 = unknown (EACCES, not a directory...) */
    uint64_t fd_limit; /* 0 = unknown, UINT64_MAX = unlimited */
    size_t cmd_off;    /* into snapshot.arena */
    unsigned redacted; /* values redact_argv() replaced in this cmdline */
    char comm[PROC_COMM_MAX + 1];
    double t_s; /* collector clock just before this process was read */
};

struct snapshot {
    struct pinfo *p; /* sorted by pid after the scan */
    size_t n, cap;
    struct strbuf arena; /* NUL-separated cmdlines, one allocation for all */
    size_t skipped;      /* vanished or unreadable */
    size_t unreadable;   /* listed, but their fds were denied to us (not root) */
    size_t not_scanned;  /* beyond the scan cap */
    uint64_t threads;
    size_t zombies, dstate;
};

struct procs_state {
    long clk_tck;
    long page_size;
    double t_start;
    struct snapshot start, end;
    struct strbuf buf; /* reused for every file read */
    bool redact;        /* secrets in cmdlines are replaced (default; --no-redact) */
    struct strbuf rbuf; /* redacted argv, reused */
    char cmd[PROC_CMDLINE_BYTES + 1];
    struct dstate *ds;      /* tasks in D state, tick by tick */
    struct rssgrowth *grow; /* each process's RSS, tick by tick */
    double dsum, dmax;
    size_t dticks;
    struct series *s_dstate, *s_dtasks, *s_count;
};

static void snapshot_free(struct snapshot *s)
{
    free(s->p);
    sb_free(&s->arena);
    memset(s, 0, sizeof *s);
}

static bool vanished(int rc) { return rc == -ENOENT || rc == -ESRCH; }

static long count_fds(int pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", pid);
    errno = 0;
    DIR *d = hostfs_opendir(path);
    if (!d)
        return vanished(-errno) ? -2 : errno == EACCES || errno == EPERM ? -3 : -1;
    long n = 0;
    struct dirent *de;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        /* fd entries are numbers; anything else ("." "..", a fixture's
         * .keep) is not a descriptor. */
        if (de->d_name[0] >= '0' && de->d_name[0] <= '9')
            n++;
    }
    /* A process exiting under us makes readdir fail: the count is unknown. */
    if (errno)
        n = -1;
    closedir(d);
    return n;
}

/* Reads one process fully into pi.  Returns 0, or -errno when it must be
 * skipped (vanished mid-read, stat unreadable or unparsable). */
static int read_full(struct procs_state *st, struct snapshot *snap, int pid, struct pinfo *pi)
{
    struct pid_stat ps;
    int rc = hostfs_readf(&st->buf, 4096, "/proc/%d/stat", pid);
    if (rc)
        return rc;
    rc = proc_parse_stat(st->buf.buf, st->buf.len, &ps);
    if (rc)
        return rc;
    memset(pi, 0, sizeof *pi);
    pi->pid = pid;
    pi->state = ps.state;
    pi->starttime = ps.starttime;
    pi->utime = ps.utime;
    pi->stime = ps.stime;
    pi->threads = ps.num_threads;
    memcpy(pi->comm, ps.comm, sizeof pi->comm);
    pi->fds = -1;
    uint64_t page_kib = (uint64_t)st->page_size / 1024;
    pi->rss_kib = ps.rss_pages > 0 ? (uint64_t)ps.rss_pages * page_kib : 0;
    pi->shared_kib = UINT64_MAX;

    if (ps.state == 'Z') {
        /* A zombie has no memory, files or argv left to read. */
        proc_format_cmdline("", 0, pi->comm, st->cmd);
    } else {
        rc = hostfs_readf(&st->buf, 4096, "/proc/%d/statm", pid);
        uint64_t resident, shared;
        if (vanished(rc))
            return rc;
        if (rc == 0 && proc_parse_statm(st->buf.buf, st->buf.len, &resident, &shared) == 0) {
            pi->rss_kib = resident * page_kib;
            if (shared != UINT64_MAX)
                pi->shared_kib = shared * page_kib;
        }

        rc = hostfs_readf(&st->buf, PROC_CMDLINE_READ, "/proc/%d/cmdline", pid);
        if (vanished(rc))
            return rc;
        if (rc)
            sb_reset(&st->buf);
        /* Secrets go before the text enters the model: no output can leak them. */
        const struct strbuf *argv = &st->buf;
        if (st->redact && st->buf.len) {
            pi->redacted = (unsigned)redact_argv(st->buf.buf, st->buf.len, &st->rbuf);
            argv = &st->rbuf;
        }
        proc_format_cmdline(argv->buf ? argv->buf : "", argv->len, pi->comm, st->cmd);

        rc = hostfs_readf(&st->buf, 16384, "/proc/%d/limits", pid);
        if (vanished(rc))
            return rc;
        if (rc || proc_parse_limits_nofile(st->buf.buf, st->buf.len, &pi->fd_limit) != 0)
            pi->fd_limit = 0;

        pi->fds = count_fds(pid);
        if (pi->fds == -2)
            return -ENOENT;
        if (pi->fds == -3) { /* another user's process, without root */
            pi->fds = -1;
            snap->unreadable++;
        }
    }
    pi->cmd_off = snap->arena.len;
    sb_addn(&snap->arena, st->cmd, strlen(st->cmd) + 1);
    return 0;
}

static int parse_pid_name(const char *name)
{
    if (!*name)
        return 0;
    long v = 0;
    for (const char *c = name; *c; c++) {
        if (*c < '0' || *c > '9')
            return 0;
        v = v * 10 + (*c - '0');
        if (v > INT_MAX)
            return 0;
    }
    return (int)v;
}

static int cmp_pinfo_pid(const void *a, const void *b)
{
    const struct pinfo *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

static const struct pinfo *snapshot_find(const struct snapshot *s, int pid)
{
    struct pinfo key = {.pid = pid};
    if (!s->n)
        return NULL;
    return bsearch(&key, s->p, s->n, sizeof *s->p, cmp_pinfo_pid);
}

static void snapshot_add(const struct collect_ctx *ctx, struct procs_state *st,
                         struct snapshot *snap, int pid, bool count_skip)
{
    xgrow(&snap->p, &snap->cap, snap->n + 1, sizeof *snap->p);
    struct pinfo *pi = &snap->p[snap->n];
    /* Each process's own read time: a scan of thousands takes long. */
    double t = collect_clock_s(ctx);
    if (read_full(st, snap, pid, pi) != 0) {
        if (count_skip)
            snap->skipped++;
        return;
    }
    pi->t_s = t;
    snap->n++;
    snap->threads += pi->threads > 0 ? (uint64_t)pi->threads : 0;
    if (pi->state == 'Z')
        snap->zombies++;
    else if (pi->state == 'D')
        snap->dstate++;
}

static int full_scan(const struct collect_ctx *ctx, struct procs_state *st, struct snapshot *snap,
                     int target)
{
    DIR *d = hostfs_opendir("/proc");
    if (!d)
        return errno ? -errno : -ENOENT;
    struct dirent *de;
    size_t seen = 0;
    while ((de = readdir(d)) != NULL) {
        int pid = parse_pid_name(de->d_name);
        if (pid <= 0)
            continue;
        if (seen++ >= g_scan_cap) {
            snap->not_scanned++;
            continue;
        }
        snapshot_add(ctx, st, snap, pid, true);
    }
    closedir(d);
    if (snap->n)
        qsort(snap->p, snap->n, sizeof *snap->p, cmp_pinfo_pid);
    /* The -p target must be known even when the cap cut it off. */
    if (target > 0 && snap->not_scanned && !snapshot_find(snap, target)) {
        snapshot_add(ctx, st, snap, target, false);
        qsort(snap->p, snap->n, sizeof *snap->p, cmp_pinfo_pid);
    }
    return 0;
}

/* ------------------------------------------------------------- collector */

static int procs_start(struct collect_ctx *ctx, void **statep, char *err, size_t n)
{
    struct procs_state *st = xcalloc(1, sizeof *st);
    *statep = st;
    st->clk_tck = sysconf(_SC_CLK_TCK);
    st->page_size = sysconf(_SC_PAGESIZE);
    if (st->clk_tck <= 0)
        st->clk_tck = 100;
    if (st->page_size <= 0)
        st->page_size = 4096;
    st->redact = !(ctx->cfg && ctx->cfg->keep_secrets);
    /* CPU shares divide by the time between our two reads of each process,
     * not by the window: start runs before the window opens. */
    st->t_start = collect_clock_s(ctx);
    int rc = full_scan(ctx, st, &st->start, ctx->cfg ? ctx->cfg->pid : 0);
    if (rc) {
        snprintf(err, n, "cannot list /proc: %s", strerror(-rc));
        return rc;
    }
    st->s_count = report_series(ctx->r, NM_PROC_COUNT, "Processes", "", "process");
    st->s_dstate =
        report_series(ctx->r, NM_PROC_DSTATE, "Processes in D state (uninterruptible)", "", "process");
    st->s_dtasks = report_series(ctx->r, NM_PROC_DSTATE_TASKS,
                                 "Tasks in D state (threads included)", "", "process");
    st->ds = dstate_new();
    st->grow = rssgrowth_new(ctx->cfg ? ctx->cfg->window_s : 0);
    return 0;
}

static int procs_tick(struct collect_ctx *ctx, void *state)
{
    struct procs_state *st = state;
    DIR *d = hostfs_opendir("/proc");
    if (!d)
        return errno ? -errno : -ENOENT;
    size_t count = 0, dcount = 0, seen = 0;
    struct dirent *de;
    struct pid_stat ps;
    uint64_t page_kib = (uint64_t)st->page_size / 1024;
    bool self_real = hostfs_is_real();
    dstate_tick_begin(st->ds, collect_clock_s(ctx));
    rssgrowth_tick(st->grow, ctx->now_s);
    while ((de = readdir(d)) != NULL) {
        int pid = parse_pid_name(de->d_name);
        if (pid <= 0 || seen++ >= g_scan_cap)
            continue;
        /* Vanished or unreadable between readdir and read: simply not counted. */
        if (hostfs_readf(&st->buf, 4096, "/proc/%d/stat", pid) != 0 ||
            proc_parse_stat(st->buf.buf, st->buf.len, &ps) != 0)
            continue;
        ps.pid = pid;
        count++;
        dstate_process(st->ds, &ps);
        /* our own memory grows by design while the window runs (maps, buffers) */
        if (ps.rss_pages > 0 && ps.state != 'Z' && !(self_real && pid == getpid()))
            rssgrowth_observe(st->grow, pid, ps.starttime, (uint64_t)ps.rss_pages * page_kib);
        dcount += ps.state == 'D';
    }
    closedir(d);
    size_t dtasks = dstate_tick_end(st->ds);
    series_set(ctx->r, st->s_count, (double)count);
    series_set(ctx->r, st->s_dstate, (double)dcount);
    series_set(ctx->r, st->s_dtasks, (double)dtasks);
    st->dsum += (double)dcount;
    if ((double)dcount > st->dmax)
        st->dmax = (double)dcount;
    st->dticks++;
    return 0;
}

/* Window figures for one process alive at the end. */
struct pview {
    const struct pinfo *e;
    const char *cmdline;
    double cpu_pct, user_pct, sys_pct; /* NAN when the window is empty */
    bool has_growth;
    double fd_growth, fd_growth_per_min;
    double fd_pct;  /* NAN when fds or the limit are unknown */
    double mem_pct; /* NAN when MemTotal is unknown */
    bool target;
    bool listed; /* its cmdline went into a table */
};

static double tick_delta(uint64_t end, uint64_t start)
{
    return end >= start ? (double)(end - start) : 0;
}

static int by_cpu(const void *a, const void *b)
{
    const struct pview *x = *(const struct pview *const *)a, *y = *(const struct pview *const *)b;
    double cx = isnan(x->cpu_pct) ? -1 : x->cpu_pct, cy = isnan(y->cpu_pct) ? -1 : y->cpu_pct;
    if (cx != cy)
        return cx < cy ? 1 : -1;
    return (x->e->pid > y->e->pid) - (x->e->pid < y->e->pid);
}

static int by_rss(const void *a, const void *b)
{
    const struct pview *x = *(const struct pview *const *)a, *y = *(const struct pview *const *)b;
    if (x->e->rss_kib != y->e->rss_kib)
        return x->e->rss_kib < y->e->rss_kib ? 1 : -1;
    return (x->e->pid > y->e->pid) - (x->e->pid < y->e->pid);
}

static int by_fd(const void *a, const void *b)
{
    const struct pview *x = *(const struct pview *const *)a, *y = *(const struct pview *const *)b;
    double fx = isnan(x->fd_pct) ? -1 : x->fd_pct, fy = isnan(y->fd_pct) ? -1 : y->fd_pct;
    if (fx != fy)
        return fx < fy ? 1 : -1;
    if (x->e->fds != y->e->fds)
        return x->e->fds < y->e->fds ? 1 : -1;
    return (x->e->pid > y->e->pid) - (x->e->pid < y->e->pid);
}

static void set_state(struct table *t, size_t row, char state)
{
    char s[2] = {state, '\0'};
    table_set_str(t, row, "state", s);
}

static void set_fds(struct table *t, size_t row, const struct pview *v)
{
    if (v->e->fds >= 0)
        table_set_num(t, row, "fds", (double)v->e->fds);
    if (v->has_growth)
        table_set_num(t, row, "fd_growth", v->fd_growth);
}

static void table_top_cpu(struct report *r, struct pview **idx, size_t n)
{
    struct table *t = report_table(r, NM_PROC_TOP_CPU, "Top processes by CPU", "process");
    static const struct col_spec proc_top_cpu_cols[] = {
        {"pid", "PID", "", 0},
        {"comm", "Command", "", 0},
        {"state", "State", "", 0},
        {"cpu_pct", "CPU", "%", 1},
        {"user_pct", "User", "%", 1},
        {"sys_pct", "System", "%", 1},
        {"threads", "Threads", "", 0},
        {"rss_kib", "RSS", "KiB", 0},
        {"fds", "FDs", "", 0},
        {"fd_growth", "FD growth", "", 0},
        {"cmdline", "Command line", "", 0},
    };
    table_add_cols(t, proc_top_cpu_cols, ARRAY_LEN(proc_top_cpu_cols));
    if (n)
        qsort(idx, n, sizeof *idx, by_cpu);
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        struct pview *v = idx[i];
        /* perfreport's own CPU is in its own section (self.*), never a culprit */
        if (hostfs_is_real() && v->e->pid == getpid())
            continue;
        /* Idle processes are noise; the -p target is listed whatever it used. */
        bool top = shown < TOP_CPU_ROWS && v->cpu_pct > 0;
        if (!top && !v->target)
            continue;
        shown += top;
        size_t row = table_add_row(t);
        table_set_num(t, row, "pid", v->e->pid);
        table_set_str(t, row, "comm", v->e->comm);
        set_state(t, row, v->e->state);
        table_set_num_opt(t, row, "cpu_pct", v->cpu_pct);
        table_set_num_opt(t, row, "user_pct", v->user_pct);
        table_set_num_opt(t, row, "sys_pct", v->sys_pct);
        table_set_num(t, row, "threads", (double)v->e->threads);
        table_set_num(t, row, "rss_kib", (double)v->e->rss_kib);
        set_fds(t, row, v);
        table_set_str(t, row, "cmdline", v->cmdline);
        v->listed = true;
    }
    if (t->nrows == 0)
        table_set_note(t, "No process used measurable CPU time during the window.");
}

static void table_top_mem(struct report *r, struct pview **idx, size_t n)
{
    struct table *t = report_table(r, NM_PROC_TOP_MEM, "Top processes by memory (RSS)", "process");
    static const struct col_spec proc_top_mem_cols[] = {
        {"pid", "PID", "", 0},
        {"comm", "Command", "", 0},
        {"rss_kib", "RSS", "KiB", 0},
        {"mem_pct", "Memory", "%", 1},
        {"threads", "Threads", "", 0},
        {"cmdline", "Command line", "", 0},
    };
    table_add_cols(t, proc_top_mem_cols, ARRAY_LEN(proc_top_mem_cols));
    if (n)
        qsort(idx, n, sizeof *idx, by_rss);
    for (size_t i = 0; i < n && t->nrows < TOP_MEM_ROWS; i++) {
        struct pview *v = idx[i];
        if (v->e->rss_kib == 0)
            break;
        size_t row = table_add_row(t);
        table_set_num(t, row, "pid", v->e->pid);
        table_set_str(t, row, "comm", v->e->comm);
        table_set_num(t, row, "rss_kib", (double)v->e->rss_kib);
        table_set_num_opt(t, row, "mem_pct", v->mem_pct);
        table_set_num(t, row, "threads", (double)v->e->threads);
        table_set_str(t, row, "cmdline", v->cmdline);
        v->listed = true;
    }
}

static void table_fd(struct report *r, struct pview **idx, size_t n)
{
    struct table *t = report_table(r, NM_PROC_FD, "File descriptors per process", "fd");
    static const struct col_spec proc_fd_cols[] = {
        {"pid", "PID", "", 0},
        {"comm", "Command", "", 0},
        {"fds", "FDs", "", 0},
        {"fd_limit", "Limit", "", 0},
        {"fd_pct", "Used", "%", 1},
        {"fd_growth", "Growth", "", 0},
        {"fd_growth_per_min", "Growth", "/min", 1},
    };
    table_add_cols(t, proc_fd_cols, ARRAY_LEN(proc_fd_cols));
    if (n)
        qsort(idx, n, sizeof *idx, by_fd);
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        const struct pview *v = idx[i];
        bool top = shown < TOP_FD_ROWS && !isnan(v->fd_pct);
        if (!top && !v->target)
            continue;
        shown += top;
        size_t row = table_add_row(t);
        table_set_num(t, row, "pid", v->e->pid);
        table_set_str(t, row, "comm", v->e->comm);
        set_fds(t, row, v);
        if (v->e->fd_limit && v->e->fd_limit != UINT64_MAX)
            table_set_num(t, row, "fd_limit", (double)v->e->fd_limit);
        table_set_num_opt(t, row, "fd_pct", v->fd_pct);
        if (v->has_growth)
            table_set_num(t, row, "fd_growth_per_min", v->fd_growth_per_min);
    }
}

/* Anonymous (not file-backed) RSS of a snapshot's process: what reclaim
 * cannot take back; -1 when statm gave no shared figure. */
static double anon_kib(const struct pinfo *p)
{
    if (!p || p->shared_kib == UINT64_MAX)
        return -1;
    return p->rss_kib > p->shared_kib ? (double)(p->rss_kib - p->shared_kib) : 0;
}

/* The snapshot's entry of this very process (pid and starttime), or NULL. */
static const struct pinfo *same_proc(const struct snapshot *s, int pid, uint64_t starttime)
{
    const struct pinfo *p = snapshot_find(s, pid);
    return p && p->starttime == starttime ? p : NULL;
}

/* Lets the analysis tell a process's growth from its limited cgroup's. */
char *procs_memory_cgroup_of(int pid, uint64_t starttime)
{
    struct cg_proc_paths pp;
    if (proc_read_cgroup(pid, &pp) != 0)
        return NULL;
    const char *m = pp.memory ? pp.memory : pp.v2;
    char *path = m && *m ? xstrdup(m) : NULL;
    cg_proc_paths_free(&pp);
    /* read after the cgroup: the same start time means the same process */
    struct strbuf sb = STRBUF_INIT;
    struct pid_stat ps;
    if (path && (hostfs_readf(&sb, 4096, "/proc/%d/stat", pid) != 0 ||
                 proc_parse_stat(sb.buf, sb.len, &ps) != 0 || ps.starttime != starttime)) {
        free(path);
        path = NULL;
    }
    sb_free(&sb);
    return path;
}

/* Processes whose resident memory grew over the window, fastest first. */
static void table_growth(struct report *r, struct procs_state *st)
{
    struct table *t = report_table(r, NM_MEMORY_GROWTH, "Processes whose memory grew", "memory");
    static const struct col_spec cols[] = {
        {"pid", "PID", "", 0},
        {"comm", "Command", "", 0},
        {"rss_start_kib", "RSS first", "KiB", 0},
        {"rss_end_kib", "RSS last", "KiB", 0},
        {"growth_kib", "Growth", "KiB", 0},
        {"slope_kib_per_s", "Slope", "KiB/s", 0},
        {"rise_pct", "Rising intervals", "%", 0},
        {"min_third_pct", "Smallest third", "%", 0},
        {"anon_growth_kib", "Anonymous growth", "KiB", 0},
        {"span_s", "Over", "s", 1},
        {"cgroup", "Memory cgroup", "", 0},
        {"cmdline", "Command line", "", 0},
    };
    table_add_cols(t, cols, ARRAY_LEN(cols));
    struct rssgrowth_result res[GROWTH_ROWS];
    size_t n = rssgrowth_results(st->grow, res, GROWTH_ROWS);
    for (size_t i = 0; i < n; i++) {
        const struct rssgrowth_result *g = &res[i];
        /* one page more or less is not growth worth a row */
        if (!g->alive_at_end || g->growth_kib < 1024)
            continue;
        const struct pinfo *e = same_proc(&st->end, g->pid, g->starttime);
        const struct pinfo *s0 = same_proc(&st->start, g->pid, g->starttime);
        size_t row = table_add_row(t);
        table_set_num(t, row, "pid", g->pid);
        table_set_str(t, row, "comm", e ? e->comm : "?");
        table_set_num(t, row, "rss_start_kib", g->first_kib);
        table_set_num(t, row, "rss_end_kib", g->last_kib);
        table_set_num(t, row, "growth_kib", g->growth_kib);
        table_set_num(t, row, "slope_kib_per_s", g->slope_kib_per_s);
        table_set_num(t, row, "rise_pct", g->rise_pct);
        double mn = NAN;
        for (int k = 0; k < 3; k++)
            if (!isnan(g->third_pct[k]) && (isnan(mn) || g->third_pct[k] < mn))
                mn = g->third_pct[k];
        table_set_num_opt(t, row, "min_third_pct", mn);
        /* between the two full scans, which bracket the ticks */
        double a0 = anon_kib(s0), a1 = anon_kib(e);
        if (a0 >= 0 && a1 >= 0)
            table_set_num(t, row, "anon_growth_kib", a1 - a0);
        table_set_num(t, row, "span_s", g->span_s);
        char *cg = e ? procs_memory_cgroup_of(g->pid, g->starttime) : NULL;
        table_set_str(t, row, "cgroup", cg ? cg : "");
        free(cg);
        if (e)
            table_set_str(t, row, "cmdline", st->end.arena.buf + e->cmd_off);
    }
    struct strbuf note = STRBUF_INIT;
    if (t->nrows == 0)
        sb_add(&note, "No process's resident memory grew by 1 MiB or more during the window.");
    if (rssgrowth_untracked(st->grow))
        sb_addf(&note, "%sProcesses beyond the first %d were not followed.", note.len ? " " : "",
                RSSGROWTH_TRACK_MAX);
    if (note.len)
        table_set_note(t, sb_str(&note));
    sb_free(&note);
}

static void table_target(struct report *r, struct procs_state *st, int pid, struct pview *v)
{
    struct table *t = report_table(r, NM_PROC_TARGET, "Target process", "process");
    static const struct col_spec proc_target_cols[] = {
        {"pid", "PID", "", 0},
        {"comm", "Command", "", 0},
        {"state", "State", "", 0},
        {"cpu_pct", "CPU", "%", 1},
        {"threads", "Threads", "", 0},
        {"rss_kib", "RSS", "KiB", 0},
        {"fds", "FDs", "", 0},
        {"fd_growth", "FD growth", "", 0},
        {"cmdline", "Command line", "", 0},
    };
    table_add_cols(t, proc_target_cols, ARRAY_LEN(proc_target_cols));
    if (!v) {
        char note[128];
        snprintf(note, sizeof note,
                 snapshot_find(&st->start, pid) ? "Process %d exited during the window."
                                                : "Process %d was not found.",
                 pid);
        table_set_note(t, note);
        return;
    }
    size_t row = table_add_row(t);
    table_set_num(t, row, "pid", v->e->pid);
    table_set_str(t, row, "comm", v->e->comm);
    set_state(t, row, v->e->state);
    table_set_num_opt(t, row, "cpu_pct", v->cpu_pct);
    table_set_num(t, row, "threads", (double)v->e->threads);
    table_set_num(t, row, "rss_kib", (double)v->e->rss_kib);
    set_fds(t, row, v);
    table_set_str(t, row, "cmdline", v->cmdline);
    v->listed = true;
}

static void system_fd_metrics(struct report *r, struct procs_state *st)
{
    uint64_t used, max;
    if (hostfs_read("/proc/sys/fs/file-nr", &st->buf, 4096) != 0 ||
        proc_parse_file_nr(st->buf.buf, st->buf.len, &used, &max) != 0)
        return;
    report_metric(r, NM_FD_SYSTEM_USED, "File handles in use (system)", "", "fd", (double)used);
    report_metric(r, NM_FD_SYSTEM_MAX, "File handle limit (system)", "", "fd", (double)max);
    if (max > 0)
        report_metric(r, NM_FD_SYSTEM_PCT, "File handles in use (system, of file-max)", "%", "fd",
                      (double)used / (double)max * 100.0);
}

static int procs_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    struct procs_state *st = state;
    struct report *r = ctx->r;
    int target = ctx->cfg ? ctx->cfg->pid : 0;
    int rc = full_scan(ctx, st, &st->end, target);
    if (rc) {
        snprintf(err, n, "cannot list /proc: %s", strerror(-rc));
        return rc;
    }
    double window = collect_clock_s(ctx) - st->t_start;
    uint64_t memtotal = 0;
    if (hostfs_read("/proc/meminfo", &st->buf, 0) != 0 ||
        proc_parse_kib_field(st->buf.buf, st->buf.len, "MemTotal:", &memtotal) != 0)
        memtotal = 0;

    size_t np = st->end.n;
    struct pview *views = xcalloc(np, sizeof *views);
    struct pview **idx = xcalloc(np, sizeof *idx);
    struct pview *tv = NULL;
    for (size_t i = 0; i < np; i++) {
        struct pview *v = &views[i];
        const struct pinfo *e = &st->end.p[i];
        const struct pinfo *s = snapshot_find(&st->start, e->pid);
        if (s && s->starttime != e->starttime)
            s = NULL; /* the pid was recycled: a different process */
        v->e = e;
        v->cmdline = st->end.arena.buf + e->cmd_off;
        v->target = target > 0 && e->pid == target;
        if (v->target)
            tv = v;
        /* A process born inside the window counts all its CPU time, over
         * the time from the first scan's start to its read. */
        double du = tick_delta(e->utime, s ? s->utime : 0);
        double ds = tick_delta(e->stime, s ? s->stime : 0);
        double span = e->t_s - (s ? s->t_s : st->t_start);
        if (span > 0) {
            double scale = 100.0 / ((double)st->clk_tck * span);
            v->user_pct = du * scale;
            v->sys_pct = ds * scale;
            v->cpu_pct = (du + ds) * scale;
        } else {
            v->user_pct = v->sys_pct = v->cpu_pct = NAN;
        }
        /* Growth needs a start count; a newborn's initial fds are not growth.
         * Our own fds grow by design inside the window (BPF maps and links,
         * binaries opened by the symbolizers while draining): not a leak. */
        bool self = hostfs_is_real() && e->pid == getpid();
        if (s && s->fds >= 0 && e->fds >= 0 && !self) {
            v->has_growth = true;
            v->fd_growth = (double)(e->fds - s->fds);
            v->fd_growth_per_min = window > 0 ? v->fd_growth / (window / 60.0) : NAN;
        }
        v->fd_pct = NAN;
        if (e->fds >= 0 && e->fd_limit && e->fd_limit != UINT64_MAX)
            v->fd_pct = (double)e->fds / (double)e->fd_limit * 100.0;
        v->mem_pct = memtotal ? (double)e->rss_kib / (double)memtotal * 100.0 : NAN;
    }
    for (size_t i = 0; i < np; i++)
        idx[i] = &views[i];

    table_top_cpu(r, idx, np);
    table_top_mem(r, idx, np);
    table_fd(r, idx, np);
    dstate_to_model(st->ds, r);
    table_growth(r, st);
    if (target > 0)
        table_target(r, st, target, tv);

    report_metric(r, NM_PROC_COUNT, "Processes", "", "process", (double)np);
    report_metric(r, NM_PROC_THREADS, "Threads", "", "process", (double)st->end.threads);
    double davg = st->dticks ? st->dsum / (double)st->dticks : (double)st->end.dstate;
    double dmax = st->dticks ? st->dmax : (double)st->end.dstate;
    report_metric(r, NM_PROC_DSTATE, "Processes in D state (average)", "", "process", davg);
    report_metric(r, NM_PROC_DSTATE_MAX, "Processes in D state (max)", "", "process", dmax);
    report_metric(r, NM_PROC_ZOMBIES, "Zombie processes", "", "process", (double)st->end.zombies);
    report_metric(r, NM_PROC_SKIPPED, "Processes skipped (vanished or unreadable)", "", "process",
                  (double)(st->start.skipped + st->end.skipped));
    /* Said in the report, so a non-root run's fd findings are read as a lower bound. */
    if (st->end.unreadable)
        report_metric(r, NM_PROC_UNREADABLE,
                      "Processes not fully readable (other users'; run as root)", "", "process",
                      (double)st->end.unreadable);
    size_t ns = st->start.not_scanned > st->end.not_scanned ? st->start.not_scanned
                                                            : st->end.not_scanned;
    if (ns)
        report_metric(r, NM_PROC_NOT_SCANNED, "Processes not scanned (cap reached)", "", "process",
                      (double)ns);
    system_fd_metrics(r, st);
    /* Counted over the command lines the report shows, so the sentence in
     * the report matches what a reader sees. */
    kv_add(&r->host, "cmdline_redaction", "Command-line redaction",
           st->redact ? "on" : "off (--no-redact)");
    if (st->redact) {
        double red = 0;
        for (size_t i = 0; i < np; i++)
            if (views[i].listed)
                red += views[i].e->redacted;
        report_metric(r, NM_PRIVACY_REDACTED, "Command-line values redacted", "", "host", red);
    }
    free(idx);
    free(views);
    return 0;
}

static void procs_destroy(void *state)
{
    struct procs_state *st = state;
    if (!st)
        return;
    snapshot_free(&st->start);
    snapshot_free(&st->end);
    sb_free(&st->buf);
    sb_free(&st->rbuf);
    dstate_free(st->ds);
    rssgrowth_free(st->grow);
    free(st);
}

static bool procs_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    if (!hostfs_is_dir("/proc")) {
        snprintf(reason, n, "/proc is not mounted");
        return false;
    }
    return true;
}

const struct collector collector_procs = {
    .name = "procs",
    .title = "Processes",
    .needs_bpf = false,
    .can_run = procs_can_run,
    .start = procs_start,
    .tick = procs_tick,
    .stop = procs_stop,
    .destroy = procs_destroy,
};
