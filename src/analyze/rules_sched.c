/* sched.runqueue_latency: how long runnable tasks wait for a CPU (BPF
 * runqlat histogram), naming the processes that waited most. */
#include "analyze_internal.h"
#include "../util/fmtnum.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>

/* Fewer waits than this make a p99 an anecdote (one slow wakeup). */
#define RUNQ_MIN_WAITS 100
/* Nor is a p99 made by fewer waits past the warning line than this: with a
 * few hundred waits in a quiet window, p99 is the second-longest one. */
#define RUNQ_MIN_SLOW 5
/* Nor when the process that waited longest lost less than this share of
 * the window (%) to it. */
#define RUNQ_MIN_LOST_PCT 1.0

void rule_sched_runqueue_latency(struct report *r, const struct rule *self)
{
    const struct hist *h = report_find_hist(r, NM_RUNQLAT);
    if (!h || h->count == 0)
        return;
    double p99 = hist_percentile(h, 0.99);
    struct sig s = sig_value(r, "sched.runq_p99_us", p99, NULL);
    if (s.sev < SEV_WARNING)
        return;
    double slow = s.t ? hist_count_above(h, s.t->warn) : NAN;
    bool few_slow = !isnan(slow) && slow < RUNQ_MIN_SLOW;
    enum severity sev = h->count < RUNQ_MIN_WAITS || few_slow ? SEV_INFO : s.sev;
    const struct table *t = report_find_table(r, NM_SCHED_RUNQ_WAIT);
    /* What the waits cost: the share of the window lost by the process that
     * waited longest (rows longest first).  A CPU hog's neighbours wait a
     * slice behind it now and then (rcu_preempt: 54 ms in 30 s behind an ls
     * walk); that is a long tail, not work held up. */
    double win = report_window_s(r);
    double lost_pct = t && t->nrows && win > 0 ? table_num(t, 0, "total_ms") / 10.0 / win : NAN;
    bool cheap = isfinite(lost_pct) && lost_pct < RUNQ_MIN_LOST_PCT;
    if (cheap)
        sev = SEV_INFO;
    char who[512] = "";
    if (t && t->nrows > 0) {
        char lab[128];
        proc_label(t, 0, lab, sizeof lab);
        char tot[64];
        fmt_quantity(tot, sizeof tot, table_num(t, 0, "total_ms"), "ms");
        snprintf(who, sizeof who, "; %s waited longest (%s summed over its threads)", lab, tot);
    }
    struct strbuf tt = STRBUF_INIT;
    char p99s[64];
    fmt_quantity(p99s, sizeof p99s, p99, "us");
    sb_addf(&tt, "Run-queue latency high: p99 %s from wakeup to running%s", p99s, who);
    struct finding *f = rule_add(r, self, sev, &tt);
    sig_evidence(f, "Run-queue latency p99", &s);
    char p50s[64], p90s[64], maxs[64];
    fmt_quantity(p50s, sizeof p50s, hist_percentile(h, 0.5), "us");
    fmt_quantity(p90s, sizeof p90s, hist_percentile(h, 0.9), "us");
    fmt_quantity(maxs, sizeof maxs, h->max, "us");
    finding_evidence(f, "p50 %s, p90 %s, max %s over %llu waits", p50s, p90s, maxs,
                     (unsigned long long)h->count);
    for (size_t i = 0; t && i < t->nrows && i < 3; i++) {
        char lab[128], tot[64], avg[64], mx[64];
        proc_label(t, i, lab, sizeof lab);
        fmt_quantity(tot, sizeof tot, table_num(t, i, "total_ms"), "ms");
        fmt_quantity(avg, sizeof avg, table_num(t, i, "avg_us"), "us");
        fmt_quantity(mx, sizeof mx, table_num(t, i, "max_us"), "us");
        finding_evidence(f, "%s waited %s summed over its threads, in %.0f waits (avg %s, max %s)",
                         lab, tot, table_num(t, i, "waits"), avg, mx);
    }
    double behind_self = report_metric_value(r, NM_SCHED_RUNQ_BEHIND_SELF);
    if (!isnan(behind_self) && behind_self > 0) /* the reader may wonder whether we caused it */
        finding_evidence(f, "Not counted: %.0f waits that ended behind perfreport's own threads",
                         behind_self);
    int corr = 0;
    struct sig rq = sig_metric(r, "cpu.runq_per_cpu", NM_CPU_RUNQ_PER_CPU, NM_CPU_RUNQ_PER_CPU);
    if (!isnan(rq.v)) {
        sig_evidence(f, "Corroborated by the run queue per CPU", &rq);
        corr += rq.sev >= SEV_WARNING;
    }
    if (cheap)
        finding_evidence(f, "Listed for information: the process that waited longest lost "
                            "%.2f%% of the window to it (a warning needs %.0f%%)",
                         lost_pct, RUNQ_MIN_LOST_PCT);
    if (h->count < RUNQ_MIN_WAITS)
        finding_evidence(f, "Only %llu waits in the window: too few to call it a problem",
                         (unsigned long long)h->count);
    else if (few_slow)
        finding_evidence(f, "Only about %.0f waits reached %.0f us: a few slow wakeups, not a "
                            "queue (a warning needs %d)",
                         floor(slow), s.t->warn, RUNQ_MIN_SLOW);
    if (t && t->nrows > 0) {
        char lab[128];
        proc_label(t, 0, lab, sizeof lab);
        finding_set_culprit(f, lab);
    }
    f->score = rank_score(sev, s.excess, NAN, corr);
}
