/* Cgroup findings: memory limits and CPU throttling. */
#include "analyze_internal.h"
#include "../util/fmtnum.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* " (containerd 9a8b7c6d5e4f in pod ...)": who the cgroup is, when its
 * path names a container, pod or unit. */
static void workload(struct strbuf *t, const struct table *cg, size_t row)
{
    const char *name = table_str(cg, row, "name");
    if (name && *name)
        sb_addf(t, " (%s)", name);
}

void rule_cgroup_memory_limit(struct report *r, const struct rule *self)
{
    const struct table *cg = report_find_table(r, NM_CGROUP);
    if (!cg)
        return;
    struct sig best = {.v = NAN, .cov = NAN};
    long row = -1;
    int npast = 0;
    for (size_t i = 0; i < cg->nrows; i++) {
        if (isnan(table_num(cg, i, "mem_limit_kib")) && table_col(cg, "mem_limit_kib") >= 0)
            continue; /* unlimited: mem_pct means nothing */
        struct sig s = sig_value(r, "cgroup.mem_pct", table_num(cg, i, "mem_pct"), NULL);
        npast += s.sev >= SEV_WARNING;
        sig_keep_worst(&best, &row, &s, i);
    }
    if (row < 0 || best.sev < SEV_WARNING)
        return;
    const char *path = table_str(cg, (size_t)row, "path");
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "cgroup %s", path ? path : "?");
    workload(&t, cg, (size_t)row);
    sb_addf(&t, " at %.0f%% of its memory limit", best.v);
    double mem = table_num(cg, (size_t)row, "mem_kib"), lim = table_num(cg, (size_t)row, "mem_limit_kib");
    if (!isnan(mem) && !isnan(lim)) {
        char a[32], b[32];
        fmt_kib(a, sizeof a, mem);
        fmt_kib(b, sizeof b, lim);
        sb_addf(&t, " (%s of %s)", a, b);
    }
    struct finding *f = rule_add(r, self, best.sev, &t);
    sig_evidence(f, "cgroup memory use of its limit", &best);
    double fail = table_num(cg, (size_t)row, "mem_failcnt");
    if (!isnan(fail) && fail > 0)
        finding_evidence(f, "The limit was hit %.0f times (failcnt)", fail);
    struct sig psi = sig_value(r, "psi.some_pct", table_num(cg, (size_t)row, "psi_memory_some_pct"), NULL);
    sig_evidence(f, "PSI memory some inside the cgroup", &psi);
    if (npast > 1)
        finding_evidence(f, "%d other cgroup%s also past the warning level", npast - 1,
                         npast == 2 ? " is" : "s are");
    if (path)
        finding_set_culprit(f, path);
    f->score = rank_score(best.sev, best.excess, NAN, (psi.sev >= SEV_WARNING) + (!isnan(fail) && fail > 0));
}

void rule_cgroup_cpu_throttled(struct report *r, const struct rule *self)
{
    const struct table *cg = report_find_table(r, NM_CGROUP);
    if (!cg)
        return;
    struct sig best = {.v = NAN, .cov = NAN};
    long row = -1;
    for (size_t i = 0; i < cg->nrows; i++) {
        double nthr = table_num(cg, i, "nr_throttled");
        if (!isnan(nthr) && nthr <= 0)
            continue;
        struct sig s = sig_value(r, "cgroup.throttled_pct", table_num(cg, i, "throttled_pct"), NULL);
        sig_keep_worst(&best, &row, &s, i);
    }
    if (row < 0 || best.sev < SEV_WARNING)
        return;
    size_t i = (size_t)row;
    const char *path = table_str(cg, i, "path");
    double np = table_num(cg, i, "nr_periods"), nt = table_num(cg, i, "nr_throttled");
    double quota = table_num(cg, i, "quota_cpus"), tms = table_num(cg, i, "throttled_ms");
    double cpu = table_num(cg, i, "cpu_pct");
    /* Throttled time is summed over the CPUs the group's threads were held
     * back on, so it can pass the CPU time used: say it in those words. */
    double window_s = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    double used_ms = !isnan(cpu) && window_s > 0 ? cpu / 100.0 * window_s * 1000.0 : NAN;
    char held[64], ran[64];
    fmt_quantity(held, sizeof held, tms, "ms");
    fmt_quantity(ran, sizeof ran, used_ms, "ms");
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "cgroup %s", path ? path : "?");
    workload(&t, cg, i);
    if (!isnan(tms) && !isnan(used_ms))
        sb_addf(&t, " CPU-throttled: held back %s (summed over CPUs) while it ran %s", held, ran);
    else
        sb_addf(&t, " CPU-throttled: throttled time %.0f%% of the CPU time it used", best.v);
    if (!isnan(np) && !isnan(nt) && np > 0)
        sb_addf(&t, "; %.0f of %.0f periods throttled", nt, np);
    if (!isnan(quota))
        sb_addf(&t, " (quota %.2g CPU%s)", quota, plural(quota));
    struct finding *f = rule_add(r, self, best.sev, &t);
    sig_evidence(f, "Throttled time / CPU time used", &best);
    if (best.v > 100)
        finding_evidence(f, "Over 100%%: the throttled time is summed over the CPUs its threads "
                            "waited on, so the group waited %.1f times as long as it ran",
                         best.v / 100.0);
    double ppct = table_num(cg, i, "throttled_periods_pct");
    if (!isnan(np) && !isnan(nt))
        finding_evidence(f, "Throttled in %.0f of %.0f scheduling periods (%.0f%%)", nt, np,
                         !isnan(ppct) ? ppct : np > 0 ? nt / np * 100 : 0);
    if (!isnan(tms))
        finding_evidence(f, "Throttled for %s summed over CPUs in a %.0f s window", held,
                         window_s);
    if (!isnan(cpu))
        finding_evidence(f, "Used %.0f%% of one CPU%s", cpu,
                         isnan(quota) ? "" : " against its quota");
    struct sig psi = sig_value(r, "psi.some_pct", table_num(cg, i, "psi_cpu_some_pct"), NULL);
    sig_evidence(f, "PSI cpu some inside the cgroup", &psi);
    if (path)
        finding_set_culprit(f, path);
    int corr = (psi.sev >= SEV_WARNING) + (!isnan(ppct) && ppct >= 50);
    f->score = rank_score(best.sev, best.excess, NAN, corr);
}

