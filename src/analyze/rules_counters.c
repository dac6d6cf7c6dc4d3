/* CPU findings from the hardware counters (metrics hw.*): a low IPC with a
 * high cache-miss ratio (memory-bound) and a high branch-miss ratio. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>

/* Ratios over a few idle cycles are noise: an idle host halts its CPUs and
 * counts little.  1e9 cycles is half a CPU-second at 2 GHz. */
#define HW_MIN_CYCLES 1e9

static bool enough_cycles(const struct report *r, double *cycles)
{
    *cycles = report_metric_value(r, NM_HW_CYCLES);
    return isfinite(*cycles) && *cycles >= HW_MIN_CYCLES;
}

void rule_cpu_ipc_memory_bound(struct report *r, const struct rule *self)
{
    double cycles;
    if (!enough_cycles(r, &cycles))
        return;
    struct sig ipc = sig_metric(r, "hw.ipc", NM_HW_IPC, NULL);
    struct sig miss = sig_metric(r, "hw.cache_miss_pct", NM_HW_CACHE_MISS_PCT, NULL);
    /* A low IPC alone can be a frontend or dependency stall; only with the
     * misses does it point at memory.  The IPC says how bad it is. */
    if (ipc.sev < SEV_WARNING || miss.sev < SEV_WARNING)
        return;
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Memory-bound CPU work: %.2f instructions per cycle with %.0f%% of cache "
                "references missing",
            ipc.v, miss.v);
    struct finding *f = rule_add(r, self, ipc.sev, &t);
    sig_evidence(f, "Instructions per cycle", &ipc);
    sig_evidence(f, "Cache misses", &miss);
    finding_evidence(f, "%.3g cycles counted on all CPUs (judged from %.3g)", cycles,
                     HW_MIN_CYCLES);
    f->score = rank_score(ipc.sev, ipc.excess, NAN, 1);
}

void rule_cpu_branch_misses(struct report *r, const struct rule *self)
{
    double cycles;
    if (!enough_cycles(r, &cycles))
        return;
    struct sig s = sig_metric(r, "hw.branch_miss_pct", NM_HW_BRANCH_MISS_PCT, NULL);
    if (s.sev < SEV_WARNING)
        return;
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Branch mispredictions: %.1f%% of branches missed", s.v);
    struct finding *f = rule_add(r, self, s.sev, &t);
    sig_evidence(f, "Branch misses", &s);
    double ipc = report_metric_value(r, NM_HW_IPC);
    if (!isnan(ipc))
        finding_evidence(f, "Instructions per cycle %.2f", ipc);
    finding_evidence(f, "%.3g cycles counted on all CPUs (judged from %.3g)", cycles,
                     HW_MIN_CYCLES);
    f->score = rank_score(s.sev, s.excess, NAN, 0);
}
