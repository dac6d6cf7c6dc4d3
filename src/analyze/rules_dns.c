/* DNS findings: the process whose lookups through the C library take
 * longest (collector dns). */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Row of dns.names with the largest max_ms among pid's rows, or -1. */
static long slowest_name(const struct table *t, double pid)
{
    long best = -1;
    for (size_t i = 0; t && i < t->nrows; i++) {
        if (table_num(t, i, "pid") != pid || !table_str(t, i, "name"))
            continue;
        if (best < 0 || table_num(t, i, "max_ms") > table_num(t, (size_t)best, "max_ms"))
            best = (long)i;
    }
    return best;
}

void rule_dns_latency(struct report *r, const struct rule *self)
{
    const struct table *pt = report_find_table(r, NM_DNS_PROCS);
    struct sig worst = {0};
    long row = -1;
    for (size_t i = 0; pt && i < pt->nrows; i++) {
        struct sig s = sig_value(r, "dns.latency_ms", table_num(pt, i, "p99_ms"), NULL);
        if (s.sev >= SEV_WARNING)
            sig_keep_worst(&worst, &row, &s, i);
    }
    if (row < 0)
        return;
    size_t pr = (size_t)row;
    char who[96];
    proc_label(pt, pr, who, sizeof who);
    double pid = table_num(pt, pr, "pid"), lookups = table_num(pt, pr, "lookups");
    const struct table *nt = report_find_table(r, NM_DNS_NAMES);
    long nrow = slowest_name(nt, pid);
    const char *name = nrow >= 0 ? table_str(nt, (size_t)nrow, "name") : NULL;

    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "DNS lookups of %s take %.0f ms at p99 (%.0f lookup%s)", who, worst.v, lookups,
            plural(lookups));
    if (name)
        sb_addf(&t, "; slowest name %s: %.0f ms", name, table_num(nt, (size_t)nrow, "max_ms"));
    struct finding *f = rule_add(r, self, worst.sev, &t);
    char label[160];
    snprintf(label, sizeof label, "p99 lookup time of %s", who);
    sig_evidence(f, label, &worst);
    finding_evidence(f, "%s: p50 %.1f ms, max %.1f ms; %s", who, table_num(pt, pr, "p50_ms"),
                     table_num(pt, pr, "max_ms"),
                     table_str(pt, pr, "functions") ? table_str(pt, pr, "functions") : "");
    size_t shown = 0;
    for (size_t i = 0; nt && i < nt->nrows && shown < 3; i++) {
        const char *n = table_str(nt, i, "name");
        if (table_num(nt, i, "pid") != pid || !n)
            continue;
        finding_evidence(f, "Name %s: %.0f lookup%s, average %.1f ms, max %.1f ms, %.0f failed", n,
                         table_num(nt, i, "lookups"), plural(table_num(nt, i, "lookups")),
                         table_num(nt, i, "avg_ms"), table_num(nt, i, "max_ms"),
                         num0(table_num(nt, i, "failed")));
        shown++;
    }
    const struct table *ft = report_find_table(r, NM_DNS_FAILURES);
    double failed = num0(table_num(pt, pr, "failed"));
    if (failed > 0) {
        struct strbuf e = STRBUF_INIT;
        sb_addf(&e, "%.0f of %.0f lookups failed", failed, lookups);
        const char *sep = ": ";
        for (size_t i = 0; ft && i < ft->nrows; i++) {
            if (table_num(ft, i, "pid") != pid)
                continue;
            const char *code = table_str(ft, i, "code"), *fn = table_str(ft, i, "function");
            sb_addf(&e, "%s%s %s %.0f", sep, fn ? fn : "?", code ? code : "?",
                    table_num(ft, i, "count"));
            sep = ", ";
        }
        finding_evidence(f, "%s", sb_str(&e));
        sb_free(&e);
    }
    finding_evidence(f, "Only lookups through the C library are seen: statically linked and Go "
                        "programs resolve on their own");
    finding_set_culprit(f, who);
    f->score = rank_score(worst.sev, worst.excess, NAN, failed > 0);
}
