/* The model of perfreport history (see history.h). */
#include "history.h"
#include "../render/escape.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct history *history_new(void) { return xcalloc(1, sizeof(struct history)); }

void history_free(struct history *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->nruns; i++) {
        struct history_run *r = &h->runs[i];
        free(r->host);
        free(r->path);
        free(r->abs);
        free(r->headline);
        free(r->case_id);
        free(r->label);
        for (size_t k = 0; k < r->nfindings; k++)
            free(r->findings[k].id);
        free(r->findings);
        free(r->values);
    }
    free(h->runs);
    free(h->seen);
    for (size_t i = 0; i < h->nmetrics; i++) {
        free(h->metrics[i].name);
        free(h->metrics[i].title);
        free(h->metrics[i].unit);
    }
    free(h->metrics);
    for (size_t i = 0; i < h->nskipped; i++) {
        free(h->skipped[i].path);
        free(h->skipped[i].reason);
    }
    free(h->skipped);
    for (size_t i = 0; i < h->nhosts; i++) {
        free(h->hosts[i].runs);
        free(h->hosts[i].by_time);
    }
    free(h->hosts);
    for (size_t i = 0; i < h->nrecurring; i++)
        free(h->recurring[i].id);
    free(h->recurring);
    free(h);
}

bool history_key_metric(const struct report *r, const struct metric *m)
{
    const struct series *s = report_find_series(r, m->name);
    return s && s->chart && isfinite(m->value);
}

static size_t metric_index(struct history *h, const struct metric *m)
{
    for (size_t i = 0; i < h->nmetrics; i++)
        if (strcmp(h->metrics[i].name, m->name) == 0)
            return i;
    if (h->nmetrics >= HISTORY_MAX_METRICS)
        return SIZE_MAX;
    h->metrics = xrealloc(h->metrics, (h->nmetrics + 1) * sizeof *h->metrics);
    h->metrics[h->nmetrics] = (struct history_metric){
        trunc_utf8(m->name, 100), trunc_utf8(m->title && *m->title ? m->title : m->name, 100),
        trunc_utf8(m->unit ? m->unit : "", 20)};
    return h->nmetrics++;
}

void history_add_run(struct history *h, const struct report *r, const char *path,
                     const char *abs, bool has_index)
{
    xgrow(&h->runs, &h->cap_runs, h->nruns + 1, sizeof *h->runs);
    struct history_run *run = &h->runs[h->nruns++];
    memset(run, 0, sizeof *run);
    const char *host = kv_get(&r->host, "hostname");
    run->host = trunc_utf8(host && *host ? host : "-", 100);
    run->path = xstrdup(path);
    run->abs = xstrdup(abs);
    run->has_index = has_index;
    run->start = r->window.start_wall.tv_sec > 0 ? r->window.start_wall.tv_sec : 0;
    run->window_s = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    run->sev = report_worst_severity(r);
    run->failed = r->failed;
    /* analyze_run ranks the findings: the first is the headline's */
    run->score = r->nfindings ? r->findings[0].score : 0;
    run->headline = trunc_utf8(r->headline && *r->headline ? r->headline : "No findings.",
                               HISTORY_MAX_TEXT);
    /* the reader checked both (report_json_read.c) */
    const char *case_id = kv_get(&r->host, "case_id"), *label = kv_get(&r->host, "label");
    run->case_id = case_id ? trunc_utf8(case_id, RUN_CASE_ID_MAX) : NULL;
    run->label = label ? trunc_utf8(label, RUN_LABEL_MAX) : NULL;
    size_t nf = r->nfindings < HISTORY_MAX_FINDINGS ? r->nfindings : HISTORY_MAX_FINDINGS;
    run->findings = xcalloc(nf + 1, sizeof *run->findings);
    for (size_t i = 0; i < nf; i++)
        run->findings[run->nfindings++] =
            (struct history_finding){trunc_utf8(r->findings[i].id, 100), r->findings[i].sev};
    /* values[] follows h->metrics, which may grow with this very run */
    size_t idx[HISTORY_MAX_METRICS];
    double val[HISTORY_MAX_METRICS];
    size_t n = 0;
    for (size_t i = 0; i < r->nmetrics && n < HISTORY_MAX_METRICS; i++) {
        if (!history_key_metric(r, &r->metrics[i]))
            continue;
        size_t k = metric_index(h, &r->metrics[i]);
        if (k == SIZE_MAX)
            continue;
        idx[n] = k;
        val[n++] = r->metrics[i].value;
    }
    run->nvalues = h->nmetrics;
    run->values = xcalloc(run->nvalues + 1, sizeof *run->values);
    for (size_t i = 0; i < run->nvalues; i++)
        run->values[i] = NAN;
    for (size_t i = 0; i < n; i++)
        run->values[idx[i]] = val[i];
}

void history_skip(struct history *h, const char *path, const char *reason)
{
    if (h->nskipped >= HISTORY_MAX_SKIPPED) {
        h->skipped_more++;
        return;
    }
    xgrow(&h->skipped, &h->cap_skipped, h->nskipped + 1, sizeof *h->skipped);
    h->skipped[h->nskipped++] =
        (struct history_skip){trunc_utf8(path, 400), trunc_utf8(reason, 600)};
}

int history_run_cmp(const struct history_run *a, const struct history_run *b)
{
    if (a->sev != b->sev)
        return a->sev > b->sev ? -1 : 1;
    if (a->score != b->score)
        return a->score > b->score ? -1 : 1;
    if (a->start != b->start)
        return a->start > b->start ? -1 : 1;
    return strcmp(a->path, b->path);
}

/* qsort has no context argument: the runs being sorted are this array. */
static const struct history_run *sort_runs;

static int cmp_worst(const void *x, const void *y)
{
    return history_run_cmp(&sort_runs[*(const size_t *)x], &sort_runs[*(const size_t *)y]);
}

static int cmp_time(const void *x, const void *y)
{
    const struct history_run *a = &sort_runs[*(const size_t *)x],
                             *b = &sort_runs[*(const size_t *)y];
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return strcmp(a->path, b->path);
}

static int cmp_host(const void *x, const void *y)
{
    const struct history_host *a = x, *b = y;
    if (a->latest != b->latest)
        return a->latest > b->latest ? -1 : 1;
    if (a->worst != b->worst)
        return a->worst > b->worst ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int cmp_recurring(const void *x, const void *y)
{
    const struct history_recurring *a = x, *b = y;
    if (a->runs != b->runs)
        return a->runs > b->runs ? -1 : 1;
    if (a->worst != b->worst)
        return a->worst > b->worst ? -1 : 1;
    return strcmp(a->id, b->id);
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static void group_hosts(struct history *h)
{
    /* runs sorted by host name: each host a contiguous stretch */
    size_t *order = xcalloc(h->nruns + 1, sizeof *order);
    char **names = xcalloc(h->nruns + 1, sizeof *names);
    for (size_t i = 0; i < h->nruns; i++)
        names[i] = h->runs[i].host;
    qsort(names, h->nruns, sizeof *names, cmp_str);
    h->hosts = xcalloc(h->nruns + 1, sizeof *h->hosts);
    for (size_t i = 0; i < h->nruns; i++)
        if (i == 0 || strcmp(names[i], names[i - 1]) != 0)
            h->hosts[h->nhosts++].name = names[i];
    free(names);
    for (size_t k = 0; k < h->nhosts; k++) {
        struct history_host *ho = &h->hosts[k];
        size_t n = 0;
        for (size_t i = 0; i < h->nruns; i++)
            if (strcmp(h->runs[i].host, ho->name) == 0)
                order[n++] = i;
        ho->nruns = n;
        ho->runs = xcalloc(n, sizeof *ho->runs);
        ho->by_time = xcalloc(n, sizeof *ho->by_time);
        memcpy(ho->runs, order, n * sizeof *order);
        memcpy(ho->by_time, order, n * sizeof *order);
        sort_runs = h->runs;
        qsort(ho->runs, n, sizeof *ho->runs, cmp_worst);
        qsort(ho->by_time, n, sizeof *ho->by_time, cmp_time);
        ho->worst = h->runs[ho->runs[0]].sev;
        ho->latest = h->runs[ho->by_time[n - 1]].sev;
    }
    free(order);
    qsort(h->hosts, h->nhosts, sizeof *h->hosts, cmp_host);
}

static void find_recurring(struct history *h)
{
    size_t cap = 0;
    for (size_t k = 0; k < h->nhosts; k++) {
        const struct history_host *ho = &h->hosts[k];
        for (size_t j = 0; j < ho->nruns; j++) {
            const struct history_run *run = &h->runs[ho->by_time[j]];
            for (size_t f = 0; f < run->nfindings; f++) {
                const struct history_finding *fi = &run->findings[f];
                struct history_recurring *rc = NULL;
                for (size_t i = 0; i < h->nrecurring && !rc; i++)
                    if (strcmp(h->recurring[i].id, fi->id) == 0)
                        rc = &h->recurring[i];
                if (!rc) {
                    xgrow(&h->recurring, &cap, h->nrecurring + 1, sizeof *h->recurring);
                    rc = &h->recurring[h->nrecurring++];
                    *rc = (struct history_recurring){xstrdup(fi->id), 0, 0, run->start,
                                                     run->start, fi->sev, 0};
                }
                /* a host counts once: its runs come together, hosts in turn */
                if (rc->runs == 0 || rc->hosts_seen_last != k + 1) {
                    rc->hosts++;
                    rc->hosts_seen_last = k + 1;
                }
                rc->runs++;
                if (run->start < rc->first)
                    rc->first = run->start;
                if (run->start > rc->last)
                    rc->last = run->start;
                if (fi->sev > rc->worst)
                    rc->worst = fi->sev;
            }
        }
    }
    if (h->nrecurring > 1)
        qsort(h->recurring, h->nrecurring, sizeof *h->recurring, cmp_recurring);
}

void history_finish(struct history *h)
{
    group_hosts(h);
    find_recurring(h);
}

char *history_relpath(const char *from, const char *to)
{
    if (!from || !to || from[0] != '/' || to[0] != '/')
        return NULL;
    /* the longest common prefix that ends at a component boundary */
    size_t common = 0;
    for (size_t i = 0;; i++) {
        char a = from[i], b = to[i];
        if ((a == '/' || a == '\0') && (b == '/' || b == '\0'))
            common = i;
        if (a != b || a == '\0')
            break;
    }
    struct strbuf sb = STRBUF_INIT;
    /* one ".." per component of `from` past the common part */
    for (const char *p = from + common; *p;) {
        while (*p == '/')
            p++;
        if (!*p)
            break;
        sb_add(&sb, sb.len ? "/.." : "..");
        while (*p && *p != '/')
            p++;
    }
    const char *rest = to + common;
    while (*rest == '/')
        rest++;
    if (*rest) {
        if (sb.len)
            sb_addc(&sb, '/');
        sb_add(&sb, rest);
    }
    if (!sb.len)
        sb_add(&sb, ".");
    return sb_detach(&sb);
}
