/* Collector "profile": samples every online CPU with a software cpu-clock
 * perf event; a BPF program aggregates (process, kernel stack, user stack)
 * counts in the kernel.  stop() drains once, symbolizes through the stack
 * resolver into profile "cpu" and summarises it into tables. */
#include "profile.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../model/profile.h"
#include "../util/clock.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "collector.h"
#include "../model/profile_summary.h"
#include "../kbpf/kbpf.h"
#include "../kbpf/sampled.h"
#include "../stacks/stack_prefetch.h"
#include "../stacks/stack_time.h"
#include "../stacks/stacks.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../bpf/profile.h"
#include "../../bpf/threads.h"
#include "../kbpf/threads_tables.h"
#include "profile.skel.h"

_Static_assert(PROF_STACK_NONE == STACK_ID_NONE, "BPF and resolver disagree on 'no stack'");

struct prof_state {
    struct profile_bpf *skel; /* owned */
    struct kbpf_sampled ev;   /* the cpu-clock events and their links */
    int hz;
    bool sym_ref;             /* holds a stacks_sym_acquire() reference */
    struct stack_prefetch *pf; /* owned: stacks resolved during the window */
    struct bpf_link *fork_link; /* owned: follows the target's children, or NULL */
    char *scope_note;         /* why the target filter is not applied, or NULL */
    char *scope;              /* "pid 12", "cgroup /x", "system-wide" */
    double begin_ms, end_ms;  /* sampling switched on and off (mono_ms), 0 = not yet */
    struct stack_time *time;  /* owned: the keys' samples per second */
    double read_s;            /* the window time of its last reading */
    double bucket_s;          /* its buckets' width (stack_time_bucket_width of -i) */
    double interval_s;        /* -i: the ticks' spacing (0: unknown, every tick reads) */
};

uint32_t profile_stack_entries(int hz, int ncpu, double window_s)
{
    if (hz <= 0 || ncpu <= 0 || !(window_s > 0))
        return PROF_MAX_STACKS;
    double want = 4.0 * hz * ncpu * window_s; /* two stacks a sample, half full */
    uint32_t n = PROF_MIN_STACKS;
    while (n < PROF_MAX_STACKS && n < want)
        n *= 2;
    return n;
}

/* Sets the cgroup filter or explains (scope_note) why it is system-wide. */
static void setup_cgroup(struct prof_state *st, const struct collect_ctx *ctx)
{
    uint64_t cgid;
    if (kbpf_sampled_cgroup_filter(ctx, "the CPU profile", &cgid, &st->scope, &st->scope_note)) {
        st->skel->rodata->filter_cg = true;
        st->skel->rodata->targ_cgid = cgid;
    }
}

static int prof_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct prof_state *st = xcalloc(1, sizeof *st);
    *state = st;
    st->hz = ctx->cfg && ctx->cfg->hz > 0 ? ctx->cfg->hz : 49;
    int rc = kbpf_sampled_init(&st->ev, err, n);
    if (rc)
        return rc;
    stacks_sym_acquire(ctx->cfg); /* kallsyms loads during the window */
    st->sym_ref = true;
    st->skel = profile_bpf__open();
    if (!st->skel) {
        int e = errno ? errno : EINVAL;
        snprintf(err, n, "opening the profile BPF object failed: %s", strerror(e));
        return -e;
    }
    kbpf_alloc_on_insert(st->skel->maps.counts); /* a key per new (process, stacks) */
    kbpf_alloc_on_insert(st->skel->maps.stackmap);
    bpf_map__set_max_entries(st->skel->maps.stackmap,
                             profile_stack_entries(st->hz, st->ev.ncpu, ctx->cfg->window_s));
    bool follow = ctx->cfg && ctx->cfg->pid > 0 && ctx->cfg->follow_children;
    bpf_program__set_autoload(st->skel->progs.on_fork, follow);
    if (!follow)
        kbpf_map_unused(st->skel->maps.followed);
    if (!ctx->cfg || ctx->cfg->pid <= 0)
        kbpf_map_unused(st->skel->maps.tid_samples); /* threads of a target only */
    if (ctx->cfg && ctx->cfg->pid > 0) {
        st->skel->rodata->targ_tgid = (__u32)ctx->cfg->pid;
        st->skel->rodata->follow_children = follow;
        st->scope = xasprintf(follow ? "pid %d and its descendants" : "pid %d",
                              (int)ctx->cfg->pid);
    } else if (ctx->cfg && ctx->cfg->cgroup) {
        setup_cgroup(st, ctx);
    }
    if (!st->scope)
        st->scope = xstrdup("system-wide");
    rc = profile_bpf__load(st->skel);
    if (rc) {
        snprintf(err, n, "loading the profile BPF program failed: %s", strerror(-rc));
        return rc;
    }
    kbpf_warm_alloc(st->skel->maps.stackmap);
    if (follow) {
        /* Before the events: a child forked once sampling starts is followed. */
        st->fork_link = bpf_program__attach(st->skel->progs.on_fork);
        if (!st->fork_link) {
            int e = errno;
            free(st->scope_note);
            st->scope_note = xasprintf("the command's children are not followed (attaching "
                                       "to sched_process_fork failed: %s)", strerror(e));
        }
    }
    st->pf = stack_prefetch_new(bpf_map__fd(st->skel->maps.stackmap), STACKS_USER_PER_PID);
    st->time = stack_time_new(sizeof(struct prof_key), PROF_MAX_KEYS, STACK_TIME_MAX_CELLS,
                              STACK_TIME_MAX_BUCKETS);
    st->interval_s = ctx->cfg ? ctx->cfg->interval_s : 0;
    st->bucket_s = stack_time_bucket_width(st->interval_s);
    return kbpf_sampled_attach(&st->ev, st->skel->progs.on_sample, PERF_COUNT_SW_CPU_CLOCK,
                               (uint64_t)st->hz, "CPU", err, n);
}

static void detach(struct prof_state *st)
{
    if (st->begin_ms > 0 && !(st->end_ms > 0))
        st->end_ms = mono_ms();
    if (st->fork_link) {
        bpf_link__destroy(st->fork_link);
        st->fork_link = NULL;
    }
    kbpf_sampled_detach(&st->ev);
}

/* Notes each key's samples since the last reading in their bucket, and
 * hands the stacks seen so far to the prefetcher, so that they are resolved
 * while their processes live (see stack_prefetch.h).  Under 1 s ticks, only
 * the last tick of a bucket reads (stack_time_read_due): the prefetcher
 * gets the keys at most a bucket later. */
static int prof_tick(struct collect_ctx *ctx, void *state)
{
    struct prof_state *st = state;
    if (!stack_time_read_due(st->read_s, ctx->now_s, st->interval_s, st->bucket_s))
        return 0;
    bool pf = stack_prefetch_ready(st->pf); /* false: this tick's keys wait */
    uint32_t bucket = stack_time_bucket_of(st->read_s, ctx->now_s, st->bucket_s);
    st->read_s = ctx->now_s;
    int cfd = bpf_map__fd(st->skel->maps.counts);
    struct prof_key key;
    uint64_t c;
    struct kbpf_walk w = KBPF_WALK_INIT(cfd);
    while (kbpf_walk_next(&w, &key, sizeof key, &c)) {
        stack_time_observe(st->time, &key, c, bucket);
        if (pf)
            stack_prefetch_add(st->pf, key.tgid, key.kstack, key.ustack);
    }
    if (pf)
        stack_prefetch_run(st->pf);
    return 0;
}

static const char *module_cb(void *ctx, const char *name, int kind)
{
    return stack_resolver_module(ctx, name, kind);
}

static void note_missing(struct ledger_entry *led, const char *what, const uint64_t *m)
{
    for (int i = 0; i < STACK_MISS_COUNT; i++)
        if (m[i])
            ledger_note(led, "%llu sample%s without %s stack (%s)", (unsigned long long)m[i],
                        m[i] == 1 ? "" : "s", what, stack_miss_name((enum stack_miss)i));
}

static int prof_begin(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct prof_state *st = state;
    int rc = kbpf_sampled_enable(&st->ev, false);
    st->begin_ms = mono_ms();
    return rc;
}

static int prof_end(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    detach(state);
    return 0;
}

/* -p: one thread's samples (bpf/threads.h) as a threads.oncpu row */
static bool oncpu_row(const void *key, const void *val, void *elem, void *ctx)
{
    (void)ctx;
    const struct thread_samples *s = val;
    struct thread_val *t = elem;
    *t = (struct thread_val){.tid = *(const uint32_t *)key, .count = s->count};
    memcpy(t->comm, s->comm, sizeof t->comm);
    return true;
}

/* One drained key: (process, thread, stacks) and its samples. */
struct kc {
    struct prof_key k;
    uint64_t c;
};

/* A process's samples under the comm most of them carried. */
struct proc_samples {
    uint32_t tgid;
    const char *comm; /* into a kc's key */
    uint64_t n, best;
};

static int ps_by_tgid_comm(const void *a, const void *b)
{
    const struct proc_samples *x = a, *y = b;
    if (x->tgid != y->tgid)
        return x->tgid < y->tgid ? -1 : 1;
    return strncmp(x->comm, y->comm, PROF_COMM_LEN);
}

static int ps_by_comm(const void *a, const void *b)
{
    const struct proc_samples *x = a, *y = b;
    int c = strncmp(x->comm, y->comm, PROF_COMM_LEN);
    return c ? c : (y->n > x->n) - (y->n < x->n);
}

struct cmd_row {
    const struct proc_samples *first; /* its busiest process */
    size_t procs;
    uint64_t n;
};

static int cr_by_samples(const void *a, const void *b)
{
    const struct cmd_row *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return strncmp(x->first->comm, y->first->comm, PROF_COMM_LEN);
}

/* profile.by_command: samples per command, the processes that ran it
 * counted, so that many short-lived processes (a build's compilers, a
 * loop's tools) read as one workload.  A process is counted under the comm
 * most of its samples carried (threads may rename themselves). */
static void fill_by_command(struct report *r, const struct kc *keys, size_t nkeys, int hz,
                            double secs)
{
    struct proc_samples *ps = xcalloc(nkeys ? nkeys : 1, sizeof *ps);
    size_t np = 0;
    uint32_t self = (uint32_t)getpid(); /* its own CPU is in self.*, never a culprit */
    for (size_t i = 0; i < nkeys; i++)
        if (keys[i].k.tgid != self)
            ps[np++] = (struct proc_samples){keys[i].k.tgid, keys[i].k.comm, keys[i].c,
                                             keys[i].c};
    if (np)
        qsort(ps, np, sizeof *ps, ps_by_tgid_comm);
    size_t m = 0; /* merge a process's keys; the comm with the most samples wins */
    for (size_t i = 0; i < np;) {
        struct proc_samples acc = {ps[i].tgid, ps[i].comm, 0, 0};
        size_t j = i;
        while (j < np && ps[j].tgid == acc.tgid) {
            size_t k = j; /* a run of one comm */
            uint64_t same = 0;
            for (; k < np && ps[k].tgid == acc.tgid &&
                   strncmp(ps[k].comm, ps[j].comm, PROF_COMM_LEN) == 0;
                 k++)
                same += ps[k].n;
            acc.n += same;
            if (same > acc.best) {
                acc.best = same;
                acc.comm = ps[j].comm;
            }
            j = k;
        }
        ps[m++] = acc;
        i = j;
    }
    np = m;
    if (np)
        qsort(ps, np, sizeof *ps, ps_by_comm);
    struct cmd_row *cr = xcalloc(np ? np : 1, sizeof *cr);
    size_t nc = 0;
    for (size_t i = 0; i < np; i++) {
        if (!nc || strncmp(cr[nc - 1].first->comm, ps[i].comm, PROF_COMM_LEN) != 0)
            cr[nc++] = (struct cmd_row){&ps[i], 0, 0};
        cr[nc - 1].procs++;
        cr[nc - 1].n += ps[i].n;
    }
    if (nc)
        qsort(cr, nc, sizeof *cr, cr_by_samples);
    struct table *t = report_table(r, NM_PROFILE_BY_COMMAND, "On-CPU time by command", "profile");
    static const struct col_spec cols[] = {
        {"command", "Command", "", 0},
        {"processes", "Processes", "", 0},
        {"samples", "Samples", "", 0},
        {"cpu_pct", "CPU", "% of one CPU", 1},
        {"top_pid", "Busiest PID", "", 0},
        {"top_pid_cpu_pct", "Its CPU", "% of one CPU", 1},
    };
    table_add_cols(t, cols, ARRAY_LEN(cols));
    double per = hz > 0 && secs > 0 ? 100.0 / hz / secs : NAN;
    for (size_t i = 0; i < nc && i < PROFILE_TOP_PROCS; i++) {
        char comm[PROF_COMM_LEN + 1];
        memcpy(comm, cr[i].first->comm, PROF_COMM_LEN);
        comm[PROF_COMM_LEN] = '\0';
        size_t row = table_add_row(t);
        table_set_str(t, row, "command", comm);
        table_set_num(t, row, "processes", (double)cr[i].procs);
        table_set_num(t, row, "samples", (double)cr[i].n);
        table_set_num(t, row, "cpu_pct", (double)cr[i].n * per);
        table_set_num(t, row, "top_pid", cr[i].first->tgid);
        table_set_num(t, row, "top_pid_cpu_pct", (double)cr[i].first->n * per);
    }
    table_set_note(t, "From the on-CPU samples, so processes that started and ended inside the "
                      "window count; a process is listed under the name most of its samples "
                      "carried.");
    free(cr);
    free(ps);
}

static int prof_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    struct prof_state *st = state;
    struct report *r = ctx->r;
    double t0 = mono_ms();
    detach(st); /* a no-op after end; stops sampling when end did not run */
    double prefetch_ms;
    uint64_t prefetched;
    struct stack_resolver *sr = stack_prefetch_take(st->pf, &prefetch_ms, &prefetched);
    uint64_t stats[PROF_NSTATS];
    int rc =
        kbpf_sampled_stats(&st->ev, bpf_map__fd(st->skel->maps.stats), PROF_NSTATS, stats);
    if (rc) {
        stack_resolver_free(sr);
        snprintf(err, n, "reading the profile counters failed: %s", strerror(-rc));
        return rc;
    }
    struct ledger_entry *led = report_ledger(r, "profile", NULL);
    struct symbolizer *sym = stacks_sym_get();
    if (!sr)
        sr = stack_resolver_new(sym, bpf_map__fd(st->skel->maps.stackmap), STACKS_USER_PER_PID);
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    int cfd = bpf_map__fd(st->skel->maps.counts);
    struct prof_key key;
    uint64_t c;
    size_t nkeys = 0;
    /* All keys are read first, then resolved in the map's order. */
    struct kc *keys = NULL;
    size_t cap = 0;
    struct kbpf_walk w = KBPF_WALK_INIT(cfd);
    while (kbpf_walk_next(&w, &key, sizeof key, &c))
        if (c) {
            xgrow(&keys, &cap, nkeys + 1, sizeof *keys);
            keys[nkeys++] = (struct kc){key, c};
        }
    /* the samples since the last tick, up to the window's end */
    double span_s = st->begin_ms > 0 && st->end_ms > st->begin_ms
                        ? (st->end_ms - st->begin_ms) / 1000.0
                        : ctx->now_s;
    uint32_t last = stack_time_bucket_of(st->read_s, span_s, st->bucket_s);
    uint32_t *leaf = xcalloc(stack_time_nkeys(st->time) + (size_t)nkeys + 1, sizeof *leaf);
    for (size_t i = 0; i < nkeys; i++)
        stack_time_observe(st->time, &keys[i].k, keys[i].c, last);
    for (size_t i = 0; i < stack_time_nkeys(st->time); i++)
        leaf[i] = PROFILE_NONE;
    for (size_t i = 0; i < nkeys; i++) {
        char comm[PROF_COMM_LEN + 1];
        memcpy(comm, keys[i].k.comm, PROF_COMM_LEN);
        comm[PROF_COMM_LEN] = '\0';
        stack_resolver_add_thread(sr, p, keys[i].k.tgid, keys[i].k.tid, comm, keys[i].k.kstack,
                                  keys[i].k.ustack, keys[i].c);
        int64_t k = stack_time_find(st->time, &keys[i].k);
        if (k >= 0)
            leaf[k] = stack_resolver_last_leaf(sr);
    }
    stack_time_to_profile(st->time, p, leaf, stack_time_buckets_for(span_s, st->bucket_s),
                          st->bucket_s, led);
    free(leaf);
    fill_by_command(r, keys, nkeys, st->hz,
                    st->begin_ms > 0 && st->end_ms > st->begin_ms
                        ? (st->end_ms - st->begin_ms) / 1000.0
                        : ctx->cfg->window_s);
    free(keys);
    double t_resolved = mono_ms();

    report_metric(r, NM_PROFILE_HZ, "Profile sampling rate", "Hz", "profile", st->hz);
    report_metric(r, NM_PROFILE_CPUS, "CPUs sampled", "", "profile", st->ev.attached);
    report_metric(r, NM_PROFILE_IDLE_SAMPLES, "Idle samples", "", "profile", (double)stats[PROF_ST_IDLE]);
    report_metric(r, NM_PROFILE_DROPPED, "Samples lost (key map full)", "", "profile",
                  (double)stats[PROF_ST_DROPPED]);
    struct stack_stats ss;
    stack_resolver_stats(sr, &ss);
    uint64_t mu = 0, mk = 0;
    for (int i = 0; i < STACK_MISS_COUNT; i++) {
        mu += ss.missing_user[i];
        mk += ss.missing_kernel[i];
    }
    report_metric(r, NM_PROFILE_MISSING_USER, "Samples without a user stack", "", "profile", (double)mu);
    report_metric(r, NM_PROFILE_MISSING_KERNEL, "Samples without a kernel stack", "", "profile",
                  (double)mk);
    profile_summarize(r, p, module_cb, sr);
    struct table *t = report_find_table(r, NM_PROFILE_TOP_SELF);
    if (t) {
        struct strbuf sb = STRBUF_INIT;
        sb_addf(&sb, "cpu-clock (software) sampling at %d Hz on %d CPU%s, %s", st->hz,
                st->ev.attached, st->ev.attached == 1 ? "" : "s", st->scope);
        if (st->scope_note)
            sb_addf(&sb, " (%s)", st->scope_note);
        sb_add(&sb, ctx->caps && ctx->caps->pmu ? "." : "; this host has no hardware PMU.");
        table_set_note(t, sb_str(&sb));
        sb_free(&sb);
    }
    report_add_profile(r, p);
    if (ctx->cfg->pid > 0) {
        struct thread_val *tv = NULL;
        size_t ntv = 0, tcap = 0;
        struct kbpf_drain td = {bpf_map__fd(st->skel->maps.tid_samples), sizeof(uint32_t),
                                sizeof(struct thread_samples), sizeof *tv, oncpu_row, NULL};
        kbpf_drain(&td, &tv, &ntv, &tcap);
        threads_fill_oncpu(r, tv, ntv, stats[PROF_ST_TID_DROPPED]);
        free(tv);
    }
    if (st->scope_note)
        ledger_note(led, "%s", st->scope_note);
    if (stats[PROF_ST_DROPPED])
        ledger_note(led, "%llu samples lost: the aggregation map (%d keys) was full",
                    (unsigned long long)stats[PROF_ST_DROPPED], PROF_MAX_KEYS);
    if (stats[PROF_ST_UNFOLLOWED])
        ledger_note(led, "%llu of the target's child processes not sampled: more than %d "
                    "were followed", (unsigned long long)stats[PROF_ST_UNFOLLOWED],
                    PROF_MAX_FOLLOWED);
    note_missing(led, "a user", ss.missing_user);
    note_missing(led, "a kernel", ss.missing_kernel);
    if (ss.truncated)
        ledger_note(led, "%llu stacks deeper than the stack map's depth were truncated",
                    (unsigned long long)ss.truncated);
    stacks_note_resolution(led, sym, nkeys, &ss);
    ledger_note(led, "%llu stacks resolved during the window (%.0f ms); drain and symbolization "
                "after it took %.0f ms (summary %.0f ms)",
                (unsigned long long)prefetched, prefetch_ms, t_resolved - t0,
                mono_ms() - t_resolved);
    stack_resolver_free(sr);
    stacks_sym_release();
    st->sym_ref = false;
    return 0;
}

static void prof_destroy(void *state)
{
    struct prof_state *st = state;
    if (!st)
        return;
    detach(st);
    stack_prefetch_free(st->pf); /* before the BPF maps it reads */
    stack_time_free(st->time);
    if (st->sym_ref)
        stacks_sym_release();
    profile_bpf__destroy(st->skel);
    kbpf_sampled_free(&st->ev);
    free(st->scope_note);
    free(st->scope);
    free(st);
}

static bool prof_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    if (ctx->caps && !ctx->caps->cap_perfmon && !ctx->caps->is_root) {
        snprintf(reason, n, "needs CAP_PERFMON or CAP_SYS_ADMIN for perf events");
        return false;
    }
    return true;
}

const struct collector collector_profile = {
    .name = "profile",
    .title = "On-CPU profile (BPF, cpu-clock sampling)",
    .needs_bpf = true,
    .can_run = prof_can_run,
    .start = prof_start,
    .tick = prof_tick,
    .begin = prof_begin,
    .end = prof_end,
    .stop = prof_stop,
    .destroy = prof_destroy,
};
