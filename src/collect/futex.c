/* Collector "futex": time threads spend in FUTEX_WAIT-type calls, per
 * process and waiting user stack (the futex part of bpf/systap.bpf.c), into the table
 * lock.futex_waits.  Each row is labelled with the futex_kind of its user
 * stack (mutex / park / unknown) so rules can tell lock contention from
 * threads parked on a condition variable.  Waits that end in ETIMEDOUT are
 * timed sleeps and are not counted (see the BPF side). */
#include "../model/model.h"
#include "../model/names.h"
#include "../model/profile.h"
#include "../util/clock.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "../kbpf/kbpf.h"
#include "collector.h"
#include "../stacks/stack_prefetch.h"
#include "../stacks/stacks.h"
#include "../stacks/waitclass.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../bpf/offcpu.h"
#include "../kbpf/systap.h"
#include "systap.skel.h"
#include "../kbpf/tapslice.h"

#define TOP_ROWS 25
#define SUMMARY_FRAMES 5

struct frow {
    struct fwait_key k;
    struct fwait_val v;
    enum futex_kind kind;
    char *stack; /* owned */
};

struct futex_state {
    struct systap_bpf *tap; /* borrowed from systap.c between acquire and release */
    bool classic;           /* raw_syscalls tracepoints instead of tp_btf */
    bool sym_ref;           /* holds a stacks_sym_acquire() reference */
    struct stack_prefetch *pf; /* owned: stacks resolved during the window */
};

static bool futex_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    return kbpf_can_trace("raw_syscalls", "sys_enter", reason, n);
}

static int futex_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct futex_state *st = xcalloc(1, sizeof *st);
    *state = st;
    stacks_sym_acquire(ctx->cfg); /* the run's symbolizer */
    st->sym_ref = true;
    st->tap = systap_acquire(ctx, SYSTAP_FUTEX, &st->classic, err, n);
    if (!st->tap)
        return -EIO;
    st->pf = stack_prefetch_new(bpf_map__fd(st->tap->maps.fstacks),
                               STACKS_USER_PER_PID);
    return 0;
}

/* Hands the waiting stacks seen so far to the prefetcher, so that a
 * process that exits during the window keeps its frame names. */
static int futex_tick(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct futex_state *st = state;
    if (!st->tap || !stack_prefetch_ready(st->pf))
        return 0; /* still on the last batch: this tick's keys wait */
    int fd = bpf_map__fd(st->tap->maps.fwaits);
    struct fwait_key k;
    struct kbpf_walk w = KBPF_WALK_INIT(fd);
    while (kbpf_walk_next(&w, &k, sizeof k, NULL))
        stack_prefetch_add(st->pf, k.tgid, STACK_ID_NONE, k.ustack);
    stack_prefetch_run(st->pf);
    return 0;
}

static const char *op_name(__u32 op)
{
    switch (op) {
    case PR_FUTEX_WAIT: return "FUTEX_WAIT";
    case PR_FUTEX_LOCK_PI: return "FUTEX_LOCK_PI";
    case PR_FUTEX_WAIT_BITSET: return "FUTEX_WAIT_BITSET";
    case PR_FUTEX_WAIT_REQUEUE_PI: return "FUTEX_WAIT_REQUEUE_PI";
    case PR_FUTEX_LOCK_PI2: return "FUTEX_LOCK_PI2";
    case PR_FUTEX_WAITV: return "futex_waitv";
    case PR_FUTEX_WAIT2: return "futex_wait";
    }
    return "?";
}

static int total_cmp_desc(const void *a, const void *b)
{
    const struct frow *x = a, *y = b;
    return x->v.total_ns < y->v.total_ns ? 1 : x->v.total_ns > y->v.total_ns ? -1 : 0;
}

/* One resolved row: its user frames (futex rows carry no kernel stack)
 * decide the kind and give the summary. */
static void take_row(void *ctx, size_t idx, const char *const *names, const uint8_t *kinds,
                     size_t n)
{
    struct frow *r = &((struct frow *)ctx)[idx];
    const char **uf = xcalloc(n ? n : 1, sizeof *uf);
    size_t nu = 0;
    for (size_t i = 0; i < n; i++)
        if (kinds[i] != FRAME_PROCESS)
            uf[nu++] = names[i];
    r->kind = futex_kind_of(uf, nu);
    struct strbuf sb = STRBUF_INIT;
    size_t k = 0;
    for (size_t i = 0; i < nu && k < SUMMARY_FRAMES; i++) {
        if (wait_frame_is_noise(uf[i]))
            continue;
        sb_addf(&sb, "%s%s", k ? " <- " : "", uf[i]);
        k++;
    }
    free(r->stack);
    r->stack = xstrdup(sb_str(&sb));
    sb_free(&sb);
    free(uf);
}

static int futex_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    struct futex_state *st = state;
    struct report *r = ctx->r;
    double t0 = mono_ms();

    struct frow *rows = NULL;
    size_t nrows = 0, cap = 0;
    int fd = bpf_map__fd(st->tap->maps.fwaits);
    struct fwait_key k;
    struct fwait_val v;
    struct kbpf_walk w = KBPF_WALK_INIT(fd);
    while (kbpf_walk_next(&w, &k, sizeof k, &v)) {
        xgrow(&rows, &cap, nrows + 1, sizeof *rows);
        rows[nrows++] = (struct frow){.k = k, .v = v, .kind = FK_UNKNOWN};
    }
    /* Sliced (see systap.c), the waits recorded stand for those of the
     * window: scaled like the syscall counts (the longest stays as seen). */
    struct tapslice_result samp;
    int attach_errno;
    if (!systap_sampling(&samp, &attach_errno))
        memset(&samp, 0, sizeof samp);
    for (size_t i = 0; i < nrows; i++) {
        rows[i].v.count = tapslice_scaled(&samp, rows[i].v.count);
        rows[i].v.total_ns = tapslice_scaled(&samp, rows[i].v.total_ns);
    }
    if (nrows)
        qsort(rows, nrows, sizeof *rows, total_cmp_desc);

    double prefetch_ms;
    uint64_t prefetched;
    struct stack_resolver *res = stack_prefetch_take(st->pf, &prefetch_ms, &prefetched);
    struct symbolizer *sym = stacks_sym_get();
    if (!res)
        res = stack_resolver_new(sym, bpf_map__fd(st->tap->maps.fstacks),
                                 STACKS_USER_PER_PID);
    size_t nres = nrows < TOP_ROWS * 4 ? nrows : TOP_ROWS * 4;
    struct stack_row *srows = xcalloc(nres ? nres : 1, sizeof *srows);
    for (size_t i = 0; i < nres; i++)
        srows[i] = (struct stack_row){rows[i].k.tgid, STACK_ID_NONE, rows[i].k.ustack, false};
    int rc = stack_resolver_rows(res, srows, nres, take_row, rows);
    free(srows);
    if (rc)
        snprintf(err, n, "resolving futex stacks failed: %s", strerror(-rc));

    /* the tap's futex part records from the window's begin to its end */
    double window_ms = ctx->now_s * 1000.0, total_ms = 0;
    struct table *t = report_table(r, NM_LOCK_FUTEX_WAITS, "Futex waits (user-space locks)", "lock");
    static const struct col_spec lock_futex_waits_cols[] = {
        {"pid", "PID", "", 0},
        {"process", "Process", "", 0},
        {"kind", "Kind", "", 0},
        {"op", "Call", "", 0},
        {"total_ms", "Waited", "ms", 1},
        {"count", "Waits", "", 0},
        {"max_ms", "Longest", "ms", 2},
        {"mean_ms", "Mean", "ms", 3},
        {"threads", "Threads", "", 0},
        {"wait_pct", "Share of thread time", "%", 1},
        {"stack", "Waiting user stack (leaf first)", "", 0},
    };
    table_add_cols(t, lock_futex_waits_cols, ARRAY_LEN(lock_futex_waits_cols));
    char note[900], sampled[600];
    tapslice_describe(&samp, sampled, sizeof sampled);
    snprintf(note, sizeof note,
             "kind: mutex = a mutex/rwlock slow path (contention), park = condition "
             "variable/semaphore/join (idle), unknown = no recognised frame.  Share = "
             "wait time / (window x threads of the process).%s%s",
             *sampled ? "  " : "", sampled);
    table_set_note(t, note);
    for (size_t i = 0; i < nrows; i++) {
        total_ms += (double)rows[i].v.total_ns / 1e6;
        if (i >= TOP_ROWS)
            continue;
        char comm[17];
        memcpy(comm, rows[i].k.comm, 16);
        comm[16] = '\0';
        unsigned th = kbpf_proc_threads((int)rows[i].k.tgid);
        double ms = (double)rows[i].v.total_ns / 1e6;
        size_t row = table_add_row(t);
        table_set_num(t, row, "pid", rows[i].k.tgid);
        table_set_str(t, row, "process", comm);
        table_set_str(t, row, "kind", futex_kind_name(rows[i].kind));
        table_set_str(t, row, "op", op_name(rows[i].k.op));
        table_set_num(t, row, "total_ms", ms);
        table_set_num(t, row, "count", (double)rows[i].v.count);
        table_set_num(t, row, "max_ms", (double)rows[i].v.max_ns / 1e6);
        table_set_num(t, row, "mean_ms", rows[i].v.count ? ms / (double)rows[i].v.count : 0);
        if (th) {
            table_set_num(t, row, "threads", th);
            if (window_ms > 0)
                table_set_num(t, row, "wait_pct", ms * 100 / (window_ms * th));
        }
        table_set_str(t, row, "stack", rows[i].stack ? rows[i].stack : "");
    }
    report_metric(r, NM_LOCK_FUTEX_WAIT_MS, "Futex wait time (all threads)", "ms", "lock", total_ms);

    struct ledger_entry *le = report_ledger(r, "futex", NULL);
    int sfd = bpf_map__fd(st->tap->maps.fstats);
    ledger_note(le, "%s; %llu waits (%llu timed out, not counted), %zu aggregates",
                st->classic ? "classic raw_syscalls tracepoints (tp_btf unavailable)"
                            : "tp_btf sys_enter/sys_exit",
                (unsigned long long)kbpf_percpu_sum(sfd, FUTEX_ST_WAITS),
                (unsigned long long)kbpf_percpu_sum(sfd, FUTEX_ST_TIMEDOUT), nrows);
    if (samp.sampled)
        ledger_note(le, "sampled with the syscall tap: waits and wait times scaled by %.2f",
                    samp.scale);
    uint64_t f1 = kbpf_percpu_sum(sfd, FUTEX_ST_INFLIGHT_FULL), f2 = kbpf_percpu_sum(sfd, FUTEX_ST_AGG_FULL);
    if (f1 || f2)
        ledger_note(le, "%llu waits not timed (no per-thread slot), %llu not aggregated (map full)",
                    (unsigned long long)f1, (unsigned long long)f2);
    stacks_note_symbolizer(le, sym);
    stack_resolver_free(res);
    stacks_sym_release(); /* the model copied every name it kept */
    st->sym_ref = false;
    for (size_t i = 0; i < nrows; i++)
        free(rows[i].stack);
    free(rows);
    systap_release(SYSTAP_FUTEX);
    st->tap = NULL;
    ledger_note(le, "%llu stacks resolved during the window (%.0f ms); drain %.1f ms",
                (unsigned long long)prefetched, prefetch_ms, mono_ms() - t0);
    return rc;
}

static void futex_destroy(void *state)
{
    struct futex_state *st = state;
    if (!st)
        return;
    stack_prefetch_free(st->pf); /* before the tap's maps it reads */
    if (st->tap)
        systap_release(SYSTAP_FUTEX);
    if (st->sym_ref)
        stacks_sym_release();
    free(st);
}

const struct collector collector_futex = {
    .name = "futex",
    .title = "Futex waits (BPF sys_enter/sys_exit)",
    .needs_bpf = true,
    .can_run = futex_can_run,
    .start = futex_start,
    .tick = futex_tick,
    .begin = systap_begin,
    .end = systap_end,
    .stop = futex_stop,
    .destroy = futex_destroy,
};
