#include "psi.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing ---------------------------------------------------------- */

/* "avg10=0.15 avg60=0.92 avg300=0.62 total=6243476": all four, any order. */
static bool parse_psi_fields(char *s, struct psi_line *l)
{
    unsigned seen = 0;
    char *save = NULL;
    for (char *tok = strtok_r(s, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq[1] == '\0')
            return false;
        *eq = '\0';
        const char *val = eq + 1;
        char *end;
        errno = 0;
        if (strcmp(tok, "total") == 0) {
            if (*val < '0' || *val > '9')
                return false;
            unsigned long long x = strtoull(val, &end, 10);
            if (errno || *end)
                return false;
            l->total = x;
            seen |= 8;
            continue;
        }
        double *dst = strcmp(tok, "avg10") == 0    ? &l->avg10
                      : strcmp(tok, "avg60") == 0  ? &l->avg60
                      : strcmp(tok, "avg300") == 0 ? &l->avg300
                                                   : NULL;
        if (!dst)
            continue; /* a field a future kernel may add */
        double x = strtod(val, &end);
        if (errno || *end || !isfinite(x) || x < 0)
            return false;
        *dst = x;
        seen |= dst == &l->avg10 ? 1u : dst == &l->avg60 ? 2u : 4u;
    }
    return seen == 15;
}

int parse_psi(const char *text, struct psi_file *out)
{
    memset(out, 0, sizeof *out);
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *l = xstrndup(line, len);
        line = nl ? nl + 1 : NULL;
        struct psi_line *dst = NULL;
        if (strncmp(l, "some ", 5) == 0)
            dst = &out->some;
        else if (strncmp(l, "full ", 5) == 0)
            dst = &out->full;
        struct psi_line pl = {0};
        if (dst && !dst->have && parse_psi_fields(l + 5, &pl)) {
            pl.have = true;
            *dst = pl;
        }
        free(l);
    }
    return out->some.have || out->full.have ? 0 : -EINVAL;
}

double psi_stall_pct(uint64_t total_a, uint64_t total_b, double dt_s)
{
    if (!(dt_s > 0))
        return NAN;
    double pct = total_b > total_a ? (double)(total_b - total_a) / (dt_s * 1e4) : 0.0;
    /* Readings are not taken at exactly the tick time, so a fully stalled
     * interval can come out a hair above 100. */
    return pct > 100.0 ? 100.0 : pct;
}

/* ---- collector -------------------------------------------------------- */

static const char *const resources[] = {"cpu", "io", "memory"};
#define NRES (sizeof resources / sizeof resources[0])

struct psi_res {
    bool present; /* readable at start; otherwise skipped for the window */
    struct psi_file first, prev;
    double t_prev;
    double avg10_max[2]; /* some, full; NAN until seen */
};

struct psi_state {
    double t_first;
    size_t nticks;
    struct psi_res res[NRES];
};

static int read_psi(const char *res, struct psi_file *f)
{
    struct strbuf sb = STRBUF_INIT;
    int rc = hostfs_readf(&sb, 65536, "/proc/pressure/%s", res);
    if (rc == 0)
        rc = parse_psi(sb_str(&sb), f);
    sb_free(&sb);
    return rc;
}

static bool psi_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    struct psi_file f;
    int rc_cpu = read_psi("cpu", &f);
    if (rc_cpu == 0)
        return true;
    for (size_t i = 1; i < NRES; i++)
        if (read_psi(resources[i], &f) == 0)
            return true;
    if (rc_cpu == -ENOENT)
        snprintf(reason, n, "PSI not available: /proc/pressure/cpu missing (kernel built "
                            "without CONFIG_PSI or booted with psi=0)");
    else
        snprintf(reason, n, "PSI not available: cannot read /proc/pressure/cpu: %s",
                 rc_cpu == -EINVAL ? "unexpected format" : strerror(-rc_cpu));
    return false;
}

static void psi_destroy(void *state) { free(state); }

static int psi_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct psi_state *s = xcalloc(1, sizeof *s);
    *state = s;
    /* Stall time divides by the time between our own reads: start runs
     * long before the window opens (BPF loads), a tick's worker late. */
    s->t_first = collect_clock_s(ctx);
    bool any = false;
    for (size_t i = 0; i < NRES; i++) {
        struct psi_res *pr = &s->res[i];
        pr->avg10_max[0] = pr->avg10_max[1] = NAN;
        if (read_psi(resources[i], &pr->first) != 0)
            continue; /* this resource is skipped; the others still run */
        pr->present = any = true;
        pr->prev = pr->first;
        pr->t_prev = collect_clock_s(ctx);
    }
    if (!any) {
        snprintf(err, n, "no readable file under /proc/pressure");
        return -ENOENT;
    }
    return 0;
}

static void note_avg10(struct psi_res *pr, const struct psi_file *f)
{
    const struct psi_line *l[2] = {&f->some, &f->full};
    for (int k = 0; k < 2; k++)
        if (l[k]->have)
            pr->avg10_max[k] = isnan(pr->avg10_max[k]) ? l[k]->avg10
                                                       : fmax(pr->avg10_max[k], l[k]->avg10);
}

static int psi_tick(struct collect_ctx *ctx, void *state)
{
    struct psi_state *s = state;
    struct report *r = ctx->r;
    int rc = 0;
    s->nticks++;
    for (size_t i = 0; i < NRES; i++) {
        struct psi_res *pr = &s->res[i];
        if (!pr->present)
            continue;
        struct psi_file f;
        int e = read_psi(resources[i], &f);
        double t_now = collect_clock_s(ctx);
        if (e) {
            rc = e;
            continue;
        }
        const struct psi_line *a[2] = {&pr->prev.some, &pr->prev.full};
        const struct psi_line *b[2] = {&f.some, &f.full};
        for (int k = 0; k < 2; k++) {
            if (!a[k]->have || !b[k]->have)
                continue;
            const char *kind = k ? "full" : "some";
            char name[64], title[96];
            snprintf(name, sizeof name, NMF_PSI_PCT, resources[i], kind);
            snprintf(title, sizeof title, "%s pressure (%s)", resources[i], kind);
            struct series *se = report_series(r, name, title, "%", "psi");
            if (k == 0)
                se->chart = true; /* threshold lines: analysis */
            series_set(r, se, psi_stall_pct(a[k]->total, b[k]->total, t_now - pr->t_prev));
        }
        note_avg10(pr, &f);
        pr->prev = f;
        pr->t_prev = t_now;
    }
    return rc;
}

static int psi_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    (void)err;
    (void)n;
    struct psi_state *s = state;
    struct report *r = ctx->r;
    for (size_t i = 0; i < NRES; i++) {
        struct psi_res *pr = &s->res[i];
        if (!pr->present)
            continue;
        struct psi_file last;
        double t_last = collect_clock_s(ctx);
        if (read_psi(resources[i], &last) == 0) {
            note_avg10(pr, &last);
        } else {
            last = pr->prev; /* the last tick's reading ends the window */
            t_last = pr->t_prev;
        }
        const struct psi_line *a[2] = {&pr->first.some, &pr->first.full};
        const struct psi_line *b[2] = {&last.some, &last.full};
        for (int k = 0; k < 2; k++) {
            const char *kind = k ? "full" : "some";
            char name[64], title[96];
            double pct = (a[k]->have && b[k]->have)
                             ? psi_stall_pct(a[k]->total, b[k]->total, t_last - s->t_first)
                             : NAN;
            if (!isnan(pct)) {
                snprintf(name, sizeof name, NMF_PSI_PCT, resources[i], kind);
                snprintf(title, sizeof title, "%s pressure (%s)", resources[i], kind);
                report_metric(r, name, title, "%", "psi", pct);
            }
            if (!isnan(pr->avg10_max[k])) {
                snprintf(name, sizeof name, NMF_PSI_AVG10_MAX, resources[i], kind);
                snprintf(title, sizeof title, "%s pressure (%s), max avg10", resources[i],
                         kind);
                report_metric(r, name, title, "%", "psi", pr->avg10_max[k]);
            }
        }
    }
    return 0;
}

const struct collector collector_psi = {
    .name = "psi",
    .title = "Pressure stall (PSI)",
    .needs_bpf = false,
    .can_run = psi_can_run,
    .start = psi_start,
    .tick = psi_tick,
    .stop = psi_stop,
    .destroy = psi_destroy,
};
