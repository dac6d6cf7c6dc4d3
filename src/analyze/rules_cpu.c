/* CPU findings: saturation, steal, soft interrupts, and a hot function in
 * the on-CPU profile (tables profile.top_self, metrics profile.samples). */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The on-CPU profile (tables profile.top_self, metrics profile.samples):
 * too few samples say nothing about a share, and a hot function must use
 * at least a tenth of one CPU to be a finding. */
#define HOTSPOT_MIN_SAMPLES 50
#define HOTSPOT_MIN_CPU 0.1
/* Saturation is judged over a window at least this long (seconds). */
#define CPU_MIN_WINDOW_S 2.0

static bool enough_samples(const struct report *r, double *n)
{
    *n = report_metric_value(r, NM_PROFILE_SAMPLES);
    return isfinite(*n) && *n >= HOTSPOT_MIN_SAMPLES;
}

/* "burn_leaf in burner (62% of 1200 on-CPU samples)" from profile.top_self
 * into buf; false when there is no profile or too few samples. */
static bool profile_top_function(const struct report *r, char *buf, size_t n)
{
    double samples;
    const struct table *t = report_find_table(r, NM_PROFILE_TOP_SELF);
    if (!t || t->nrows == 0 || !enough_samples(r, &samples))
        return false;
    const char *fn = table_str(t, 0, "function"), *proc = table_str(t, 0, "process");
    double pct = table_num(t, 0, "self_pct");
    if (!fn || !isfinite(pct))
        return false;
    snprintf(buf, n, "%s in %s (%.0f%% of %.0f on-CPU samples)", fn, proc && *proc ? proc : "?",
             pct, samples);
    return true;
}

/* The workload on the CPUs: the busiest command of the on-CPU profile (all
 * its processes together, so that a build's forty compilers read as one
 * workload), else the busiest process from /proc. */
struct workload {
    char label[160];  /* "cc1 (40 processes)" or "burner (pid 12)" */
    char what[200];   /* "command cc1: 40 processes at 140% of one CPU" */
    double cpu_pct;   /* % of one CPU */
    bool found;
};

/* targeted: the profile holds only the target's processes; /proc's table
 * holds the whole host's, so it cannot name the target's workload. */
static struct workload busiest_workload(const struct report *r, bool targeted)
{
    struct workload w = {.cpu_pct = NAN};
    const struct table *bc = report_find_table(r, NM_PROFILE_BY_COMMAND);
    double samples;
    if (bc && bc->nrows && enough_samples(r, &samples)) {
        const char *cmd = table_str(bc, 0, "command");
        double procs = table_num(bc, 0, "processes"), pid = table_num(bc, 0, "top_pid");
        w.cpu_pct = table_num(bc, 0, "cpu_pct");
        if (cmd && isfinite(w.cpu_pct)) {
            if (procs > 1) {
                snprintf(w.label, sizeof w.label, "%s (%.0f processes)", cmd, procs);
                snprintf(w.what, sizeof w.what, "command %s: %.0f processes at %.0f%% of one CPU",
                         cmd, procs, w.cpu_pct);
            } else {
                snprintf(w.label, sizeof w.label, "%s (pid %.0f)", cmd, pid);
                snprintf(w.what, sizeof w.what, "process %s at %.0f%% of one CPU", w.label,
                         w.cpu_pct);
            }
            w.found = true;
            return w;
        }
    }
    if (targeted)
        return w;
    const struct table *procs = report_find_table(r, NM_PROC_TOP_CPU);
    long top = top_proc(procs, "cpu_pct", w.label, sizeof w.label);
    if (top >= 0) {
        w.cpu_pct = table_num(procs, (size_t)top, "cpu_pct");
        snprintf(w.what, sizeof w.what, "process %s at %.0f%% of one CPU", w.label, w.cpu_pct);
        w.found = true;
    }
    return w;
}

void rule_cpu_saturation(struct report *r, const struct rule *self)
{
    struct sig util = sig_metric(r, "cpu.util_pct", NM_CPU_UTIL_PCT, NM_CPU_UTIL_PCT);
    struct sig runq = sig_metric(r, "cpu.runq_per_cpu", NM_CPU_RUNQ_PER_CPU, NM_CPU_RUNQ_PER_CPU);
    struct sig psi = sig_metric(r, "psi.some_pct", NM_PSI_CPU_SOME_PCT, NM_PSI_CPU_SOME_PCT);
    /* The run-queue gauge is /proc/stat's runnable count read at our own
     * ticks: it counts the tasks on a CPU with those waiting, and a pipeline
     * or timer-driven load wakes with the ticks.  With CPUs to spare it is
     * saturation only where what was measured of the waits agrees: PSI (the
     * share of time tasks waited for a CPU) and the run-queue latency p99.
     * A pipeline at 31-38 % busy read 1.0-1.2 per CPU, its sort's threads
     * briefly more than the CPUs; waits of a CPU elsewhere idle are
     * placement, and sched.runqueue_latency judges them by their length. */
    struct sig rql = sig_metric(r, "sched.runq_p99_us", NM_SCHED_RUNQ_P99_US, NULL);
    bool runq_unconfirmed = runq.sev >= SEV_WARNING && util.sev < SEV_WARNING &&
                            ((isfinite(psi.v) && psi.sev < SEV_WARNING) ||
                             (isfinite(rql.v) && rql.sev < SEV_WARNING));
    enum severity sev = sev_max(util.sev, runq_unconfirmed ? SEV_NONE : runq.sev);
    if (sev < SEV_WARNING)
        return;
    /* A window of a second or two (a short -- CMD) holds a reading or two,
     * taken while the command and perfreport start and finish: the CPUs
     * were busy then, which says nothing of the host.  Listed, not judged. */
    double win_s = report_window_s(r);
    bool too_short = win_s > 0 && win_s < CPU_MIN_WINDOW_S;
    if (too_short)
        sev = SEV_INFO;
    const struct sig *lead = sig_worse(&runq, &util) ? &runq : &util;
    int corr = (util.sev >= SEV_WARNING && runq.sev >= SEV_WARNING) + (psi.sev >= SEV_WARNING);

    double ncpu = report_metric_value(r, NM_CPU_COUNT);
    const struct table *procs = report_find_table(r, NM_PROC_TOP_CPU);
    /* With a target (-p, -- CMD) the profile holds only its processes: the
     * workload found there is the target's. */
    bool targeted = r->command || !isnan(report_metric_value(r, NM_THREADS_PID));
    struct workload w = busiest_workload(r, targeted);
    double hz = report_metric_value(r, NM_PROFILE_HZ), win = win_s;
    double all_samples = report_metric_value(r, NM_PROFILE_SAMPLES);
    double target_pct = targeted && hz > 0 && win > 0 && isfinite(all_samples)
                            ? all_samples / hz / win * 100.0
                            : NAN;

    struct strbuf t = STRBUF_INIT;
    sb_add(&t, sev == SEV_CRITICAL || runq.sev >= SEV_WARNING ? "CPU saturated" : "CPU busy");
    const char *sepr = ": ";
    if (!isnan(util.v)) {
        sb_addf(&t, "%s%.0f%% busy", sepr, util.v);
        if (!isnan(ncpu) && ncpu > 0)
            sb_addf(&t, " across %.0f CPU%s", ncpu, plural(ncpu));
        sepr = ", ";
    }
    /* plain words first: the headline is read by people who do not know
     * what a run queue is */
    if (!isnan(runq.v))
        sb_addf(&t, "%s%.1f tasks waiting per CPU", sepr, runq.v);
    if (isfinite(target_pct))
        sb_addf(&t, "; the %s used %.0f%% of one CPU%s%s%s",
                r->command ? "command's processes" : "target", target_pct, w.found ? " (" : "",
                w.found ? w.what : "", w.found ? ")" : "");
    else if (w.found)
        sb_addf(&t, "; busiest %s", w.what);
    struct finding *f = rule_add(r, self, sev, &t);

    if (too_short)
        finding_evidence(f, "Listed for information: the window lasted %.1f s, too short to "
                            "tell a saturated host from the command's own start", win_s);
    else if (runq_unconfirmed)
        finding_evidence(f, "The run queue alone is not counted: the CPUs had time to spare "
                            "and the measured waits were short");
    sig_evidence(f, "CPU utilisation", &util);
    sig_evidence(f, "Run queue", &runq);
    sig_evidence(f, "PSI cpu some (share of time tasks waited for a CPU)", &psi);
    if (psi.sev >= SEV_WARNING)
        finding_add_related(f, "psi");
    double usr = report_metric_value(r, NM_CPU_USER_PCT), sys = report_metric_value(r, NM_CPU_SYSTEM_PCT);
    double iow = report_metric_value(r, NM_CPU_IOWAIT_PCT), st = report_metric_value(r, NM_CPU_STEAL_PCT);
    if (!isnan(usr) && !isnan(sys))
        finding_evidence(f, "Busy time split: user %.1f%%, system %.1f%% (iowait %.1f%% and steal "
                         "%.1f%% are not counted as busy)", usr, sys, num0(iow), num0(st));
    const struct table *bc = report_find_table(r, NM_PROFILE_BY_COMMAND);
    if (bc && bc->nrows) {
        struct strbuf e = STRBUF_INIT;
        for (size_t i = 0; i < bc->nrows && i < 5; i++) {
            double n = table_num(bc, i, "processes");
            sb_addf(&e, "%s%s %.0f%%", i ? ", " : "", table_str(bc, i, "command"),
                    table_num(bc, i, "cpu_pct"));
            if (n > 1)
                sb_addf(&e, " (%.0f processes)", n);
        }
        finding_evidence(f, "%s by command, from the CPU profile (%% of one CPU; processes that "
                            "came and went included): %s",
                         targeted ? "The target's CPU" : "CPU", sb_str(&e));
        sb_free(&e);
    }
    evidence_top_procs(f, procs, targeted ? "CPU on the whole host (% of one CPU)"
                                          : "CPU (% of one CPU)",
                       "cpu_pct", false);
    char hot[400];
    if (profile_top_function(r, hot, sizeof hot))
        finding_evidence(f, "On-CPU profile: the hottest function is %s", hot);
    /* a target that used little of the busy CPUs is not their culprit */
    double busy = isfinite(util.v) && ncpu > 0 ? util.v * ncpu : NAN;
    if (isfinite(target_pct) && isfinite(busy) && target_pct < busy / 2) {
        char other[160];
        if (top_proc(procs, "cpu_pct", other, sizeof other) >= 0) {
            finding_evidence(f, "The %s used %.0f%% of the %.0f%% busy CPU: the load is mostly "
                                "elsewhere (busiest on the host: %s)",
                             r->command ? "command" : "target", target_pct, busy, other);
            finding_set_culprit(f, other);
        }
    } else if (w.found) {
        finding_set_culprit(f, w.label);
    }
    f->score = rank_score(sev, lead->excess, lead->cov, corr);
}

void rule_cpu_steal(struct report *r, const struct rule *self)
{
    struct sig s = sig_metric(r, "cpu.steal_pct", NM_CPU_STEAL_PCT, NM_CPU_STEAL_PCT);
    if (s.sev < SEV_WARNING)
        return;
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "CPU steal: the hypervisor gave %.0f%% of this VM's CPU time to other guests",
            s.v);
    struct finding *f = rule_add(r, self, s.sev, &t);
    sig_evidence(f, "CPU steal", &s);
    double util = report_metric_value(r, NM_CPU_UTIL_PCT);
    if (!isnan(util))
        finding_evidence(f, "Guest CPU busy %.1f%% while waiting for the host", util);
    finding_set_culprit(f, "hypervisor");
    f->score = rank_score(s.sev, s.excess, s.cov, 0);
}

void rule_cpu_softirq(struct report *r, const struct rule *self)
{
    struct sig s = sig_metric(r, "cpu.softirq_pct", NM_CPU_SOFTIRQ_PCT, NM_CPU_SOFTIRQ_PCT);
    if (s.sev < SEV_WARNING)
        return;
    struct sig drops = sig_metric(r, "net.drops_per_s", NM_NET_DROPS_PER_S, NULL);
    const struct table *pc = report_find_table(r, NM_CPU_PER_CPU);
    long hot = table_argmax(pc, "softirq_pct");
    const char *cpu = hot >= 0 ? table_str(pc, (size_t)hot, "cpu") : NULL;

    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Soft interrupts take %.0f%% of CPU time", s.v);
    if (cpu)
        sb_addf(&t, " (busiest %s at %.0f%%)", cpu, table_num(pc, (size_t)hot, "softirq_pct"));
    struct finding *f = rule_add(r, self, s.sev, &t);
    sig_evidence(f, "Soft-interrupt share of CPU time", &s);
    const struct table *ifs = report_find_table(r, NM_NET_IFACE);
    if (ifs) {
        double pk = 0;
        for (size_t i = 0; i < ifs->nrows; i++)
            pk += num0(table_num(ifs, i, "rx_pkts_per_s")) + num0(table_num(ifs, i, "tx_pkts_per_s"));
        finding_evidence(f, "Network packet rate %.0f/s (rx + tx, all interfaces)", pk);
    }
    sig_evidence(f, "Packet drops", &drops);
    if (cpu)
        finding_set_culprit(f, cpu);
    f->score = rank_score(s.sev, s.excess, s.cov, drops.sev >= SEV_WARNING);
}


void rule_cpu_hotspot(struct report *r, const struct rule *self)
{
    double samples;
    const struct table *t = report_find_table(r, NM_PROFILE_TOP_SELF);
    if (!t || t->nrows == 0 || !enough_samples(r, &samples))
        return;
    struct sig s = sig_value(r, "profile.hotspot_pct", table_num(t, 0, "self_pct"), NULL);
    if (s.sev < SEV_WARNING)
        return;
    /* On a nearly idle host a share of the few busy samples means nothing:
     * the function must also have used a tenth of one CPU. */
    double hz = report_metric_value(r, NM_PROFILE_HZ);
    double secs = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    double cpu_frac = isfinite(hz) && hz > 0 && secs > 0 ? table_num(t, 0, "samples") / (hz * secs)
                                                         : NAN;
    if (isfinite(cpu_frac) && cpu_frac < HOTSPOT_MIN_CPU)
        return;
    const char *fn = table_str(t, 0, "function"), *proc = table_str(t, 0, "process");
    const char *mod = table_str(t, 0, "module");
    if (!proc || !*proc)
        proc = "?";
    /* A hot function on a CPU with room to spare is a lead for optimisation,
     * not an incident: informational then, and when the CPU is saturated
     * no worse than the saturation it explains (and ranked below it). */
    const struct finding *sat = report_find_finding(r, "cpu.saturation");
    enum severity cap = sat && sat->sev >= SEV_WARNING ? sat->sev : SEV_INFO;
    bool capped = s.sev > cap;
    enum severity sev = capped ? cap : s.sev;
    struct strbuf title = STRBUF_INIT;
    sb_addf(&title, "CPU hotspot: %s in %s takes %.0f%% of on-CPU samples", fn ? fn : "?", proc,
            s.v);
    struct finding *f = rule_add(r, self, sev, &title);
    sig_evidence(f, "Self share of the hottest function", &s);
    finding_evidence(f, "%s (%s) ended %.0f of %.0f non-idle samples; process %s spent the most "
                        "samples there",
                     fn ? fn : "?", mod && *mod ? mod : "module unknown",
                     table_num(t, 0, "samples"), samples, proc);
    if (isfinite(cpu_frac))
        finding_evidence(f, "That is %.0f%% of one CPU over the window", cpu_frac * 100);
    if (capped && cap == SEV_INFO)
        finding_evidence(f, "Informational: the CPU as a whole is not saturated, so this is a "
                            "lead for optimisation, not a shortage");
    else if (capped)
        finding_evidence(f, "Kept at the CPU saturation's severity, which it explains");
    if (t->nrows > 1 && table_str(t, 1, "function"))
        finding_evidence(f, "Next: %s at %.1f%%", table_str(t, 1, "function"),
                         table_num(t, 1, "self_pct"));
    finding_set_culprit(f, proc);
    /* Ranked like other CPU findings; cpu.saturation, when present, usually
     * leads and this names its cause. */
    f->score = rank_score(sev, s.excess, NAN, 0);
}
