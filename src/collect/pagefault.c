/* Collector "pagefault": where resident memory grows.  A software
 * page-faults perf event per CPU, in frequency mode, runs a BPF program that
 * adds each sample's period to (process, kernel stack, user stack); the
 * kernel adapts the period so that the samples per second -- and so the
 * cost -- stay bounded however fast processes fault, and the periods summed
 * estimate every fault.  The events also count every fault exactly, which
 * the report gives beside the estimate.  stop() drains once into profile
 * "pagefault" and table pagefault.top. */
#include "../model/model.h"
#include "../model/names.h"
#include "../model/profile.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "collector.h"
#include "../kbpf/kbpf.h"
#include "../kbpf/sampled.h"
#include "../stacks/stack_prefetch.h"
#include "../stacks/stack_top.h"
#include "../stacks/stacks.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../bpf/pagefault.h"
#include "pagefault.skel.h"

_Static_assert(PF_STACK_NONE == STACK_ID_NONE, "BPF and resolver disagree on 'no stack'");

/* Samples per second per CPU: at ~2 us per sample (a user stack walk and a
 * hash update) 200 Hz costs at most 0.04 % of a CPU that faults without
 * pause; bench/pagefault_bench.sh measures the whole cost. */
#define PF_SAMPLE_HZ 200
#define PF_TOP_ROWS 15

struct pf_state {
    struct pagefault_bpf *skel; /* owned */
    struct kbpf_sampled ev;     /* the page-faults events and their links */
    bool sym_ref;               /* holds a stacks_sym_acquire() reference */
    struct stack_prefetch *pf;  /* owned */
    char *scope;                /* "pid 12", "cgroup /x", "system-wide" */
    char *scope_note;           /* why the target filter is not applied, or NULL */
    uint64_t counted;           /* every fault the events counted in the window */
    double t_begin, t_end;      /* collector clock at begin/end */
    bool ended;
};

static int pf_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct pf_state *st = xcalloc(1, sizeof *st);
    *state = st;
    int rc = kbpf_sampled_init(&st->ev, err, n);
    if (rc)
        return rc;
    stacks_sym_acquire(ctx->cfg);
    st->sym_ref = true;
    st->skel = pagefault_bpf__open();
    if (!st->skel) {
        int e = errno ? errno : EINVAL;
        snprintf(err, n, "opening the page-fault BPF object failed: %s", strerror(e));
        return -e;
    }
    kbpf_alloc_on_insert(st->skel->maps.counts);
    kbpf_alloc_on_insert(st->skel->maps.stackmap);
    if (ctx->cfg && ctx->cfg->pid > 0) {
        st->skel->rodata->targ_tgid = (__u32)ctx->cfg->pid;
        st->scope = xasprintf("pid %d", (int)ctx->cfg->pid);
    } else if (ctx->cfg && ctx->cfg->cgroup) {
        uint64_t cgid;
        if (kbpf_sampled_cgroup_filter(ctx, "the page-fault profile", &cgid, &st->scope,
                                       &st->scope_note)) {
            st->skel->rodata->filter_cg = true;
            st->skel->rodata->targ_cgid = cgid;
        }
    }
    if (!st->scope)
        st->scope = xstrdup("system-wide");
    rc = pagefault_bpf__load(st->skel);
    if (rc) {
        snprintf(err, n, "loading the page-fault BPF program failed: %s", strerror(-rc));
        return rc;
    }
    kbpf_warm_alloc(st->skel->maps.stackmap);
    st->pf = stack_prefetch_new(bpf_map__fd(st->skel->maps.stackmap), STACKS_USER_PER_PID);
    /* faults taken in kernel mode (copy_to_user) count too */
    return kbpf_sampled_attach(&st->ev, st->skel->progs.on_fault, PERF_COUNT_SW_PAGE_FAULTS,
                               PF_SAMPLE_HZ, "CPU's page faults", err, n);
}

static int pf_begin(struct collect_ctx *ctx, void *state)
{
    struct pf_state *st = state;
    st->t_begin = collect_clock_s(ctx);
    return kbpf_sampled_enable(&st->ev, true);
}

/* Stops sampling and reads the exact counts once. */
static int pf_end(struct collect_ctx *ctx, void *state)
{
    struct pf_state *st = state;
    if (st->ended)
        return 0;
    st->ended = true;
    st->t_end = collect_clock_s(ctx);
    st->counted += kbpf_sampled_disable(&st->ev);
    kbpf_sampled_detach(&st->ev);
    return 0;
}

static int pf_tick(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct pf_state *st = state;
    if (!stack_prefetch_ready(st->pf))
        return 0;
    int cfd = bpf_map__fd(st->skel->maps.counts);
    struct pf_key key;
    struct kbpf_walk w = KBPF_WALK_INIT(cfd);
    while (kbpf_walk_next(&w, &key, sizeof key, NULL))
        stack_prefetch_add(st->pf, key.tgid, key.kstack, key.ustack);
    stack_prefetch_run(st->pf);
    return 0;
}

struct kv_row {
    struct pf_key k;
    struct pf_val v;
};

static int pf_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    struct pf_state *st = state;
    struct report *r = ctx->r;
    pf_end(ctx, st);
    double prefetch_ms;
    uint64_t prefetched;
    struct stack_resolver *sr = stack_prefetch_take(st->pf, &prefetch_ms, &prefetched);
    uint64_t stats[PF_NSTATS];
    int rc =
        kbpf_sampled_stats(&st->ev, bpf_map__fd(st->skel->maps.stats), PF_NSTATS, stats);
    if (rc) {
        stack_resolver_free(sr);
        snprintf(err, n, "reading the page-fault counters failed: %s", strerror(-rc));
        return rc;
    }
    struct ledger_entry *led = report_ledger(r, "pagefault", NULL);
    struct symbolizer *sym = stacks_sym_get();
    if (!sr)
        sr = stack_resolver_new(sym, bpf_map__fd(st->skel->maps.stackmap), STACKS_USER_PER_PID);
    struct kv_row *rows = NULL;
    size_t nrows = 0, cap = 0;
    int cfd = bpf_map__fd(st->skel->maps.counts);
    struct pf_key key;
    struct pf_val v;
    struct kbpf_walk w = KBPF_WALK_INIT(cfd);
    while (kbpf_walk_next(&w, &key, sizeof key, &v))
        if (v.faults) {
            xgrow(&rows, &cap, nrows + 1, sizeof *rows);
            rows[nrows++] = (struct kv_row){key, v};
        }
    struct profile *p = profile_new("pagefault", "Page faults", "faults");
    struct stack_top *top = stack_top_new(nrows);
    for (size_t i = 0; i < nrows; i++) {
        char comm[PF_COMM_LEN + 1];
        memcpy(comm, rows[i].k.comm, PF_COMM_LEN);
        comm[PF_COMM_LEN] = '\0';
        stack_resolver_add(sr, p, rows[i].k.tgid, comm, rows[i].k.kstack, rows[i].k.ustack,
                           rows[i].v.faults);
        stack_top_set(top, i, rows[i].k.tgid, comm, rows[i].k.kstack, rows[i].k.ustack,
                      (double)rows[i].v.faults, (double)rows[i].v.samples);
    }
    double secs = st->t_end - st->t_begin;
    struct table *t = report_table(r, NM_PAGEFAULT_TOP, "Where page faults happen (by function)",
                                   "memory");
    static const struct col_spec cols[] = {
        {"pid", "PID", "", 0},
        {"process", "Process", "", 0},
        {"function", "Function", "", 0},
        {"faults", "Faults (est.)", "", 0},
        {"samples", "Samples", "", 0},
        {"share_pct", "Share", "%", 1},
        {"stack", "Stack (leaf first)", "", 0},
    };
    table_add_cols(t, cols, ARRAY_LEN(cols));
    stack_top_fill(top, sr, t, "faults", "samples", PF_TOP_ROWS);
    stack_top_free(top);
    free(rows);

    report_metric(r, NM_PAGEFAULT_COUNTED, "Page faults (counted, every process)", "", "memory",
                  (double)st->counted);
    if (secs > 0)
        report_metric(r, NM_PAGEFAULT_PER_S, "Page faults per second (counted)", "/s", "memory",
                      (double)st->counted / secs);
    report_metric(r, NM_PAGEFAULT_PROFILED, "Page faults in the profile (estimated)", "", "memory",
                  (double)stats[PF_ST_WEIGHT]);
    report_metric(r, NM_PAGEFAULT_SAMPLES, "Page-fault samples", "", "memory",
                  (double)stats[PF_ST_SAMPLES]);
    report_metric(r, NM_PAGEFAULT_DROPPED, "Page-fault samples lost (key map full)", "", "memory",
                  (double)stats[PF_ST_DROPPED]);
    {
        struct strbuf sb = STRBUF_INIT;
        sb_addf(&sb,
                "Sampled, not traced: the page-faults software event at up to %d samples/s per "
                "CPU on %d CPU%s, %s; each sample counts the faults of its period, so the "
                "faults are estimates (%llu samples stand for %llu faults; the events counted "
                "%llu faults on the whole host).",
                PF_SAMPLE_HZ, st->ev.attached, st->ev.attached == 1 ? "" : "s", st->scope,
                (unsigned long long)stats[PF_ST_SAMPLES],
                (unsigned long long)stats[PF_ST_WEIGHT], (unsigned long long)st->counted);
        if (st->scope_note)
            sb_addf(&sb, " (%s)", st->scope_note);
        table_set_note(t, sb_str(&sb));
        sb_free(&sb);
    }
    if (profile_total(p) > 0)
        report_add_profile(r, p);
    else
        profile_free(p);

    if (st->scope_note)
        ledger_note(led, "%s", st->scope_note);
    if (stats[PF_ST_DROPPED])
        ledger_note(led, "%llu samples (%llu faults) lost: the aggregation map (%d keys) was full",
                    (unsigned long long)stats[PF_ST_DROPPED],
                    (unsigned long long)stats[PF_ST_DROPPED_W], PF_MAX_KEYS);
    struct stack_stats ss;
    stack_resolver_stats(sr, &ss);
    ledger_note(led, "%zu keys, %llu stacks read, %llu stacks resolved during the window "
                "(%.0f ms)",
                nrows, (unsigned long long)ss.stacks_read, (unsigned long long)prefetched,
                prefetch_ms);
    stack_resolver_free(sr);
    stacks_sym_release();
    st->sym_ref = false;
    return 0;
}

static void pf_destroy(void *state)
{
    struct pf_state *st = state;
    if (!st)
        return;
    kbpf_sampled_detach(&st->ev);
    stack_prefetch_free(st->pf);
    if (st->sym_ref)
        stacks_sym_release();
    pagefault_bpf__destroy(st->skel);
    kbpf_sampled_free(&st->ev);
    free(st->scope);
    free(st->scope_note);
    free(st);
}

static bool pf_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    if (ctx->caps && !ctx->caps->cap_perfmon && !ctx->caps->is_root) {
        snprintf(reason, n, "needs CAP_PERFMON or CAP_SYS_ADMIN for perf events");
        return false;
    }
    return true;
}

const struct collector collector_pagefault = {
    .name = "pagefault",
    .title = "Page-fault profile (BPF, sampled page-faults event)",
    .needs_bpf = true,
    .can_run = pf_can_run,
    .start = pf_start,
    .tick = pf_tick,
    .begin = pf_begin,
    .end = pf_end,
    .stop = pf_stop,
    .destroy = pf_destroy,
};
