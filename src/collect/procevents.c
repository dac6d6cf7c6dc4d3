/* Process churn collector (BPF, bpf/procevents.bpf.c): exec counts per
 * command and parent command, lifetimes of exiting processes.  The programs
 * record from their attach to the drain; each event is placed before, in or
 * after the window by its kernel time, so rates judge the window only while
 * execs during start-up and finalisation are still listed. */
#include "procevents.h"
#include "collector.h"
#include "../kbpf/kbpf.h"
#include "model/model.h"
#include "model/names.h"
#include "util/clock.h"
#include "util/xalloc.h"
#include <linux/types.h>
#include "../../bpf/procevents.h"
#include "procevents.skel.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(PED_HIST == PE_HIST_BUCKETS, "histogram sizes agree");

#define TOP_EXECS 15

void pe_data_free(struct pe_data *d)
{
    free(d->ex);
    free(d->xt);
    memset(d, 0, sizeof *d);
}

struct agg {
    const char *comm;
    uint64_t execs, before, after;
    const char *pcomm; /* parent with the most execs of comm */
    uint64_t pbest;
};

static int agg_cmp(const void *a, const void *b)
{
    const struct agg *x = a, *y = b;
    if (x->execs != y->execs)
        return x->execs < y->execs ? 1 : -1;
    return strcmp(x->comm, y->comm);
}

static int agg_outside_cmp(const void *a, const void *b)
{
    const struct agg *x = a, *y = b;
    uint64_t xo = x->before + x->after, yo = y->before + y->after;
    if (xo != yo)
        return xo < yo ? 1 : -1;
    return strcmp(x->comm, y->comm);
}

void procevents_fill(struct report *r, const struct pe_data *d, double win)
{
    if (!(win > 0))
        win = 1;
    report_metric(r, NM_PROC_EXECS, "Programs executed in the window", "", "process",
                  (double)d->execs);
    report_metric(r, NM_PROC_EXEC_PER_S, "Exec rate", "/s", "process", (double)d->execs / win);
    report_metric(r, NM_PROC_EXITS, "Processes exited in the window", "", "process",
                  (double)d->exits);
    report_metric(r, NM_PROC_SHORT_LIVED, "Processes that lived under 1 s", "", "process",
                  (double)d->shorts);
    report_metric(r, NM_PROC_SHORT_LIVED_PER_S, "Short-lived processes", "/s", "process",
                  (double)d->shorts / win);
    report_metric(r, NM_PROC_EXECS_BEFORE_WINDOW, "Programs executed before the window opened",
                  "", "process", (double)d->execs_before);
    report_metric(r, NM_PROC_EXECS_AFTER_WINDOW, "Programs executed after the window closed", "",
                  "process", (double)d->execs_after);
    /* What the churn costs: starting and ending the short-lived processes,
     * each one's CPU up to what a start costs (a tool that does real work
     * for 200 ms is work, not churn), in % of one CPU. */
    uint64_t churn = 0;
    for (size_t k = 0; k < d->nxt; k++)
        churn += d->xt[k].churn_ns;
    report_metric(r, NM_PROC_CHURN_CPU_PCT, "CPU spent starting short-lived processes",
                  "% of one CPU", "process", (double)churn / 1e9 / win * 100.0);
    if (d->shorts) {
        struct hist *h = report_hist(r, NM_PROC_LIFETIME, "Lifetime of processes that lived "
                                     "under 1 s", "ms", "process");
        kbpf_hist_add(h, d->hist, PED_HIST, -1, -1);
    }

    struct agg *a = xcalloc(d->nex + 1, sizeof *a);
    size_t na = 0;
    for (size_t i = 0; i < d->nex; i++) {
        const struct ped_exec *e = &d->ex[i];
        size_t j = 0;
        while (j < na && strcmp(a[j].comm, e->comm) != 0)
            j++;
        if (j == na)
            a[na++] = (struct agg){.comm = e->comm};
        a[j].execs += e->n;
        a[j].before += e->n_before;
        a[j].after += e->n_after;
        uint64_t all = e->n + e->n_before + e->n_after;
        if (all > a[j].pbest || (all == a[j].pbest && strcmp(e->pcomm, a[j].pcomm) < 0)) {
            a[j].pbest = all;
            a[j].pcomm = e->pcomm;
        }
    }
    if (na)
        qsort(a, na, sizeof *a, agg_cmp);
    struct table *t = report_table(r, NM_PROC_EXECS, "Programs executed", "process");
    static const struct col_spec proc_execs_cols[] = {
        {"comm", "Command", "", 0},
        {"execs", "Execs", "", 0},
        {"execs_per_s", "Execs/s", "/s", 1},
        {"avg_lifetime_ms", "Avg lifetime", "ms", 1},
        {"cpu_pct", "CPU of those that ended", "% of one CPU", 1},
        {"parent_comm", "Parent", "", 0},
    };
    table_add_cols(t, proc_execs_cols, ARRAY_LEN(proc_execs_cols));
    table_set_note(t, "Command after exec; the parent is the one that started most of them. "
                      "Lifetime and CPU cover the exits of that command seen in the window "
                      "(CPU over each process's whole life).");
    /* sorted by window execs: commands seen only outside it are listed below */
    for (size_t i = 0; i < na && i < TOP_EXECS && a[i].execs; i++) {
        size_t row = table_add_row(t);
        table_set_str(t, row, "comm", a[i].comm);
        table_set_num(t, row, "execs", (double)a[i].execs);
        table_set_num(t, row, "execs_per_s", (double)a[i].execs / win);
        for (size_t k = 0; k < d->nxt; k++)
            if (strcmp(d->xt[k].comm, a[i].comm) == 0 && d->xt[k].exits) {
                table_set_num(t, row, "avg_lifetime_ms",
                              (double)d->xt[k].life_ns / (double)d->xt[k].exits / 1e6);
                table_set_num(t, row, "cpu_pct", (double)d->xt[k].cpu_ns / 1e9 / win * 100.0);
            }
        table_set_str(t, row, "parent_comm", a[i].pcomm ? a[i].pcomm : "");
    }
    /* Execs while perfreport started or finished: listed, not in the rates. */
    if (d->execs_before || d->execs_after) {
        if (na)
            qsort(a, na, sizeof *a, agg_outside_cmp);
        struct table *o = report_table(r, NM_PROC_EXECS_OUTSIDE, "Programs executed outside the "
                                       "window", "process");
        static const struct col_spec proc_execs_outside_cols[] = {
            {"comm", "Command", "", 0},
            {"execs_before", "Before the window", "", 0},
            {"execs_after", "After the window", "", 0},
            {"parent_comm", "Parent", "", 0},
        };
        table_add_cols(o, proc_execs_outside_cols, ARRAY_LEN(proc_execs_outside_cols));
        table_set_note(o, "Seen while perfreport started (from the programs' attach to the "
                          "window's start) and finished (from its end to the drain); not in "
                          "the window's rates.");
        for (size_t i = 0; i < na && i < TOP_EXECS && a[i].before + a[i].after; i++) {
            size_t row = table_add_row(o);
            table_set_str(o, row, "comm", a[i].comm);
            table_set_num(o, row, "execs_before", (double)a[i].before);
            table_set_num(o, row, "execs_after", (double)a[i].after);
            table_set_str(o, row, "parent_comm", a[i].pcomm ? a[i].pcomm : "");
        }
    }
    free(a);
}

/* ---- collector ------------------------------------------------------------ */

struct pe_state {
    struct procevents_bpf *skel;
    bool classic;
    bool ended; /* end ran: events from here on are after the window */
};

static bool pe_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    return kbpf_can_trace("sched", "sched_process_exec", reason, n);
}

static struct procevents_bpf *pe_open(bool classic, uint32_t tgid, uint64_t cgid)
{
    struct procevents_bpf *skel = procevents_bpf__open();
    if (!skel)
        return NULL;
    kbpf_alloc_on_insert(skel->maps.execs); /* a key per (command, parent) pair */
    kbpf_alloc_on_insert(skel->maps.exits);
    skel->rodata->targ_tgid = tgid;
    skel->rodata->targ_cgid = cgid;
    bpf_program__set_autoload(skel->progs.pe_exec_btf, !classic);
    bpf_program__set_autoload(skel->progs.pe_exit_btf, !classic);
    bpf_program__set_autoload(skel->progs.pe_exec_tp, classic);
    bpf_program__set_autoload(skel->progs.pe_exit_tp, classic);
    /* Load-time value: without mmapable maps (bss NULL after load) begin
     * cannot reach the programs, and everything counts as the window. */
    skel->bss->win_start_ns = 1;
    if (procevents_bpf__load(skel) != 0) {
        int e = errno;
        procevents_bpf__destroy(skel);
        errno = e;
        return NULL;
    }
    if (skel->bss)
        skel->bss->win_start_ns = 0; /* before the window until begin */
    if (procevents_bpf__attach(skel) != 0) {
        int e = errno;
        procevents_bpf__destroy(skel);
        errno = e;
        return NULL;
    }
    return skel;
}

static int pe_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    uint32_t tgid;
    uint64_t cgid;
    int rc = kbpf_target(ctx, &tgid, &cgid, err, n);
    if (rc)
        return rc;
    struct pe_state *st = xcalloc(1, sizeof *st);
    *state = st;
    st->skel = kbpf_force_classic() ? NULL : pe_open(false, tgid, cgid);
    if (!st->skel) {
        st->classic = true;
        st->skel = pe_open(true, tgid, cgid);
    }
    if (!st->skel) {
        int e = errno ? errno : EINVAL;
        char msg[128];
        libbpf_strerror(e, msg, sizeof msg);
        snprintf(err, n, "loading/attaching sched_process_exec/exit programs failed: %s", msg);
        return -e;
    }
    return 0;
}

static void copy_comm(char dst[17], const char src[16])
{
    memcpy(dst, src, 16);
    dst[16] = '\0';
}

static void drain(struct pe_state *st, struct pe_data *d)
{
    struct procevents_bpf *sk = st->skel;
    uint64_t c[PE_PH_N * PE_CNT_N] = {0};
    for (uint32_t i = 0; i < PE_PH_N * PE_CNT_N; i++)
        kbpf_percpu_sum_struct(sk->maps.counts, &i, sizeof i, &c[i], sizeof c[i]);
    const uint64_t *win = &c[PE_PH_WINDOW * PE_CNT_N];
    d->execs = win[PE_CNT_EXEC];
    d->exits = win[PE_CNT_EXIT];
    d->shorts = win[PE_CNT_SHORT];
    d->execs_before = c[PE_PH_BEFORE * PE_CNT_N + PE_CNT_EXEC];
    d->execs_after = c[PE_PH_AFTER * PE_CNT_N + PE_CNT_EXEC];
    uint32_t zero = 0;
    struct pe_hist h;
    if (kbpf_percpu_sum_struct(sk->maps.lifetime, &zero, sizeof zero, &h, sizeof h) == 0)
        memcpy(d->hist, h.b, sizeof d->hist);

    size_t cap = 0;
    struct pe_exec_key k, next;
    void *prev = NULL;
    while (bpf_map__get_next_key(sk->maps.execs, prev, &next, sizeof next) == 0) {
        k = next;
        prev = &k;
        struct pe_exec_val v;
        if (bpf_map__lookup_elem(sk->maps.execs, &k, sizeof k, &v, sizeof v, 0) != 0)
            continue;
        if (d->nex == cap) {
            cap = cap ? cap * 2 : 64;
            d->ex = xrealloc(d->ex, cap * sizeof *d->ex);
        }
        struct ped_exec *e = &d->ex[d->nex++];
        copy_comm(e->comm, k.comm);
        copy_comm(e->pcomm, k.pcomm);
        e->n = v.n[PE_PH_WINDOW];
        e->n_before = v.n[PE_PH_BEFORE];
        e->n_after = v.n[PE_PH_AFTER];
    }
    cap = 0;
    prev = NULL;
    while (bpf_map__get_next_key(sk->maps.exits, prev, &next, sizeof next) == 0) {
        k = next;
        prev = &k;
        struct pe_exit_val v;
        if (bpf_map__lookup_elem(sk->maps.exits, &k, sizeof k, &v, sizeof v, 0) != 0)
            continue;
        if (d->nxt == cap) {
            cap = cap ? cap * 2 : 64;
            d->xt = xrealloc(d->xt, cap * sizeof *d->xt);
        }
        struct ped_exit *x = &d->xt[d->nxt++];
        copy_comm(x->comm, k.comm);
        x->exits = v.exits;
        x->short_exits = v.short_exits;
        x->short_life_ns = v.short_life_ns;
        x->life_ns = v.life_ns;
        x->cpu_ns = v.cpu_ns;
        x->churn_ns = v.churn_ns;
    }
}

/* The window's edges in the programs' clock (bpf_ktime_get_ns is
 * CLOCK_MONOTONIC); the programs stay attached from start to stop. */
static int pe_begin(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct pe_state *st = state;
    if (st->skel->bss)
        st->skel->bss->win_start_ns = mono_ns();
    return 0;
}

static int pe_end(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct pe_state *st = state;
    if (st->skel->bss)
        st->skel->bss->win_end_ns = mono_ns();
    st->ended = true;
    return 0;
}

static int pe_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    (void)err;
    (void)n;
    struct pe_state *st = state;
    if (!st->ended) /* end did not run (an injected fault): the window ends here */
        pe_end(ctx, st);
    procevents_bpf__detach(st->skel);
    struct pe_data d;
    memset(&d, 0, sizeof d);
    drain(st, &d);
    procevents_fill(ctx->r, &d, ctx->now_s);
    pe_data_free(&d);
    struct ledger_entry *led = report_ledger(ctx->r, "procevents", NULL);
    if (st->classic)
        ledger_note(led, "tp_btf unavailable: classic sched tracepoints");
    uint64_t drops = 0;
    for (uint32_t ph = 0; ph < PE_PH_N; ph++) {
        uint32_t i = ph * PE_CNT_N + PE_CNT_DROP;
        uint64_t v = 0;
        if (kbpf_percpu_sum_struct(st->skel->maps.counts, &i, sizeof i, &v, sizeof v) == 0)
            drops += v;
    }
    if (drops)
        ledger_note(led, "%llu events lost: exec/exit tables full", (unsigned long long)drops);
    return 0;
}

static void pe_destroy(void *state)
{
    struct pe_state *st = state;
    if (!st)
        return;
    procevents_bpf__destroy(st->skel);
    free(st);
}

const struct collector collector_procevents = {
    .name = "procevents",
    .title = "Process churn (BPF exec/exit)",
    .needs_bpf = true,
    .can_run = pe_can_run,
    .start = pe_start,
    .begin = pe_begin,
    .end = pe_end,
    .stop = pe_stop,
    .destroy = pe_destroy,
};
