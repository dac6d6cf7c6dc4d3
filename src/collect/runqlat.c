/* Collector "runqlat": run-queue latency from sched_wakeup/_new/switch,
 * aggregated in the kernel for the whole window (bpf/runqlat.bpf.c). */
#include "runqlat.h"
#include "../kbpf/threads_tables.h"
#include "collector.h"
#include "../kbpf/kbpf.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../util/clock.h"
#include "../util/xalloc.h"
#include "runqlat.skel.h"
#include "../../bpf/runqlat.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void runqlat_fill_hists(struct report *r, const struct khist *cpus, size_t ncpu,
                        const struct khist *behind_self)
{
    struct hist *all = report_hist(r, NM_RUNQLAT, "Run-queue latency (all CPUs)", "us", "cpu");
    for (size_t c = 0; c < ncpu; c++) {
        const struct khist *k = &cpus[c];
        uint64_t n = 0;
        for (size_t i = 0; i < KHIST_SLOTS; i++)
            n += k->slots[i];
        if (!n)
            continue;
        char name[48], title[64];
        snprintf(name, sizeof name, NMF_RUNQLAT_CPU, c);
        snprintf(title, sizeof title, "Run-queue latency on CPU %zu", c);
        struct hist *h = report_hist(r, name, title, "us", "cpu");
        kbpf_khist_add(h, k);
        kbpf_khist_add(all, k);
    }
    report_metric(r, NM_SCHED_RUNQ_WAITS, "Run-queue waits", "", "cpu", (double)all->count);
    if (all->count) {
        report_metric(r, NM_SCHED_RUNQ_P50_US, "Run-queue latency p50", "us", "cpu",
                      hist_percentile(all, 0.50));
        report_metric(r, NM_SCHED_RUNQ_P90_US, "Run-queue latency p90", "us", "cpu",
                      hist_percentile(all, 0.90));
        report_metric(r, NM_SCHED_RUNQ_P99_US, "Run-queue latency p99", "us", "cpu",
                      hist_percentile(all, 0.99));
        report_metric(r, NM_SCHED_RUNQ_MAX_US, "Run-queue latency max", "us", "cpu", all->max);
    }
    if (!behind_self)
        return;
    uint64_t n = 0;
    for (size_t i = 0; i < KHIST_SLOTS; i++)
        n += behind_self->slots[i];
    report_metric(r, NM_SCHED_RUNQ_BEHIND_SELF, "Run-queue waits behind perfreport", "", "cpu",
                  (double)n);
    if (!n)
        return;
    struct hist *self = report_hist(r, NM_RUNQLAT_BEHIND_SELF,
                                    "Run-queue waits behind perfreport itself (not counted above)",
                                    "us", "cpu");
    kbpf_khist_add(self, behind_self);
}

static int by_total_desc(const void *a, const void *b)
{
    const struct runq_proc *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns < y->total_ns ? 1 : -1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

void runqlat_fill_table(struct report *r, struct runq_proc *procs, size_t n, const char *note)
{
    struct table *t = report_table(r, NM_SCHED_RUNQ_WAIT, "Run-queue wait by process", "cpu");
    static const struct col_spec sched_runq_wait_cols[] = {
        {"pid", "PID", "", 0},
        {"comm", "Command", "", 0},
        {"waits", "Waits", "", 0},
        {"total_ms", "Total wait", "ms", 1},
        {"avg_us", "Avg wait", "us", 0},
        {"max_us", "Max wait", "us", 0},
    };
    table_add_cols(t, sched_runq_wait_cols, ARRAY_LEN(sched_runq_wait_cols));
    if (n)
        qsort(procs, n, sizeof *procs, by_total_desc);
    for (size_t i = 0; i < n && i < RUNQ_TOP; i++) {
        const struct runq_proc *p = &procs[i];
        if (!p->count)
            break;
        size_t row = table_add_row(t);
        char comm[17];
        memcpy(comm, p->comm, 16);
        comm[16] = '\0';
        table_set_num(t, row, "pid", p->pid);
        table_set_str(t, row, "comm", comm);
        table_set_num(t, row, "waits", (double)p->count);
        table_set_num(t, row, "total_ms", (double)p->total_ns / 1e6);
        table_set_num(t, row, "avg_us", (double)p->total_ns / (double)p->count / 1e3);
        table_set_num(t, row, "max_us", (double)p->max_ns / 1e3);
    }
    if (note)
        table_set_note(t, note);
}

struct rq_state {
    struct runqlat_bpf *skel;
    bool classic;
    bool filtered;
    int ncpu;
};

static bool btf_hooks(void)
{
    static const char *const tps[] = {"sched_switch", "sched_wakeup", "sched_wakeup_new"};
    return kbpf_missing_tp_btf(tps, sizeof tps / sizeof tps[0]) == NULL;
}

static bool rq_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    bool btf = !kbpf_force_classic() && btf_hooks();
    bool filtered = ctx->cfg && (ctx->cfg->pid > 0 || ctx->cfg->cgroup);
    if (!btf && filtered) {
        snprintf(reason, n, "-p/-c filtering needs the tp_btf sched hooks (kernel BTF)");
        return false;
    }
    if (btf || kbpf_has_tracepoint("sched", "sched_switch"))
        return true;
    snprintf(reason, n, "neither tp_btf sched_switch (kernel BTF) nor the sched tracepoints "
                        "(tracefs) are available");
    return false;
}

static void rq_destroy(void *state)
{
    struct rq_state *st = state;
    if (!st)
        return;
    runqlat_bpf__destroy(st->skel);
    free(st);
}

static int rq_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct rq_state *st = xcalloc(1, sizeof *st);
    *state = st;
    uint32_t tgid;
    uint64_t cgid;
    int rc = kbpf_target(ctx, &tgid, &cgid, err, n);
    if (rc)
        return rc;
    st->filtered = tgid || cgid;
    st->classic = kbpf_force_classic() || !btf_hooks(); /* -p/-c: can_run refused classic */
    st->ncpu = libbpf_num_possible_cpus();
    if (st->ncpu <= 0) {
        snprintf(err, n, "cannot count possible CPUs");
        return -EINVAL;
    }
    st->skel = runqlat_bpf__open();
    if (!st->skel) {
        snprintf(err, n, "open runqlat BPF object: %s", strerror(errno));
        return -errno;
    }
    struct runqlat_bpf *s = st->skel;
    kbpf_alloc_on_insert(s->maps.procs); /* a histogram per process that waited */
    s->rodata->targ_tgid = tgid;
    if (!tgid)
        kbpf_map_unused(s->maps.tids); /* threads of a target only */
    s->rodata->self_tgid = (uint32_t)getpid();
    s->rodata->targ_cgid = cgid;
    bpf_program__set_autoload(s->progs.rq_wakeup_btf, !st->classic);
    bpf_program__set_autoload(s->progs.rq_wakeup_new_btf, !st->classic);
    bpf_program__set_autoload(s->progs.rq_switch_btf, !st->classic);
    bpf_program__set_autoload(s->progs.rq_wakeup_tp, st->classic);
    bpf_program__set_autoload(s->progs.rq_wakeup_new_tp, st->classic);
    bpf_program__set_autoload(s->progs.rq_switch_tp, st->classic);
    bpf_map__set_max_entries(s->maps.cpu_hist, (uint32_t)st->ncpu);
    bpf_map__set_max_entries(s->maps.start,
                             kbpf_per_thread_entries(kbpf_host_threads(), 2048, RUNQ_MAX_STARTS));
    /* Initial value: without mmapable maps (s->bss NULL after load) the
     * switch cannot be flipped and it records from the attach. */
    s->bss->recording = true;
    rc = runqlat_bpf__load(s);
    if (!rc && s->bss)
        s->bss->recording = false; /* until begin: the other loads are not the host's */
    if (!rc)
        rc = runqlat_bpf__attach(s);
    if (rc) {
        char e[128];
        libbpf_strerror(rc, e, sizeof e);
        snprintf(err, n, "%s runqlat BPF (%s): %s", "load/attach",
                 st->classic ? "classic tracepoints" : "tp_btf", e);
        return rc < 0 ? rc : -rc;
    }
    return 0;
}

static int rq_begin(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct rq_state *st = state;
    if (st->skel->bss)
        st->skel->bss->recording = true;
    return 0;
}

/* The window is over: programs record nothing more, so the other
 * collectors' drains are not measured.  Without mmapable maps (bss NULL
 * after load) the switch is out of reach: detach, as biolat does. */
static int rq_end(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct rq_state *st = state;
    if (st->skel->bss)
        st->skel->bss->recording = false;
    else
        runqlat_bpf__detach(st->skel);
    return 0;
}

/* -p: one thread's waits (bpf/threads.h) as a threads.runq row */
static bool runq_row(const void *key, const void *val, void *elem, void *ctx)
{
    (void)ctx;
    const struct runq_proc_val *w = val;
    struct thread_val *t = elem;
    *t = (struct thread_val){.tid = *(const uint32_t *)key, .count = w->count,
                             .total_ns = w->total_ns, .max_ns = w->max_ns};
    memcpy(t->comm, w->comm, sizeof t->comm);
    return true;
}

static int rq_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    struct rq_state *st = state;
    struct runqlat_bpf *s = st->skel;
    double t0 = mono_ms();
    runqlat_bpf__detach(s);

    struct khist *cpus = xcalloc((size_t)st->ncpu, sizeof *cpus);
    int fd = bpf_map__fd(s->maps.cpu_hist);
    for (int c = 0; c < st->ncpu; c++) {
        uint32_t key = (uint32_t)c;
        if (bpf_map_lookup_elem(fd, &key, &cpus[c]) != 0)
            memset(&cpus[c], 0, sizeof cpus[c]);
    }
    struct khist self;
    uint32_t zero = 0;
    if (bpf_map_lookup_elem(bpf_map__fd(s->maps.behind_self), &zero, &self) != 0)
        memset(&self, 0, sizeof self);
    runqlat_fill_hists(ctx->r, cpus, (size_t)st->ncpu, &self);
    free(cpus);

    struct runq_proc *procs = NULL;
    size_t np = 0, cap = 0;
    fd = bpf_map__fd(s->maps.procs);
    uint32_t key;
    struct runq_proc_val val;
    struct kbpf_walk w = KBPF_WALK_INIT(fd);
    while (kbpf_walk_next(&w, &key, sizeof key, &val)) {
        xgrow(&procs, &cap, np + 1, sizeof *procs);
        struct runq_proc *p = &procs[np++];
        p->pid = key;
        memcpy(p->comm, val.comm, sizeof p->comm);
        p->total_ns = val.total_ns;
        p->count = val.count;
        p->max_ns = val.max_ns;
    }
    char note[160];
    const char *nt = NULL;
    if (st->filtered) {
        snprintf(note, sizeof note, "Only the target's tasks (%s) are measured.",
                 ctx->cfg->target ? ctx->cfg->target : "-p/-c");
        nt = note;
    } else if (st->classic) {
        nt = "Classic tracepoints: rows are threads, not processes.";
    }
    runqlat_fill_table(ctx->r, procs, np, nt);
    free(procs);
    if (ctx->cfg->pid > 0 && !st->classic) {
        struct thread_val *tv = NULL;
        size_t ntv = 0, tcap = 0;
        struct kbpf_drain td = {bpf_map__fd(s->maps.tids), sizeof(uint32_t),
                                sizeof(struct runq_proc_val), sizeof *tv, runq_row, NULL};
        kbpf_drain(&td, &tv, &ntv, &tcap);
        threads_fill_runq(ctx->r, tv, ntv, kbpf_percpu_sum(bpf_map__fd(s->maps.drops), 2));
        free(tv);
    }

    struct ledger_entry *e = report_ledger(ctx->r, "runqlat", NULL);
    uint64_t d0 = kbpf_percpu_sum(bpf_map__fd(s->maps.drops), 0);
    uint64_t d1 = kbpf_percpu_sum(bpf_map__fd(s->maps.drops), 1);
    if (d0)
        ledger_note(e, "%llu wakeups not tracked (start map full)", (unsigned long long)d0);
    if (d1)
        ledger_note(e, "%llu waits not attributed to a process (process map full)",
                    (unsigned long long)d1);
    ledger_note(e, "%s; drained in %.1f ms", st->classic ? "classic tracepoints" : "tp_btf",
                mono_ms() - t0);
    (void)err;
    (void)n;
    return 0;
}

const struct collector collector_runqlat = {
    .name = "runqlat",
    .title = "Run-queue latency (BPF sched tracepoints)",
    .needs_bpf = true,
    .can_run = rq_can_run,
    .start = rq_start,
    .tick = NULL,
    .begin = rq_begin,
    .end = rq_end,
    .stop = rq_stop,
    .destroy = rq_destroy,
};
