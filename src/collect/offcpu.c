/* Collector "offcpu": where user threads wait while blocked (not
 * preempted), from sched_switch aggregated in the kernel (bpf/offcpu.bpf.c).
 * Drains into the "offcpu" profile (µs), classifies every aggregate into a
 * wait class (waitclass.h) and writes offcpu.classes / offcpu.top_stacks.
 *
 * Threads blocked before the window opened are seeded by a task iterator
 * right after attach, and threads still blocked when it closes are counted
 * up to the window end: a reader stuck on a pipe for the whole window is the
 * answer, not a blind spot. */
#include "../model/model.h"
#include "../model/names.h"
#include "../model/profile.h"
#include "../util/clock.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "../kbpf/kbpf.h"
#include "collector.h"
#include "../stacks/stack_prefetch.h"
#include "../stacks/stack_time.h"
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
#include <sys/syscall.h>

#include "../../bpf/offcpu.h"
#include "offcpu.skel.h"
#include "../../bpf/threads.h"
#include "../kbpf/threads_tables.h"

#define TOP_STACKS 25
#define SUMMARY_FRAMES 5

struct start_rec { /* mirrors bpf/offcpu.bpf.c */
    struct offcpu_start s;
    __u32 tgid;
    char comm[16];
};

struct row {
    struct offcpu_key k;
    struct offcpu_val v;
    enum wait_class cls;
    char *stack; /* owned summary */
};

struct offcpu_state {
    struct offcpu_bpf *skel; /* owned */
    bool classic;
    uint64_t begin_ns;       /* CLOCK_MONOTONIC when recording began (begin) */
    uint64_t end_ns;         /* when recording stopped (end), 0 before */
    uint64_t observed_ns;    /* begin -> end: the span the shares are of */
    bool sym_ref;            /* holds a stacks_sym_acquire() reference */
    bool follow;             /* a command's tree: its child processes are followed */
    struct stack_time *time; /* owned: the keys' blocked microseconds per second */
    double read_s;           /* the window time of its last reading */
    double bucket_s;         /* its buckets' width (stack_time_bucket_width of -i) */
    double interval_s;       /* -i: the ticks' spacing (0: unknown, every tick reads) */
    bool joins;              /* futex waits on a sibling's exit word are told apart */
    struct stack_prefetch *pf; /* owned: stacks resolved during the window */
};

static bool offcpu_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    if (kbpf_has_tp_btf("sched_switch"))
        return true;
    if (ctx->caps && ctx->caps->tracefs)
        return true;
    snprintf(reason, n, "neither BTF for sched_switch nor tracefs is available");
    return false;
}

/* Runs the seed iterator once, pass `pass` (see offcpu_seed in the BPF file). */
static int run_seed_iter(struct offcpu_bpf *skel, unsigned pass)
{
    if (skel->data)
        skel->data->seed_pass = pass;
    else if (pass != 1)
        return -ENOTSUP; /* no mmapable .data: only the default pass (1) can run */
    struct bpf_link *link = bpf_program__attach_iter(skel->progs.offcpu_seed, NULL);
    if (!link)
        return -errno;
    int fd = bpf_iter_create(bpf_link__fd(link));
    int rc = 0;
    if (fd < 0) {
        rc = -errno;
    } else {
        char buf[256];
        ssize_t got;
        while ((got = read(fd, buf, sizeof buf)) > 0)
            ;
        if (got < 0)
            rc = -errno;
        close(fd);
    }
    bpf_link__destroy(link);
    return rc;
}

static int offcpu_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct offcpu_state *st = xcalloc(1, sizeof *st);
    *state = st;
    uint64_t cgid = 0;
    uint32_t tgid_unused;
    int rc = kbpf_target(ctx, &tgid_unused, &cgid, err, n);
    if (rc)
        return rc;
    stacks_sym_acquire(ctx->cfg); /* the run's symbolizer: kallsyms loads during the window */
    st->sym_ref = true;
    st->skel = offcpu_bpf__open();
    if (!st->skel) {
        rc = errno ? -errno : -EINVAL;
        snprintf(err, n, "opening the off-CPU BPF object failed: %s", strerror(-rc));
        return rc;
    }
    /* a key per new (process, stacks), a seed per thread blocked at the start */
    kbpf_alloc_on_insert(st->skel->maps.agg);
    kbpf_alloc_on_insert(st->skel->maps.stacks);
    kbpf_alloc_on_insert(st->skel->maps.seed_stacks);
    bpf_map__set_max_entries(st->skel->maps.starts,
                             kbpf_per_thread_entries(kbpf_host_threads(), 2048, OFFCPU_MAX_STARTS));
    st->classic = kbpf_force_classic() || !kbpf_has_tp_btf("sched_switch");
    bpf_program__set_autoload(st->skel->progs.offcpu_switch_btf, !st->classic);
    bpf_program__set_autoload(st->skel->progs.offcpu_switch_tp, st->classic);
    st->skel->rodata->self_tgid = (__u32)getpid();
    st->skel->rodata->target_tgid = (__u32)ctx->cfg->pid;
    if (ctx->cfg->pid <= 0)
        kbpf_map_unused(st->skel->maps.tid_off); /* threads of a target only */
    /* A target's joins and a command's tree need the fork hook (tp_btf). */
    st->follow = ctx->cfg->pid > 0 && ctx->cfg->follow_children && !st->classic;
    st->joins = ctx->cfg->pid > 0 && !st->classic;
    st->skel->rodata->follow_children = st->follow;
    st->skel->rodata->find_joins = st->joins;
    bpf_program__set_autoload(st->skel->progs.offcpu_fork, st->follow || st->joins);
    if (!st->follow)
        kbpf_map_unused(st->skel->maps.followed);
    if (st->joins)
        kbpf_alloc_on_insert(st->skel->maps.join_words);
    else
        kbpf_map_unused(st->skel->maps.join_words);
    st->skel->rodata->target_cgid = cgid;
    st->skel->rodata->min_block_ns = (__u64)ctx->cfg->min_block_us * 1000ull;
    /* Initial value: without mmapable maps (bss NULL after load) begin
     * cannot reach the programs, and they count from the attach. */
    st->skel->bss->begin_ns = 1;
    rc = offcpu_bpf__load(st->skel);
    if (rc) {
        snprintf(err, n, "loading the off-CPU programs failed: %s", strerror(-rc));
        return rc;
    }
    kbpf_warm_alloc(st->skel->maps.stacks);
    if (st->skel->bss)
        st->skel->bss->begin_ns = 0;
    st->pf = stack_prefetch_new(bpf_map__fd(st->skel->maps.stacks),
                               STACKS_USER_PER_PID | STACKS_TRIM_TRACING);
    /* keys: the aggregates, and the waits still pending at the end */
    st->time = stack_time_new(sizeof(struct offcpu_key), OFFCPU_MAX_AGG + OFFCPU_MAX_STARTS,
                              STACK_TIME_MAX_CELLS, STACK_TIME_MAX_BUCKETS);
    st->interval_s = ctx->cfg ? ctx->cfg->interval_s : 0;
    st->bucket_s = stack_time_bucket_width(st->interval_s);
    struct bpf_program *prog =
        st->classic ? st->skel->progs.offcpu_switch_tp : st->skel->progs.offcpu_switch_btf;
    struct bpf_link *l = bpf_program__attach(prog);
    if (!l) {
        rc = -errno;
        snprintf(err, n, "attaching to sched_switch failed: %s", strerror(-rc));
        return rc;
    }
    if (st->classic)
        st->skel->links.offcpu_switch_tp = l;
    else
        st->skel->links.offcpu_switch_btf = l;
    if (st->follow || st->joins) {
        /* before the seed: a thread or process made after it is known */
        st->skel->links.offcpu_fork = bpf_program__attach(st->skel->progs.offcpu_fork);
        if (!st->skel->links.offcpu_fork) {
            ledger_note(report_ledger(ctx->r, "offcpu", NULL),
                        "the fork hook did not attach (%s): %s", strerror(errno),
                        st->follow ? "the command's child processes are not followed and "
                                     "joins read as futex waits"
                                   : "joins read as futex waits");
            st->follow = st->joins = false;
        }
    }
    st->begin_ns = mono_ns(); /* until begin moves it */
    if (st->joins && run_seed_iter(st->skel, 0) != 0)
        ledger_note(report_ledger(ctx->r, "offcpu", NULL),
                    "joins of threads blocked before the window read as futex waits");
    rc = run_seed_iter(st->skel, 1);
    if (rc)
        ledger_note(report_ledger(ctx->r, "offcpu", NULL),
                    "threads already blocked at the window start not seen (task iterator: %s)",
                    strerror(-rc));
    return 0;
}

static int key_cmp(const void *a, const void *b)
{
    return memcmp(&((const struct row *)a)->k, &((const struct row *)b)->k,
                  sizeof(struct offcpu_key));
}

static int total_cmp_desc(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    return x->v.total_ns < y->v.total_ns ? 1 : x->v.total_ns > y->v.total_ns ? -1 : 0;
}

static void rows_push(struct row **v, size_t *nv, size_t *cap, const struct offcpu_key *k,
                      uint64_t total_ns, uint64_t count)
{
    if (*nv == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        *v = xrealloc(*v, *cap * sizeof **v);
    }
    struct row *r = &(*v)[(*nv)++];
    memset(r, 0, sizeof *r);
    r->k = *k;
    r->v.total_ns = total_ns;
    r->v.count = count;
    r->cls = WC_OTHER;
}

/* "a <- b <- c": up to SUMMARY_FRAMES leaf-first frames that are not noise. */
static char *summarize(const char *const *leaf_first, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    size_t k = 0;
    for (size_t i = 0; i < n && k < SUMMARY_FRAMES; i++) {
        if (wait_frame_is_noise(leaf_first[i]))
            continue;
        sb_addf(&sb, "%s%s", k ? " <- " : "", leaf_first[i]);
        k++;
    }
    char *s = xstrdup(sb_str(&sb));
    sb_free(&sb);
    return s;
}

/* Classifies one row from its leaf-first frames. */
static void classify_row(struct row *r, const char *const *kf, size_t nk, const char *const *uf,
                         size_t nu, const char *const *all, size_t nall)
{
    r->cls = wait_classify(kf, nk, uf, nu, r->k.syscall);
    free(r->stack);
    r->stack = summarize(all, nall);
}

/* One resolved row: kernel frames, user frames and all frames (leaf
 * first) decide its wait class. */
static void take_row(void *ctx, size_t idx, const char *const *names, const uint8_t *kinds,
                     size_t n)
{
    size_t cap = n ? n : 1;
    const char **kf = xcalloc(cap, sizeof *kf), **uf = xcalloc(cap, sizeof *uf);
    size_t nk = 0, nu = 0;
    for (size_t i = 0; i < n; i++) {
        if (kinds[i] == FRAME_KERNEL)
            kf[nk++] = names[i];
        else if (kinds[i] != FRAME_UNKNOWN && kinds[i] != FRAME_PROCESS)
            uf[nu++] = names[i];
    }
    classify_row(&((struct row *)ctx)[idx], kf, nk, uf, nu, names, n);
    free(kf);
    free(uf);
}

/* A thread blocked since before the window: kernel frames from the
 * sleeping task's stack (seed_stacks), no user stack. */
static void add_seeded(struct offcpu_state *st, struct symbolizer *sym,
                       struct stack_resolver *res, struct profile *prof, struct row *r,
                       const char *comm)
{
    struct offcpu_seed_stack ss;
    memset(&ss, 0, sizeof ss);
    __u32 tid = r->k.seed_tid;
    if (bpf_map_lookup_elem(bpf_map__fd(st->skel->maps.seed_stacks), &tid, &ss) != 0)
        ss.nr = 0;
    size_t nk = ss.nr < OFFCPU_SEED_DEPTH ? ss.nr : OFFCPU_SEED_DEPTH;
    const char *names[OFFCPU_SEED_DEPTH + 3];
    uint8_t kinds[OFFCPU_SEED_DEPTH + 3];
    const char *kleaf[OFFCPU_SEED_DEPTH];
    size_t d = 0;
    names[d] = comm;
    kinds[d++] = FRAME_PROCESS;
    /* Its callers cannot be read from another task; the instruction it
     * entered the kernel from names the user function that waits
     * (__lll_lock_wait: a mutex; __futex_abstimed_wait_common: a park). */
    names[d] = ss.uip ? "[callers not captured: blocked since before the window]"
                      : "[user stack not captured: blocked since before the window]";
    kinds[d++] = FRAME_UNKNOWN;
    /* the saved user ip follows the syscall instruction, each kernel return
     * address its call: look up the instruction before (the leaf's is exact) */
    uint64_t kaddr[OFFCPU_SEED_DEPTH];
    for (size_t i = 0; i < nk; i++)
        kaddr[i] = ss.ip[i] - (i ? 1 : 0);
    const char *uleaf = NULL;
    uint8_t ukind = FRAME_UNKNOWN;
    stacks_name_addrs(sym, r->k.tgid, ss.uip ? ss.uip - 1 : 0, &uleaf, &ukind, kaddr, nk, kleaf);
    if (uleaf) {
        names[d] = uleaf;
        kinds[d++] = ukind;
    }
    for (size_t i = nk; i-- > 0;) {
        names[d] = kleaf[i];
        kinds[d++] = FRAME_KERNEL;
    }
    if (!nk) {
        names[d] = "[missing kernel stack]";
        kinds[d++] = FRAME_UNKNOWN;
    }
    uint64_t us = r->v.total_ns / 1000;
    if (us)
        stack_resolver_label(res, prof, profile_add_stack(prof, names, kinds, d, us), r->k.tgid,
                             tid, comm, us);
    classify_row(r, kleaf, nk, uleaf ? &uleaf : NULL, uleaf ? 1 : 0, kleaf, nk);
}

static void comm_of(const struct offcpu_key *k, char *out)
{
    memcpy(out, k->comm, sizeof k->comm);
    out[sizeof k->comm] = '\0';
}

static void write_model(struct collect_ctx *ctx, const struct offcpu_state *st, struct row *rows,
                        size_t nrows)
{
    struct report *r = ctx->r;
    double cls_ms[WC_COUNT] = {0}, total_ms = 0;
    for (size_t i = 0; i < nrows; i++) {
        double ms = (double)rows[i].v.total_ns / 1e6;
        cls_ms[rows[i].cls] += ms;
        total_ms += ms;
    }
    report_metric(r, NM_OFFCPU_TOTAL_MS, "Off-CPU time (blocked, all threads)", "ms", "offcpu",
                  total_ms);
    for (int c = 0; c < WC_COUNT; c++) {
        char name[64], title[96];
        snprintf(name, sizeof name, NMF_OFFCPU_CLASS_MS, wait_class_name((enum wait_class)c));
        snprintf(title, sizeof title, "Off-CPU time: %s", wait_class_title((enum wait_class)c));
        report_metric(r, name, title, "ms", "offcpu", cls_ms[c]);
    }

    /* rows are sorted by total, so the first row of a class names its top process */
    struct table *t = report_table(r, NM_OFFCPU_CLASSES, "Off-CPU time by wait class", "offcpu");
    static const struct col_spec offcpu_classes_cols[] = {
        {"class", "Class", "", 0},
        {"what", "Waiting on", "", 0},
        {"total_ms", "Blocked", "ms", 1},
        {"share_pct", "Share", "%", 1},
        {"top_process", "Top process", "", 0},
    };
    table_add_cols(t, offcpu_classes_cols, ARRAY_LEN(offcpu_classes_cols));
    bool done[WC_COUNT] = {false};
    for (;;) {
        int best = -1;
        for (int c = 0; c < WC_COUNT; c++)
            if (!done[c] && cls_ms[c] > 0 && (best < 0 || cls_ms[c] > cls_ms[best]))
                best = c;
        if (best < 0)
            break;
        done[best] = true;
        /* top process of the class: sum per tgid over the class's rows */
        double top = -1;
        size_t top_row = 0;
        for (size_t i = 0; i < nrows; i++) {
            if ((int)rows[i].cls != best)
                continue;
            double s = 0;
            for (size_t j = 0; j < nrows; j++)
                if ((int)rows[j].cls == best && rows[j].k.tgid == rows[i].k.tgid)
                    s += (double)rows[j].v.total_ns;
            if (s > top) {
                top = s;
                top_row = i;
            }
        }
        char comm[17], lab[64];
        comm_of(&rows[top_row].k, comm);
        snprintf(lab, sizeof lab, "%s (pid %u)", comm, rows[top_row].k.tgid);
        size_t row = table_add_row(t);
        table_set_str(t, row, "class", wait_class_name((enum wait_class)best));
        table_set_str(t, row, "what", wait_class_title((enum wait_class)best));
        table_set_num(t, row, "total_ms", cls_ms[best]);
        table_set_num(t, row, "share_pct", total_ms > 0 ? cls_ms[best] * 100 / total_ms : 0);
        table_set_str(t, row, "top_process", lab);
    }
    table_set_note(t, "Blocked time of user threads (waits of at least --min-block-us), summed "
                      "over threads; preemption (waiting for a CPU) is not counted.");

    struct table *ts = report_table(r, NM_OFFCPU_TOP_STACKS, "Where threads blocked (off-CPU)",
                                    "offcpu");
    static const struct col_spec offcpu_top_stacks_cols[] = {
        {"pid", "PID", "", 0},
        {"process", "Process", "", 0},
        {"class", "Class", "", 0},
        {"total_ms", "Blocked", "ms", 1},
        {"count", "Waits", "", 0},
        {"stack", "Stack (leaf first)", "", 0},
    };
    table_add_cols(ts, offcpu_top_stacks_cols, ARRAY_LEN(offcpu_top_stacks_cols));
    for (size_t i = 0; i < nrows && i < TOP_STACKS; i++) {
        char comm[17];
        comm_of(&rows[i].k, comm);
        size_t row = table_add_row(ts);
        table_set_num(ts, row, "pid", rows[i].k.tgid);
        table_set_str(ts, row, "process", comm);
        table_set_str(ts, row, "class", wait_class_name(rows[i].cls));
        table_set_num(ts, row, "total_ms", (double)rows[i].v.total_ns / 1e6);
        table_set_num(ts, row, "count", (double)rows[i].v.count);
        table_set_str(ts, row, "stack", rows[i].stack ? rows[i].stack : "");
    }

    if (ctx->cfg->pid) {
        /* Every row is the target's (the programs filter by process, or by
         * the command's tree when it is followed). */
        double window_ms = (double)st->observed_ns / 1e6;
        double tms[WC_COUNT] = {0};
        for (size_t i = 0; i < nrows; i++)
            tms[rows[i].cls] += (double)rows[i].v.total_ns / 1e6;
        unsigned th = kbpf_proc_threads(ctx->cfg->pid);
        if (th && window_ms > 0)
            report_metric(r, NM_OFFCPU_TARGET_THREADS, "Threads of the target", "", "offcpu", th);
        for (int c = 0; c < WC_COUNT && window_ms > 0; c++) {
            const char *cls = wait_class_name((enum wait_class)c);
            const char *what = wait_class_title((enum wait_class)c);
            char name[64], title[160];
            snprintf(name, sizeof name, NMF_OFFCPU_TARGET_MS, cls);
            snprintf(title, sizeof title, "Target blocked on %s (all its threads)", what);
            report_metric(r, name, title, "ms", "offcpu", tms[c]);
            if (!th)
                continue;
            snprintf(name, sizeof name, NMF_OFFCPU_TARGET_PCT, cls);
            snprintf(title, sizeof title, "Target blocked on %s (per-thread share of window)",
                     what);
            double pct = tms[c] * 100 / (window_ms * th);
            report_metric(r, name, title, "%", "offcpu", pct > 100 ? 100 : pct);
        }
    }
}

/* Notes each wait's growth in its bucket and hands the stacks of the waits
 * aggregated so far to the prefetcher, so that a process that exits during
 * the window keeps its frame names.  Seeded rows (threads blocked before
 * the window) carry kernel stacks of their own map and are resolved at the
 * drain.  Under 1 s ticks, only the last tick of a bucket reads
 * (stack_time_read_due). */
static int offcpu_tick(struct collect_ctx *ctx, void *state)
{
    struct offcpu_state *st = state;
    if (!stack_time_read_due(st->read_s, ctx->now_s, st->interval_s, st->bucket_s))
        return 0;
    bool pf = stack_prefetch_ready(st->pf); /* false: this tick's keys wait */
    uint32_t bucket = stack_time_bucket_of(st->read_s, ctx->now_s, st->bucket_s);
    st->read_s = ctx->now_s;
    int afd = bpf_map__fd(st->skel->maps.agg);
    struct offcpu_key k;
    struct offcpu_val v;
    struct kbpf_walk w = KBPF_WALK_INIT(afd);
    while (kbpf_walk_next(&w, &k, sizeof k, &v)) {
        /* a wait counts in the second it ended (when it is aggregated) */
        stack_time_observe(st->time, &k, v.total_ns / 1000, bucket);
        if (pf && !k.seed_tid)
            stack_prefetch_add(st->pf, k.tgid, k.kstack, k.ustack);
    }
    if (pf)
        stack_prefetch_run(st->pf);
    return 0;
}

static int offcpu_begin(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct offcpu_state *st = state;
    if (!st->skel->bss)
        return 0;
    st->begin_ns = mono_ns(); /* the same clock as bpf_ktime_get_ns */
    st->skel->bss->begin_ns = st->begin_ns;
    return 0;
}

static int offcpu_end(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct offcpu_state *st = state;
    offcpu_bpf__detach(st->skel);
    st->end_ns = mono_ns();
    return 0;
}

static bool is_futex_nr(int32_t nr)
{
#ifdef SYS_futex_waitv
    if (nr == SYS_futex_waitv)
        return true;
#endif
    return nr == SYS_futex;
}

/* (seed_tid, kstack, syscall) -> wait class, from the classified rows */
struct cls_ix {
    uint32_t seed_tid; /* a thread blocked since before the window: its own rows */
    int32_t kstack, syscall;
    enum wait_class cls;
    uint64_t ns;
};

static int cls_ix_cmp(const void *a, const void *b)
{
    const struct cls_ix *x = a, *y = b;
    if (x->seed_tid != y->seed_tid)
        return x->seed_tid < y->seed_tid ? -1 : 1;
    if (x->kstack != y->kstack)
        return x->kstack < y->kstack ? -1 : 1;
    if (x->syscall != y->syscall)
        return x->syscall < y->syscall ? -1 : 1;
    return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0; /* the biggest first */
}

/* Wait classes of the process rows, sorted for thread_class's search. */
struct cls_index {
    const struct cls_ix *ix;
    size_t n;
};

/* One thread's wait (its key, ns blocked) as a threads.offcpu row: it takes
 * the class of the process row with the same kernel stack and syscall (the
 * biggest, when user stacks made several); a thread blocked since before
 * the window, the class of its own row. */
static struct thread_off thread_class(const struct cls_index *ci, const struct thread_off_key *k,
                                      uint64_t ns)
{
    struct cls_ix probe = {k->seeded ? k->tid : 0, k->kstack, k->syscall, WC_OTHER, UINT64_MAX};
    size_t lo = 0, hi = ci->n; /* first entry >= probe: the biggest of its key */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cls_ix_cmp(&ci->ix[mid], &probe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct cls_ix *e = lo < ci->n ? &ci->ix[lo] : NULL;
    enum wait_class c = e && e->seed_tid == probe.seed_tid && e->kstack == k->kstack &&
                                e->syscall == k->syscall
                            ? e->cls
                            : WC_OTHER;
    return (struct thread_off){k->tid, c, is_futex_nr(k->syscall), ns};
}

static bool offcpu_row(const void *key, const void *val, void *elem, void *ctx)
{
    *(struct thread_off *)elem =
        thread_class(ctx, key, ((const struct thread_off_val *)val)->total_ns);
    return true;
}

/* -p: the target's blocked time per thread (threads still blocked at the
 * end, then the tid_off map) -> threads.offcpu. */
static void drain_threads(struct collect_ctx *ctx, struct offcpu_state *st, const struct row *rows,
                          size_t nrows, const struct thread_off_key *pend, const uint64_t *pend_ns,
                          size_t npend)
{
    struct cls_ix *ix = xcalloc(nrows ? nrows : 1, sizeof *ix);
    for (size_t i = 0; i < nrows; i++)
        ix[i] = (struct cls_ix){rows[i].k.seed_tid, rows[i].k.kstack, rows[i].k.syscall,
                                rows[i].cls, rows[i].v.total_ns};
    if (nrows)
        qsort(ix, nrows, sizeof *ix, cls_ix_cmp);
    struct cls_index ci = {ix, nrows};
    struct thread_off *v = NULL;
    size_t nv = 0, cap = 0;
    for (size_t p = 0; p < npend; p++) {
        xgrow(&v, &cap, nv + 1, sizeof *v);
        v[nv++] = thread_class(&ci, &pend[p], pend_ns[p]);
    }
    struct kbpf_drain d = {bpf_map__fd(st->skel->maps.tid_off), sizeof(struct thread_off_key),
                           sizeof(struct thread_off_val), sizeof *v, offcpu_row, &ci};
    kbpf_drain(&d, &v, &nv, &cap);
    threads_fill_offcpu(ctx->r, v, nv, (double)st->observed_ns / 1e9,
                        kbpf_percpu_sum(bpf_map__fd(st->skel->maps.stats), OFFCPU_ST_TID_FULL));
    free(v);
    free(ix);
}

static int offcpu_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    struct offcpu_state *st = state;
    struct report *r = ctx->r;
    if (!st->end_ns) /* end did not run (an injected fault): stop here */
        offcpu_end(ctx, st);
    uint64_t t0 = mono_ns();
    st->observed_ns = st->end_ns > st->begin_ns ? st->end_ns - st->begin_ns : 0;
    uint64_t end = st->end_ns, min_ns = (uint64_t)ctx->cfg->min_block_us * 1000ull;

    struct row *rows = NULL;
    size_t nrows = 0, cap = 0;
    int afd = bpf_map__fd(st->skel->maps.agg);
    struct offcpu_key k;
    struct offcpu_val v;
    struct kbpf_walk w = KBPF_WALK_INIT(afd);
    while (kbpf_walk_next(&w, &k, sizeof k, &v))
        rows_push(&rows, &nrows, &cap, &k, v.total_ns, v.count);
    /* threads still blocked at the window end */
    int sfd = bpf_map__fd(st->skel->maps.starts);
    __u32 ntid;
    struct start_rec sr;
    size_t pending = 0;
    /* the target's pending waits, per thread (-p) */
    struct thread_off_key *pend = NULL;
    uint64_t *pend_ns = NULL;
    size_t npend = 0, cap_pk = 0, cap_pn = 0;
    struct kbpf_walk sw = KBPF_WALK_INIT(sfd);
    while (kbpf_walk_next(&sw, &ntid, sizeof ntid, &sr)) {
        uint64_t from = sr.s.ts_ns > st->begin_ns ? sr.s.ts_ns : st->begin_ns;
        if (from && end > from && end - from >= min_ns) {
            struct offcpu_key pk;
            memset(&pk, 0, sizeof pk);
            pk.tgid = sr.tgid;
            pk.seed_tid = sr.s.seeded ? ntid : 0;
            pk.kstack = sr.s.kstack;
            pk.ustack = sr.s.ustack;
            pk.syscall = sr.s.syscall;
            memcpy(pk.comm, sr.comm, sizeof pk.comm);
            rows_push(&rows, &nrows, &cap, &pk, end - from, 1);
            pending++;
            if (ctx->cfg->pid > 0 && sr.tgid == (__u32)ctx->cfg->pid) {
                xgrow(&pend, &cap_pk, npend + 1, sizeof *pend);
                xgrow(&pend_ns, &cap_pn, npend + 1, sizeof *pend_ns);
                pend[npend] = (struct thread_off_key){.tid = ntid, .kstack = sr.s.kstack,
                                                      .syscall = sr.s.syscall,
                                                      .seeded = sr.s.seeded};
                pend_ns[npend++] = end - from;
            }
        }
    }
    /* merge equal keys (a pending wait on a stack also seen completed) */
    if (nrows)
        qsort(rows, nrows, sizeof *rows, key_cmp);
    size_t m = 0;
    for (size_t i = 0; i < nrows; i++) {
        if (m && memcmp(&rows[m - 1].k, &rows[i].k, sizeof rows[i].k) == 0) {
            rows[m - 1].v.total_ns += rows[i].v.total_ns;
            rows[m - 1].v.count += rows[i].v.count;
        } else {
            rows[m++] = rows[i];
        }
    }
    nrows = m;
    if (nrows)
        qsort(rows, nrows, sizeof *rows, total_cmp_desc);

    double prefetch_ms;
    uint64_t prefetched;
    struct stack_resolver *res = stack_prefetch_take(st->pf, &prefetch_ms, &prefetched);
    struct symbolizer *sym = stacks_sym_get();
    if (!res)
        res = stack_resolver_new(sym, bpf_map__fd(st->skel->maps.stacks),
                                 STACKS_USER_PER_PID | STACKS_TRIM_TRACING);
    struct profile *prof = profile_new("offcpu", "Off-CPU time", "us");
    struct stack_row *srows = xcalloc(nrows ? nrows : 1, sizeof *srows);
    /* the waits since the last tick and those still blocked, at the end */
    uint32_t last = stack_time_bucket_of(st->read_s, (double)st->observed_ns / 1e9, st->bucket_s);
    for (size_t i = 0; i < nrows; i++)
        stack_time_observe(st->time, &rows[i].k, rows[i].v.total_ns / 1000, last);
    uint32_t *leaf = xcalloc(stack_time_nkeys(st->time) + 1, sizeof *leaf);
    for (size_t i = 0; i < stack_time_nkeys(st->time); i++)
        leaf[i] = PROFILE_NONE;
    int rc = 0;
    for (size_t i = 0; i < nrows && !rc; i++) {
        char comm[17];
        comm_of(&rows[i].k, comm);
        srows[i] = (struct stack_row){rows[i].k.tgid, rows[i].k.kstack, rows[i].k.ustack,
                                     rows[i].k.seed_tid != 0};
        uint64_t us = rows[i].v.total_ns / 1000;
        if (rows[i].k.seed_tid)
            add_seeded(st, sym, res, prof, &rows[i], comm);
        else if (us)
            rc = stack_resolver_add(res, prof, rows[i].k.tgid, comm, rows[i].k.kstack,
                                    rows[i].k.ustack, us);
        int64_t tk = stack_time_find(st->time, &rows[i].k);
        if (us && !rc && tk >= 0)
            leaf[tk] = stack_resolver_last_leaf(res);
    }
    stack_time_to_profile(st->time, prof, leaf,
                          stack_time_buckets_for((double)st->observed_ns / 1e9, st->bucket_s),
                          st->bucket_s,
                          report_ledger(r, "offcpu", NULL));
    free(leaf);
    if (!rc)
        rc = stack_resolver_rows(res, srows, nrows, take_row, rows);
    free(srows);
    if (rc)
        snprintf(err, n, "resolving off-CPU stacks failed: %s", strerror(-rc));

    write_model(ctx, st, rows, nrows);
    report_add_profile(r, prof);
    if (ctx->cfg->pid > 0)
        drain_threads(ctx, st, rows, nrows, pend, pend_ns, npend);
    free(pend);
    free(pend_ns);

    struct ledger_entry *le = report_ledger(r, "offcpu", NULL);
    int stfd = bpf_map__fd(st->skel->maps.stats);
    uint64_t full_s = kbpf_percpu_sum(stfd, OFFCPU_ST_START_FULL), full_a = kbpf_percpu_sum(stfd, OFFCPU_ST_AGG_FULL);
    ledger_note(le, "%s; %llu waits, %zu aggregates, %llu threads blocked at the start, %zu at "
                    "the end; %llu waits < %u \xC2\xB5s ignored",
                st->classic ? "classic sched_switch tracepoint" : "tp_btf sched_switch",
                (unsigned long long)kbpf_percpu_sum(stfd, OFFCPU_ST_BLOCKS), nrows,
                (unsigned long long)kbpf_percpu_sum(stfd, OFFCPU_ST_SEEDED), pending,
                (unsigned long long)kbpf_percpu_sum(stfd, OFFCPU_ST_SHORT), ctx->cfg->min_block_us);
    if (full_s || full_a)
        ledger_note(le, "maps full: %llu waits not timed, %llu not aggregated",
                    (unsigned long long)full_s, (unsigned long long)full_a);
    if (st->follow)
        ledger_note(le, "the command's child processes were followed");
    uint64_t unf = kbpf_percpu_sum(stfd, OFFCPU_ST_UNFOLLOWED),
             jfull = kbpf_percpu_sum(stfd, OFFCPU_ST_JOIN_FULL);
    if (unf)
        ledger_note(le, "%llu of the command's processes not followed: more than %d were",
                    (unsigned long long)unf, OFFCPU_MAX_FOLLOWED);
    if (jfull)
        ledger_note(le, "%llu threads' joins not told apart from futex waits (more than %d "
                        "threads)",
                    (unsigned long long)jfull, OFFCPU_MAX_JOIN_WORDS);
    /* stacks that could not be taken (map full, collision, unreadable user
     * memory), as blocked time; seeded threads have no user stack by design */
    double miss_k_ms = 0, miss_u_ms = 0;
    for (size_t i = 0; i < nrows; i++) {
        if (rows[i].k.seed_tid)
            continue;
        if (rows[i].k.kstack < 0)
            miss_k_ms += (double)rows[i].v.total_ns / 1e6;
        if (rows[i].k.ustack < 0)
            miss_u_ms += (double)rows[i].v.total_ns / 1e6;
    }
    if (miss_k_ms > 0 || miss_u_ms > 0)
        ledger_note(le, "blocked time without a kernel stack %.0f ms, without a user stack %.0f ms",
                    miss_k_ms, miss_u_ms);
    stacks_note_symbolizer(le, sym);
    stack_resolver_free(res);
    stacks_sym_release(); /* the profile copied every name it kept */
    st->sym_ref = false;
    for (size_t i = 0; i < nrows; i++)
        free(rows[i].stack);
    free(rows);
    ledger_note(le, "%llu stacks resolved during the window (%.0f ms); drain %.1f ms",
                (unsigned long long)prefetched, prefetch_ms, (double)(mono_ns() - t0) / 1e6);
    return rc;
}

static void offcpu_destroy(void *state)
{
    struct offcpu_state *st = state;
    if (!st)
        return;
    stack_prefetch_free(st->pf); /* before the maps it reads */
    stack_time_free(st->time);
    offcpu_bpf__destroy(st->skel);
    if (st->sym_ref)
        stacks_sym_release();
    free(st);
}

const struct collector collector_offcpu = {
    .name = "offcpu",
    .title = "Off-CPU time (BPF sched_switch)",
    .needs_bpf = true,
    .can_run = offcpu_can_run,
    .start = offcpu_start,
    .tick = offcpu_tick,
    .begin = offcpu_begin,
    .end = offcpu_end,
    .stop = offcpu_stop,
    .destroy = offcpu_destroy,
};
