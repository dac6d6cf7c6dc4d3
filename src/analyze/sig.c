/* Signals (a number judged against a threshold row), their evidence
 * sentences, and small number/table helpers shared by rules and USE. */
#include "analyze_internal.h"
#include "../util/fmtnum.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

struct sig sig_with(const struct report *r, const struct threshold *t, double v,
                    const char *series)
{
    struct sig s = {.t = t, .v = v, .cov = NAN};
    s.sev = thr_level(t, v);
    s.excess = thr_excess(t, v);
    const struct series *se = series && t ? report_find_series(r, series) : NULL;
    if (se) {
        /* the window's samples: a watch bundle's from before its trigger
         * are not what is judged */
        for (size_t i = report_window_first_tick(r); i < se->n; i++) {
            if (isnan(se->v[i]))
                continue;
            s.total++;
            if (thr_level(t, se->v[i]) >= SEV_WARNING)
                s.over++;
        }
        if (s.total)
            s.cov = (double)s.over / (double)s.total;
    }
    return s;
}

struct sig sig_value(const struct report *r, const char *thr_id, double v, const char *series)
{
    return sig_with(r, report_find_threshold(r, thr_id), v, series);
}

struct sig sig_metric(const struct report *r, const char *thr_id, const char *metric,
                      const char *series)
{
    return sig_value(r, thr_id, report_metric_value(r, metric), series);
}

bool sig_worse(const struct sig *a, const struct sig *b)
{
    if (a->sev != b->sev)
        return a->sev > b->sev;
    if (a->excess != b->excess)
        return a->excess > b->excess;
    /* Same level: the bigger problem is further on the bad side. */
    if (isnan(b->v))
        return !isnan(a->v);
    if (isnan(a->v) || !a->t)
        return false;
    return a->t->lower_is_worse ? a->v < b->v : a->v > b->v;
}

void fmt_val(char *buf, size_t n, double v, const char *unit) { fmt_quantity(buf, n, v, unit); }

void fmt_kib(char *buf, size_t n, double kib) { fmt_quantity(buf, n, kib, "KiB"); }

void sig_evidence(struct finding *f, const char *label, const struct sig *s)
{
    if (isnan(s->v) || !s->t)
        return;
    char v[64], w[64], c[64];
    fmt_val(v, sizeof v, s->v, s->t->unit);
    fmt_quantity(w, sizeof w, s->t->warn, s->t->unit);
    fmt_quantity(c, sizeof c, s->t->crit, s->t->unit);
    const char *cmp = s->t->lower_is_worse ? "≤" : "≥";
    struct strbuf sb = STRBUF_INIT;
    if (s->sev == SEV_CRITICAL)
        sb_addf(&sb, "%s %s %s %s (critical)", label, v, cmp, c);
    else if (s->sev == SEV_WARNING)
        sb_addf(&sb, "%s %s %s %s (warning; critical at %s)", label, v, cmp, w, c);
    else
        sb_addf(&sb, "%s %s (warning at %s)", label, v, w);
    if (s->total && s->over)
        sb_addf(&sb, "; at or past %s in %zu of %zu samples", w, s->over, s->total);
    finding_evidence(f, "%s", sb_str(&sb));
    sb_free(&sb);
}

long table_argmax(const struct table *t, const char *col)
{
    long best = -1;
    double bv = 0;
    if (!t)
        return -1;
    for (size_t i = 0; i < t->nrows; i++) {
        double v = table_num(t, i, col);
        if (isnan(v))
            continue;
        if (best < 0 || v > bv) {
            best = (long)i;
            bv = v;
        }
    }
    return best;
}

void proc_label(const struct table *t, size_t row, char *buf, size_t n)
{
    const char *comm = table_str(t, row, "comm");
    double pid = table_num(t, row, "pid");
    if (!isnan(pid))
        snprintf(buf, n, "%s (pid %.0f)", comm ? comm : "?", pid);
    else
        snprintf(buf, n, "%s", comm ? comm : "?");
}
