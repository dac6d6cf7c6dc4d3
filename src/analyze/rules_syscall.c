/* Rules over the syscall and process-churn tables (collectors `syscalls`
 * and `procevents`): syscall.rate, syscall.errors, process.churn. */
#include "analyze_internal.h"
#include "syscall_errnos.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* When the syscall figures are estimates: the tap recorded in time slices
 * (collector syscalls, metric syscall.attached_pct below 100). */
static void sampled_evidence(const struct report *r, struct finding *f)
{
    double at = report_metric_value(r, NM_SYSCALL_ATTACHED_PCT);
    if (isnan(at) || at >= 100)
        return;
    double e = report_metric_value(r, NM_SYSCALL_ESTIMATE_ERR_PCT);
    if (isnan(e))
        finding_evidence(f, "Estimated: the syscall tap was sampled (it recorded %.0f%% of the "
                            "window in time slices; counts scaled to the window)", at);
    else
        finding_evidence(f, "Estimated: the syscall tap was sampled (it recorded %.0f%% of the "
                            "window in time slices; counts scaled to the window, the total "
                            "within +-%.1f%%)", at, e);
}

void rule_syscall_rate(struct report *r, const struct rule *self)
{
    const struct table *t = report_find_table(r, NM_SYSCALL_BY_PROCESS);
    long row = table_argmax(t, "calls_per_s");
    if (row < 0)
        return;
    size_t i = (size_t)row;
    struct sig s = sig_value(r, "syscall.proc_per_s", table_num(t, i, "calls_per_s"), NULL);
    if (s.sev < SEV_WARNING)
        return;
    /* A high rate is how some programs work (ls, find, rsync, a database):
     * it costs the others only CPU, so it is a warning only while the CPUs
     * are busy enough to be short of it, and information else. */
    struct sig util = sig_metric(r, "cpu.util_pct", NM_CPU_UTIL_PCT, NULL);
    enum severity sev = util.sev >= SEV_WARNING ? s.sev : SEV_INFO;
    char lab[160];
    proc_label(t, i, lab, sizeof lab);
    const char *top = table_str(t, i, "top_syscalls");
    struct finding *f = rule_finding(r, self, NULL, sev, "");
    finding_set_title(f, "%s makes %.0f syscalls/s%s%s%s", lab, s.v, top ? " (" : "",
                      top ? top : "", top ? ")" : "");
    sig_evidence(f, "Syscalls per second of one process", &s);
    double tot = report_metric_value(r, NM_SYSCALL_TOTAL_PER_S);
    if (!isnan(tot) && tot > 0)
        finding_evidence(f, "All processes together: %.0f syscalls/s; this one makes %.0f%% of them",
                         tot, 100.0 * s.v / tot);
    sig_evidence(f, "CPU utilisation", &util);
    if (sev == SEV_INFO)
        finding_evidence(f, "Listed for information: the CPUs were not short (%.0f%% busy), so "
                            "these calls took time from no other work", num0(util.v));
    sampled_evidence(r, f);
    finding_set_culprit(f, lab);
    f->score = rank_score(sev, sev >= SEV_WARNING ? s.excess : 0, NAN, 0);
}

/* A failed-call row judged: its verdict from the expected-error table and,
 * for errors that lose or refuse work, the share of its process's calls
 * that fail this way against the verdict's threshold. */
struct err_judged {
    struct errno_class cls;
    /* the share of the process's calls failing this way, judged against the
     * verdict's row, or against syscall.new_errno_pct for an error that is
     * no expected answer and did not occur in the baseline; SEV_NONE else */
    struct sig share;
    double proc_per_s;   /* the row's failures in its top process, per s */
    bool of_syscall;     /* share of the syscall's calls (the process's were unknown) */
    bool is_new;         /* absent from the baseline run (--baseline) */
};

/* Whether (syscall, errno), failing per_s times a second now, did not fail
 * in the baseline run; false without one.  The baseline lists its top
 * errors only: a pair as rare as what it left out may have been among them. */
static bool absent_from_baseline(const struct report *r, const char *sc, const char *en,
                                 double per_s)
{
    const struct table *b = report_find_table(r, NM_BASELINE_SYSCALL_ERRORS);
    if (!b || !sc || !en)
        return false;
    double unlisted = report_metric_value(r, NM_BASELINE_SYSCALL_ERRORS_UNLISTED_PER_S);
    if (isfinite(unlisted) && unlisted > 0 && !(per_s > unlisted))
        return false;
    for (size_t i = 0; i < b->nrows; i++) {
        const char *bs = table_str(b, i, "syscall"), *be = table_str(b, i, "errno");
        if (bs && be && strcmp(bs, sc) == 0 && strcmp(be, en) == 0)
            return false;
    }
    return true;
}

/* Calls of process pid in the window (syscall.by_process), NAN if unlisted. */
static double proc_calls(const struct table *bp, double pid)
{
    for (size_t i = 0; bp && i < bp->nrows; i++)
        if (table_num(bp, i, "pid") == pid)
            return table_num(bp, i, "calls");
    return NAN;
}

static double syscall_calls(const struct table *top, const char *sc)
{
    for (size_t i = 0; top && sc && i < top->nrows; i++) {
        const char *n = table_str(top, i, "syscall");
        if (n && strcmp(n, sc) == 0)
            return table_num(top, i, "calls");
    }
    return NAN;
}

/* Refusals count as a burst from this rate in one process: a lone EPIPE
 * when a reader quits, or one refused connection, is no pattern. */
#define REFUSED_MIN_PER_S 1.0

static struct err_judged judge_row(const struct report *r, const struct table *t, size_t i)
{
    const struct table *bp = report_find_table(r, NM_SYSCALL_BY_PROCESS);
    const struct table *top = report_find_table(r, NM_SYSCALL_TOP);
    struct err_judged j = {.share = {.v = NAN, .cov = NAN}};
    const char *sc = table_str(t, i, "syscall");
    j.cls = errno_classify(sc, table_str(t, i, "errno"));
    double n = table_num(t, i, "count"), rate = table_num(t, i, "per_s");
    double in_proc = table_num(t, i, "proc_count");
    if (isnan(in_proc))
        in_proc = n;
    j.proc_per_s = n > 0 ? rate * in_proc / n : NAN;
    j.is_new = j.cls.verdict != ERRNO_EXPECTED &&
               absent_from_baseline(r, sc, table_str(t, i, "errno"), rate);
    if ((!j.cls.thr_id && !j.is_new) || !(n > 0))
        return j;
    double calls = proc_calls(bp, table_num(t, i, "pid")), fails = in_proc;
    if (!(calls >= fails) || !(calls > 0)) { /* process not listed: the syscall's own share */
        calls = syscall_calls(top, sc);
        fails = n;
        j.of_syscall = true;
    }
    if (!(calls >= fails) || !(calls > 0))
        return j;
    double pct = 100.0 * fails / calls;
    if (j.cls.thr_id)
        j.share = sig_value(r, j.cls.thr_id, pct, NULL);
    if (j.cls.verdict == ERRNO_REFUSED && !(j.proc_per_s >= REFUSED_MIN_PER_S))
        j.share.sev = SEV_NONE;
    /* an error that was not there before (a deploy, a changed config) */
    if (j.is_new && j.proc_per_s >= REFUSED_MIN_PER_S) {
        struct sig nw = sig_value(r, "syscall.new_errno_pct", pct, NULL);
        if (sig_worse(&nw, &j.share))
            j.share = nw;
    }
    return j;
}

void rule_syscall_errors(struct report *r, const struct rule *self)
{
    struct sig s = sig_metric(r, "syscall.errors_per_s", NM_SYSCALL_ERRORS_PER_S, NULL);
    const struct table *t = report_find_table(r, NM_SYSCALL_ERRORS);
    if (!t || !t->nrows)
        return;
    /* The worst row: a failure past its threshold first (by severity, then
     * excess), else the largest count. */
    long worst = -1, largest = -1;
    struct err_judged wj = {0};
    double expected = 0, all = 0;
    bool any_lost = false;
    for (size_t i = 0; i < t->nrows; i++) {
        double c = table_num(t, i, "count");
        if (isnan(c))
            continue;
        struct err_judged j = judge_row(r, t, i);
        all += c;
        expected += j.cls.verdict == ERRNO_EXPECTED ? c : 0;
        any_lost |= j.cls.verdict == ERRNO_LOST;
        if (largest < 0 || c > table_num(t, (size_t)largest, "count"))
            largest = (long)i;
        if (j.share.sev >= SEV_WARNING && (worst < 0 || sig_worse(&j.share, &wj.share))) {
            worst = (long)i;
            wj = j;
        }
    }
    if (worst < 0 && !any_lost && s.sev < SEV_WARNING)
        return; /* a few answers a second: not worth a line */
    enum severity sev = worst >= 0 ? wj.share.sev : SEV_INFO;
    size_t i = (size_t)(worst >= 0 ? worst : largest);
    if (worst < 0)
        wj = judge_row(r, t, i);
    const char *sc = table_str(t, i, "syscall"), *en = table_str(t, i, "errno");
    char lab[160];
    proc_label(t, i, lab, sizeof lab);
    struct finding *f = rule_finding(r, self, NULL, sev, "");
    if (worst >= 0)
        finding_set_title(f, "Failing syscalls: %s() -> %s%s in %s, %.2g%% of %s calls (%.0f/s)",
                          sc, en, wj.is_new ? " (new since the baseline)" : "", lab, wj.share.v,
                          wj.of_syscall ? "all its" : "its", wj.proc_per_s);
    else if (all > 0 && expected >= all)
        finding_set_title(f, "Failed syscalls: %.0f/s, all expected answers; most %s() -> %s "
                             "(%.0f/s, most from %s)",
                          num0(s.v), sc, en, table_num(t, i, "per_s"), lab);
    else
        finding_set_title(f, "Failed syscalls: %.0f/s, %.0f%% expected answers; most %s() -> %s "
                             "(%.0f/s, most from %s)",
                          num0(s.v), all > 0 ? floor(100.0 * expected / all) : 0, sc, en,
                          table_num(t, i, "per_s"), lab);
    finding_set_culprit(f, lab);
    if (worst >= 0) {
        char what[320];
        snprintf(what, sizeof what, "%s() -> %s: share of %s %s", sc, en, lab,
                 wj.of_syscall ? "calls of that syscall (its own total was not listed)"
                               : "calls that failed this way");
        sig_evidence(f, what, &wj.share);
        if (wj.cls.why)
            finding_evidence(f, "%s means %s", en, wj.cls.why);
        if (wj.is_new)
            finding_evidence(f, "New: %s() did not fail with %s in the baseline run", sc, en);
    }
    if (!isnan(s.v))
        finding_evidence(f, "Failed syscalls, all processes: %.0f/s; %.0f%% of them are expected "
                            "answers (ENOENT lookups, EAGAIN, ENODATA from getxattr, ...), which "
                            "never raise the severity",
                         s.v, all > 0 ? 100.0 * expected / all : 0);
    for (size_t k = 0, shown = 0; k < t->nrows && shown < 4; k++) {
        if (isnan(table_num(t, k, "count")))
            continue;
        struct err_judged j = judge_row(r, t, k);
        char plab[160];
        proc_label(t, k, plab, sizeof plab);
        finding_evidence(f, "%s() failed with %s %.0f times (%.1f/s), mostly in %s: %s%s%s",
                         table_str(t, k, "syscall"), table_str(t, k, "errno"),
                         table_num(t, k, "count"), table_num(t, k, "per_s"), plab,
                         errno_verdict_name(j.cls.verdict), j.cls.why ? ", " : "",
                         j.cls.why ? j.cls.why : "");
        shown++;
    }
    sampled_evidence(r, f);
    /* The advice names the real call and, through advice_with_pid, the pid. */
    struct strbuf rec = STRBUF_INIT;
    if (worst >= 0 && wj.cls.why)
        sb_addf(&rec, "%s() fails with %s: %s. ", sc, en, wj.cls.why);
    else if (worst >= 0)
        sb_addf(&rec, "%s() fails with %s, which it did not in the baseline run: look for what "
                      "changed since (a deploy, a configuration, a dependency). ",
                sc, en);
    else
        sb_add(&rec, "Nothing here loses work: most failed calls are how programs ask questions "
                     "(is the file there, is there data yet). ");
    sb_addf(&rec, "strace -f -e trace=%s -p PID shows the failing calls with their arguments.",
            sc ? sc : "all");
    finding_set_recommendation(f, sb_str(&rec));
    sb_free(&rec);
    f->score = rank_score(sev, worst >= 0 ? wj.share.excess : 0, NAN, 0);
}

/* Process churn is judged by what it costs: the CPU spent starting
 * short-lived processes (each one's CPU up to what a start costs), as a
 * share of the host's CPUs.  A high exec rate alone (a shell loop, a
 * build) is listed as information. */
void rule_process_churn(struct report *r, const struct rule *self)
{
    struct sig rate = sig_metric(r, "proc.exec_per_s", NM_PROC_EXEC_PER_S, NULL);
    double one = report_metric_value(r, NM_PROC_CHURN_CPU_PCT);
    double ncpu = report_metric_value(r, NM_CPU_COUNT);
    struct sig cost = sig_value(r, "proc.churn_cpu_pct",
                                isfinite(one) && ncpu > 0 ? one / ncpu : NAN, NULL);
    if (rate.sev < SEV_WARNING && cost.sev < SEV_WARNING)
        return;
    enum severity sev = cost.sev >= SEV_WARNING ? cost.sev : SEV_INFO;
    const struct table *t = report_find_table(r, NM_PROC_EXECS);
    long row = table_argmax(t, "execs");
    struct strbuf title = STRBUF_INIT;
    sb_addf(&title, "Process churn: %.0f execs/s", num0(rate.v));
    if (isfinite(cost.v))
        sb_addf(&title, " costing %.0f%% of the CPUs", cost.v);
    const char *comm = NULL, *parent = NULL;
    if (row >= 0) {
        size_t i = (size_t)row;
        comm = table_str(t, i, "comm");
        parent = table_str(t, i, "parent_comm");
        sb_addf(&title, "; most \"%s\" (%.0f/s) started by \"%s\"", comm ? comm : "?",
                table_num(t, i, "execs_per_s"), parent && *parent ? parent : "?");
    }
    struct finding *f = rule_add(r, self, sev, &title);
    if (row >= 0) {
        double life = table_num(t, (size_t)row, "avg_lifetime_ms");
        double cpu = table_num(t, (size_t)row, "cpu_pct");
        if (!isnan(life))
            finding_evidence(f, "\"%s\" lived %.1f ms on average", comm ? comm : "?", life);
        if (!isnan(cpu))
            finding_evidence(f, "Those that ended used %.1f%% of one CPU", cpu);
        finding_set_culprit(f, parent && *parent ? parent : comm);
    }
    sig_evidence(f, "Programs executed per second", &rate);
    sig_evidence(f, "CPU spent starting short-lived processes, share of all CPUs", &cost);
    if (sev == SEV_INFO)
        finding_evidence(f, isfinite(cost.v) ? "Listed for information: the programs started "
                                               "cost little CPU"
                                             : "Listed for information: what they cost was not "
                                               "measured");
    double sl = report_metric_value(r, NM_PROC_SHORT_LIVED_PER_S);
    if (!isnan(sl))
        finding_evidence(f, "Processes living under 1 s: %.0f/s", sl);
    /* The rate is the window's; execs while perfreport started or finished
     * are listed, not judged (their span is not the window's). */
    double eb = report_metric_value(r, NM_PROC_EXECS_BEFORE_WINDOW);
    double ea = report_metric_value(r, NM_PROC_EXECS_AFTER_WINDOW);
    eb = isnan(eb) ? 0 : eb;
    ea = isnan(ea) ? 0 : ea;
    if (eb > 0 || ea > 0)
        finding_evidence(f, "Outside the window: %.0f execs before it opened, %.0f after it "
                            "closed (not in the rate)", eb, ea);
    f->score = rank_score(sev, cost.sev >= SEV_WARNING ? cost.excess : 0, NAN, 0);
}
