/* Rules: one function per finding id, listed in `rules[]`.  Each reads named
 * metrics/series/tables (src/model/NAMES.md), judges them against the
 * thresholds table and adds at most one finding.  Every evidence line carries
 * the number and the threshold it was compared with. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static enum severity sev_max(enum severity a, enum severity b) { return a > b ? a : b; }

static double num0(double v) { return isnan(v) ? 0 : v; }

static const char *plural(double n) { return n == 1 ? "" : "s"; }

/* Indices of up to k rows with the largest `col`, largest first; rows
 * without a value are skipped. */
static size_t top_rows(const struct table *t, const char *col, size_t *idx, size_t k)
{
    size_t n = 0;
    if (!t)
        return 0;
    while (n < k) {
        long best = -1;
        double bv = 0;
        for (size_t i = 0; i < t->nrows; i++) {
            double v = table_num(t, i, col);
            if (isnan(v))
                continue;
            bool taken = false;
            for (size_t j = 0; j < n; j++)
                taken |= idx[j] == i;
            if (!taken && (best < 0 || v > bv)) {
                best = (long)i;
                bv = v;
            }
        }
        if (best < 0)
            break;
        idx[n++] = (size_t)best;
    }
    return n;
}

static struct finding *add(struct report *r, const char *id, enum severity sev,
                           const char *resource, struct strbuf *title)
{
    struct finding *f = report_add_finding(r, id, sev, resource, sb_str(title));
    sb_free(title);
    return f;
}

static int count_past(int n, const struct sig *const *s)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += s[i]->sev >= SEV_WARNING;
    return c;
}

/* "Top processes by CPU: a (pid 1) 99%, b (pid 2) 40%" */
static void evidence_top_procs(struct finding *f, const struct table *t, const char *what,
                               const char *col, bool kib)
{
    size_t idx[3];
    size_t n = top_rows(t, col, idx, 3);
    if (!n)
        return;
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "Top processes by %s: ", what);
    for (size_t i = 0; i < n; i++) {
        char lab[128], val[48];
        proc_label(t, idx[i], lab, sizeof lab);
        double v = table_num(t, idx[i], col);
        if (kib)
            fmt_kib(val, sizeof val, v);
        else
            snprintf(val, sizeof val, "%.0f%%", v);
        sb_addf(&sb, "%s%s %s", i ? ", " : "", lab, val);
    }
    finding_evidence(f, "%s", sb_str(&sb));
    sb_free(&sb);
}

/* ---- cpu ------------------------------------------------------------------ */

static void rule_cpu_saturation(struct report *r)
{
    struct sig util = sig_metric(r, "cpu.util_pct", "cpu.util_pct", "cpu.util_pct");
    struct sig runq = sig_metric(r, "cpu.runq_per_cpu", "cpu.runq_per_cpu", "cpu.runq_per_cpu");
    struct sig psi = sig_metric(r, "psi.some_pct", "psi.cpu.some.pct", "psi.cpu.some.pct");
    enum severity sev = sev_max(util.sev, runq.sev);
    if (sev < SEV_WARNING)
        return;
    const struct sig *lead = sig_worse(&runq, &util) ? &runq : &util;
    int corr = (util.sev >= SEV_WARNING && runq.sev >= SEV_WARNING) + (psi.sev >= SEV_WARNING);

    double ncpu = report_metric_value(r, "cpu.count");
    const struct table *procs = report_find_table(r, "proc.top_cpu");
    long top = table_argmax(procs, "cpu_pct");
    char culprit[160] = "";
    if (top >= 0)
        proc_label(procs, (size_t)top, culprit, sizeof culprit);

    struct strbuf t = STRBUF_INIT;
    sb_add(&t, sev == SEV_CRITICAL || runq.sev >= SEV_WARNING ? "CPU saturated" : "CPU busy");
    const char *sepr = ": ";
    if (!isnan(util.v)) {
        sb_addf(&t, "%s%.0f%% busy", sepr, util.v);
        if (!isnan(ncpu) && ncpu > 0)
            sb_addf(&t, " across %.0f CPU%s", ncpu, plural(ncpu));
        sepr = ", ";
    }
    if (!isnan(runq.v))
        sb_addf(&t, "%srun queue %.1f per CPU", sepr, runq.v);
    if (top >= 0)
        sb_addf(&t, "; top process %s at %.0f%%", culprit,
                table_num(procs, (size_t)top, "cpu_pct"));
    struct finding *f = add(r, "cpu.saturation", sev, "cpu", &t);

    sig_evidence(f, "CPU utilisation", &util);
    sig_evidence(f, "Run queue", &runq);
    sig_evidence(f, "PSI cpu some (share of time tasks waited for a CPU)", &psi);
    double usr = report_metric_value(r, "cpu.user_pct"), sys = report_metric_value(r, "cpu.system_pct");
    double iow = report_metric_value(r, "cpu.iowait_pct"), st = report_metric_value(r, "cpu.steal_pct");
    if (!isnan(usr) && !isnan(sys))
        finding_evidence(f, "Busy time split: user %.1f%%, system %.1f%% (iowait %.1f%% and steal "
                         "%.1f%% are not counted as busy)", usr, sys, num0(iow), num0(st));
    evidence_top_procs(f, procs, "CPU (% of one CPU)", "cpu_pct", false);
    char hot[400];
    if (profile_top_function(r, hot, sizeof hot))
        finding_evidence(f, "On-CPU profile: the hottest function is %s", hot);
    finding_set_recommendation(
        f, "Find what the busiest processes are doing: the CPU flame graph shows the hot code "
           "paths. If one process dominates, profile it (perf record -g -p PID) and fix the hot "
           "loop or cap it with a cgroup CPU quota; if the load is legitimate, add CPUs or "
           "spread the work across hosts.");
    if (top >= 0)
        finding_set_culprit(f, culprit);
    f->score = rank_score(sev, lead->excess, lead->cov, corr);
}

static void rule_cpu_steal(struct report *r)
{
    struct sig s = sig_metric(r, "cpu.steal_pct", "cpu.steal_pct", "cpu.steal_pct");
    if (s.sev < SEV_WARNING)
        return;
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "CPU steal: the hypervisor gave %.0f%% of this VM's CPU time to other guests",
            s.v);
    struct finding *f = add(r, "cpu.steal", s.sev, "cpu", &t);
    sig_evidence(f, "CPU steal", &s);
    double util = report_metric_value(r, "cpu.util_pct");
    if (!isnan(util))
        finding_evidence(f, "Guest CPU busy %.1f%% while waiting for the host", util);
    finding_set_recommendation(
        f, "The host running this VM is overcommitted: ask the provider or the virtualisation "
           "admins, move the VM to a less busy host, or use dedicated vCPUs / a larger "
           "instance. Tuning inside the guest will not help.");
    finding_set_culprit(f, "hypervisor");
    f->score = rank_score(s.sev, s.excess, s.cov, 0);
}

static void rule_cpu_softirq(struct report *r)
{
    struct sig s = sig_metric(r, "cpu.softirq_pct", "cpu.softirq_pct", "cpu.softirq_pct");
    if (s.sev < SEV_WARNING)
        return;
    struct sig drops = sig_metric(r, "net.drops_per_s", "net.drops_per_s", NULL);
    const struct table *pc = report_find_table(r, "cpu.per_cpu");
    long hot = table_argmax(pc, "softirq_pct");
    const char *cpu = hot >= 0 ? table_str(pc, (size_t)hot, "cpu") : NULL;

    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Soft interrupts take %.0f%% of CPU time", s.v);
    if (cpu)
        sb_addf(&t, " (busiest %s at %.0f%%)", cpu, table_num(pc, (size_t)hot, "softirq_pct"));
    struct finding *f = add(r, "cpu.softirq", s.sev, "cpu", &t);
    sig_evidence(f, "Soft-interrupt share of CPU time", &s);
    const struct table *ifs = report_find_table(r, "net.iface");
    if (ifs) {
        double pk = 0;
        for (size_t i = 0; i < ifs->nrows; i++)
            pk += num0(table_num(ifs, i, "rx_pkts_per_s")) + num0(table_num(ifs, i, "tx_pkts_per_s"));
        finding_evidence(f, "Network packet rate %.0f/s (rx + tx, all interfaces)", pk);
    }
    sig_evidence(f, "Packet drops", &drops);
    finding_set_recommendation(
        f, "Soft-interrupt time is mostly network receive/transmit and block I/O completion. "
           "Check which type grows in /proc/softirqs, spread interrupts over CPUs (irqbalance, "
           "RSS/RPS), and reduce the packet rate (larger batches, GRO/GSO, fewer small "
           "packets).");
    if (cpu)
        finding_set_culprit(f, cpu);
    f->score = rank_score(s.sev, s.excess, s.cov, drops.sev >= SEV_WARNING);
}

/* ---- memory ----------------------------------------------------------------- */

static void rule_memory_pressure(struct report *r)
{
    struct sig avail = sig_metric(r, "mem.available_pct", "mem.available_pct", "mem.available_pct");
    struct sig some = sig_metric(r, "psi.some_pct", "psi.memory.some.pct", "psi.memory.some.pct");
    struct sig full = sig_metric(r, "psi.full_pct", "psi.memory.full.pct", "psi.memory.full.pct");
    struct sig majf = sig_metric(r, "mem.pgmajfault_per_s", "mem.pgmajfault_per_s",
                                 "mem.pgmajfault_per_s");
    struct sig dscan = sig_metric(r, "mem.pgscan_direct_per_s", "mem.pgscan_direct_per_s", NULL);
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

    const struct table *pm = report_find_table(r, "proc.top_mem");
    long top = table_argmax(pm, "rss_kib");
    char culprit[160] = "";
    if (top >= 0)
        proc_label(pm, (size_t)top, culprit, sizeof culprit);

    struct strbuf t = STRBUF_INIT;
    sb_add(&t, "Memory pressure");
    const char *sepr = ": ";
    if (!isnan(avail.v)) {
        sb_addf(&t, "%s%.0f%% available", sepr, avail.v);
        double av = report_metric_value(r, "mem.available_kib"), tot = report_metric_value(r, "mem.total_kib");
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
    struct finding *f = add(r, "memory.pressure", sev, "memory", &t);
    sig_evidence(f, "Memory available", &avail);
    sig_evidence(f, "PSI memory some", &some);
    sig_evidence(f, "PSI memory full", &full);
    sig_evidence(f, "Major page faults", &majf);
    sig_evidence(f, "Direct reclaim scans", &dscan);
    double scan = report_metric_value(r, "mem.pgscan_per_s"), steal = report_metric_value(r, "mem.pgsteal_per_s");
    if (!isnan(scan) && scan > 0)
        finding_evidence(f, "Reclaim scanned %.0f pages/s and reclaimed %.0f pages/s", scan,
                         num0(steal));
    evidence_top_procs(f, pm, "resident memory", "rss_kib", true);
    finding_set_recommendation(
        f, "The working set no longer fits in RAM. Find what grew (largest processes by RSS "
           "above), fix leaks or shrink caches/heaps, add memory, or put memory limits on "
           "batch work so it cannot starve latency-sensitive services.");
    if (top >= 0)
        finding_set_culprit(f, culprit);
    f->score = rank_score(sev, lead->excess, lead->cov, corr);
}

static void rule_memory_swap(struct report *r)
{
    struct sig used = sig_metric(r, "swap.used_pct", "swap.used_pct", "swap.used_pct");
    double in = report_metric_value(r, "mem.pswpin_per_s"), out = report_metric_value(r, "mem.pswpout_per_s");
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
    struct finding *f = add(r, "memory.swap", sev, "memory", &t);
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

/* "1.2 s before the window opened" / "0.8 s into the window" / "0.3 s after
 * the window closed" for an event at at_s seconds from the window's start. */
void when_text(const struct report *r, double at_s, char *buf, size_t n)
{
    double win = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    if (isnan(at_s))
        snprintf(buf, n, "at an unknown time");
    else if (at_s < 0)
        snprintf(buf, n, "%.1f s before the window opened", -at_s);
    else if (win > 0 && at_s > win)
        snprintf(buf, n, "%.1f s after the window closed", at_s - win);
    else
        snprintf(buf, n, "%.1f s into the window", at_s);
}

bool outside_window(const struct report *r, double at_s)
{
    double win = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    return !isnan(at_s) && (at_s < 0 || (win > 0 && at_s > win));
}

static void rule_memory_oom(struct report *r)
{
    double host = report_metric_value(r, "mem.oom_kill");
    const struct table *cg = report_find_table(r, "cgroup");
    double cg_max = 0;
    long row = worst_oom_cgroup(cg, &cg_max);
    /* Victims seen by the kernel-side collector: it records from its attach
     * to the end of the run, so it also sees kills during start-up and
     * finalisation, which the window's counters miss. */
    const struct table *vt = report_find_table(r, "memory.oom_victims");
    size_t nvt = vt ? vt->nrows : 0;
    double nv = report_metric_value(r, "mem.oom_victims"); /* also past the listed ones */
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
    struct finding *f = add(r, "memory.oom", s.sev, "memory", &t);
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
    double avail = report_metric_value(r, "mem.available_pct");
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

/* ---- cgroups ------------------------------------------------------------------ */

static void rule_cgroup_memory_limit(struct report *r)
{
    const struct table *cg = report_find_table(r, "cgroup");
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
        if (row < 0 || sig_worse(&s, &best)) {
            best = s;
            row = (long)i;
        }
    }
    if (row < 0 || best.sev < SEV_WARNING)
        return;
    const char *path = table_str(cg, (size_t)row, "path");
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "cgroup %s at %.0f%% of its memory limit", path ? path : "?", best.v);
    double mem = table_num(cg, (size_t)row, "mem_kib"), lim = table_num(cg, (size_t)row, "mem_limit_kib");
    if (!isnan(mem) && !isnan(lim)) {
        char a[32], b[32];
        fmt_kib(a, sizeof a, mem);
        fmt_kib(b, sizeof b, lim);
        sb_addf(&t, " (%s of %s)", a, b);
    }
    struct finding *f = add(r, "cgroup.memory_limit", best.sev, "cgroup", &t);
    sig_evidence(f, "cgroup memory use of its limit", &best);
    double fail = table_num(cg, (size_t)row, "mem_failcnt");
    if (!isnan(fail) && fail > 0)
        finding_evidence(f, "The limit was hit %.0f times (failcnt)", fail);
    struct sig psi = sig_value(r, "psi.some_pct", table_num(cg, (size_t)row, "psi_memory_some_pct"), NULL);
    sig_evidence(f, "PSI memory some inside the cgroup", &psi);
    if (npast > 1)
        finding_evidence(f, "%d other cgroup%s also past the warning level", npast - 1,
                         npast == 2 ? " is" : "s are");
    finding_set_recommendation(
        f, "Page cache counts toward the limit and is reclaimed first, so check anon vs file in "
           "the cgroup's memory.stat before acting. If anonymous memory is near the limit, "
           "raise it (memory.max / memory.limit_in_bytes) or reduce the service's memory use "
           "before the OOM killer does it.");
    if (path)
        finding_set_culprit(f, path);
    f->score = rank_score(best.sev, best.excess, NAN, (psi.sev >= SEV_WARNING) + (!isnan(fail) && fail > 0));
}

static void rule_cgroup_cpu_throttled(struct report *r)
{
    const struct table *cg = report_find_table(r, "cgroup");
    if (!cg)
        return;
    struct sig best = {.v = NAN, .cov = NAN};
    long row = -1;
    for (size_t i = 0; i < cg->nrows; i++) {
        double nthr = table_num(cg, i, "nr_throttled");
        if (!isnan(nthr) && nthr <= 0)
            continue;
        struct sig s = sig_value(r, "cgroup.throttled_pct", table_num(cg, i, "throttled_pct"), NULL);
        if (row < 0 || sig_worse(&s, &best)) {
            best = s;
            row = (long)i;
        }
    }
    if (row < 0 || best.sev < SEV_WARNING)
        return;
    size_t i = (size_t)row;
    const char *path = table_str(cg, i, "path");
    double np = table_num(cg, i, "nr_periods"), nt = table_num(cg, i, "nr_throttled");
    double quota = table_num(cg, i, "quota_cpus"), tms = table_num(cg, i, "throttled_ms");
    double cpu = table_num(cg, i, "cpu_pct");
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "cgroup %s CPU-throttled: throttled time %.0f%% of the CPU time it used",
            path ? path : "?", best.v);
    if (!isnan(np) && !isnan(nt) && np > 0)
        sb_addf(&t, ", %.0f of %.0f periods throttled", nt, np);
    if (!isnan(quota))
        sb_addf(&t, " (quota %.2g CPU%s)", quota, plural(quota));
    struct finding *f = add(r, "cgroup.cpu_throttled", best.sev, "cgroup", &t);
    sig_evidence(f, "Throttled time / CPU used", &best);
    double ppct = table_num(cg, i, "throttled_periods_pct");
    if (!isnan(np) && !isnan(nt))
        finding_evidence(f, "Throttled in %.0f of %.0f scheduling periods (%.0f%%)", nt, np,
                         !isnan(ppct) ? ppct : np > 0 ? nt / np * 100 : 0);
    if (!isnan(tms))
        finding_evidence(f, "Throttled for %.0f ms in the window", tms);
    if (!isnan(cpu))
        finding_evidence(f, "Used %.0f%% of one CPU%s", cpu,
                         isnan(quota) ? "" : " against its quota");
    struct sig psi = sig_value(r, "psi.some_pct", table_num(cg, i, "psi_cpu_some_pct"), NULL);
    sig_evidence(f, "PSI cpu some inside the cgroup", &psi);
    finding_set_recommendation(
        f, "Tasks in this cgroup hit their CPU quota and wait for the next period, which shows "
           "up as latency spikes of up to one period. Raise the quota (cpu.max / "
           "cpu.cfs_quota_us), allow bursts (cpu.max.burst), or make the work use less CPU.");
    if (path)
        finding_set_culprit(f, path);
    int corr = (psi.sev >= SEV_WARNING) + (!isnan(ppct) && ppct >= 50);
    f->score = rank_score(best.sev, best.excess, NAN, corr);
}

/* ---- disks ----------------------------------------------------------------------- */

static struct sig disk_sig(const struct report *r, const struct table *d, size_t row,
                           const char *thr_id, const char *col, const char *suffix)
{
    char sname[256];
    const char *dev = table_str(d, row, "device");
    snprintf(sname, sizeof sname, "disk.%s.%s", dev ? dev : "", suffix);
    return sig_value(r, thr_id, table_num(d, row, col), dev ? sname : NULL);
}

static struct sig disk_await_sig(const struct report *r, const struct table *d, size_t row)
{
    char sname[256];
    const char *dev = table_str(d, row, "device");
    snprintf(sname, sizeof sname, "disk.%s.await_ms", dev ? dev : "");
    return sig_with(r, thr_disk_await(r, table_str(d, row, "class")),
                    table_num(d, row, "await_ms"), dev ? sname : NULL);
}

static void evidence_dstate(struct finding *f, const struct report *r)
{
    const struct table *ds = report_find_table(r, "proc.dstate");
    size_t idx[3];
    size_t n = top_rows(ds, "ticks_in_d", idx, 3);
    if (!n)
        return;
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, "Processes seen waiting in D state (uninterruptible, usually I/O): ");
    for (size_t i = 0; i < n; i++) {
        char lab[128];
        proc_label(ds, idx[i], lab, sizeof lab);
        sb_addf(&sb, "%s%s in %.0f samples", i ? ", " : "", lab, table_num(ds, idx[i], "ticks_in_d"));
    }
    finding_evidence(f, "%s", sb_str(&sb));
    sb_free(&sb);
}

static void rule_disk_saturation(struct report *r)
{
    const struct table *d = report_find_table(r, "disk");
    if (!d)
        return;
    struct sig bu = {.v = NAN, .cov = NAN}, bq = bu;
    long row = -1;
    int others = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        struct sig u = disk_sig(r, d, i, "disk.util_pct", "util_pct", "util_pct");
        struct sig q = disk_sig(r, d, i, "disk.aqu_sz", "aqu_sz", "aqu_sz");
        const struct sig *w = sig_worse(&q, &u) ? &q : &u;
        const struct sig *bw = sig_worse(&bq, &bu) ? &bq : &bu;
        others += w->sev >= SEV_WARNING;
        if (row < 0 || sig_worse(w, bw)) {
            bu = u;
            bq = q;
            row = (long)i;
        }
    }
    enum severity sev = sev_max(bu.sev, bq.sev);
    if (row < 0 || sev < SEV_WARNING)
        return;
    size_t i = (size_t)row;
    const char *dev = table_str(d, i, "device");
    double rps = table_num(d, i, "r_per_s"), wps = table_num(d, i, "w_per_s");
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Disk %s %s", dev ? dev : "?",
            sev == SEV_CRITICAL || bq.sev >= SEV_WARNING ? "saturated" : "busy");
    const char *sepr = ": ";
    if (!isnan(bu.v)) {
        sb_addf(&t, "%s%.0f%% busy", sepr, bu.v);
        sepr = ", ";
    }
    if (!isnan(bq.v)) {
        sb_addf(&t, "%squeue depth %.1f", sepr, bq.v);
        sepr = ", ";
    }
    if (!isnan(rps) || !isnan(wps))
        sb_addf(&t, "%s%.0f I/O per s", sepr, num0(rps) + num0(wps));
    struct finding *f = add(r, "disk.saturation", sev, "disk", &t);
    sig_evidence(f, "Disk busy time", &bu);
    sig_evidence(f, "Average queue depth", &bq);
    struct sig aw = disk_await_sig(r, d, i);
    const char *cls = table_str(d, i, "class");
    char lab[96];
    snprintf(lab, sizeof lab, "Average I/O latency (%s class)", cls ? cls : "unknown");
    sig_evidence(f, lab, &aw);
    double rk = table_num(d, i, "rkb_per_s"), wk = table_num(d, i, "wkb_per_s");
    if (!isnan(rps) || !isnan(wps))
        finding_evidence(f, "Reads %.0f/s (%.0f KiB/s), writes %.0f/s (%.0f KiB/s)", num0(rps),
                         num0(rk), num0(wps), num0(wk));
    struct sig psi = sig_metric(r, "psi.some_pct", "psi.io.some.pct", "psi.io.some.pct");
    sig_evidence(f, "PSI io some (share of time tasks waited for I/O)", &psi);
    evidence_dstate(f, r);
    if (others > 1)
        finding_evidence(f, "%d other disk%s also past a warning level", others - 1,
                         others == 2 ? " is" : "s are");
    finding_set_recommendation(
        f, "The device has more I/O than it can serve. Find who issues it (D-state processes "
           "and the off-CPU profile; iotop), then batch or spread the I/O, add page cache "
           "(memory) for re-read data, or move to faster storage. On a VM, check the "
           "hypervisor's storage limits.");
    if (dev)
        finding_set_culprit(f, dev);
    const struct sig *lead = sig_worse(&bq, &bu) ? &bq : &bu;
    int corr = (bu.sev >= SEV_WARNING && bq.sev >= SEV_WARNING) + (psi.sev >= SEV_WARNING);
    f->score = rank_score(sev, lead->excess, lead->cov, corr);
}

static void rule_disk_latency(struct report *r)
{
    /* the BPF p99 per device, when measured, is the better signal */
    if (rule_disk_latency_bio(r))
        return;
    const struct table *d = report_find_table(r, "disk");
    if (!d)
        return;
    double win = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    if (!(win > 0))
        win = 30;
    struct sig best = {.v = NAN, .cov = NAN};
    long row = -1;
    for (size_t i = 0; i < d->nrows; i++) {
        struct sig s = disk_await_sig(r, d, i);
        if (row < 0 || sig_worse(&s, &best)) {
            best = s;
            row = (long)i;
        }
    }
    if (row < 0 || best.sev < SEV_WARNING)
        return;
    size_t i = (size_t)row;
    double iops = num0(table_num(d, i, "r_per_s")) + num0(table_num(d, i, "w_per_s"));
    /* An average over a handful of I/Os is an anecdote, not a latency problem. */
    enum severity sev = iops * win < 10 ? SEV_INFO : best.sev;
    const char *dev = table_str(d, i, "device");
    const char *cls = table_str(d, i, "class");
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Disk %s slow: %.1f ms average I/O latency at %.0f I/O per s (%s disk: warning "
                "at %g ms, critical at %g ms)",
            dev ? dev : "?", best.v, iops, cls ? cls : "unknown", best.t->warn, best.t->crit);
    struct finding *f = add(r, "disk.latency", sev, "disk", &t);
    char lab[96];
    snprintf(lab, sizeof lab, "Average I/O latency (await, %s class)", cls ? cls : "unknown");
    sig_evidence(f, lab, &best);
    double ra = table_num(d, i, "r_await_ms"), wa = table_num(d, i, "w_await_ms");
    if (!isnan(ra) || !isnan(wa))
        finding_evidence(f, "Reads %.1f ms at %.0f/s, writes %.1f ms at %.0f/s", num0(ra),
                         num0(table_num(d, i, "r_per_s")), num0(wa), num0(table_num(d, i, "w_per_s")));
    double rq = table_num(d, i, "avg_rq_kib");
    if (!isnan(rq))
        finding_evidence(f, "Average request size %.0f KiB", rq);
    struct sig q = disk_sig(r, d, i, "disk.aqu_sz", "aqu_sz", "aqu_sz");
    sig_evidence(f, "Average queue depth", &q);
    if (sev == SEV_INFO)
        finding_evidence(f, "Only %.0f I/Os in the window: too few to call it a problem", iops * win);
    finding_set_recommendation(
        f, "Each I/O waits longer than this class of device should need. If the queue is deep, "
           "the disk is overloaded (see disk.saturation); if not, the device or its backend is "
           "slow or degraded: check smartctl / nvme smart-log, the RAID or hypervisor storage, "
           "and whether large synchronous writes (fsync) dominate.");
    if (dev)
        finding_set_culprit(f, dev);
    f->score = rank_score(sev, best.excess, best.cov, q.sev >= SEV_WARNING);
}

/* ---- network ---------------------------------------------------------------------- */

static void rule_net_drops(struct report *r)
{
    struct sig s = sig_metric(r, "net.drops_per_s", "net.drops_per_s", "net.drops_per_s");
    if (s.sev < SEV_WARNING)
        return;
    const struct table *ifs = report_find_table(r, "net.iface");
    long row = -1;
    double bd = 0;
    for (size_t i = 0; ifs && i < ifs->nrows; i++) {
        double dr = num0(table_num(ifs, i, "rx_drops_per_s")) + num0(table_num(ifs, i, "tx_drops_per_s"));
        if (dr > bd) {
            bd = dr;
            row = (long)i;
        }
    }
    const char *ifn = row >= 0 ? table_str(ifs, (size_t)row, "iface") : NULL;
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Packet drops: %.1f/s", s.v);
    if (ifn)
        sb_addf(&t, ", most on %s (rx %.1f/s, tx %.1f/s)", ifn,
                num0(table_num(ifs, (size_t)row, "rx_drops_per_s")),
                num0(table_num(ifs, (size_t)row, "tx_drops_per_s")));
    struct finding *f = add(r, "net.drops", s.sev, "network", &t);
    sig_evidence(f, "Packet drops, all interfaces", &s);
    for (size_t i = 0, shown = 0; ifs && i < ifs->nrows && shown < 4; i++) {
        double rx = num0(table_num(ifs, i, "rx_drops_per_s")), tx = num0(table_num(ifs, i, "tx_drops_per_s"));
        if (rx + tx <= 0)
            continue;
        const char *n = table_str(ifs, i, "iface");
        finding_evidence(f, "%s: rx drops %.1f/s, tx drops %.1f/s at %.0f packets/s in", n ? n : "?",
                         rx, tx, num0(table_num(ifs, i, "rx_pkts_per_s")));
        shown++;
    }
    double errs = report_metric_value(r, "net.errs_per_s");
    if (!isnan(errs) && errs > 0)
        finding_evidence(f, "Interface errors %.1f/s", errs);
    struct sig sirq = sig_metric(r, "cpu.softirq_pct", "cpu.softirq_pct", NULL);
    sig_evidence(f, "CPU time in soft interrupts", &sirq);
    finding_set_recommendation(
        f, "Receive drops usually mean the host cannot drain the NIC fast enough: check "
           "ethtool -S for ring overflows, grow the rings (ethtool -G), spread interrupts "
           "(RSS/RPS, irqbalance) and raise net.core.netdev_max_backlog. Transmit drops point at "
           "qdisc limits or a saturated link.");
    if (ifn)
        finding_set_culprit(f, ifn);
    f->score = rank_score(s.sev, s.excess, s.cov, sirq.sev >= SEV_WARNING);
}

long tcp_worst_conn(const struct report *r, const char *table, const char *col, char *buf,
                    size_t n)
{
    const struct table *t = report_find_table(r, table);
    long row = table_argmax(t, col);
    if (row < 0 || !(table_num(t, (size_t)row, col) > 0))
        return -1;
    const char *src = table_str(t, (size_t)row, "src"), *dst = table_str(t, (size_t)row, "dst");
    snprintf(buf, n, "%s -> %s", src ? src : "?", dst ? dst : "?");
    return row;
}

static void rule_net_tcp_retransmits(struct report *r)
{
    struct sig s = sig_metric(r, "tcp.retrans_pct", "tcp.retrans_pct", NULL);
    double segs = report_metric_value(r, "tcp.retrans_segs");
    /* One or two retransmits on an idle host make a big percentage of nothing. */
    bool by_proc = s.sev >= SEV_WARNING && !(!isnan(segs) && segs < 3);
    /* The tracepoint sees every network namespace; /proc/net/snmp only ours.
     * Without a /proc signal, judge the tracepoint's rate on its own. */
    struct sig bs = sig_metric(r, "tcp.retrans_per_s", "tcp.bpf_retransmits_per_s", NULL);
    char worst[160];
    long wrow = tcp_worst_conn(r, "tcp.retransmits", "retransmits", worst, sizeof worst);
    const struct table *wt = report_find_table(r, "tcp.retransmits");
    bool by_bpf = !by_proc && bs.sev >= SEV_WARNING && wrow >= 0;
    if (!by_proc && !by_bpf)
        return;
    double rate = report_metric_value(r, "tcp.retrans_segs_per_s");
    struct strbuf t = STRBUF_INIT;
    if (by_proc) {
        sb_addf(&t, "TCP retransmits: %.1f%% of segments sent", s.v);
        if (!isnan(segs))
            sb_addf(&t, " (%.0f retransmitted%s", segs, isnan(rate) ? ")" : ", ");
        if (!isnan(segs) && !isnan(rate))
            sb_addf(&t, "%.1f/s)", rate);
    } else {
        sb_addf(&t, "TCP retransmits: %.1f/s seen by the kernel tracepoint",
                bs.v);
    }
    if (wrow >= 0)
        sb_addf(&t, "; worst %s (%.0f retransmits)", worst,
                table_num(wt, (size_t)wrow, "retransmits"));
    struct finding *f = add(r, "net.tcp_retransmits", by_proc ? s.sev : bs.sev, "network", &t);
    sig_evidence(f, "Retransmitted share of TCP segments", &s);
    double out = report_metric_value(r, "tcp.out_segs_per_s");
    if (!isnan(out))
        finding_evidence(f, "TCP segments sent %.0f/s", out);
    sig_evidence(f, "Retransmits counted by the tcp_retransmit_skb tracepoint", &bs);
    if (by_bpf)
        finding_evidence(f, "This namespace's /proc/net/snmp counters do not show these "
                            "retransmits: they happen in another network namespace (a container "
                            "or netns); the tracepoint sees all of them");
    if (wrow >= 0) {
        const char *st = table_str(wt, (size_t)wrow, "state");
        finding_evidence(f, "Worst connection %s: %.0f retransmits (%.1f/s), socket state %s",
                         worst, table_num(wt, (size_t)wrow, "retransmits"),
                         table_num(wt, (size_t)wrow, "per_s"), st ? st : "?");
    }
    struct sig drops = sig_metric(r, "net.drops_per_s", "net.drops_per_s", NULL);
    sig_evidence(f, "Packet drops on this host", &drops);
    finding_set_recommendation(
        f, "Segments are being lost between this host and its peers (or the peer is too slow to "
           "answer). Check local drops first (net.drops), then the path to the worst peer "
           "above: ss -ti shows per-connection retransmits; look for congested links, bad "
           "NICs/cables, or firewall drops.");
    if (wrow >= 0)
        finding_set_culprit(f, worst);
    const struct sig *lead = by_proc ? &s : &bs;
    f->score = rank_score(lead->sev, lead->excess, NAN, drops.sev >= SEV_WARNING);
}

static void rule_net_listen_overflow(struct report *r)
{
    struct sig s = sig_metric(r, "tcp.listen_overflows", "tcp.listen_overflows", NULL);
    if (s.sev < SEV_WARNING)
        return;
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Listen queue overflowed %.0f time%s: a server did not accept() connections fast "
                "enough", s.v, plural(s.v));
    struct finding *f = add(r, "net.listen_overflow", s.sev, "network", &t);
    sig_evidence(f, "Listen queue overflows in the window", &s);
    double drops = report_metric_value(r, "tcp.listen_drops");
    if (!isnan(drops))
        finding_evidence(f, "Connection attempts dropped at listen sockets: %.0f", drops);
    finding_set_recommendation(
        f, "Find the listening socket with a full accept queue (ss -ltn: Recv-Q at or above "
           "Send-Q) and its process. Make it accept faster (more workers, no blocking work in "
           "the accept loop) and raise its listen() backlog together with "
           "net.core.somaxconn.");
    f->score = rank_score(s.sev, s.excess, NAN, 0);
}

static void rule_net_tcp_resets(struct report *r)
{
    struct sig s = sig_metric(r, "tcp.resets_per_s", "tcp.out_rsts_per_s", NULL);
    /* As for retransmits: the tracepoint covers other namespaces too. */
    struct sig bs = sig_metric(r, "tcp.resets_per_s", "tcp.bpf_resets_sent_per_s", NULL);
    bool by_bpf = s.sev < SEV_WARNING && bs.sev >= SEV_WARNING;
    if (s.sev < SEV_WARNING && !by_bpf)
        return;
    const struct sig *lead = by_bpf ? &bs : &s;
    char worst[160];
    long wrow = tcp_worst_conn(r, "tcp.resets", "count", worst, sizeof worst);
    const struct table *wt = report_find_table(r, "tcp.resets");
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "TCP resets: %.0f/s sent", lead->v);
    if (wrow >= 0) {
        const char *dir = table_str(wt, (size_t)wrow, "direction");
        sb_addf(&t, "; most on %s (%.0f %s)", worst, table_num(wt, (size_t)wrow, "count"),
                dir ? dir : "");
    }
    struct finding *f = add(r, "net.tcp_resets", lead->sev, "network", &t);
    sig_evidence(f, "TCP resets sent", &s);
    if (by_bpf)
        finding_evidence(f, "Counted by the tcp_send_reset tracepoint (%.0f/s); this "
                            "namespace's /proc counters do not show them (another network "
                            "namespace)", bs.v);
    double er = report_metric_value(r, "tcp.estab_resets"), af = report_metric_value(r, "tcp.attempt_fails");
    if (!isnan(er))
        finding_evidence(f, "Established connections reset in the window: %.0f", er);
    if (!isnan(af))
        finding_evidence(f, "Failed connection attempts in the window: %.0f", af);
    for (size_t i = 0, k = 0; wt && i < wt->nrows && k < 3; i++, k++)
        finding_evidence(f, "Resets %s on %s -> %s: %.0f", table_str(wt, i, "direction"),
                         table_str(wt, i, "src"), table_str(wt, i, "dst"),
                         table_num(wt, i, "count"));
    double outside = report_metric_value(r, "tcp.bpf_resets_outside");
    if (!isnan(outside) && outside > 0)
        finding_evidence(f, "%.0f more reset%s while perfreport started or finished (outside the "
                            "window, not in the rate; listed with their times in the resets "
                            "table)", outside, plural(outside));
    finding_set_recommendation(
        f, "Many resets mean connections to closed ports, aborted connections or a client "
           "retry storm. The connections above show which ports and peers; fix the client or "
           "the service that refuses them.");
    if (wrow >= 0)
        finding_set_culprit(f, worst);
    f->score = rank_score(lead->sev, lead->excess, NAN, 0);
}

/* ---- file descriptors ----------------------------------------------------------- */

static void rule_fd_exhaustion(struct report *r)
{
    const struct table *pf = report_find_table(r, "proc.fd");
    struct sig bp = {.v = NAN, .cov = NAN};
    long row = -1;
    for (size_t i = 0; pf && i < pf->nrows; i++) {
        struct sig s = sig_value(r, "fd.pct", table_num(pf, i, "fd_pct"), NULL);
        if (row < 0 || sig_worse(&s, &bp)) {
            bp = s;
            row = (long)i;
        }
    }
    struct sig sys = sig_metric(r, "fd.system_pct", "fd.system_pct", NULL);
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
        used = report_metric_value(r, "fd.system_used");
        max = report_metric_value(r, "fd.system_max");
    }
    if (!isnan(used) && !isnan(max))
        sb_addf(&t, " (%.0f of %.0f)", used, max);
    struct finding *f = add(r, "fd.exhaustion", sev, "fd", &t);
    if (row >= 0) {
        char l2[200];
        snprintf(l2, sizeof l2, "%s descriptors of its limit", lab);
        sig_evidence(f, l2, &bp);
        double g = table_num(pf, (size_t)row, "fd_growth");
        if (!isnan(g) && g != 0)
            finding_evidence(f, "%s changed by %+.0f descriptors during the window", lab, g);
    }
    sig_evidence(f, "System file handles of fs.file-max", &sys);
    finding_set_recommendation(
        f, "The next open()/socket()/accept() will fail with EMFILE/ENFILE. Check for a leak "
           "first (ls -l /proc/PID/fd | sort by target: many identical sockets or files), then "
           "raise the limit if the usage is legitimate (LimitNOFILE= in the unit, ulimit -n, "
           "fs.file-max).");
    if (proc_lead)
        finding_set_culprit(f, lab);
    const struct sig *lead = proc_lead ? &bp : &sys;
    f->score = rank_score(sev, lead->excess, NAN, bp.sev >= SEV_WARNING && sys.sev >= SEV_WARNING);
}

/* A rate extrapolated from a few seconds cannot tell a leak from one burst
 * of opens (a shell starting a pipeline, a pool filling up). */
#define FD_TREND_MIN_S 20.0

static void rule_fd_growth(struct report *r)
{
    const struct table *pf = report_find_table(r, "proc.fd");
    struct sig best = {.v = NAN, .cov = NAN};
    long row = -1;
    for (size_t i = 0; pf && i < pf->nrows; i++) {
        double g = table_num(pf, i, "fd_growth");
        if (!isnan(g) && g < 10)
            continue; /* a few descriptors in a short window is not a trend */
        struct sig s = sig_value(r, "fd.growth_per_min", table_num(pf, i, "fd_growth_per_min"), NULL);
        if (row < 0 || sig_worse(&s, &best)) {
            best = s;
            row = (long)i;
        }
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
    struct finding *f = add(r, "fd.growth", sev, "fd", &t);
    sig_evidence(f, "File descriptor growth", &best);
    if (!isnan(mins))
        finding_evidence(f, "At this rate the limit of %.0f is reached in about %.0f min%s", lim,
                         mins, mins < 60 && !short_win ? " (critical: within the hour)" : "");
    if (short_win)
        finding_evidence(f, "Only a %.0f s window: too short to tell a leak from a burst of "
                            "opens (a trend needs %.0f s; run with -d 30 or more)",
                         win, FD_TREND_MIN_S);
    finding_set_recommendation(
        f, "A steady rise over the whole window looks like a descriptor leak. List what the "
           "process holds (ls -l /proc/PID/fd, or lsof -p PID), find the kind that grows "
           "(sockets to one peer, one file, pipes) and the code path that opens it without "
           "closing. Restarting only buys time.");
    finding_set_culprit(f, lab);
    f->score = rank_score(sev, sev > best.sev ? 1 : best.excess, NAN, 0);
}

static const struct rule {
    const char *id;
    void (*fn)(struct report *r);
} rules[] = {
    {"cpu.saturation", rule_cpu_saturation},
    {"cpu.steal", rule_cpu_steal},
    {"cpu.softirq", rule_cpu_softirq},
    {"memory.pressure", rule_memory_pressure},
    {"memory.swap", rule_memory_swap},
    {"memory.oom", rule_memory_oom},
    {"cgroup.memory_limit", rule_cgroup_memory_limit},
    {"cgroup.cpu_throttled", rule_cgroup_cpu_throttled},
    {"disk.saturation", rule_disk_saturation},
    {"disk.latency", rule_disk_latency},
    {"net.drops", rule_net_drops},
    {"net.tcp_retransmits", rule_net_tcp_retransmits},
    {"net.listen_overflow", rule_net_listen_overflow},
    {"net.tcp_resets", rule_net_tcp_resets},
    {"fd.exhaustion", rule_fd_exhaustion},
    {"fd.growth", rule_fd_growth},
    {"sched.runqueue_latency", rule_sched_runqueue_latency},
    {"io.cache_misses", rule_io_cache_misses},
    {"io.fsync", rule_io_fsync},
    {"syscall.rate", rule_syscall_rate},
    {"syscall.errors", rule_syscall_errors},
    {"process.churn", rule_process_churn},
    {"cpu.hotspot", rule_cpu_hotspot},
    {"offcpu.*", rule_offcpu_wait},
    {"lock.contention", rule_lock_contention},
};

void rules_run(struct report *r)
{
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        rules[i].fn(r);
}
