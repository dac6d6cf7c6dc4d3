/* File descriptor findings: exhaustion and growth. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

void rule_fd_exhaustion(struct report *r, const struct rule *self)
{
    const struct table *pf = report_find_table(r, NM_PROC_FD);
    struct sig bp = {.v = NAN, .cov = NAN};
    long row = -1;
    for (size_t i = 0; pf && i < pf->nrows; i++) {
        struct sig s = sig_value(r, "fd.pct", table_num(pf, i, "fd_pct"), NULL);
        if (row < 0 || sig_worse(&s, &bp)) {
            bp = s;
            row = (long)i;
        }
    }
    struct sig sys = sig_metric(r, "fd.system_pct", NM_FD_SYSTEM_PCT, NULL);
    enum severity sev = sev_max(bp.sev, sys.sev);
    if (sev < SEV_WARNING)
        return;
    bool proc_lead = row >= 0 && !sig_worse(&sys, &bp);
    char lab[160] = "";
    if (row >= 0)
        proc_label(pf, (size_t)row, lab, sizeof lab);
    struct strbuf t = STRBUF_INIT;
    double used, max;
    if (proc_lead) {
        sb_addf(&t, "Process %s uses %.0f%% of its file descriptor limit", lab, bp.v);
        used = table_num(pf, (size_t)row, "fds");
        max = table_num(pf, (size_t)row, "fd_limit");
    } else {
        sb_addf(&t, "System file handle table %.0f%% full", sys.v);
        used = report_metric_value(r, NM_FD_SYSTEM_USED);
        max = report_metric_value(r, NM_FD_SYSTEM_MAX);
    }
    if (!isnan(used) && !isnan(max))
        sb_addf(&t, " (%.0f of %.0f)", used, max);
    struct finding *f = rule_add(r, self, sev, &t);
    if (row >= 0) {
        char l2[200];
        snprintf(l2, sizeof l2, "%s descriptors of its limit", lab);
        sig_evidence(f, l2, &bp);
        double g = table_num(pf, (size_t)row, "fd_growth");
        if (!isnan(g) && g != 0)
            finding_evidence(f, "%s changed by %+.0f descriptors during the window", lab, g);
    }
    sig_evidence(f, "System file handles of fs.file-max", &sys);
    if (proc_lead)
        finding_set_culprit(f, lab);
    const struct sig *lead = proc_lead ? &bp : &sys;
    f->score = rank_score(sev, lead->excess, NAN, bp.sev >= SEV_WARNING && sys.sev >= SEV_WARNING);
}

/* A rate extrapolated from a few seconds cannot tell a leak from one burst
 * of opens (a shell starting a pipeline, a pool filling up). */
#define FD_TREND_MIN_S 20.0

void rule_fd_growth(struct report *r, const struct rule *self)
{
    const struct table *pf = report_find_table(r, NM_PROC_FD);
    struct sig best = {.v = NAN, .cov = NAN};
    long row = -1;
    for (size_t i = 0; pf && i < pf->nrows; i++) {
        double g = table_num(pf, i, "fd_growth");
        if (!isnan(g) && g < 10)
            continue; /* a few descriptors in a short window is not a trend */
        struct sig s = sig_value(r, "fd.growth_per_min", table_num(pf, i, "fd_growth_per_min"), NULL);
        sig_keep_worst(&best, &row, &s, i);
    }
    if (row < 0 || best.sev < SEV_WARNING)
        return;
    size_t i = (size_t)row;
    char lab[160];
    proc_label(pf, i, lab, sizeof lab);
    double fds = table_num(pf, i, "fds"), lim = table_num(pf, i, "fd_limit");
    double g = table_num(pf, i, "fd_growth");
    double mins = NAN;
    if (!isnan(fds) && !isnan(lim) && lim > fds && best.v > 0)
        mins = (lim - fds) / best.v;
    enum severity sev = best.sev;
    if (!isnan(mins) && mins < 60)
        sev = SEV_CRITICAL;
    double win = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    bool short_win = win > 0 && win < FD_TREND_MIN_S;
    if (short_win)
        sev = SEV_INFO;
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "File descriptors of %s grew", lab);
    if (!isnan(g))
        sb_addf(&t, " by %.0f in the window", g);
    sb_addf(&t, " (%.0f/min)", best.v);
    if (!isnan(fds) && !isnan(lim))
        sb_addf(&t, ", now %.0f of %.0f", fds, lim);
    struct finding *f = rule_add(r, self, sev, &t);
    sig_evidence(f, "File descriptor growth", &best);
    if (!isnan(mins))
        finding_evidence(f, "At this rate the limit of %.0f is reached in about %.0f min%s", lim,
                         mins, mins < 60 && !short_win ? " (critical: within the hour)" : "");
    if (short_win)
        finding_evidence(f, "Only a %.0f s window: too short to tell a leak from a burst of "
                            "opens (a trend needs %.0f s; run with -d 30 or more)",
                         win, FD_TREND_MIN_S);
    finding_set_culprit(f, lab);
    f->score = rank_score(sev, sev > best.sev ? 1 : best.excess, NAN, 0);
}
