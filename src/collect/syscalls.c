/* Syscall collector (the syscall part of bpf/systap.bpf.c): counts, errors by errno and
 * latency per syscall, and counts per process, aggregated in the kernel for
 * the whole window and drained once in stop().  perfreport's own syscalls
 * are left out (it would otherwise report its /proc reading). */
#include "syscalls.h"
#include "collector.h"
#include "../kbpf/kbpf.h"
#include "model/model.h"
#include "model/names.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include <linux/types.h>
#include "../../bpf/systap.h"
#include "../kbpf/systap.h"
#include "systap.skel.h"
#include "syscall_names.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(SCD_HIST == SC_HIST_BUCKETS, "histogram sizes agree");

#define TOP_SYSCALLS 20
#define TOP_ERRORS 15
#define TOP_PROCS 15
#define TOP_HISTS 5

const char *syscall_name(unsigned nr, char *buf, size_t n)
{
    size_t cap = sizeof syscall_names_gen / sizeof syscall_names_gen[0];
    if (nr < cap && syscall_names_gen[nr])
        return syscall_names_gen[nr];
    snprintf(buf, n, "syscall_%u", nr);
    return buf;
}

size_t syscall_names_count(void) { return SYSCALL_NAMES_GEN_COUNT; }

void sc_data_free(struct sc_data *d)
{
    free(d->nrs);
    free(d->procs);
    free(d->errs);
    free(d->comms);
    memset(d, 0, sizeof *d);
}

/* ---- fill ------------------------------------------------------------------ */

static int cmp_u64_desc(uint64_t a, uint64_t b) { return a < b ? 1 : a > b ? -1 : 0; }

static int nr_by_calls(const void *a, const void *b)
{
    const struct scd_nr *x = a, *y = b;
    int c = cmp_u64_desc(x->count, y->count);
    return c ? c : (x->nr > y->nr) - (x->nr < y->nr);
}

static int proc_by_tgid(const void *a, const void *b)
{
    const struct scd_proc *x = a, *y = b;
    if (x->tgid != y->tgid)
        return x->tgid < y->tgid ? -1 : 1;
    int c = cmp_u64_desc(x->count, y->count);
    return c ? c : (x->nr > y->nr) - (x->nr < y->nr);
}

static int proc_by_key(const void *a, const void *b)
{
    const struct scd_proc *x = a, *y = b;
    if (x->tgid != y->tgid)
        return x->tgid < y->tgid ? -1 : 1;
    return (x->nr > y->nr) - (x->nr < y->nr);
}

static int err_by_key(const void *a, const void *b)
{
    const struct scd_err *x = a, *y = b;
    if (x->nr != y->nr)
        return x->nr < y->nr ? -1 : 1;
    if (x->err != y->err)
        return x->err < y->err ? -1 : 1;
    int c = cmp_u64_desc(x->count, y->count);
    return c ? c : (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

static const char *comm_of(const struct sc_data *d, uint32_t tgid)
{
    for (size_t i = 0; i < d->ncomms; i++)
        if (d->comms[i].tgid == tgid)
            return d->comms[i].comm;
    return "?";
}

static double hist_p(const uint64_t *b, double p)
{
    struct hist h;
    memset(&h, 0, sizeof h);
    for (size_t i = 0; i < SCD_HIST; i++) {
        h.buckets[i] = b[i];
        h.count += b[i];
    }
    h.sum = NAN;
    h.max = NAN;
    return hist_percentile(&h, p);
}

struct agg_proc {
    uint32_t tgid;
    uint64_t calls, errors;
    size_t first, n; /* its rows in the sorted procs array, busiest first */
};

static int agg_by_calls(const void *a, const void *b)
{
    const struct agg_proc *x = a, *y = b;
    int c = cmp_u64_desc(x->calls, y->calls);
    return c ? c : (x->tgid > y->tgid) - (x->tgid < y->tgid);
}

struct agg_err {
    uint32_t nr, err, top_tgid;
    uint64_t count, top_count;
};

static int aggerr_by_count(const void *a, const void *b)
{
    const struct agg_err *x = a, *y = b;
    int c = cmp_u64_desc(x->count, y->count);
    if (c)
        return c;
    if (x->nr != y->nr)
        return x->nr < y->nr ? -1 : 1;
    return (x->err > y->err) - (x->err < y->err);
}

static void fill_top(struct report *r, struct scd_nr *nrs, size_t n, double win,
                     const char *sampled)
{
    if (n)
        qsort(nrs, n, sizeof *nrs, nr_by_calls);
    struct table *t = report_table(r, NM_SYSCALL_TOP, "Syscalls by count", "syscall");
    static const struct col_spec syscall_top_cols[] = {
        {"syscall", "Syscall", "", 0},
        {"calls", "Calls", "", 0},
        {"calls_per_s", "Calls/s", "/s", 0},
        {"errors", "Errors", "", 0},
        {"err_pct", "Errors %", "%", 1},
        {"total_ms", "Total time", "ms", 1},
        {"avg_us", "Avg", "us", 2},
        {"p99_us", "p99", "us", 1},
        {"timed", "Timed calls", "", 0},
    };
    table_add_cols(t, syscall_top_cols, ARRAY_LEN(syscall_top_cols));
    char note[1200];
    snprintf(note, sizeof note,
             "%s%sTime is from entry to return, sleeping included "
             "(a blocking read or poll counts its wait).  It is measured on each CPU on the "
             "first %d calls of a process's syscall, then on a random 1 in %d, and after %d "
             "calls on a random 1 in %d; each measured call stands for the calls it sampled.  "
             "perfreport's own syscalls are not counted.",
             *sampled ? sampled : "Counts and errors are exact.", "  ", SC_TIME_ALL, 1 << SC_SAMPLE_SHIFT, SC_TIME_MID, 1 << SC_SAMPLE_SHIFT_HI);
    table_set_note(t, note);
    char buf[32];
    for (size_t i = 0; i < n && i < TOP_SYSCALLS; i++) {
        const struct scd_nr *s = &nrs[i];
        if (!s->count)
            break;
        size_t row = table_add_row(t);
        table_set_str(t, row, "syscall", syscall_name(s->nr, buf, sizeof buf));
        table_set_num(t, row, "calls", (double)s->count);
        table_set_num(t, row, "calls_per_s", (double)s->count / win);
        table_set_num(t, row, "errors", (double)s->errors);
        table_set_num(t, row, "err_pct", 100.0 * (double)s->errors / (double)s->count);
        table_set_num(t, row, "timed", (double)s->timed);
        if (!s->timed)
            continue; /* never returned in the window (exit, a wait still blocked) */
        table_set_num(t, row, "total_ms", (double)s->total_ns / 1e6);
        uint64_t done = 0; /* completed calls, weighted like total_ns */
        for (size_t b = 0; b < SCD_HIST; b++)
            done += s->hist[b];
        if (done)
            table_set_num(t, row, "avg_us", (double)s->total_ns / (double)done / 1e3);
        table_set_num(t, row, "p99_us", hist_p(s->hist, 0.99) / 1e3);
    }
    /* Latency histograms: the most frequent syscall (a storm's cost per
     * call), then those that took the most time; only syscalls with a
     * measured call. */
    size_t picked[TOP_HISTS];
    for (int k = 0; k < TOP_HISTS; k++)
        picked[k] = SIZE_MAX;
    for (int k = 0; k < TOP_HISTS; k++) {
        long best = -1;
        if (k == 0) {
            if (n && nrs[0].timed)
                best = 0;
        } else {
            for (size_t i = 0; i < n; i++) {
                bool taken = false;
                for (int j = 0; j < k; j++)
                    taken |= picked[j] == i;
                if (nrs[i].timed && !taken &&
                    (best < 0 || nrs[i].total_ns > nrs[best].total_ns))
                    best = (long)i;
            }
        }
        if (best < 0) {
            if (k == 0)
                continue; /* the most frequent one was never timed */
            break;
        }
        picked[k] = (size_t)best;
        const struct scd_nr *s = &nrs[best];
        const char *nm = syscall_name(s->nr, buf, sizeof buf);
        char id[64], title[96];
        snprintf(id, sizeof id, NMF_SYSCALL_HIST, nm);
        snprintf(title, sizeof title, "%s latency (entry to return)", nm);
        struct hist *h = report_hist(r, id, title, "ns", "syscall");
        kbpf_hist_add(h, s->hist, SCD_HIST, -1, -1);
        h->sum = (double)s->total_ns;
    }
}

static void fill_procs(struct report *r, struct sc_data *d, double win, const char *sampled)
{
    /* Rows of one (tgid, nr) may come from several places (hash, cache
     * slots of each CPU): merge them, then order each process busiest first. */
    if (d->nprocs)
        qsort(d->procs, d->nprocs, sizeof *d->procs, proc_by_key);
    size_t m = 0;
    for (size_t i = 0; i < d->nprocs; i++) {
        if (m && d->procs[m - 1].tgid == d->procs[i].tgid && d->procs[m - 1].nr == d->procs[i].nr) {
            d->procs[m - 1].count += d->procs[i].count;
            d->procs[m - 1].errors += d->procs[i].errors;
        } else {
            d->procs[m++] = d->procs[i];
        }
    }
    d->nprocs = m;
    if (d->nprocs)
        qsort(d->procs, d->nprocs, sizeof *d->procs, proc_by_tgid);
    struct agg_proc *a = xcalloc(d->nprocs + 1, sizeof *a);
    size_t na = 0;
    for (size_t i = 0; i < d->nprocs; i++) {
        const struct scd_proc *p = &d->procs[i];
        if (!na || a[na - 1].tgid != p->tgid) {
            a[na].tgid = p->tgid;
            a[na].first = i;
            na++;
        }
        a[na - 1].calls += p->count;
        a[na - 1].errors += p->errors;
        a[na - 1].n++;
    }
    if (na)
        qsort(a, na, sizeof *a, agg_by_calls);
    struct table *t = report_table(r, NM_SYSCALL_BY_PROCESS, "Syscalls by process", "syscall");
    static const struct col_spec syscall_by_process_cols[] = {
        {"pid", "PID", "", 0},
        {"comm", "Command", "", 0},
        {"calls", "Calls", "", 0},
        {"calls_per_s", "Calls/s", "/s", 0},
        {"errors", "Errors", "", 0},
        {"errors_per_s", "Errors/s", "/s", 1},
        {"top_syscalls", "Top syscalls", "", 0},
    };
    table_add_cols(t, syscall_by_process_cols, ARRAY_LEN(syscall_by_process_cols));
    if (*sampled)
        table_set_note(t, sampled);
    for (size_t i = 0; i < na && i < TOP_PROCS; i++) {
        size_t row = table_add_row(t);
        table_set_num(t, row, "pid", a[i].tgid);
        table_set_str(t, row, "comm", comm_of(d, a[i].tgid));
        table_set_num(t, row, "calls", (double)a[i].calls);
        table_set_num(t, row, "calls_per_s", (double)a[i].calls / win);
        table_set_num(t, row, "errors", (double)a[i].errors);
        table_set_num(t, row, "errors_per_s", (double)a[i].errors / win);
        struct strbuf sb = STRBUF_INIT;
        for (size_t k = 0; k < a[i].n && k < 3; k++) {
            const struct scd_proc *p = &d->procs[a[i].first + k];
            char buf[32];
            sb_addf(&sb, "%s%s %.0f%%", k ? ", " : "", syscall_name(p->nr, buf, sizeof buf),
                    a[i].calls ? 100.0 * (double)p->count / (double)a[i].calls : 0.0);
        }
        table_set_str(t, row, "top_syscalls", sb_str(&sb));
        sb_free(&sb);
    }
    free(a);
}

static void fill_errors(struct report *r, const struct sc_data *d, double win,
                        const char *sampled)
{
    if (d->nerrs)
        qsort(d->errs, d->nerrs, sizeof *d->errs, err_by_key);
    struct agg_err *a = xcalloc(d->nerrs + 1, sizeof *a);
    size_t na = 0;
    for (size_t i = 0; i < d->nerrs; i++) {
        const struct scd_err *e = &d->errs[i];
        if (!na || a[na - 1].nr != e->nr || a[na - 1].err != e->err) {
            /* Rows of one (nr, err) come busiest process first. */
            a[na] = (struct agg_err){.nr = e->nr, .err = e->err, .top_tgid = e->tgid,
                                     .top_count = e->count};
            na++;
        }
        a[na - 1].count += e->count;
    }
    if (na)
        qsort(a, na, sizeof *a, aggerr_by_count);
    struct table *t = report_table(r, NM_SYSCALL_ERRORS, "Failed syscalls by errno", "syscall");
    static const struct col_spec syscall_errors_cols[] = {
        {"syscall", "Syscall", "", 0},
        {"errno", "Error", "", 0},
        {"count", "Count", "", 0},
        {"per_s", "Per s", "/s", 1},
        {"pid", "Top PID", "", 0},
        {"comm", "Top command", "", 0},
        {"proc_count", "Its count", "", 0},
    };
    table_add_cols(t, syscall_errors_cols, ARRAY_LEN(syscall_errors_cols));
    if (*sampled)
        table_set_note(t, sampled);
    for (size_t i = 0; i < na && i < TOP_ERRORS; i++) {
        char buf[32], en[32];
        size_t row = table_add_row(t);
        table_set_str(t, row, "syscall", syscall_name(a[i].nr, buf, sizeof buf));
        kbpf_errno_name((int)a[i].err, en, sizeof en);
        table_set_str(t, row, "errno", en);
        table_set_num(t, row, "count", (double)a[i].count);
        table_set_num(t, row, "per_s", (double)a[i].count / win);
        table_set_num(t, row, "pid", a[i].top_tgid);
        table_set_str(t, row, "comm", comm_of(d, a[i].top_tgid));
        table_set_num(t, row, "proc_count", (double)a[i].top_count);
    }
    free(a);
}

/* Recorded counts -> estimates for the window (time slices). */
static void scale_data(struct sc_data *d)
{
    const struct tapslice_result *k = &d->samp;
    for (size_t i = 0; i < d->nnrs; i++) {
        struct scd_nr *s = &d->nrs[i];
        s->count = tapslice_scaled(k, s->count);
        s->errors = tapslice_scaled(k, s->errors);
        s->total_ns = tapslice_scaled(k, s->total_ns);
        for (size_t b = 0; b < SCD_HIST; b++)
            s->hist[b] = tapslice_scaled(k, s->hist[b]);
    }
    for (size_t i = 0; i < d->nprocs; i++) {
        d->procs[i].count = tapslice_scaled(k, d->procs[i].count);
        d->procs[i].errors = tapslice_scaled(k, d->procs[i].errors);
    }
    for (size_t i = 0; i < d->nerrs; i++)
        d->errs[i].count = tapslice_scaled(k, d->errs[i].count);
}

void syscalls_fill(struct report *r, struct sc_data *d, double win)
{
    if (!(win > 0))
        win = 1;
    char sampled[600];
    tapslice_describe(&d->samp, sampled, sizeof sampled);
    scale_data(d);
    uint64_t calls = 0, errors = 0;
    for (size_t i = 0; i < d->nnrs; i++) {
        calls += d->nrs[i].count;
        errors += d->nrs[i].errors;
    }
    report_metric(r, NM_SYSCALL_TOTAL, "Syscalls in the window", "", "syscall", (double)calls);
    report_metric(r, NM_SYSCALL_TOTAL_PER_S, "Syscall rate", "/s", "syscall", (double)calls / win);
    report_metric(r, NM_SYSCALL_ERRORS, "Failed syscalls in the window", "", "syscall",
                  (double)errors);
    report_metric(r, NM_SYSCALL_ERRORS_PER_S, "Failed syscall rate", "/s", "syscall",
                  (double)errors / win);
    /* 100: the counts are exact; less: they are estimates (sampled). */
    report_metric(r, NM_SYSCALL_ATTACHED_PCT, "Share of the window the syscall tap recorded",
                  "%", "syscall", d->samp.sampled ? 100.0 * d->samp.attached_frac : 100.0);
    if (d->samp.sampled && !isnan(d->samp.err_pct))
        report_metric(r, NM_SYSCALL_ESTIMATE_ERR_PCT,
                      "Error of the sampled syscall total (95 %)", "%", "syscall",
                      d->samp.err_pct);
    fill_top(r, d->nrs, d->nnrs, win, sampled);
    fill_errors(r, d, win, sampled);
    fill_procs(r, d, win, sampled);
}

/* ---- collector ------------------------------------------------------------ */

struct sc_state {
    struct systap_bpf *tap; /* borrowed from systap.c between acquire and release */
    bool classic;
};

static bool sc_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    return kbpf_can_trace("raw_syscalls", "sys_enter", reason, n);
}

static int sc_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct sc_state *st = xcalloc(1, sizeof *st);
    *state = st;
    st->tap = systap_acquire(ctx, SYSTAP_SYSCALLS, &st->classic, err, n);
    return st->tap ? 0 : -EIO;
}

static void drain(struct sc_state *st, struct sc_data *d)
{
    struct systap_bpf *sk = st->tap;
    size_t cap = 0;
    /* Counts still in the per-CPU cache: per process, and the part of each
     * syscall's total not yet flushed to per_nr. */
    uint64_t *live = xcalloc(SC_MAX_NR, sizeof *live);
    int ncpu = kbpf_ncpus();
    struct sc_slot *slots = xcalloc((size_t)ncpu, sizeof *slots);
    for (uint32_t i = 0; i < SC_CACHE_SLOTS; i++) {
        if (bpf_map__lookup_elem(sk->maps.pcache, &i, sizeof i, slots,
                                 (size_t)ncpu * sizeof *slots, 0) != 0)
            continue;
        for (int c = 0; c < ncpu; c++) {
            if (!slots[c].count || slots[c].nr >= SC_MAX_NR)
                continue;
            live[slots[c].nr] += slots[c].count;
            xgrow(&d->procs, &cap, d->nprocs + 1, sizeof *d->procs);
            d->procs[d->nprocs++] = (struct scd_proc){slots[c].tgid, slots[c].nr, slots[c].count, 0};
        }
    }
    free(slots);

    d->nrs = xcalloc(SC_MAX_NR, sizeof *d->nrs);
    for (uint32_t nr = 0; nr < SC_MAX_NR; nr++) {
        struct sc_stat v;
        if (kbpf_percpu_sum_struct(sk->maps.per_nr, &nr, sizeof nr, &v, sizeof v) != 0)
            memset(&v, 0, sizeof v);
        v.count += live[nr];
        if (!(v.count | v.errors))
            continue;
        struct scd_nr *o = &d->nrs[d->nnrs++];
        o->nr = nr;
        /* Errors are counted at exit: a call entered before the window
         * and failed in it has no counted entry.  Count it as a call. */
        o->count = v.count > v.errors ? v.count : v.errors;
        o->errors = v.errors;
        o->timed = v.timed;
        o->total_ns = v.total_ns;
        memcpy(o->hist, v.hist, sizeof o->hist);
    }

    free(live);
    struct sc_proc_key pk, next;
    void *prev = NULL;
    while (bpf_map__get_next_key(sk->maps.per_proc, prev, &next, sizeof next) == 0) {
        pk = next;
        prev = &pk;
        struct sc_proc_val v;
        if (bpf_map__lookup_elem(sk->maps.per_proc, &pk, sizeof pk, &v, sizeof v, 0) != 0)
            continue;
        xgrow(&d->procs, &cap, d->nprocs + 1, sizeof *d->procs);
        d->procs[d->nprocs++] = (struct scd_proc){pk.tgid, pk.nr, v.count, 0};
    }

    /* Errors by errno; each also counts for its (process, syscall) row,
     * which fill_procs() merges. */
    size_t ecap = 0;
    struct sc_err_key ek, enext;
    prev = NULL;
    while (bpf_map__get_next_key(sk->maps.errs, prev, &enext, sizeof enext) == 0) {
        ek = enext;
        prev = &ek;
        uint64_t v;
        if (bpf_map__lookup_elem(sk->maps.errs, &ek, sizeof ek, &v, sizeof v, 0) != 0)
            continue;
        xgrow(&d->errs, &ecap, d->nerrs + 1, sizeof *d->errs);
        d->errs[d->nerrs++] = (struct scd_err){ek.tgid, ek.nr, ek.err, v};
        xgrow(&d->procs, &cap, d->nprocs + 1, sizeof *d->procs);
        d->procs[d->nprocs++] = (struct scd_proc){ek.tgid, ek.nr, 0, v};
    }

    size_t ccap = 0;
    uint32_t ck, cnext;
    prev = NULL;
    while (bpf_map__get_next_key(sk->maps.comms, prev, &cnext, sizeof cnext) == 0) {
        ck = cnext;
        prev = &ck;
        struct sc_comm v;
        if (bpf_map__lookup_elem(sk->maps.comms, &ck, sizeof ck, &v, sizeof v, 0) != 0)
            continue;
        xgrow(&d->comms, &ccap, d->ncomms + 1, sizeof *d->comms);
        struct scd_comm *c = &d->comms[d->ncomms++];
        c->tgid = ck;
        memcpy(c->comm, v.comm, 16);
        c->comm[16] = '\0';
    }
}

static int sc_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    (void)err;
    (void)n;
    struct sc_state *st = state;
    struct sc_data d;
    memset(&d, 0, sizeof d);
    drain(st, &d);
    int attach_errno = 0;
    if (!systap_sampling(&d.samp, &attach_errno))
        memset(&d.samp, 0, sizeof d.samp); /* no slicer ran: attached throughout */
    uint64_t calls = 0, timed = 0;
    for (size_t i = 0; i < d.nnrs; i++) {
        calls += d.nrs[i].count;
        timed += d.nrs[i].timed;
    }
    struct tapslice_result samp = d.samp;
    syscalls_fill(ctx->r, &d, ctx->now_s);
    sc_data_free(&d);

    struct ledger_entry *led = report_ledger(ctx->r, "syscalls", NULL);
    if (samp.sampled) {
        char e[32] = "unknown";
        if (!isnan(samp.err_pct))
            snprintf(e, sizeof e, "+-%.1f %%", samp.err_pct);
        ledger_note(led, "sampled: attached %.1f %% of the window in %u slices (duty %.1f-%.1f %%), "
                    "counts scaled by %.2f, error %s",
                    100.0 * samp.attached_frac, samp.slices, 100.0 * samp.duty_min,
                    100.0 * samp.duty_max, samp.scale, e);
    } else {
        ledger_note(led, "exact: attached the whole window");
    }
    if (samp.cost_ns > 0)
        ledger_note(led, "tap cost ~%.0f ns per syscall (calibrated), busiest CPU's share "
                    "attached at most %.1f %% (budget %.0f %%)",
                    samp.cost_ns, 100.0 * samp.peak_share, 100.0 * TAPSLICE_BUDGET);
    if (attach_errno)
        ledger_note(led, "re-attaching the tap failed (%s): the rest of the window is "
                    "extrapolated", strerror(attach_errno));
    if (st->classic)
        ledger_note(led, "tp_btf unavailable: classic raw_syscalls tracepoints (hash per thread)");
    if (calls)
        ledger_note(led, "latency measured on %llu of %llu calls (%.1f %%; sampled, weighted)",
                    (unsigned long long)timed, (unsigned long long)calls,
                    100.0 * (double)timed / (double)calls);
    static const char *const what[SC_DROP_N] = {"entry slots", "(process, syscall) slots",
                                                "error slots"};
    for (uint32_t i = 0; i < SC_DROP_N; i++) {
        uint64_t v = 0;
        if (kbpf_percpu_sum_struct(st->tap->maps.drops, &i, sizeof i, &v, sizeof v) == 0 && v)
            ledger_note(led, "%llu events lost: %s full", (unsigned long long)v, what[i]);
    }
    systap_release(SYSTAP_SYSCALLS);
    st->tap = NULL;
    return 0;
}

static void sc_destroy(void *state)
{
    struct sc_state *st = state;
    if (!st)
        return;
    if (st->tap)
        systap_release(SYSTAP_SYSCALLS);
    free(st);
}

const struct collector collector_syscalls = {
    .name = "syscalls",
    .title = "Syscalls (BPF sys_enter/sys_exit)",
    .needs_bpf = true,
    .can_run = sc_can_run,
    .start = sc_start,
    .begin = systap_begin,
    .end = systap_end,
    .stop = sc_stop,
    .destroy = sc_destroy,
};
