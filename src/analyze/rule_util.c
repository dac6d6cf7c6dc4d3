/* What the rules share: adding a finding from its rules[] row, picking top
 * rows, plurals and the window's time words. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

enum severity sev_max(enum severity a, enum severity b) { return a > b ? a : b; }

double num0(double v) { return isnan(v) ? 0 : v; }

const char *plural(double n) { return n == 1 ? "" : "s"; }

/* Indices of up to k rows with the largest `col`, largest first; rows
 * without a value are skipped. */
size_t top_rows(const struct table *t, const char *col, size_t *idx, size_t k)
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

struct finding *rule_finding(struct report *r, const struct rule *self, const char *id,
                             enum severity sev, const char *title)
{
    struct finding *f = report_add_finding(r, id ? id : self->id, sev, self->resource, title);
    if (self->recommendation)
        finding_set_recommendation(f, self->recommendation);
    return f;
}

struct finding *rule_add(struct report *r, const struct rule *self, enum severity sev,
                         struct strbuf *title)
{
    struct finding *f = rule_finding(r, self, NULL, sev, sb_str(title));
    sb_free(title);
    return f;
}

void sig_keep_worst(struct sig *best, long *row, const struct sig *s, size_t i)
{
    if (*row < 0 || sig_worse(s, best)) {
        *best = *s;
        *row = (long)i;
    }
}

long top_proc(const struct table *t, const char *col, char *label, size_t n)
{
    long top = table_argmax(t, col);
    if (n)
        label[0] = '\0';
    if (top >= 0)
        proc_label(t, (size_t)top, label, n);
    return top;
}

int count_past(int n, const struct sig *const *s)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += s[i]->sev >= SEV_WARNING;
    return c;
}

/* "Top processes by CPU: a (pid 1) 99%, b (pid 2) 40%" */
void evidence_top_procs(struct finding *f, const struct table *t, const char *what,
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

bool cgroup_path_within(const char *p, const char *anc)
{
    size_t l = strlen(anc);
    if (strcmp(anc, "/") == 0)
        return p[0] == '/';
    return strncmp(p, anc, l) == 0 && (p[l] == '/' || p[l] == '\0');
}

bool memory_short(const struct report *r)
{
    double pmin = report_metric_value(r, NM_MEM_AVAILABLE_PCT_MIN);
    double pct = isfinite(pmin) ? pmin : report_metric_value(r, NM_MEM_AVAILABLE_PCT);
    struct sig avail = sig_value(r, "mem.available_pct", pct, NULL);
    struct sig psi = sig_metric(r, "psi.some_pct", NM_PSI_MEMORY_SOME_PCT, NULL);
    return avail.sev >= SEV_WARNING || psi.sev >= SEV_WARNING;
}

double host_available_kib(const struct report *r)
{
    double pmin = report_metric_value(r, NM_MEM_AVAILABLE_PCT_MIN);
    double tot = report_metric_value(r, NM_MEM_TOTAL_KIB);
    if (!isnan(pmin) && !isnan(tot))
        return pmin / 100.0 * tot;
    return report_metric_value(r, NM_MEM_AVAILABLE_KIB);
}

bool dstate_frozen(const struct table *t, size_t row)
{
    return table_num(t, row, "frozen") > 0;
}
