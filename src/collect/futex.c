/* Collector "futex": time threads spend in FUTEX_WAIT-type calls, per
 * process and waiting user stack (bpf/futex.bpf.c), into the table
 * lock.futex_waits.  Each row is labelled with the futex_kind of its user
 * stack (mutex / park / unknown) so rules can tell lock contention from
 * threads parked on a condition variable.  Waits that end in ETIMEDOUT are
 * timed sleeps and are not counted (see the BPF side). */
#include "../model/model.h"
#include "../model/profile.h"
#include "../options.h"
#include "../probe.h"
#include "../symbolize/symbolize.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "kbpf.h"
#include "collector.h"
#include "stacks.h"
#include "waitclass.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <pthread.h>
#include <errno.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../bpf/offcpu.h"
#include "futex.skel.h"

#define TOP_ROWS 25
#define SUMMARY_FRAMES 5

struct frow {
    struct fwait_key k;
    struct fwait_val v;
    enum futex_kind kind;
    char *stack; /* owned */
};

struct futex_state {
    struct futex_bpf *skel; /* owned */
    bool raw;               /* raw_syscalls fallback */
    double attach_ms;       /* CLOCK_MONOTONIC at attach: shares are of attach -> drain */
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static bool have_syscall_events(void)
{
    return hostfs_is_dir("/sys/kernel/tracing/events/syscalls/sys_enter_futex") ||
           hostfs_is_dir("/sys/kernel/debug/tracing/events/syscalls/sys_enter_futex");
}

static bool futex_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    if (have_syscall_events() || libbpf_find_vmlinux_btf_id("sys_enter", BPF_TRACE_RAW_TP) >= 0)
        return true;
    snprintf(reason, n, "no syscalls/sys_enter_futex tracepoint and no BTF for sys_enter");
    return false;
}

static int futex_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct futex_state *st = xcalloc(1, sizeof *st);
    *state = st;
    uint64_t cgid = 0;
    uint32_t tgid_unused;
    int rc = kbpf_target(ctx, &tgid_unused, &cgid, err, n);
    if (rc)
        return rc;
    st->skel = futex_bpf__open();
    if (!st->skel) {
        rc = errno ? -errno : -EINVAL;
        snprintf(err, n, "opening the futex BPF object failed: %s", strerror(-rc));
        return rc;
    }
    /* Per-futex-syscall events fire only for futex calls; the raw fallback
     * runs for every syscall, so it is the second choice. */
    st->raw = !have_syscall_events();
    bpf_program__set_autoload(st->skel->progs.futex_enter, !st->raw);
    bpf_program__set_autoload(st->skel->progs.futex_exit, !st->raw);
    bool waitv = !st->raw && (hostfs_is_dir("/sys/kernel/tracing/events/syscalls/sys_enter_futex_waitv") ||
                              hostfs_is_dir("/sys/kernel/debug/tracing/events/syscalls/sys_enter_futex_waitv"));
    bpf_program__set_autoload(st->skel->progs.futex_waitv_enter, waitv);
    bpf_program__set_autoload(st->skel->progs.futex_waitv_exit, waitv);
    bpf_program__set_autoload(st->skel->progs.futex_raw_enter, st->raw);
    bpf_program__set_autoload(st->skel->progs.futex_raw_exit, st->raw);
    st->skel->rodata->self_tgid = (__u32)getpid();
    st->skel->rodata->target_tgid = (__u32)ctx->opt->pid;
    st->skel->rodata->target_cgid = cgid;
    rc = futex_bpf__load(st->skel);
    if (rc) {
        snprintf(err, n, "loading the futex programs failed: %s", strerror(-rc));
        return rc;
    }
    rc = futex_bpf__attach(st->skel);
    if (rc) {
        snprintf(err, n, "attaching the futex programs failed: %s", strerror(-rc));
        return rc;
    }
    st->attach_ms = now_ms();
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

static void *destroy_link(void *l)
{
    bpf_link__destroy(l);
    return NULL;
}

/* Detaching a syscall tracepoint waits for RCU grace periods (~200 ms for
 * the set here, serialised in the kernel), so stop() switches the programs
 * off through `stopped` at once, detaches in a helper thread and drains
 * meanwhile; the thread is joined before stop() returns. */
static void detach_all(struct futex_bpf *skel)
{
    struct bpf_link **links[] = {&skel->links.futex_enter, &skel->links.futex_exit,
                                 &skel->links.futex_waitv_enter, &skel->links.futex_waitv_exit,
                                 &skel->links.futex_raw_enter, &skel->links.futex_raw_exit};
    pthread_t th[sizeof links / sizeof links[0]];
    bool started[sizeof links / sizeof links[0]] = {false};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        if (!*links[i])
            continue;
        started[i] = pthread_create(&th[i], NULL, destroy_link, *links[i]) == 0;
        if (!started[i])
            bpf_link__destroy(*links[i]);
        *links[i] = NULL;
    }
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++)
        if (started[i])
            pthread_join(th[i], NULL);
}

static void *detach_thread(void *skel)
{
    detach_all(skel);
    return NULL;
}

static int futex_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    struct futex_state *st = state;
    struct report *r = ctx->r;
    double t0 = now_ms();
    st->skel->bss->stopped = true;
    pthread_t det;
    bool det_ok = pthread_create(&det, NULL, detach_thread, st->skel) == 0;
    if (!det_ok)
        detach_all(st->skel);

    struct frow *rows = NULL;
    size_t nrows = 0, cap = 0;
    int fd = bpf_map__fd(st->skel->maps.fwaits);
    struct fwait_key k, next;
    void *prev = NULL;
    while (bpf_map_get_next_key(fd, prev, &next) == 0) {
        struct fwait_val v;
        if (bpf_map_lookup_elem(fd, &next, &v) == 0) {
            if (nrows == cap) {
                cap = cap ? cap * 2 : 128;
                rows = xrealloc(rows, cap * sizeof *rows);
            }
            rows[nrows] = (struct frow){.k = next, .v = v, .kind = FK_UNKNOWN};
            nrows++;
        }
        k = next;
        prev = &k;
    }
    if (nrows)
        qsort(rows, nrows, sizeof *rows, total_cmp_desc);

    struct symbolizer *sym = symbolizer_new();
    struct stack_resolver *res =
        stack_resolver_new(sym, bpf_map__fd(st->skel->maps.fstacks), true);
    size_t nres = nrows < TOP_ROWS * 4 ? nrows : TOP_ROWS * 4;
    struct stack_row *srows = xcalloc(nres ? nres : 1, sizeof *srows);
    for (size_t i = 0; i < nres; i++)
        srows[i] = (struct stack_row){rows[i].k.tgid, STACK_ID_NONE, rows[i].k.ustack, false};
    int rc = stack_resolver_rows(res, srows, nres, take_row, rows);
    free(srows);
    if (rc)
        snprintf(err, n, "resolving futex stacks failed: %s", strerror(-rc));

    double window_ms = t0 - st->attach_ms, total_ms = 0;
    struct table *t = report_table(r, "lock.futex_waits", "Futex waits (user-space locks)", "lock");
    table_add_col(t, "pid", "PID", "", 0);
    table_add_col(t, "process", "Process", "", 0);
    table_add_col(t, "kind", "Kind", "", 0);
    table_add_col(t, "op", "Call", "", 0);
    table_add_col(t, "total_ms", "Waited", "ms", 1);
    table_add_col(t, "count", "Waits", "", 0);
    table_add_col(t, "max_ms", "Longest", "ms", 2);
    table_add_col(t, "mean_ms", "Mean", "ms", 3);
    table_add_col(t, "threads", "Threads", "", 0);
    table_add_col(t, "wait_pct", "Share of thread time", "%", 1);
    table_add_col(t, "stack", "Waiting user stack (leaf first)", "", 0);
    table_set_note(t, "kind: mutex = a mutex/rwlock slow path (contention), park = condition "
                      "variable/semaphore/join (idle), unknown = no recognised frame.  Share = "
                      "wait time / (window x threads of the process).");
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
    report_metric(r, "lock.futex_wait_ms", "Futex wait time (all threads)", "ms", "lock", total_ms);

    struct ledger_entry *le = report_ledger(r, "futex", NULL);
    int sfd = bpf_map__fd(st->skel->maps.fstats);
    ledger_note(le, "%s; %llu waits (%llu timed out, not counted), %zu aggregates",
                st->raw ? "raw_syscalls fallback (every syscall filtered by number)"
                        : "syscalls/sys_enter_futex tracepoints",
                (unsigned long long)kbpf_percpu_sum(sfd, FUTEX_ST_WAITS),
                (unsigned long long)kbpf_percpu_sum(sfd, FUTEX_ST_TIMEDOUT), nrows);
    uint64_t f1 = kbpf_percpu_sum(sfd, FUTEX_ST_INFLIGHT_FULL), f2 = kbpf_percpu_sum(sfd, FUTEX_ST_AGG_FULL);
    if (f1 || f2)
        ledger_note(le, "maps full: %llu waits not timed, %llu not aggregated",
                    (unsigned long long)f1, (unsigned long long)f2);
    stack_resolver_free(res);
    symbolizer_free(sym);
    for (size_t i = 0; i < nrows; i++)
        free(rows[i].stack);
    free(rows);
    if (det_ok)
        pthread_join(det, NULL);
    ledger_note(le, "drain %.1f ms (detaching the tracepoints included)", now_ms() - t0);
    return rc;
}

static void futex_destroy(void *state)
{
    struct futex_state *st = state;
    if (!st)
        return;
    futex_bpf__destroy(st->skel);
    free(st);
}

const struct collector collector_futex = {
    .name = "futex",
    .title = "Futex waits (BPF syscall tracepoints)",
    .needs_bpf = true,
    .can_run = futex_can_run,
    .start = futex_start,
    .stop = futex_stop,
    .destroy = futex_destroy,
};
