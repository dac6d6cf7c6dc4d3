/* sched.runqueue_latency: how long runnable tasks wait for a CPU (BPF
 * runqlat histogram), naming the processes that waited most. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>

/* Fewer waits than this make a p99 an anecdote (one slow wakeup). */
#define RUNQ_MIN_WAITS 100
/* Nor is a p99 made by fewer waits past the warning line than this: with a
 * few hundred waits in a quiet window, p99 is the second-longest one. */
#define RUNQ_MIN_SLOW 5

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
    char who[512] = "";
    if (t && t->nrows > 0) {
        char lab[128];
        proc_label(t, 0, lab, sizeof lab);
        snprintf(who, sizeof who, "; %s waited longest (%.0f ms in total)", lab,
                 table_num(t, 0, "total_ms"));
    }
    struct strbuf tt = STRBUF_INIT;
    sb_addf(&tt, "Run-queue latency high: p99 %.1f ms from wakeup to running%s", p99 / 1000.0,
            who);
    struct finding *f = rule_add(r, self, sev, &tt);
    sig_evidence(f, "Run-queue latency p99", &s);
    finding_evidence(f, "p50 %.0f us, p90 %.0f us, max %.1f ms over %llu waits",
                     hist_percentile(h, 0.5), hist_percentile(h, 0.9),
                     isfinite(h->max) ? h->max / 1000.0 : NAN, (unsigned long long)h->count);
    for (size_t i = 0; t && i < t->nrows && i < 3; i++) {
        char lab[128];
        proc_label(t, i, lab, sizeof lab);
        finding_evidence(f, "%s waited %.1f ms in total over %.0f waits (avg %.0f us, max %.1f ms)",
                         lab, table_num(t, i, "total_ms"), table_num(t, i, "waits"),
                         table_num(t, i, "avg_us"), table_num(t, i, "max_us") / 1000.0);
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
