/* Collector "alloc": the target's allocations, through uprobes on its C
 * library (malloc, calloc, realloc, free, mmap, munmap).  Only with a target
 * (-p): a uprobe costs microseconds per call, far too much for every process.
 *
 * The target's libc (glibc or musl) is found in /proc/PID/maps and opened
 * through /proc/PID/map_files by kbpf/libc_find.c (the very file mapped,
 * whatever its path says or wherever its mount namespace is; a regular file
 * with the mapped inode only); the
 * probes attach by that fd and by pid, so only the target's calls run them.
 * Every tick estimates the target's slowdown (calls/s x ALLOC_COST_NS / the
 * target's CPU time); past
 * ALLOC_MAX_SLOWDOWN_PCT the probes come off at once and the report says
 * when and why.  stop() drains: bytes and calls per allocation site (profile
 * "alloc" and tables alloc.top_bytes / alloc.top_calls), and what was
 * allocated in the window and is still not freed, by site (alloc.not_freed),
 * with the not-freed bytes per tick as a series (the leak rule's input). */
#include "../model/model.h"
#include "../model/names.h"
#include "../model/profile.h"
#include "../util/growth.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "collector.h"
#include "../kbpf/kbpf.h"
#include "../kbpf/libc_find.h"
#include "../stacks/stack_top.h"
#include "../stacks/stacks.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../bpf/alloc.h"
#include "alloc.skel.h"

/* CPU cost to the target of one traced call (the uprobe and uretprobe
 * traps, a user stack walk, two map updates), measured by
 * bench/alloc_bench.sh on the development VM (bench/RESULTS.md: ~19.5 us
 * there, where traps are slow); the slowdown estimate uses it. */
#define ALLOC_COST_NS 19500.0
#define ALLOC_MAX_SLOWDOWN_PCT 5.0
#define ALLOC_TOP_ROWS 15
#define ALLOC_MAX_TARGETS 64
#define ALLOC_NPROBES 10
#define ALLOC_MAPS_MAX (16u << 20) /* bytes of the target's /proc/PID/maps read */

static const struct {
    const char *func;
    bool ret;
    size_t prog; /* index into progs() */
} probes[ALLOC_NPROBES] = {
    {"malloc", false, 0}, {"malloc", true, 1},  {"calloc", false, 2}, {"calloc", true, 3},
    {"realloc", false, 4}, {"realloc", true, 5}, {"free", false, 6},  {"mmap", false, 7},
    {"mmap", true, 8},    {"munmap", false, 9},
};

struct alloc_target {
    pid_t pid;
    int libc_fd;              /* the mapped libc, from map_files; -1 when none */
    char libc[PATH_MAX];      /* its path as the target's maps show it */
    struct bpf_link *links[ALLOC_NPROBES];
    /* A command is attached before its exec, to the libc of perfreport's
     * image; the ticks after check the program's own (check_command). */
    bool checked;             /* the libc probed is the running program's */
    bool missed_once;         /* a tick saw the program map no libc yet */
    bool no_libc;             /* it maps none: static; its probes are off */
    bool reattached;          /* it maps another libc: the probes moved there */
    bool remote;              /* its libc is on FUSE or NFS: not opened, probes off */
};

struct alloc_state {
    struct alloc_bpf *skel;   /* owned */
    struct alloc_target *t;   /* owned, nt entries */
    size_t nt;
    size_t attached;          /* probes attached over all targets */
    bool detached;            /* the probes are off (by the slowdown guard or at end) */
    double detached_at_s;     /* window time the guard took them off; NAN when it did not */
    double detach_est_pct;    /* the estimate that made it */
    uint64_t last_calls;      /* calls at the last tick */
    double last_t;            /* collector clock at the last tick */
    double t_begin;
    double traced_s;          /* window time with the probes on */
    uint64_t traced_calls;
    double traced_cpu_s;      /* the targets' CPU time in those ticks */
    double cpu_s;             /* the targets' utime+stime at the last tick (NAN: unread) */
    struct series *live;      /* not-freed KiB per tick (borrowed from the model) */
    struct series *rate;      /* calls/s per tick */
    bool sym_ref;             /* holds a stacks_sym_acquire() reference */
    double max_slowdown;      /* the guard's limit, % */
};

static struct bpf_program *prog_at(struct alloc_bpf *s, size_t i)
{
    struct bpf_program *p[] = {s->progs.malloc_enter,  s->progs.malloc_exit,
                               s->progs.calloc_enter,  s->progs.calloc_exit,
                               s->progs.realloc_enter, s->progs.realloc_exit,
                               s->progs.free_enter,    s->progs.mmap_enter,
                               s->progs.mmap_exit,     s->progs.munmap_enter};
    return i < sizeof p / sizeof p[0] ? p[i] : NULL;
}

/* Finds the C library pid maps and opens it (kbpf/libc_find.h: *fd, its
 * path as the maps show it in path).  0; -ENOENT when pid maps none;
 * -EREMOTE when only one on FUSE or NFS; else -errno with err set. */
static int find_libc(pid_t pid, int *fd_out, char *path, size_t path_len, char *err, size_t n)
{
    struct libc_scan sc;
    int rc = libc_scan_open(&sc, pid, ALLOC_MAPS_MAX);
    if (rc) {
        snprintf(err, n, "pid %d: /proc/%d/maps: %s", (int)pid, (int)pid, strerror(-rc));
        return rc;
    }
    rc = -ENOENT;
    struct libc_map m;
    while (libc_scan_next(&sc, &m)) {
        if (libc_scan_remote(&sc, &m)) {
            rc = -EREMOTE;
            continue;
        }
        int fd = libc_open_mapped(pid, &m);
        if (fd < 0) {
            rc = -errno;
            continue;
        }
        *fd_out = fd;
        snprintf(path, path_len, "%s", m.path);
        rc = 0;
        break;
    }
    libc_scan_close(&sc);
    if (rc == -EREMOTE)
        snprintf(err, n, "pid %d maps its C library from a FUSE or network filesystem, which "
                 "may never answer: not opened", (int)pid);
    else if (rc == -ENOENT)
        snprintf(err, n, "pid %d maps no C library (libc.so): static or not glibc/musl-linked",
                 (int)pid);
    else if (rc)
        snprintf(err, n, "pid %d: opening its libc through map_files: %s", (int)pid,
                 strerror(-rc));
    return rc;
}

static int open_libc(struct alloc_target *t, char *err, size_t n)
{
    return find_libc(t->pid, &t->libc_fd, t->libc, sizeof t->libc, err, n);
}

static int attach_target(struct alloc_state *st, struct alloc_target *t, char *err, size_t n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", t->libc_fd);
    for (size_t i = 0; i < ALLOC_NPROBES; i++) {
        LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = probes[i].func, .retprobe = probes[i].ret);
        t->links[i] = bpf_program__attach_uprobe_opts(prog_at(st->skel, probes[i].prog), t->pid,
                                                     path, 0, &o);
        if (!t->links[i]) {
            int e = errno ? errno : EINVAL;
            snprintf(err, n, "pid %d: uprobe on %s%s in %s: %s", (int)t->pid, probes[i].func,
                     probes[i].ret ? " (return)" : "", t->libc, strerror(e));
            return -e;
        }
        st->attached++;
    }
    return 0;
}

/* Takes t's probes off; returns how many there were.  st->attached (the
 * ledger's "probes on N processes") keeps counting them. */
static size_t detach_target(struct alloc_target *t)
{
    size_t n = 0;
    for (size_t i = 0; i < ALLOC_NPROBES; i++) {
        n += t->links[i] != NULL;
        bpf_link__destroy(t->links[i]); /* NULL is fine */
        t->links[i] = NULL;
    }
    return n;
}

static void detach_all(struct alloc_state *st)
{
    for (size_t k = 0; k < st->nt; k++)
        detach_target(&st->t[k]);
    st->detached = true;
}

/* A command's probes were attached before its exec, to the C library
 * perfreport's image maps.  Once the program runs: the same file (the
 * usual case), confirmed; another one (a different glibc or musl), the
 * probes move there; none (statically linked) on two ticks in a row (the
 * dynamic loader maps libc just after exec), they come off and the report
 * says why nothing was seen. */
static void check_command(struct alloc_state *st, struct alloc_target *t)
{
    if (!hostfs_pid_runs_other_program((int)t->pid))
        return; /* not exec'd yet, or gone: the next tick looks again */
    int fd = -1;
    char path[PATH_MAX], err[PATH_MAX + 128];
    int rc = find_libc(t->pid, &fd, path, sizeof path, err, sizeof err);
    if (rc == -EREMOTE) {
        st->attached -= detach_target(t);
        t->remote = t->no_libc = t->checked = true;
        return;
    }
    if (rc == -ENOENT) {
        if (!t->missed_once) {
            t->missed_once = true;
            return;
        }
        st->attached -= detach_target(t);
        t->no_libc = t->checked = true;
        return;
    }
    if (rc)
        return;
    struct stat a, b;
    t->checked = true;
    if (fstat(fd, &a) == 0 && fstat(t->libc_fd, &b) == 0 && a.st_dev == b.st_dev &&
        a.st_ino == b.st_ino) {
        close(fd);
        return;
    }
    st->attached -= detach_target(t);
    close(t->libc_fd);
    t->libc_fd = fd;
    snprintf(t->libc, sizeof t->libc, "%s", path);
    t->reattached = true;
    if (attach_target(st, t, err, sizeof err) != 0) {
        st->attached -= detach_target(t);
        t->no_libc = true; /* said as "no probes" below */
    }
}

/* The targets' user+system CPU seconds (NAN when none could be read). */
static double targets_cpu_s(const struct alloc_state *st)
{
    double sum = NAN;
    long hz = sysconf(_SC_CLK_TCK);
    for (size_t k = 0; k < st->nt; k++) {
        struct strbuf sb = STRBUF_INIT;
        if (hostfs_readf(&sb, 4096, "/proc/%d/stat", (int)st->t[k].pid) == 0) {
            const char *p = strrchr(sb_str(&sb), ')');
            unsigned long long ut, stime;
            /* after ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
            if (p && sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
                            &stime) == 2 && hz > 0)
                sum = (isnan(sum) ? 0 : sum) + (double)(ut + stime) / (double)hz;
        }
        sb_free(&sb);
    }
    return sum;
}

static int read_stats(struct alloc_state *st, uint64_t out[AS_NSTATS])
{
    int ncpu = libbpf_num_possible_cpus();
    if (ncpu <= 0)
        return -EINVAL;
    uint64_t *v = xcalloc((size_t)ncpu, sizeof *v);
    int rc = 0;
    for (__u32 k = 0; k < AS_NSTATS && rc == 0; k++) {
        out[k] = 0;
        rc = bpf_map_lookup_elem(bpf_map__fd(st->skel->maps.stats), &k, v) ? -errno : 0;
        for (int i = 0; rc == 0 && i < ncpu; i++)
            out[k] += v[i];
    }
    free(v);
    return rc;
}

static uint64_t calls_of(const uint64_t s[AS_NSTATS])
{
    uint64_t c = 0;
    for (int i = 0; i < AF_NFN; i++)
        c += s[AS_CALLS + i];
    return c;
}

static bool alloc_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    if (!ctx->cfg || (ctx->cfg->pid <= 0 && ctx->cfg->npids == 0)) {
        snprintf(reason, n, "needs a target process (-p PID): a uprobe on malloc/free costs "
                            "microseconds per call, too much to put on every process");
        return false;
    }
    if (ctx->caps && !ctx->caps->is_root) {
        snprintf(reason, n, "needs root for uprobes");
        return false;
    }
    return true;
}

static int alloc_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct alloc_state *st = xcalloc(1, sizeof *st);
    *state = st;
    st->detached_at_s = NAN;
    st->cpu_s = NAN;
    st->max_slowdown = ALLOC_MAX_SLOWDOWN_PCT;
    /* bench/alloc_bench.sh measures the cost per call with the guard off */
    const char *g = getenv("PERFREPORT_ALLOC_MAX_SLOWDOWN_PCT");
    if (g && *g) {
        char *end;
        double v = strtod(g, &end);
        if (*end == '\0' && v > 0)
            st->max_slowdown = v;
    }
    /* The target as a set of pids: the runner's set, or -p's one. */
    pid_t one = ctx->cfg ? ctx->cfg->pid : 0;
    const pid_t *pids = ctx->cfg && ctx->cfg->npids ? ctx->cfg->pids : &one;
    size_t np = ctx->cfg && ctx->cfg->npids ? ctx->cfg->npids : one > 0;
    if (np > ALLOC_MAX_TARGETS) {
        snprintf(err, n, "%zu target processes: at most %d are traced", np, ALLOC_MAX_TARGETS);
        return -E2BIG;
    }
    st->t = xcalloc(np ? np : 1, sizeof *st->t);
    for (size_t k = 0; k < np; k++)
        if (pids[k] > 0)
            st->t[st->nt++] = (struct alloc_target){.pid = pids[k], .libc_fd = -1};
    stacks_sym_acquire(ctx->cfg);
    st->sym_ref = true;
    st->skel = alloc_bpf__open();
    if (!st->skel) {
        int e = errno ? errno : EINVAL;
        snprintf(err, n, "opening the allocation BPF object failed: %s", strerror(e));
        return -e;
    }
    kbpf_alloc_on_insert(st->skel->maps.sites);
    int rc = alloc_bpf__load(st->skel);
    if (rc) {
        snprintf(err, n, "loading the allocation BPF programs failed: %s", strerror(-rc));
        return rc;
    }
    for (size_t k = 0; k < st->nt; k++) {
        rc = open_libc(&st->t[k], err, n);
        if (rc == 0)
            rc = attach_target(st, &st->t[k], err, n);
        if (rc)
            return rc;
        st->t[k].checked = !ctx->cfg->follow_children; /* a command has not exec'd yet */
    }
    st->live = report_series(ctx->r, NM_ALLOC_NOT_FREED_KIB, "Allocated in the window, not freed",
                             "KiB", "memory");
    st->live->chart = true;
    st->rate = report_series(ctx->r, NM_ALLOC_CALLS_PER_S, "Allocation calls", "/s", "memory");
    return 0;
}

static int alloc_begin(struct collect_ctx *ctx, void *state)
{
    struct alloc_state *st = state;
    uint64_t s[AS_NSTATS];
    if (read_stats(st, s) == 0)
        st->last_calls = calls_of(s); /* calls before the window are not the window's */
    st->t_begin = st->last_t = collect_clock_s(ctx);
    st->skel->bss->recording = true;
    st->cpu_s = targets_cpu_s(st);
    return 0;
}

static int alloc_tick(struct collect_ctx *ctx, void *state)
{
    struct alloc_state *st = state;
    uint64_t s[AS_NSTATS];
    if (read_stats(st, s) != 0)
        return 0;
    if (st->detached || st->nt == 0)
        return 0; /* the trend covers the traced time only */
    for (size_t k = 0; k < st->nt; k++)
        if (!st->t[k].checked)
            check_command(st, &st->t[k]);
    double now = collect_clock_s(ctx);
    series_set(ctx->r, st->live, (double)(int64_t)s[AS_LIVE_BYTES] / 1024.0);
    uint64_t calls = calls_of(s);
    double dt = now - st->last_t;
    double cpu = targets_cpu_s(st), dcpu = cpu - st->cpu_s;
    uint64_t dc = calls - st->last_calls;
    if (dt > 0)
        series_set(ctx->r, st->rate, (double)dc / dt);
    st->traced_s += dt;
    st->traced_calls += dc;
    if (!isnan(dcpu) && dcpu > 0)
        st->traced_cpu_s += dcpu;
    st->last_calls = calls;
    st->last_t = now;
    st->cpu_s = cpu;
    /* The probes' time is part of the target's CPU time: the estimate is
     * the share of it they took. */
    double est = !isnan(dcpu) && dcpu > 0 ? 100.0 * (double)dc * ALLOC_COST_NS / 1e9 / dcpu : 0;
    if (est > st->max_slowdown) {
        detach_all(st);
        st->detached_at_s = ctx->now_s;
        st->detach_est_pct = est;
    }
    return 0;
}

static int alloc_end(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct alloc_state *st = state;
    st->skel->bss->recording = false;
    if (!st->detached)
        detach_all(st);
    return 0;
}

struct site_row {
    struct alloc_site_key k;
    struct alloc_site v;
};

static int by_key(const void *a, const void *b)
{
    const struct alloc_site_key *x = a, *y = b;
    if (x->tgid != y->tgid)
        return x->tgid < y->tgid ? -1 : 1;
    return (x->ustack > y->ustack) - (x->ustack < y->ustack);
}

static const struct col_spec top_cols[] = {
    {"pid", "PID", "", 0},          {"process", "Process", "", 0},
    {"function", "Function", "", 0}, {"bytes", "Bytes", "", 0},
    {"calls", "Calls", "", 0},      {"share_pct", "Share", "%", 1},
    {"stack", "Stack (leaf first)", "", 0},
};

static void site_table(struct report *r, const char *name, const char *title, struct site_row *rows,
                       size_t n, struct stack_resolver *sr, bool by_calls, const char *note)
{
    struct table *t = report_table(r, name, title, "memory");
    table_add_cols(t, top_cols, ARRAY_LEN(top_cols));
    struct stack_top *top = stack_top_new(n);
    for (size_t i = 0; i < n; i++) {
        char comm[ALLOC_COMM_LEN + 1];
        memcpy(comm, rows[i].v.comm, ALLOC_COMM_LEN);
        comm[ALLOC_COMM_LEN] = '\0';
        double b = (double)rows[i].v.bytes, c = (double)rows[i].v.count;
        stack_top_set(top, i, rows[i].k.tgid, comm, STACK_ID_NONE, rows[i].k.ustack,
                      by_calls ? c : b, by_calls ? b : c);
    }
    stack_top_fill(top, sr, t, by_calls ? "calls" : "bytes", by_calls ? "bytes" : "calls",
                   ALLOC_TOP_ROWS);
    stack_top_free(top);
    if (note)
        table_set_note(t, note);
}

/* Not-freed bytes: least-squares slope (KiB/s) over the ticks, and the
 * share of intervals in which they rose. */
static void growth(const struct report *r, const struct series *s, double *slope, double *rise_pct)
{
    growth_fit(r->ticks, s->v, s->n < r->nticks ? s->n : r->nticks, slope, rise_pct);
}

static int alloc_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    struct alloc_state *st = state;
    struct report *r = ctx->r;
    if (!st->detached)
        detach_all(st);
    uint64_t s[AS_NSTATS];
    int rc = read_stats(st, s);
    if (rc) {
        snprintf(err, n, "reading the allocation counters failed: %s", strerror(-rc));
        return rc;
    }
    struct ledger_entry *led = report_ledger(r, "alloc", NULL);
    struct symbolizer *sym = stacks_sym_get();
    struct stack_resolver *sr =
        stack_resolver_new(sym, bpf_map__fd(st->skel->maps.stackmap), STACKS_USER_PER_PID);
    /* sites */
    struct site_row *rows = NULL;
    size_t nrows = 0, cap = 0;
    struct alloc_site_key sk;
    struct alloc_site sv;
    struct kbpf_walk sw = KBPF_WALK_INIT(bpf_map__fd(st->skel->maps.sites));
    while (kbpf_walk_next(&sw, &sk, sizeof sk, &sv)) {
        if (!sv.count)
            continue;
        xgrow(&rows, &cap, nrows + 1, sizeof *rows);
        rows[nrows++] = (struct site_row){sk, sv};
    }
    if (nrows > 1)
        qsort(rows, nrows, sizeof *rows, by_key);
    struct profile *p = profile_new("alloc", "Allocated bytes", "bytes");
    uint64_t bytes = 0;
    for (size_t i = 0; i < nrows; i++) {
        char comm[ALLOC_COMM_LEN + 1];
        memcpy(comm, rows[i].v.comm, ALLOC_COMM_LEN);
        comm[ALLOC_COMM_LEN] = '\0';
        if (rows[i].v.bytes)
            stack_resolver_add(sr, p, rows[i].k.tgid, comm, STACK_ID_NONE, rows[i].k.ustack,
                               rows[i].v.bytes);
        bytes += rows[i].v.bytes;
    }
    /* not freed: live entries (up to ALLOC_MAX_LIVE), sorted by site and
     * summed per site in place */
    struct site_row *nf = NULL;
    size_t nnf = 0, capnf = 0;
    uint64_t nf_bytes = 0, nf_count = 0;
    struct alloc_live_key lk;
    struct alloc_live lv;
    struct kbpf_walk w = KBPF_WALK_INIT(bpf_map__fd(st->skel->maps.live));
    while (kbpf_walk_next(&w, &lk, sizeof lk, &lv)) {
        xgrow(&nf, &capnf, nnf + 1, sizeof *nf);
        memset(&nf[nnf], 0, sizeof *nf);
        nf[nnf].k = (struct alloc_site_key){.tgid = lk.tgid, .ustack = lv.ustack};
        nf[nnf].v.bytes = lv.size;
        nf[nnf].v.count = 1;
        nnf++;
        nf_bytes += lv.size;
        nf_count++;
    }
    if (nnf > 1)
        qsort(nf, nnf, sizeof *nf, by_key);
    size_t nsites = 0;
    for (size_t i = 0; i < nnf; i++) {
        if (nsites && by_key(&nf[nsites - 1].k, &nf[i].k) == 0) {
            nf[nsites - 1].v.bytes += nf[i].v.bytes;
            nf[nsites - 1].v.count += nf[i].v.count;
            continue;
        }
        nf[nsites] = nf[i];
        const struct site_row *site = bsearch(&nf[nsites].k, rows, nrows, sizeof *rows, by_key);
        if (site)
            memcpy(nf[nsites].v.comm, site->v.comm, sizeof nf[nsites].v.comm);
        nsites++;
    }
    nnf = nsites;
    double secs = st->traced_s;
    struct strbuf note = STRBUF_INIT;
    sb_add(&note, "uprobes on malloc, calloc, realloc, free, mmap and munmap of the C library "
                  "each target maps (");
    for (size_t k = 0; k < st->nt; k++)
        sb_addf(&note, "%spid %d: %s", k ? ", " : "", (int)st->t[k].pid,
                st->t[k].no_libc ? "none" : st->t[k].libc);
    sb_add(&note, ")");
    for (size_t k = 0; k < st->nt; k++) {
        const struct alloc_target *t = &st->t[k];
        if (t->remote)
            sb_addf(&note, "; pid %d maps its C library from a FUSE or network filesystem, "
                           "which may never answer: not probed", (int)t->pid);
        else if (t->no_libc && !t->reattached)
            sb_addf(&note, "; pid %d maps no C library once its program runs (statically "
                           "linked, or another libc than glibc or musl): its allocations "
                           "are not seen", (int)t->pid);
        else if (t->no_libc)
            sb_addf(&note, "; pid %d maps another C library than perfreport's, %s, and the "
                           "probes could not be moved there: its allocations are not seen",
                    (int)t->pid, t->libc);
        else if (t->reattached)
            sb_addf(&note, "; pid %d maps another C library than perfreport's: the probes "
                           "moved there once its program ran", (int)t->pid);
        else if (!t->checked)
            sb_addf(&note, "; pid %d ended before its program's C library could be checked "
                           "against the one probed (a statically linked command shows no "
                           "allocations)", (int)t->pid);
    }
    sb_addf(&note, "; traced for %.1f s", secs);
    if (!isnan(st->detached_at_s))
        sb_addf(&note, ", then detached by itself %.1f s into the window: the estimated "
                       "slowdown of the target reached %.1f %% (> %.0f %%)",
                st->detached_at_s, st->detach_est_pct, st->max_slowdown);
    sb_add(&note, ". Stacks are taken where each call returns (the caller's stack).");
    site_table(r, NM_ALLOC_TOP_BYTES, "Allocation sites by bytes", rows, nrows, sr, false,
               sb_str(&note));
    site_table(r, NM_ALLOC_TOP_CALLS, "Allocation sites by calls", rows, nrows, sr, true, NULL);
    sb_reset(&note);
    sb_addf(&note, "Allocated in the window and not freed by its end: %" PRIu64 " allocations, "
                   "%" PRIu64 " bytes (kept per address in a map of %d entries",
            nf_count, nf_bytes, ALLOC_MAX_LIVE);
    if (s[AS_LIVE_DROPPED])
        sb_addf(&note, "; %" PRIu64 " allocations (%" PRIu64 " bytes) did not fit and are not "
                       "here", s[AS_LIVE_DROPPED], s[AS_LIVE_DROPPED_B]);
    sb_add(&note, "). Memory freed later, or kept on purpose (caches, pools), looks the same "
                  "here: the trend of the not-freed bytes over the window tells them apart.");
    site_table(r, NM_ALLOC_NOT_FREED, "Allocated in the window and not freed (by site)", nf, nnf,
               sr, false, sb_str(&note));
    sb_free(&note);
    free(nf);
    free(rows);
    if (profile_total(p) > 0)
        report_add_profile(r, p);
    else
        profile_free(p);

    uint64_t calls = st->traced_calls;
    report_metric(r, NM_ALLOC_BYTES, "Bytes allocated (traced)", "B", "memory", (double)bytes);
    report_metric(r, NM_ALLOC_CALLS, "Allocation calls (traced, all six functions)", "",
                  "memory", (double)calls);
    if (secs > 0) {
        report_metric(r, NM_ALLOC_CALLS_PER_S, "Allocation calls per second (traced)", "/s", "memory",
                      (double)calls / secs);
        report_metric(r, NM_ALLOC_KIB_PER_S, "Allocated per second (traced)", "KiB/s",
                      "memory", (double)bytes / 1024.0 / secs);
    }
    if (st->traced_cpu_s > 0)
        report_metric(r, NM_ALLOC_EST_SLOWDOWN_PCT, "Estimated slowdown of the target by the "
                      "probes", "%", "memory",
                      100.0 * (double)calls * ALLOC_COST_NS / 1e9 / st->traced_cpu_s);
    report_metric(r, NM_ALLOC_DETACHED, "Probes detached early (slowdown guard)", "", "memory",
                  isnan(st->detached_at_s) ? 0 : 1);
    report_metric(r, NM_ALLOC_NOT_FREED_BYTES, "Allocated in the window, not freed", "B",
                  "memory", (double)nf_bytes);
    report_metric(r, NM_ALLOC_LIVE_DROPPED, "Allocations not kept (live map full)", "",
                  "memory", (double)s[AS_LIVE_DROPPED]);
    double slope, rise;
    growth(r, st->live, &slope, &rise);
    if (!isnan(slope))
        report_metric(r, NM_ALLOC_NOT_FREED_GROWTH, "Growth of the not-freed bytes", "KiB/s",
                      "memory", slope);
    if (!isnan(rise))
        report_metric(r, NM_ALLOC_NOT_FREED_RISE_PCT, "Intervals in which the not-freed bytes "
                      "rose", "%", "memory", rise);

    if (!isnan(st->detached_at_s))
        ledger_note(led, "detached by itself %.1f s into the window: estimated slowdown %.1f %% "
                    "> %.0f %% (%.0f ns per call)",
                    st->detached_at_s, st->detach_est_pct, st->max_slowdown, ALLOC_COST_NS);
    if (s[AS_LIVE_DROPPED])
        ledger_note(led, "%" PRIu64 " allocations not kept for the not-freed table: the map "
                    "(%d entries) was full", s[AS_LIVE_DROPPED], ALLOC_MAX_LIVE);
    if (s[AS_SITE_DROPPED])
        ledger_note(led, "%" PRIu64 " allocations not counted by site: the site map (%d) was full",
                    s[AS_SITE_DROPPED], ALLOC_MAX_SITES);
    ledger_note(led, "%zu probes on %zu process%s; %" PRIu64 " frees of memory allocated "
                "before the window", st->attached, st->nt, st->nt == 1 ? "" : "es",
                s[AS_FREE_UNKNOWN]);
    stack_resolver_free(sr);
    stacks_sym_release();
    st->sym_ref = false;
    return 0;
}

static void alloc_destroy(void *state)
{
    struct alloc_state *st = state;
    if (!st)
        return;
    detach_all(st);
    for (size_t k = 0; k < st->nt; k++)
        if (st->t[k].libc_fd >= 0)
            close(st->t[k].libc_fd);
    if (st->sym_ref)
        stacks_sym_release();
    alloc_bpf__destroy(st->skel);
    free(st->t);
    free(st);
}

const struct collector collector_alloc = {
    .name = "alloc",
    .title = "Allocation profile (BPF uprobes on the target's libc)",
    .needs_bpf = true,
    .can_run = alloc_can_run,
    .start = alloc_start,
    .begin = alloc_begin,
    .tick = alloc_tick,
    .end = alloc_end,
    .stop = alloc_stop,
    .destroy = alloc_destroy,
};
