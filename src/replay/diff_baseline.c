/* --baseline: see baseline.h. */
#include "diff_baseline.h"
#include "diff_compare.h"
#include "../analyze/analyze.h"
#include "../model/names.h"
#include "../codec/report_json.h"
#include "../util/fmtnum.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASELINE_MAX_METRIC_ROWS 12 /* the clear changes; the rest is in diff */

/* "web1, 2026-11-26 02:00 UTC" */
static void when_where(const struct report *base, char *out, size_t n)
{
    char iso[40];
    format_iso8601_utc(&base->window.start_wall, iso, sizeof iso);
    if (iso[0]) {
        iso[10] = ' ';
        iso[16] = '\0'; /* to the minute */
    }
    const char *host = kv_get(&base->host, "hostname");
    snprintf(out, n, "%s, %s UTC", host ? host : "?", iso[0] ? iso : "?");
}

static void row(struct table *t, const char *what, const char *change, const char *was,
                const char *now)
{
    size_t i = table_add_row(t);
    table_set_str(t, i, "what", what);
    table_set_str(t, i, "change", change);
    if (was) /* absent: shown as "-" */
        table_set_str(t, i, "baseline", was);
    if (now)
        table_set_str(t, i, "now", now);
}

void baseline_note(struct report *r, const struct report *base)
{
    const struct table *e = report_find_table(base, NM_SYSCALL_ERRORS);
    if (!e) /* not recorded then (--no-bpf, an older bundle): nothing is "new" */
        return;
    struct table *t = report_table(r, NM_BASELINE_SYSCALL_ERRORS,
                                   "Failed syscalls in the baseline run", "baseline");
    table_add_col(t, "syscall", "Syscall", "", -1);
    table_add_col(t, "errno", "Error", "", -1);
    table_add_col(t, "per_s", "Per second", "/s", 1);
    double listed = 0;
    for (size_t i = 0; i < e->nrows; i++) {
        const char *sc = table_str(e, i, "syscall"), *en = table_str(e, i, "errno");
        if (!sc || !en)
            continue;
        size_t row = table_add_row(t);
        table_set_str(t, row, "syscall", sc);
        table_set_str(t, row, "errno", en);
        table_set_num(t, row, "per_s", table_num(e, i, "per_s"));
        double per_s = table_num(e, i, "per_s");
        if (isfinite(per_s))
            listed += per_s;
    }
    /* The table lists the run's top errors: whatever it left out may have
     * failed then too, at no more than the remainder's rate. */
    double all = report_metric_value(base, NM_SYSCALL_ERRORS_PER_S);
    if (isfinite(all))
        report_metric(r, NM_BASELINE_SYSCALL_ERRORS_UNLISTED_PER_S,
                      "Failed syscalls of the baseline run not listed", "/s", "baseline",
                      all > listed ? all - listed : 0);
}

void baseline_apply(struct report *r, const struct report *base)
{
    struct diff *d = diff_compare(base, r);
    char ww[160];
    when_where(base, ww, sizeof ww);
    kv_add(&r->host, "baseline", "Compared with", ww);

    char title[256];
    snprintf(title, sizeof title, "Compared with the baseline (%s)", ww);
    struct table *t = report_table(r, "baseline.changes", title, "baseline");
    table_add_col(t, "what", "What", "", -1);
    table_add_col(t, "change", "Change", "", -1);
    table_add_col(t, "baseline", "Baseline", "", -1);
    table_add_col(t, "now", "Now", "", -1);
    for (size_t i = 0; i < d->nfindings; i++) {
        const struct diff_finding *f = &d->findings[i];
        if (f->change == DIFF_SAME)
            continue;
        const struct finding *any = f->neu ? f->neu : f->old;
        row(t, any->title, diff_change_name(f->change),
            f->old ? severity_name(f->old->sev) : NULL, f->neu ? severity_name(f->neu->sev) : NULL);
    }
    size_t shown = 0;
    for (size_t i = 0; i < d->nmetrics && shown < BASELINE_MAX_METRIC_ROWS; i++) {
        const struct diff_metric *m = &d->metrics[i];
        if (!m->beyond || !m->spread_known)
            continue;
        char was[64], now[64];
        fmt_quantity(was, sizeof was, m->old->value, m->neu->unit);
        fmt_quantity(now, sizeof now, m->neu->value, m->neu->unit);
        row(t, m->neu->title && *m->neu->title ? m->neu->title : m->neu->name,
            m->delta > 0 ? "higher" : "lower", was, now);
        shown++;
    }
    for (size_t i = 0; i < d->nfacts; i++) {
        const struct diff_fact *f = &d->facts[i];
        row(t, f->title ? f->title : f->key, "differs", f->old, f->neu);
    }
    if (t->nrows == 0)
        t->note = xasprintf("No clear change: the same findings, and no metric moved beyond "
                            "the variation within each window.");

    /* The headline says when its finding is a regression against the
     * baseline: what a reader of a cron report wants to know first. */
    if (r->nfindings && r->findings[0].sev >= SEV_WARNING) {
        for (size_t i = 0; i < d->nfindings; i++) {
            const struct diff_finding *f = &d->findings[i];
            if (f->neu != &r->findings[0] || (f->change != DIFF_NEW && f->change != DIFF_WORSE))
                continue;
            free(r->headline_note);
            r->headline_note = xasprintf("%s since the baseline, %s",
                                         f->change == DIFF_NEW ? "new" : "worse", ww);
            rank_headline(r);
            break;
        }
    }
    diff_free(d);
}
