/* Rules over the syscall and process-churn tables (collectors `syscalls`
 * and `procevents`): syscall.rate, syscall.errors, process.churn. */
#include "analyze_internal.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static bool in_list(const char *s, const char *const *list)
{
    for (size_t i = 0; s && list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

/* Probing failures (see probing()) above this rate in one process are a
 * loop, not a question: PATH search, config files, Python imports stay well
 * below.  Many processes probing a little each (a busy shell, a build) are
 * not a fault of any one; process.churn speaks about their number. */
#define PROBE_PER_PROC_MAX_PER_S 1000.0

/* Failures that are how programs ask a question, as long as one process
 * does not ask thousands of times a second:
 *   ENOENT from a path lookup (is the file there?), ENXIO from open (a FIFO
 *   without a reader, a tty without a controlling terminal), ENOTTY from
 *   ioctl (isatty() on a pipe or file), EINVAL from readlink (not a symlink:
 *   realpath() walks), ECHILD from wait4/waitid (no child left to reap: how
 *   a reaping loop ends), EBADF from fcntl (is this descriptor open?),
 *   ENOTSOCK from getsockname/getpeername/getsockopt (is this a socket?). */
static bool probing(const char *sc, const char *e)
{
    static const char *const lookups[] = {
        "open",   "openat",    "openat2",    "stat",     "lstat",      "newfstatat", "statx",
        "access", "faccessat", "faccessat2", "readlink", "readlinkat", "execve",     "execveat",
        "statfs", NULL};
    static const char *const opens[] = {"open", "openat", "openat2", NULL};
    static const char *const ioctls[] = {"ioctl", NULL};
    static const char *const links[] = {"readlink", "readlinkat", NULL};
    static const char *const waits[] = {"wait4", "waitid", NULL};
    static const char *const fcntls[] = {"fcntl", NULL};
    static const char *const sockq[] = {"getsockname", "getpeername", "getsockopt", NULL};
    static const struct {
        const char *errno_name;
        const char *const *calls;
    } asks[] = {{"ENOENT", lookups}, {"ENXIO", opens},  {"ENOTTY", ioctls},   {"EINVAL", links},
                {"ECHILD", waits},   {"EBADF", fcntls}, {"ENOTSOCK", sockq}};
    if (!e || !sc)
        return false;
    for (size_t i = 0; i < sizeof asks / sizeof asks[0]; i++)
        if (strcmp(e, asks[i].errno_name) == 0 && in_list(sc, asks[i].calls))
            return true;
    return false;
}

/* Rate of the row's failures in the process that has the most of them. */
static double top_proc_rate(const struct table *t, size_t i)
{
    double rate = table_num(t, i, "per_s"), n = table_num(t, i, "count"),
           top = table_num(t, i, "proc_count");
    return isnan(top) || !(n > 0) ? rate : rate * top / n;
}

/* Whether a row of syscall.errors is normal behaviour, not a fault: flow
 * control (a nonblocking read with nothing to read, an interrupted wait, a
 * timed-out futex), or probing by processes that each stay below the
 * probing rate (the row names the one with the most; the others have fewer). */
static bool benign_row(const struct table *t, size_t i)
{
    static const char *const flow[] = {"EAGAIN", "EINTR", "ETIMEDOUT", "EINPROGRESS", NULL};
    const char *e = table_str(t, i, "errno");
    if (in_list(e, flow))
        return true;
    double top_rate = top_proc_rate(t, i);
    return probing(table_str(t, i, "syscall"), e) && !isnan(top_rate) &&
           top_rate < PROBE_PER_PROC_MAX_PER_S;
}

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
    char lab[160];
    proc_label(t, i, lab, sizeof lab);
    const char *top = table_str(t, i, "top_syscalls");
    struct finding *f = rule_finding(r, self, NULL, s.sev, "");
    finding_set_title(f, "%s makes %.0f syscalls/s%s%s%s", lab, s.v, top ? " (" : "",
                      top ? top : "", top ? ")" : "");
    sig_evidence(f, "Syscalls per second of one process", &s);
    double tot = report_metric_value(r, NM_SYSCALL_TOTAL_PER_S);
    if (!isnan(tot) && tot > 0)
        finding_evidence(f, "All processes together: %.0f syscalls/s; this one makes %.0f%% of them",
                         tot, 100.0 * s.v / tot);
    sampled_evidence(r, f);
    finding_set_culprit(f, lab);
    f->score = rank_score(s.sev, s.excess, NAN, 0);
}

void rule_syscall_errors(struct report *r, const struct rule *self)
{
    struct sig s = sig_metric(r, "syscall.errors_per_s", NM_SYSCALL_ERRORS_PER_S, NULL);
    if (s.sev < SEV_WARNING)
        return;
    const struct table *t = report_find_table(r, NM_SYSCALL_ERRORS);
    /* Worst row: real failures before benign ones, then by count. */
    long best = -1;
    double benign = 0, all = 0;
    for (size_t i = 0; t && i < t->nrows; i++) {
        double c = table_num(t, i, "count");
        if (isnan(c))
            continue;
        bool b = benign_row(t, i);
        all += c;
        benign += b ? c : 0;
        if (best < 0) {
            best = (long)i;
            continue;
        }
        bool bb = benign_row(t, (size_t)best);
        if ((bb && !b) || (bb == b && c > table_num(t, (size_t)best, "count")))
            best = (long)i;
    }
    enum severity sev = s.sev;
    /* Only flow-control errors: at most info, and say why. */
    bool only_benign = all > 0 && benign >= all;
    if (only_benign)
        sev = SEV_INFO;
    /* The severity is that of the real failures' rate (the listed rows'
     * share of them applied to the total): 1,400 ENOENT probes a second from
     * a build beside 2 real failures a second are not a critical fault. */
    double real_share = all > 0 ? (all - benign) / all : 1;
    struct sig real = sig_value(r, "syscall.errors_per_s", s.v * real_share, NULL);
    if (!only_benign && real.sev < sev)
        sev = real.sev > SEV_INFO ? real.sev : SEV_INFO;
    /* Mostly normal failures: the title says so before naming a real one. */
    bool mostly_benign = !only_benign && benign > 0 && benign * 2 >= all;
    struct finding *f = rule_finding(r, self, NULL, sev, "");
    if (best >= 0) {
        size_t i = (size_t)best;
        char lab[160], lead[160];
        proc_label(t, i, lab, sizeof lab);
        if (mostly_benign)
            snprintf(lead, sizeof lead,
                     "Failing syscalls: %.0f/s, %.0f%% of them normal (probing, flow "
                     "control); of the others most",
                     s.v, floor(100.0 * benign / all)); /* never "100 %" beside others */
        else
            snprintf(lead, sizeof lead, "Failing syscalls: %.0f/s; most", s.v);
        double row_rate = table_num(t, i, "per_s"), top_rate = top_proc_rate(t, i);
        if (isnan(row_rate) || isnan(top_rate) || top_rate >= row_rate * 0.995)
            finding_set_title(f, "%s %s() -> %s from %s (%.0f/s)", lead,
                              table_str(t, i, "syscall"), table_str(t, i, "errno"), lab,
                              row_rate);
        else /* several processes: the row's rate is not the named one's */
            finding_set_title(f, "%s %s() -> %s (%.0f/s), of them the most from %s (%.0f/s)",
                              lead, table_str(t, i, "syscall"), table_str(t, i, "errno"),
                              row_rate, lab, top_rate);
        finding_set_culprit(f, lab);
    } else {
        finding_set_title(f, "Failing syscalls: %.0f/s", s.v);
    }
    sig_evidence(f, "Failed syscalls (all processes)", &s);
    for (size_t i = 0, shown = 0; t && i < t->nrows && shown < 3; i++, shown++) {
        char lab[160];
        proc_label(t, i, lab, sizeof lab);
        const char *e = table_str(t, i, "errno");
        finding_evidence(f, "%s() failed with %s %.0f times (%.1f/s), mostly in %s%s",
                         table_str(t, i, "syscall"), e, table_num(t, i, "count"),
                         table_num(t, i, "per_s"), lab,
                         benign_row(t, i) ? " (normal: flow control or a program probing; "
                                            "ranked lower)"
                                          : "");
    }
    if (benign > 0 && !only_benign)
        finding_evidence(f, "%.0f%% of the listed errors are normal (EAGAIN/EINTR/ETIMEDOUT flow "
                            "control, or programs probing: ENOENT lookups, isatty ENOTTY, "
                            "readlink EINVAL, wait4 ECHILD...); the others are ranked first",
                         100.0 * benign / all);
    if (only_benign)
        finding_evidence(f, "All listed errors are normal (flow control, or programs probing "
                            "for files), so this is informational");
    sampled_evidence(r, f);
    f->score = rank_score(sev, only_benign ? 0 : real.excess, NAN, 0);
}

void rule_process_churn(struct report *r, const struct rule *self)
{
    struct sig s = sig_metric(r, "proc.exec_per_s", NM_PROC_EXEC_PER_S, NULL);
    if (s.sev < SEV_WARNING)
        return;
    const struct table *t = report_find_table(r, NM_PROC_EXECS);
    long row = table_argmax(t, "execs");
    struct finding *f = rule_finding(r, self, NULL, s.sev, "");
    if (row >= 0) {
        size_t i = (size_t)row;
        const char *comm = table_str(t, i, "comm"), *parent = table_str(t, i, "parent_comm");
        finding_set_title(f, "Process churn: %.0f execs/s; most \"%s\" (%.0f/s) started by \"%s\"",
                          s.v, comm ? comm : "?", table_num(t, i, "execs_per_s"),
                          parent && *parent ? parent : "?");
        double life = table_num(t, i, "avg_lifetime_ms");
        if (!isnan(life))
            finding_evidence(f, "\"%s\" lived %.1f ms on average", comm ? comm : "?", life);
        finding_set_culprit(f, parent && *parent ? parent : comm);
    } else {
        finding_set_title(f, "Process churn: %.0f execs/s", s.v);
    }
    sig_evidence(f, "Programs executed per second", &s);
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
    f->score = rank_score(s.sev, s.excess, NAN, 0);
}
