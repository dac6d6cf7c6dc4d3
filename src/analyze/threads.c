/* The thread profile of a -p run: the per-thread tables of the collectors
 * (threads.cpu from /proc, threads.oncpu, threads.offcpu and threads.runq
 * from BPF) joined into one table "threads", and the rule
 * cpu.thread_bottleneck that reads it.  The join runs once: a bundle
 * loaded again already has the table, and re-rendering keeps it as it was. */
#include "analyze_internal.h"
#include "../model/names.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Row of t whose tid is tid, or -1. */
static long row_of(const struct table *t, double tid)
{
    if (!t)
        return -1;
    for (size_t i = 0; i < t->nrows; i++)
        if (table_num(t, i, "tid") == tid)
            return (long)i;
    return -1;
}

/* dst[row].col = src[srow].scol when both exist; 0 when the source table
 * exists but has no row for the thread (it did not run / wait there). */
static void copy(struct table *dst, size_t row, const char *col, const struct table *src,
                 long srow, const char *scol)
{
    if (!src)
        return;
    table_set_num(dst, row, col, srow >= 0 ? num0(table_num(src, (size_t)srow, scol)) : 0);
}

void threads_join(struct report *r)
{
    const struct table *cpu = report_find_table(r, NM_THREADS_CPU);
    if (!cpu || report_find_table(r, NM_THREADS))
        return;
    const struct table *on = report_find_table(r, NM_THREADS_ONCPU);
    const struct table *off = report_find_table(r, NM_THREADS_OFFCPU);
    const struct table *rq = report_find_table(r, NM_THREADS_RUNQ);
    struct table *t = report_table(r, NM_THREADS, "Threads of the target", "threads");
    double secs = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    static const struct col_spec cols[] = {
        {"tid", "TID", "", 0},
        {"comm", "Thread", "", 0},
        {"cpu_pct", "CPU", "% of one CPU", 1},
        {"demand_pct", "Running or runnable", "% of window", 0},
        {"user_pct", "User", "%", 1},
        {"sys_pct", "System", "%", 1},
        {"samples", "On-CPU samples", "", 0},
        {"blocked_pct", "Off CPU", "% of window", 0},
        {"futex_ms", "Futex waits", "ms", 0},
        {"join_ms", "Joining threads", "ms", 0},
        {"ipc_ms", "Pipe/IPC waits", "ms", 0},
        {"io_ms", "Disk I/O waits", "ms", 0},
        {"net_ms", "Network waits", "ms", 0},
        {"sleep_ms", "Sleeps", "ms", 0},
        {"runq_ms", "Run-queue wait", "ms", 1},
        {"runq_max_ms", "Longest run-queue wait", "ms", 2},
        {"vol_per_s", "Voluntary switches", "/s", 0},
        {"invol_per_s", "Involuntary switches", "/s", 0},
    };
    table_add_cols(t, cols, ARRAY_LEN(cols));
    for (size_t i = 0; i < cpu->nrows; i++) {
        double tid = table_num(cpu, i, "tid");
        size_t row = table_add_row(t);
        table_set_num(t, row, "tid", tid);
        const char *comm = table_str(cpu, i, "comm");
        table_set_str(t, row, "comm", comm ? comm : "?");
        static const char *const same[] = {"cpu_pct", "user_pct", "sys_pct", "vol_per_s",
                                           "invol_per_s"};
        for (size_t c = 0; c < ARRAY_LEN(same); c++)
            copy(t, row, same[c], cpu, (long)i, same[c]);
        copy(t, row, "samples", on, row_of(on, tid), "samples");
        long o = row_of(off, tid);
        copy(t, row, "blocked_pct", off, o, "window_pct");
        copy(t, row, "futex_ms", off, o, "futex_ms");
        copy(t, row, "join_ms", off, o, "join_ms");
        copy(t, row, "ipc_ms", off, o, "ipc_ms");
        /* pipes are IPC too in this table (a thread feeding another by pipe) */
        if (off && o >= 0 && !isnan(table_num(off, (size_t)o, "pipe_ms")))
            table_set_num(t, row, "ipc_ms",
                          num0(table_num(t, row, "ipc_ms")) + table_num(off, (size_t)o, "pipe_ms"));
        copy(t, row, "io_ms", off, o, "io_ms");
        copy(t, row, "net_ms", off, o, "net_ms");
        copy(t, row, "sleep_ms", off, o, "sleep_ms");
        long q = row_of(rq, tid);
        copy(t, row, "runq_ms", rq, q, "total_ms");
        copy(t, row, "runq_max_ms", rq, q, "max_ms");
        /* CPU demand: on a busy host a thread that never blocks runs less
         * than a whole CPU and waits in the run queue the rest */
        double cpu_pct = table_num(t, row, "cpu_pct"), rq_ms = table_num(t, row, "runq_ms");
        if (!isnan(cpu_pct) && secs > 0) {
            double dem = cpu_pct + (isnan(rq_ms) ? 0 : rq_ms / 1000.0 / secs * 100.0);
            table_set_num(t, row, "demand_pct", dem > 100 ? 100 : dem);
        }
    }
    struct strbuf note = STRBUF_INIT;
    sb_add(&note, "CPU and switches from /proc/PID/task over the window; on-CPU samples, "
                  "off-CPU and run-queue time from the BPF collectors (blank when they did "
                  "not run). Running or runnable: CPU plus run-queue time, the CPU the "
                  "thread wanted. Futex waits are mutexes and condition variables (joins are "
                  "counted apart); a thread waiting there or on a pipe waits for another "
                  "thread, one joining waits for another to end.");
    if (cpu->note)
        sb_addf(&note, " %s", cpu->note);
    table_set_note(t, sb_str(&note));
    sb_free(&note);
}

/* Share of the window a thread spent waiting for others to hand it work or
 * a lock: its lock (mutex), parked (condition variable) and pipe waits.
 * Joining is not waiting on the busy thread: it waits for it to end, which
 * is how a program with one worker is built.  NAN without off-CPU data. */
static double wait_pct(const struct table *t, size_t row, double window_s)
{
    double l = table_num(t, row, "lock_ms"), k = table_num(t, row, "park_ms");
    double p = num0(table_num(t, row, "ipc_ms")) + num0(table_num(t, row, "pipe_ms"));
    if (isnan(table_num(t, row, "ipc_ms")) && isnan(table_num(t, row, "pipe_ms")))
        p = NAN;
    if (isnan(l) && isnan(k) && isnan(p)) { /* a table without classes: futex waits */
        double f = table_num(t, row, "futex_ms"), j = table_num(t, row, "join_ms");
        if (isnan(f) && isnan(p))
            return NAN;
        return (num0(f) - num0(j) + num0(p)) / 1000.0 / window_s * 100.0;
    }
    return (num0(l) + num0(k) + num0(p)) / 1000.0 / window_s * 100.0;
}

void rule_cpu_thread_bottleneck(struct report *r, const struct rule *self)
{
    const struct table *t = report_find_table(r, NM_THREADS);
    if (!t || t->nrows < 2)
        return;
    double secs = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    if (!(secs > 0))
        return;
    /* the thread that wanted a CPU the most (ran or was runnable) */
    const char *col = table_col(t, "demand_pct") >= 0 ? "demand_pct" : "cpu_pct";
    long hot = table_argmax(t, col);
    if (hot < 0)
        return;
    struct sig cpu = sig_value(r, "threads.hot_cpu_pct", table_num(t, (size_t)hot, col), NULL);
    if (cpu.sev < SEV_WARNING)
        return;
    /* the others: how many wait on futexes or pipes past the threshold, and
     * the most waiting of them.  threads.offcpu lists the 200 threads that
     * blocked the most, the joined table only the busiest 30: waiters of a
     * big process are found in the first. */
    double tid = table_num(t, (size_t)hot, "tid");
    const struct table *w = report_find_table(r, NM_THREADS_OFFCPU);
    if (!w)
        w = t;
    const struct threshold *wt = report_find_threshold(r, "threads.peer_wait_pct");
    size_t waiting = 0;
    long worst = -1;
    struct sig peer = {.v = NAN, .cov = NAN};
    for (size_t i = 0; i < w->nrows; i++) {
        if (table_num(w, i, "tid") == tid)
            continue;
        double wp = wait_pct(w, i, secs);
        if (isnan(wp))
            continue;
        struct sig s = sig_with(r, wt, wp, NULL);
        if (s.sev >= SEV_WARNING)
            waiting++;
        sig_keep_worst(&peer, &worst, &s, i);
    }
    if (!waiting || worst < 0)
        return;
    double count = report_metric_value(r, NM_THREADS_COUNT);
    size_t others = !isnan(count) && count > (double)t->nrows ? (size_t)count - 1 : t->nrows - 1;
    if (others < waiting)
        others = waiting;
    const char *name = table_str(t, (size_t)hot, "comm");
    double pid = report_metric_value(r, NM_THREADS_PID);
    char proc[96] = "";
    long main_row = isnan(pid) ? -1 : row_of(t, pid);
    const char *pname = main_row >= 0 ? table_str(t, (size_t)main_row, "comm") : NULL;
    if (!isnan(pid))
        snprintf(proc, sizeof proc, "%s (pid %.0f)", pname ? pname : "the target", pid);
    char culprit[200];
    snprintf(culprit, sizeof culprit, "thread %s (tid %.0f)%s%s", name ? name : "?", tid,
             *proc ? " of " : "", proc);
    enum severity sev = cpu.sev;
    struct strbuf tt = STRBUF_INIT;
    sb_addf(&tt, "One thread is the bottleneck: %s ran or waited to run %.0f%% of the window "
                 "while %zu of its %zu other thread%s waited on it",
            culprit, cpu.v, waiting, others, plural((double)others));
    struct finding *f = rule_add(r, self, sev, &tt);
    char lab[256];
    snprintf(lab, sizeof lab, "Thread %s (tid %.0f) running or runnable (CPU plus run-queue wait)",
             name ? name : "?", tid);
    sig_evidence(f, lab, &cpu);
    finding_evidence(f, "It ran %.0f%% of one CPU (user %.0f%%, system %.0f%%)",
                     num0(table_num(t, (size_t)hot, "cpu_pct")),
                     num0(table_num(t, (size_t)hot, "user_pct")),
                     num0(table_num(t, (size_t)hot, "sys_pct")));
    double wtid = table_num(w, (size_t)worst, "tid");
    long wrow = row_of(t, wtid);
    const char *wname = wrow >= 0 ? table_str(t, (size_t)wrow, "comm") : NULL;
    if (wname)
        snprintf(lab, sizeof lab, "Time thread %s (tid %.0f) waited on locks, condition variables and pipes",
                 wname, wtid);
    else
        snprintf(lab, sizeof lab, "Time thread %.0f waited on locks, condition variables and pipes", wtid);
    sig_evidence(f, lab, &peer);
    finding_evidence(f, "%zu of %zu other threads waited at least %.0f%% of the window on "
                        "futexes (locks, condition variables) or pipes",
                     waiting, others, wt ? wt->warn : NAN);
    double samples = table_num(t, (size_t)hot, "samples");
    if (!isnan(samples))
        finding_evidence(f, "%.0f on-CPU samples of the hot thread (the CPU profile shows "
                            "where it spends them)", samples);
    double inv = table_num(t, (size_t)hot, "invol_per_s"), rq = table_num(t, (size_t)hot, "runq_ms");
    if (!isnan(rq))
        finding_evidence(f, "It waited %.0f ms for a CPU in the window (%.0f involuntary "
                            "switches/s)%s",
                         rq, num0(inv),
                         rq / 1000.0 / secs < 0.1 ? ""
                                                  : ": the host's CPUs are busy too, which "
                                                    "slows this thread further");
    finding_set_culprit(f, *proc ? proc : culprit);
    /* the advice names the thread: its tid for perf record -t */
    if (f->recommendation) {
        const char *at = strstr(f->recommendation, "-t TID");
        if (at) {
            struct strbuf rec = STRBUF_INIT;
            sb_addn(&rec, f->recommendation, (size_t)(at - f->recommendation));
            sb_addf(&rec, "-t %.0f%s", tid, at + 6);
            finding_set_recommendation(f, sb_str(&rec));
            sb_free(&rec);
        }
    }
    f->score = rank_score(sev, cpu.excess, NAN, peer.sev >= SEV_WARNING);
}
