/* Memory findings: pressure, swap and OOM kills. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

void rule_memory_pressure(struct report *r, const struct rule *self)
{
    struct sig avail = sig_metric(r, "mem.available_pct", NM_MEM_AVAILABLE_PCT, NM_MEM_AVAILABLE_PCT);
    struct sig some = sig_metric(r, "psi.some_pct", NM_PSI_MEMORY_SOME_PCT, NM_PSI_MEMORY_SOME_PCT);
    struct sig full = sig_metric(r, "psi.full_pct", NM_PSI_MEMORY_FULL_PCT, NM_PSI_MEMORY_FULL_PCT);
    struct sig majf = sig_metric(r, "mem.pgmajfault_per_s", NM_MEM_PGMAJFAULT_PER_S,
                                 NM_MEM_PGMAJFAULT_PER_S);
    struct sig dscan = sig_metric(r, "mem.pgscan_direct_per_s", NM_MEM_PGSCAN_DIRECT_PER_S, NULL);
    enum severity sev = sev_max(avail.sev, sev_max(some.sev, full.sev));
    const struct sig *lead = &avail;
    if (sig_worse(&some, lead))
        lead = &some;
    if (sig_worse(&full, lead))
        lead = &full;
    /* Faults and direct reclaim alone can be a cold cache; both together are
     * the working set not fitting. */
    if (sev < SEV_WARNING && majf.sev >= SEV_WARNING && dscan.sev >= SEV_WARNING) {
        sev = SEV_WARNING;
        lead = &majf;
    }
    if (sev < SEV_WARNING)
        return;
    const struct sig *all[] = {&avail, &some, &full, &majf, &dscan};
    int corr = count_past(5, all) - 1;

    const struct table *pm = report_find_table(r, NM_PROC_TOP_MEM);
    char culprit[160];
    long top = top_proc(pm, "rss_kib", culprit, sizeof culprit);

    struct strbuf t = STRBUF_INIT;
    sb_add(&t, "Memory pressure");
    const char *sepr = ": ";
    if (!isnan(avail.v)) {
        sb_addf(&t, "%s%.0f%% available", sepr, avail.v);
        double av = report_metric_value(r, NM_MEM_AVAILABLE_KIB), tot = report_metric_value(r, NM_MEM_TOTAL_KIB);
        if (!isnan(av) && !isnan(tot)) {
            char a[32], b[32];
            fmt_kib(a, sizeof a, av);
            fmt_kib(b, sizeof b, tot);
            sb_addf(&t, " (%s of %s)", a, b);
        }
        sepr = ", ";
    }
    if (!isnan(some.v) && some.sev >= SEV_WARNING) {
        sb_addf(&t, "%stasks stalled on memory %.0f%% of the time", sepr, some.v);
        sepr = ", ";
    }
    if (!isnan(majf.v) && majf.sev >= SEV_WARNING)
        sb_addf(&t, "%s%.0f major faults/s", sepr, majf.v);
    if (top >= 0) {
        char rss[32];
        fmt_kib(rss, sizeof rss, table_num(pm, (size_t)top, "rss_kib"));
        sb_addf(&t, "; largest process %s at %s", culprit, rss);
    }
    struct finding *f = rule_add(r, self, sev, &t);
    if (some.sev >= SEV_WARNING || full.sev >= SEV_WARNING)
        finding_add_related(f, "psi");
    sig_evidence(f, "Memory available", &avail);
    sig_evidence(f, "PSI memory some", &some);
    sig_evidence(f, "PSI memory full", &full);
    sig_evidence(f, "Major page faults", &majf);
    sig_evidence(f, "Direct reclaim scans", &dscan);
    double scan = report_metric_value(r, NM_MEM_PGSCAN_PER_S), steal = report_metric_value(r, NM_MEM_PGSTEAL_PER_S);
    if (!isnan(scan) && scan > 0)
        finding_evidence(f, "Reclaim scanned %.0f pages/s and reclaimed %.0f pages/s", scan,
                         num0(steal));
    evidence_top_procs(f, pm, "resident memory", "rss_kib", true);
    if (top >= 0)
        finding_set_culprit(f, culprit);
    f->score = rank_score(sev, lead->excess, lead->cov, corr);
}

void rule_memory_swap(struct report *r, const struct rule *self)
{
    struct sig used = sig_metric(r, "swap.used_pct", NM_SWAP_USED_PCT, NM_SWAP_USED_PCT);
    double in = report_metric_value(r, NM_MEM_PSWPIN_PER_S), out = report_metric_value(r, NM_MEM_PSWPOUT_PER_S);
    double io_v = isnan(in) && isnan(out) ? NAN : num0(in) + num0(out);
    struct sig io = sig_value(r, "swap.pages_per_s", io_v, NULL);
    enum severity sev = io.sev;
    /* Used swap with no traffic is pages parked long ago: not current
     * pressure, so at most info.  Without traffic numbers, trust usage. */
    if (used.sev > sev)
        sev = isnan(io.v) ? used.sev : sev_max(sev, SEV_INFO);
    if (sev == SEV_NONE)
        return;
    const struct sig *lead = io.sev >= used.sev || !isnan(io.v) ? &io : &used;

    struct strbuf t = STRBUF_INIT;
    if (io.sev >= SEV_WARNING) {
        sb_addf(&t, "Swapping: %.0f pages/s (in %.0f/s, out %.0f/s)", io.v, num0(in), num0(out));
        if (!isnan(used.v))
            sb_addf(&t, ", swap %.0f%% used", used.v);
    } else if (!isnan(io.v)) {
        sb_addf(&t, "Swap %.0f%% used but no significant swap traffic in the window "
                    "(old pages, not current pressure)", used.v);
    } else {
        sb_addf(&t, "Swap %.0f%% used", used.v);
    }
    struct finding *f = rule_add(r, self, sev, &t);
    sig_evidence(f, "Swap traffic (in + out)", &io);
    sig_evidence(f, "Swap used", &used);
    finding_set_recommendation(
        f, sev >= SEV_WARNING
               ? "Active swapping makes every touched page a disk read. Reduce memory use or "
                 "add RAM; for latency-sensitive services lower vm.swappiness or disable swap "
                 "for their cgroup."
               : "No action needed now; if it grows, find the processes with swapped pages "
                 "(VmSwap in /proc/PID/status).");
    f->score = rank_score(sev, lead->excess, lead->cov, 0);
}

/* Most OOM kills, ties to the deepest path (v2 counts kills in ancestors too). */
static long worst_oom_cgroup(const struct table *cg, double *sum)
{
    long best = -1;
    *sum = 0;
    if (!cg)
        return -1;
    for (size_t i = 0; i < cg->nrows; i++) {
        double k = table_num(cg, i, "oom_kills");
        if (isnan(k) || k <= 0)
            continue;
        const char *p = table_str(cg, i, "path");
        if (best < 0) {
            best = (long)i;
            *sum = k;
            continue;
        }
        double bk = table_num(cg, (size_t)best, "oom_kills");
        const char *bp = table_str(cg, (size_t)best, "path");
        if (k > bk || (k == bk && strlen(p ? p : "") > strlen(bp ? bp : "")))
            best = (long)i;
        if (k > *sum)
            *sum = k;
    }
    return best;
}

static void evidence_cgroup_mem(struct finding *f, const struct table *cg, size_t row)
{
    const char *path = table_str(cg, row, "path");
    double mem = table_num(cg, row, "mem_kib"), lim = table_num(cg, row, "mem_limit_kib");
    double pct = table_num(cg, row, "mem_pct"), fail = table_num(cg, row, "mem_failcnt");
    double k = table_num(cg, row, "oom_kills");
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "cgroup %s:", path ? path : "?");
    if (!isnan(k))
        sb_addf(&sb, " %.0f OOM kill%s in the window;", k, plural(k));
    if (!isnan(mem)) {
        char a[32], b[32];
        fmt_kib(a, sizeof a, mem);
        sb_addf(&sb, " memory %s", a);
        if (!isnan(lim)) {
            fmt_kib(b, sizeof b, lim);
            sb_addf(&sb, " of a %s limit", b);
            if (!isnan(pct))
                sb_addf(&sb, " (%.1f%%)", pct);
        } else {
            sb_add(&sb, " (no limit)");
        }
        sb_add(&sb, ";");
    }
    if (!isnan(fail) && fail > 0)
        sb_addf(&sb, " limit hit %.0f times;", fail);
    sb.buf[sb.len - 1] = '\0'; /* drop the last separator */
    finding_evidence(f, "%s", sb_str(&sb));
    sb_free(&sb);
}

void rule_memory_oom(struct report *r, const struct rule *self)
{
    double host = report_metric_value(r, NM_MEM_OOM_KILL);
    const struct table *cg = report_find_table(r, NM_CGROUP);
    double cg_max = 0;
    long row = worst_oom_cgroup(cg, &cg_max);
    /* Victims seen by the kernel-side collector: it records from its attach
     * to the end of the run, so it also sees kills during start-up and
     * finalisation, which the window's counters miss. */
    const struct table *vt = report_find_table(r, NM_MEMORY_OOM_VICTIMS);
    size_t nvt = vt ? vt->nrows : 0;
    double nv = report_metric_value(r, NM_MEM_OOM_VICTIMS); /* also past the listed ones */
    if (isnan(nv) || nv < (double)nvt)
        nv = (double)nvt;
    if (isnan(host) && row < 0 && nv <= 0)
        return;
    /* vmstat counts memcg OOMs too: the larger of the two avoids double counting. */
    double in_window = num0(host) > cg_max ? num0(host) : cg_max;
    /* Each kill is one victim, and the victims span covers the window's: the
     * larger count again, never the sum. */
    double total = in_window > nv ? in_window : nv;
    size_t outside = 0, first_out = 0;
    for (size_t i = 0; i < nvt; i++)
        if (outside_window(r, table_num(vt, i, "at_s")) && !outside++)
            first_out = i;
    struct sig s = sig_value(r, "mem.oom_kill", total, NULL);
    if (s.sev < SEV_WARNING)
        return;
    const char *path = row >= 0 ? table_str(cg, (size_t)row, "path") : NULL;
    /* The victims' cgroup wins over the counters' guess when they differ. */
    if (nvt && table_str(vt, 0, "cgroup") && table_str(vt, 0, "cgroup")[0] == '/')
        path = table_str(vt, 0, "cgroup");
    struct strbuf t = STRBUF_INIT;
    if (nvt) {
        char who[128];
        proc_label(vt, 0, who, sizeof who);
        sb_addf(&t, "OOM killer killed %s", who);
        if (nvt > 1)
            sb_addf(&t, " and %zu more process%s", nvt - 1, nvt == 2 ? "" : "es");
    } else {
        sb_addf(&t, "OOM killer fired %.0f time%s", total, plural(total));
    }
    if (path) {
        sb_addf(&t, " in cgroup %s", path);
        double lim = row >= 0 ? table_num(cg, (size_t)row, "mem_limit_kib") : NAN;
        if (!isnan(lim)) {
            char b[32];
            fmt_kib(b, sizeof b, lim);
            sb_addf(&t, " (memory limit %s)", b);
        }
    } else if (!outside) {
        sb_add(&t, " in the window");
    }
    if (nvt && outside == nvt) { /* every kill outside the window: say when */
        char when[64];
        when_text(r, table_num(vt, first_out, "at_s"), when, sizeof when);
        sb_addf(&t, ", %s", when);
    }
    struct finding *f = rule_add(r, self, s.sev, &t);
    sig_evidence(f, total > in_window ? "OOM kills while perfreport ran" : "OOM kills in the window",
                 &s);
    if (outside)
        finding_evidence(f, "%zu of the kills happened outside the window (start-up or "
                            "finalisation), seen by the mark_victim tracepoint; the window's "
                            "counters show %.0f", outside, in_window);
    if (cg) {
        size_t shown = 0;
        if (row >= 0) {
            evidence_cgroup_mem(f, cg, (size_t)row);
            shown++;
        }
        for (size_t i = 0; i < cg->nrows && shown < 4; i++) {
            double k = table_num(cg, i, "oom_kills");
            if ((long)i != row && !isnan(k) && k > 0) {
                evidence_cgroup_mem(f, cg, i);
                shown++;
            }
        }
    }
    for (size_t i = 0; i < nvt && i < 5; i++) {
        char who[128], vm[32], when[64];
        proc_label(vt, i, who, sizeof who);
        fmt_kib(vm, sizeof vm, table_num(vt, i, "total_vm_kib"));
        const char *vcg = table_str(vt, i, "cgroup");
        double at = table_num(vt, i, "at_s");
        when_text(r, at, when, sizeof when);
        finding_evidence(f, "Killed %s (virtual size %s) in memory cgroup %s%s%s", who, vm,
                         vcg ? vcg : "?", isnan(at) ? "" : ", ", isnan(at) ? "" : when);
    }
    double avail = report_metric_value(r, NM_MEM_AVAILABLE_PCT);
    if (!isnan(avail))
        finding_evidence(f, "Host memory available %.1f%%%s", avail,
                         path && avail > 20 ? ": the limit was the cgroup's, not the host's" : "");
    if (nvt)
        finding_set_recommendation(
            f, path ? "The process was killed for exceeding its cgroup's memory limit. Raise the "
                      "limit (memory.max / memory.limit_in_bytes) if the workload needs it, or "
                      "cut its memory use; set memory.high below the limit for gradual reclaim "
                      "instead of kills."
                    : "The kernel killed the process to free memory. Reduce its memory use, add "
                      "RAM, or put the growing service in a memory-limited cgroup.");
    else
        finding_set_recommendation(
            f, path ? "A process in this cgroup was killed for exceeding the cgroup's memory limit. "
                      "Find which one in the kernel log (journalctl -k | grep -i 'killed process'), "
                      "then raise the limit (memory.max / memory.limit_in_bytes) or cut the "
                      "service's memory use; set memory.high below the limit for gradual "
                      "reclaim instead of kills."
                    : "The kernel killed a process to free memory. Find which one in the kernel log "
                      "(journalctl -k | grep -i 'killed process'), then reduce memory use, add RAM, "
                      "or put the growing service in a memory-limited cgroup.");
    if (path)
        finding_set_culprit(f, path);
    f->score = rank_score(s.sev, s.excess, NAN, row >= 0 && !isnan(host) && host > 0);
}


/* memory.growth: a process whose resident memory rises steadily, judged by
 * how soon it would exhaust the memory available at its slope.  Steady means
 * what the leak rule means by it (rising in most intervals, the
 * alloc.not_freed_rise_pct row) and growing in every third of the window:
 * a cache warming up or a heap reaching its maximum rises and then stays
 * flat, one large allocation is a single step, and allocate/free cycles do
 * not grow at all. */
#define GROWTH_MIN_KIB (16.0 * 1024) /* a few MiB more is no trend worth a warning */
#define GROWTH_THIRD_MIN_PCT 15.0    /* of the growth in each third (even: 33 %) */
#define GROWTH_ANON_MIN_SHARE 0.5    /* file-backed pages are cache that reclaim takes back */

/* Whether row i of the growth table grew steadily enough to be judged. */
static bool growth_steady(const struct table *t, size_t i, double need_rise)
{
    double g = table_num(t, i, "growth_kib"), slope = table_num(t, i, "slope_kib_per_s");
    double rise = table_num(t, i, "rise_pct"), third = table_num(t, i, "min_third_pct");
    double anon = table_num(t, i, "anon_growth_kib");
    if (isnan(g) || g < GROWTH_MIN_KIB || !(slope > 0) || isnan(rise) || rise < need_rise)
        return false;
    if (isnan(third) || third < GROWTH_THIRD_MIN_PCT)
        return false; /* without the window's thirds a plateau cannot be told apart */
    return isnan(anon) || anon >= GROWTH_ANON_MIN_SHARE * g;
}

void rule_memory_growth(struct report *r, const struct rule *self)
{
    const struct table *t = report_find_table(r, NM_MEMORY_GROWTH);
    double avail = host_available_kib(r);
    if (!t || isnan(avail))
        return;
    const struct threshold *steady = report_find_threshold(r, NM_ALLOC_NOT_FREED_RISE_PCT);
    double need = steady ? steady->warn : 70;
    struct sig best = {.v = NAN, .cov = NAN};
    long row = -1;
    size_t growing = 0;
    for (size_t i = 0; i < t->nrows; i++) {
        if (!growth_steady(t, i, need))
            continue;
        growing++;
        double slope = table_num(t, i, "slope_kib_per_s");
        struct sig s = sig_value(r, "memory.growth_exhaust_min", avail / slope / 60.0, NULL);
        sig_keep_worst(&best, &row, &s, i);
    }
    if (row < 0 || best.sev < SEV_WARNING)
        return;
    bool short_now = memory_short(r);
    enum severity sev = best.sev == SEV_CRITICAL && !short_now ? SEV_WARNING : best.sev;
    size_t i = (size_t)row;
    char lab[160], rate[32], av[32], a0[32], a1[32], gr[32], when[32];
    proc_label(t, i, lab, sizeof lab);
    double slope = table_num(t, i, "slope_kib_per_s");
    fmt_kib(rate, sizeof rate, slope);
    fmt_kib(av, sizeof av, avail);
    fmt_val(when, sizeof when, best.v, "min");
    struct strbuf title = STRBUF_INIT;
    sb_addf(&title, "Memory of %s grows steadily by %s/s: the %s available runs out in about %s "
                    "at this rate",
            lab, rate, av, when);
    struct finding *f = rule_add(r, self, sev, &title);
    sig_evidence(f, "Time until the available memory runs out at this rate", &best);
    if (sev < best.sev)
        finding_evidence(f, "Kept at warning: memory is not short yet (neither available memory "
                            "nor PSI memory past its threshold); a compiler or a cache warming "
                            "up grows this way too");
    fmt_kib(a0, sizeof a0, table_num(t, i, "rss_start_kib"));
    fmt_kib(a1, sizeof a1, table_num(t, i, "rss_end_kib"));
    fmt_kib(gr, sizeof gr, table_num(t, i, "growth_kib"));
    finding_evidence(f, "Resident memory %s -> %s in %.1f s (+%s; least-squares slope %s/s)", a0,
                     a1, table_num(t, i, "span_s"), gr, rate);
    finding_evidence(f, "It rose in %.0f%% of the intervals (steady growth; %.0f%% needed) and in "
                        "every third of the window (the smallest third holds %.0f%% of the "
                        "growth; %.0f%% needed)",
                     table_num(t, i, "rise_pct"), need, table_num(t, i, "min_third_pct"),
                     GROWTH_THIRD_MIN_PCT);
    double anon = table_num(t, i, "anon_growth_kib");
    if (!isnan(anon)) {
        char an[32];
        fmt_kib(an, sizeof an, anon);
        finding_evidence(f, "Anonymous memory (not file cache, which reclaim takes back) grew by "
                            "%s of it",
                         an);
    }
    finding_evidence(f, "Available memory: %s at the window's low point", av);
    if (growing > 1)
        finding_evidence(f, "%zu other process%s also grew steadily (see the table of processes "
                            "whose memory grew)",
                         growing - 1, growing == 2 ? "" : "es");
    struct sig pa = sig_metric(r, "mem.available_pct", NM_MEM_AVAILABLE_PCT, NULL);
    finding_set_culprit(f, lab);
    f->score = rank_score(sev, best.excess, NAN, pa.sev >= SEV_WARNING);
}
