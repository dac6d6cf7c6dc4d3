/* Allocation findings (collector alloc, -p only): a possible leak and a high
 * allocation rate.  Both judge what the uprobes saw while attached. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The top site of an allocation table: "leak_some in allocator (pid 12)",
 * and the culprit part after " in " (empty when the table has no row). */
struct top_site {
    char label[300];
    const char *culprit;
};

static void top_site(const struct table *t, struct top_site *s)
{
    const char *fn = t && t->nrows ? table_str(t, 0, "function") : NULL;
    const char *proc = t && t->nrows ? table_str(t, 0, "process") : NULL;
    double pid = t && t->nrows ? table_num(t, 0, "pid") : NAN;
    s->label[0] = '\0';
    s->culprit = s->label;
    if (!fn || !proc || isnan(pid))
        return;
    int at = snprintf(s->label, sizeof s->label, "%s in ", fn);
    snprintf(s->label + at, sizeof s->label - (size_t)at, "%s (pid %.0f)", proc, pid);
    s->culprit = s->label + at;
}

void rule_alloc_leak(struct report *r, const struct rule *self)
{
    double rise = report_metric_value(r, NM_ALLOC_NOT_FREED_RISE_PCT);
    const struct threshold *steady = report_find_threshold(r, NM_ALLOC_NOT_FREED_RISE_PCT);
    double need = steady ? steady->warn : 70;
    struct sig g = sig_metric(r, "alloc.not_freed_growth_kib_per_s", NM_ALLOC_NOT_FREED_GROWTH,
                              NULL);
    if (g.sev < SEV_WARNING || isnan(rise) || rise < need)
        return;
    const struct table *nf = report_find_table(r, NM_ALLOC_NOT_FREED);
    struct top_site site;
    top_site(nf, &site);
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Possible memory leak: allocated and not freed memory grew %.0f KiB/s", g.v);
    if (site.label[0])
        sb_addf(&t, ", most of it from %s", site.label);
    struct finding *f = rule_add(r, self, g.sev, &t);
    sig_evidence(f, "Growth of the bytes allocated in the window and not freed", &g);
    finding_evidence(f, "They rose in %.0f%% of the intervals (a leak rises steadily; %.0f%% "
                        "needed)", rise, need);
    double nb = report_metric_value(r, NM_ALLOC_NOT_FREED_BYTES);
    if (!isnan(nb) && nf && nf->nrows) {
        double b0 = table_num(nf, 0, "bytes"), c0 = table_num(nf, 0, "calls");
        finding_evidence(f, "Not freed at the end: %.0f KiB; the top site %.0f KiB in %.0f "
                            "allocations (%s)", nb / 1024, b0 / 1024, c0,
                         table_str(nf, 0, "stack") ? table_str(nf, 0, "stack") : "-");
    }
    if (site.label[0])
        finding_set_culprit(f, site.culprit);
    f->score = rank_score(g.sev, g.excess, NAN, 0);
}

void rule_alloc_rate(struct report *r, const struct rule *self)
{
    struct sig s = sig_metric(r, "alloc.calls_per_s", NM_ALLOC_CALLS_PER_S, NM_ALLOC_CALLS_PER_S);
    if (s.sev < SEV_WARNING)
        return;
    const struct table *t = report_find_table(r, NM_ALLOC_TOP_CALLS);
    struct top_site site;
    top_site(t, &site);
    struct strbuf title = STRBUF_INIT;
    sb_addf(&title, "High allocation rate: %.0f malloc/free-family calls per second", s.v);
    if (site.label[0])
        sb_addf(&title, ", most from %s", site.label);
    struct finding *f = rule_add(r, self, s.sev, &title);
    sig_evidence(f, "Allocation calls (while traced)", &s);
    double est = report_metric_value(r, NM_ALLOC_EST_SLOWDOWN_PCT);
    if (!isnan(est))
        finding_evidence(f, "Tracing them cost the target an estimated %.1f%% of its CPU%s", est,
                         report_metric_value(r, NM_ALLOC_DETACHED) > 0
                             ? "; the probes detached themselves early (over 5%)"
                             : "");
    if (site.label[0])
        finding_set_culprit(f, site.culprit);
    f->score = rank_score(s.sev, s.excess, s.cov, 0);
}
