/* Findings from the on-CPU profile (tables profile.top_self, metrics
 * profile.samples): one function owning a large share of the CPU. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>

static bool enough_samples(const struct report *r, double *n)
{
    *n = report_metric_value(r, "profile.samples");
    return isfinite(*n) && *n >= HOTSPOT_MIN_SAMPLES;
}

bool profile_top_function(const struct report *r, char *buf, size_t n)
{
    double samples;
    const struct table *t = report_find_table(r, "profile.top_self");
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

void rule_cpu_hotspot(struct report *r)
{
    double samples;
    const struct table *t = report_find_table(r, "profile.top_self");
    if (!t || t->nrows == 0 || !enough_samples(r, &samples))
        return;
    struct sig s = sig_value(r, "profile.hotspot_pct", table_num(t, 0, "self_pct"), NULL);
    if (s.sev < SEV_WARNING)
        return;
    /* On a nearly idle host a share of the few busy samples means nothing:
     * the function must also have used a tenth of one CPU. */
    double hz = report_metric_value(r, "profile.hz");
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
     * not an incident: critical only when the CPU is saturated too (and then
     * it ranks below cpu.saturation, which it explains). */
    const struct finding *sat = report_find_finding(r, "cpu.saturation");
    bool capped = s.sev == SEV_CRITICAL && (!sat || sat->sev < SEV_CRITICAL);
    if (capped)
        s.sev = SEV_WARNING;
    struct strbuf title = STRBUF_INIT;
    sb_addf(&title, "CPU hotspot: %s in %s takes %.0f%% of on-CPU samples", fn ? fn : "?", proc,
            s.v);
    struct finding *f = report_add_finding(r, "cpu.hotspot", s.sev, "cpu", sb_str(&title));
    sb_free(&title);
    sig_evidence(f, "Self share of the hottest function", &s);
    finding_evidence(f, "%s (%s) ended %.0f of %.0f non-idle samples; process %s spent the most "
                        "samples there",
                     fn ? fn : "?", mod && *mod ? mod : "module unknown",
                     table_num(t, 0, "samples"), samples, proc);
    if (isfinite(cpu_frac))
        finding_evidence(f, "That is %.0f%% of one CPU over the window", cpu_frac * 100);
    if (capped)
        finding_evidence(f, "Kept at warning: the CPU as a whole is not saturated");
    if (t->nrows > 1 && table_str(t, 1, "function"))
        finding_evidence(f, "Next: %s at %.1f%%", table_str(t, 1, "function"),
                         table_num(t, 1, "self_pct"));
    finding_set_recommendation(
        f, "One function dominates the CPU: a hot loop. Open the CPU flame graph, follow the "
           "widest tower to the callers of this function and reduce how often it runs or how "
           "much work each call does (algorithm, caching, batching).");
    finding_set_culprit(f, proc);
    /* Ranked like other CPU findings; cpu.saturation, when present, usually
     * leads and this names its cause. */
    f->score = rank_score(s.sev, s.excess, NAN, 0);
}
