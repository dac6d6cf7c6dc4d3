/* Cgroup findings: memory limits and growth, CPU and I/O throttling. */
#include "analyze_internal.h"
#include "../util/fmtnum.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* " (containerd 9a8b7c6d5e4f in pod ...)": who the cgroup is, when its
 * path names a container, pod or unit. */
static void workload(struct strbuf *t, const struct table *cg, size_t row)
{
    const char *name = table_str(cg, row, "name");
    if (name && *name)
        sb_addf(t, " (%s)", name);
}

void rule_cgroup_memory_limit(struct report *r, const struct rule *self)
{
    const struct table *cg = report_find_table(r, NM_CGROUP);
    if (!cg)
        return;
    struct sig best = {.v = NAN, .cov = NAN};
    long row = -1;
    int npast = 0;
    for (size_t i = 0; i < cg->nrows; i++) {
        if (isnan(table_num(cg, i, "mem_limit_kib")) && table_col(cg, "mem_limit_kib") >= 0)
            continue; /* unlimited: mem_pct means nothing */
        struct sig s = sig_value(r, "cgroup.mem_pct", table_num(cg, i, "mem_pct"), NULL);
        npast += s.sev >= SEV_WARNING;
        sig_keep_worst(&best, &row, &s, i);
    }
    if (row < 0 || best.sev < SEV_WARNING)
        return;
    const char *path = table_str(cg, (size_t)row, "path");
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "cgroup %s", path ? path : "?");
    workload(&t, cg, (size_t)row);
    sb_addf(&t, " at %.0f%% of its memory limit", best.v);
    double mem = table_num(cg, (size_t)row, "mem_kib"), lim = table_num(cg, (size_t)row, "mem_limit_kib");
    if (!isnan(mem) && !isnan(lim)) {
        char a[32], b[32];
        fmt_kib(a, sizeof a, mem);
        fmt_kib(b, sizeof b, lim);
        sb_addf(&t, " (%s of %s)", a, b);
    }
    struct finding *f = rule_add(r, self, best.sev, &t);
    sig_evidence(f, "cgroup memory use of its limit", &best);
    double fail = table_num(cg, (size_t)row, "mem_failcnt");
    if (!isnan(fail) && fail > 0)
        finding_evidence(f, "The limit was hit %.0f times (failcnt)", fail);
    struct sig psi = sig_value(r, "psi.some_pct", table_num(cg, (size_t)row, "psi_memory_some_pct"), NULL);
    sig_evidence(f, "PSI memory some inside the cgroup", &psi);
    if (npast > 1)
        finding_evidence(f, "%d other cgroup%s also past the warning level", npast - 1,
                         npast == 2 ? " is" : "s are");
    if (path)
        finding_set_culprit(f, path);
    f->score = rank_score(best.sev, best.excess, NAN, (psi.sev >= SEV_WARNING) + (!isnan(fail) && fail > 0));
}

void rule_cgroup_cpu_throttled(struct report *r, const struct rule *self)
{
    const struct table *cg = report_find_table(r, NM_CGROUP);
    if (!cg)
        return;
    struct sig best = {.v = NAN, .cov = NAN};
    long row = -1;
    for (size_t i = 0; i < cg->nrows; i++) {
        double nthr = table_num(cg, i, "nr_throttled");
        if (!isnan(nthr) && nthr <= 0)
            continue;
        struct sig s = sig_value(r, "cgroup.throttled_pct", table_num(cg, i, "throttled_pct"), NULL);
        sig_keep_worst(&best, &row, &s, i);
    }
    if (row < 0 || best.sev < SEV_WARNING)
        return;
    size_t i = (size_t)row;
    const char *path = table_str(cg, i, "path");
    double np = table_num(cg, i, "nr_periods"), nt = table_num(cg, i, "nr_throttled");
    double quota = table_num(cg, i, "quota_cpus"), tms = table_num(cg, i, "throttled_ms");
    double cpu = table_num(cg, i, "cpu_pct");
    /* Throttled time is summed over the CPUs the group's threads were held
     * back on, so it can pass the CPU time used: say it in those words. */
    double window_s = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    double used_ms = !isnan(cpu) && window_s > 0 ? cpu / 100.0 * window_s * 1000.0 : NAN;
    char held[64], ran[64];
    fmt_quantity(held, sizeof held, tms, "ms");
    fmt_quantity(ran, sizeof ran, used_ms, "ms");
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "cgroup %s", path ? path : "?");
    workload(&t, cg, i);
    if (!isnan(tms) && !isnan(used_ms))
        sb_addf(&t, " CPU-throttled: held back %s (summed over CPUs) while it ran %s", held, ran);
    else
        sb_addf(&t, " CPU-throttled: throttled time %.0f%% of the CPU time it used", best.v);
    if (!isnan(np) && !isnan(nt) && np > 0)
        sb_addf(&t, "; %.0f of %.0f periods throttled", nt, np);
    if (!isnan(quota))
        sb_addf(&t, " (quota %.2g CPU%s)", quota, plural(quota));
    struct finding *f = rule_add(r, self, best.sev, &t);
    sig_evidence(f, "Throttled time / CPU time used", &best);
    if (best.v > 100)
        finding_evidence(f, "Over 100%%: the throttled time is summed over the CPUs its threads "
                            "waited on, so the group waited %.1f times as long as it ran",
                         best.v / 100.0);
    double ppct = table_num(cg, i, "throttled_periods_pct");
    if (!isnan(np) && !isnan(nt))
        finding_evidence(f, "Throttled in %.0f of %.0f scheduling periods (%.0f%%)", nt, np,
                         !isnan(ppct) ? ppct : np > 0 ? nt / np * 100 : 0);
    if (!isnan(tms))
        finding_evidence(f, "Throttled for %s summed over CPUs in a %.0f s window", held,
                         window_s);
    if (!isnan(cpu))
        finding_evidence(f, "Used %.0f%% of one CPU%s", cpu,
                         isnan(quota) ? "" : " against its quota");
    struct sig psi = sig_value(r, "psi.some_pct", table_num(cg, i, "psi_cpu_some_pct"), NULL);
    sig_evidence(f, "PSI cpu some inside the cgroup", &psi);
    if (path)
        finding_set_culprit(f, path);
    int corr = (psi.sev >= SEV_WARNING) + (!isnan(ppct) && ppct >= 50);
    f->score = rank_score(best.sev, best.excess, NAN, corr);
}


/* ---- I/O limits --------------------------------------------------------- */

/* "2 MiB/s" (bps limits) or "150 IO/s" (iops limits) */
static void fmt_io_rate(char *buf, size_t n, double v, bool bytes)
{
    if (isnan(v)) {
        snprintf(buf, n, "-");
    } else if (bytes) {
        char q[48];
        fmt_kib(q, sizeof q, v);
        snprintf(buf, n, "%s/s", q);
    } else {
        char q[48];
        fmt_num(q, sizeof q, v);
        snprintf(buf, n, "%s IO/s", q);
    }
}

/* One limit of table cgroup.io judged: is the cgroup held at it, and what
 * did it cost its tasks? */
struct io_case {
    long row;
    struct sig use;  /* per-interval use of the limit; cov = share at it */
    struct sig at;   /* that share, judged */
    struct sig wait; /* PSI io some inside the cgroup */
    enum severity sev;
};

static bool io_case_worse(const struct io_case *a, const struct io_case *b)
{
    if (a->sev != b->sev)
        return a->sev > b->sev;
    double wa = num0(a->wait.v), wb = num0(b->wait.v);
    if (wa != wb)
        return wa > wb;
    return a->at.v > b->at.v;
}

void rule_cgroup_io_throttled(struct report *r, const struct rule *self)
{
    const struct table *io = report_find_table(r, NM_CGROUP_IO);
    struct io_case best = {.row = -1};
    int held = 0;
    for (size_t i = 0; io && i < io->nrows; i++) {
        char series[64];
        snprintf(series, sizeof series, NMF_CGROUP_IO_USE, i);
        struct io_case c = {.row = (long)i};
        c.use = sig_value(r, "cgroup.io_limit_use_pct", table_num(io, i, "use_pct"), series);
        if (isnan(c.use.cov))
            continue; /* no interval measured */
        /* A burst that meets the limit for an interval or two is what a
         * limit is for; only a cgroup held at it for much of the window is. */
        c.at = sig_value(r, "cgroup.io_at_limit_pct", c.use.cov * 100.0, NULL);
        if (c.at.sev < SEV_WARNING)
            continue;
        held++;
        /* Severity is the harm: how long its tasks waited.  Held at the
         * limit with no measured wait (no PSI for it) is a rate alone. */
        c.wait = sig_value(r, "cgroup.io_wait_pct", table_num(io, i, "psi_io_some_pct"), NULL);
        c.sev = c.wait.sev >= SEV_WARNING ? c.wait.sev : SEV_INFO;
        if (best.row < 0 || io_case_worse(&c, &best))
            best = c;
    }
    if (best.row < 0)
        return;
    size_t i = (size_t)best.row;
    const char *path = table_str(io, i, "path"), *dev = table_str(io, i, "device");
    const char *devno = table_str(io, i, "devno"), *kind = table_str(io, i, "limit");
    /* the collector's limit names: rbps wbps riops wiops */
    bool bytes = kind && (strcmp(kind, "rbps") == 0 || strcmp(kind, "wbps") == 0);
    bool write = kind && (strcmp(kind, "wbps") == 0 || strcmp(kind, "wiops") == 0);
    double lim = table_num(io, i, bytes ? "limit_kib_per_s" : "limit_iops");
    double rate = table_num(io, i, bytes ? "rate_kib_per_s" : "rate_iops");
    char lim_s[64], rate_s[64];
    fmt_io_rate(lim_s, sizeof lim_s, lim, bytes);
    fmt_io_rate(rate_s, sizeof rate_s, rate, bytes);
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "cgroup %s", path ? path : "?");
    workload(&t, io, i);
    sb_addf(&t, " %s-throttled on %s: %s against its %s limit, held there %.0f%% of the window",
            write ? "write" : "read", dev ? dev : "?", rate_s, lim_s, best.at.v);
    if (!isnan(best.wait.v))
        sb_addf(&t, "; its tasks waited for I/O %.0f%% of the time", best.wait.v);
    struct finding *f = rule_add(r, self, best.sev, &t);
    finding_evidence(f, "Limit %s %s on %s (%s)", kind ? kind : "?", lim_s, dev ? dev : "?",
                     devno ? devno : "?");
    finding_evidence(f, "I/O to it over the window %s (%.0f%% of the limit); fastest interval "
                        "%.0f%% of it",
                     rate_s, num0(table_num(io, i, "use_pct")),
                     num0(table_num(io, i, "peak_use_pct")));
    char at_label[160];
    snprintf(at_label, sizeof at_label,
             "Share of the window at the limit (%zu of %zu intervals at or past %.0f%% of it)",
             best.use.over, best.use.total, best.use.t ? best.use.t->warn : 0.0);
    sig_evidence(f, at_label, &best.at);
    if (!isnan(best.wait.v))
        sig_evidence(f, "Time its tasks waited for I/O (PSI io some inside the cgroup)",
                     &best.wait);
    else
        finding_evidence(f, "How long its tasks waited is not measured: no PSI for this cgroup "
                            "(a v1-only host, or its v2 cgroup has another path); at most info");
    /* The disk itself had room: the limit, not the device, held the I/O. */
    const struct table *disks = report_find_table(r, NM_DISK);
    int corr = 0;
    for (size_t d = 0; disks && dev && d < disks->nrows; d++) {
        const char *n = table_str(disks, d, "device");
        if (!n || strcmp(n, dev) != 0)
            continue;
        struct sig u = sig_value(r, "disk.util_pct", table_num(disks, d, "util_pct"), NULL);
        if (!isnan(u.v) && u.sev < SEV_WARNING) {
            finding_evidence(f, "%s itself was busy %.0f%% of the window: the limit, not the "
                                "device, held the I/O back", dev, u.v);
            corr++;
        }
    }
    if (held > 1)
        finding_evidence(f, "%d other limit%s also held %s I/O at the limit", held - 1,
                         held == 2 ? "" : "s", held == 2 ? "its" : "their");
    if (path)
        finding_set_culprit(f, path);
    const struct sig *lead = best.wait.sev >= SEV_WARNING ? &best.wait : &best.at;
    f->score = rank_score(best.sev, lead->excess, best.use.cov, corr);
}

/* ---- memory growth ------------------------------------------------------- */

/* "45 s", "19 min", "2.6 h", "3 days" */
static void fmt_span(char *buf, size_t n, double s)
{
    if (s < 120)
        snprintf(buf, n, "%.0f s", s);
    else if (s < 7200)
        snprintf(buf, n, "%.0f min", s / 60);
    else if (s < 172800)
        snprintf(buf, n, "%.1f h", s / 3600);
    else
        snprintf(buf, n, "%.0f days", s / 86400);
}

/* Is `anc` a proper ancestor of cgroup path `p`? */
static bool is_ancestor(const char *anc, const char *p)
{
    return strcmp(anc, p) != 0 && cgroup_path_within(p, anc);
}

/* A trend seen for one window is projected at most this many windows
 * ahead (30 min for the default 30 s): past that, it is a trend to watch. */
#define GROWTH_HORIZON 60.0

/* A row of cgroup.memory_growth past both gates (steady growth). */
struct growth_case {
    long row;
    double slope, rise;    /* KiB/s of anonymous memory; % of intervals it rose */
    double full_s;         /* until the first limit (or the host) runs out */
    long limit_row;        /* whose limit that is; -1: the host's available memory */
    double secs;           /* the window the readings span */
    bool far;              /* full_s lies past GROWTH_HORIZON windows */
    bool host_unshort;     /* kept at warning: the host's memory is not short yet */
    struct sig g, full;
    enum severity sev;
};

/* Seconds until the row's anonymous growth fills the tightest of its own
 * limit, a watched ancestor's limit, and the host's available memory. */
static double time_to_full(const struct table *g, size_t i, double slope, double avail_kib,
                           long *limit_row)
{
    double best = !isnan(avail_kib) ? avail_kib / slope : NAN;
    *limit_row = -1;
    const char *p = table_str(g, i, "path");
    for (size_t j = 0; p && j < g->nrows; j++) {
        const char *q = table_str(g, j, "path");
        double lim = table_num(g, j, "mem_limit_kib"), anon = table_num(g, j, "anon_kib");
        if (!q || isnan(lim) || isnan(anon) || (j != i && !is_ancestor(q, p)))
            continue;
        double s = (lim > anon ? lim - anon : 0) / slope;
        if (isnan(best) || s < best) {
            best = s;
            *limit_row = (long)j;
        }
    }
    return best;
}

bool cgroup_memory_limit_first(const struct report *r, const char *path)
{
    const struct table *g = report_find_table(r, NM_CGROUP_MEMORY_GROWTH);
    for (size_t i = 0; g && path && i < g->nrows; i++) {
        const char *p = table_str(g, i, "path");
        double slope = table_num(g, i, "anon_growth_kib_per_s");
        if (!p || strcmp(p, path) != 0 || !(slope > 0))
            continue;
        long limit_row;
        time_to_full(g, i, slope, host_available_kib(r), &limit_row);
        return limit_row >= 0;
    }
    return false;
}

void rule_cgroup_memory_growth(struct report *r, const struct rule *self)
{
    const struct table *g = report_find_table(r, NM_CGROUP_MEMORY_GROWTH);
    if (!g || !g->nrows)
        return;
    double avail = host_available_kib(r);
    struct growth_case *c = xcalloc(g->nrows, sizeof *c);
    for (size_t i = 0; i < g->nrows; i++) {
        struct growth_case *k = &c[i];
        k->row = -1;
        k->slope = table_num(g, i, "anon_growth_kib_per_s");
        k->rise = table_num(g, i, "anon_rise_pct");
        k->g = sig_value(r, "cgroup.mem_growth_kib_per_s", k->slope, NULL);
        struct sig steady = sig_value(r, "cgroup.mem_rise_pct", k->rise, NULL);
        /* Growth through noise, a sawtooth (a build's compilers coming and
         * going) or one jump is not a trend: it must rise steadily. */
        if (k->g.sev < SEV_WARNING || steady.sev < SEV_WARNING)
            continue;
        /* And it must be kept: a process that grew and exited before the
         * end (a test, a compiler) leaves little of what the slope says. */
        double kept = table_num(g, i, "anon_kib") - table_num(g, i, "anon_first_kib");
        double secs = table_num(g, i, "seconds");
        if (!(secs > 0) || !(kept >= 0.5 * k->slope * secs))
            continue;
        k->row = (long)i;
        k->secs = secs;
        k->full_s = time_to_full(g, i, k->slope, avail, &k->limit_row);
        k->full = sig_value(r, "cgroup.mem_full_min", k->full_s / 60.0, NULL);
        /* Steady growth with room for hours is a trend to watch, not harm;
         * so is a trend projected far past what the window saw (a test or
         * a cache warming up for a few seconds is not a day's leak). */
        k->far = k->full_s > GROWTH_HORIZON * secs;
        k->sev = k->full.sev >= SEV_WARNING && !k->far ? k->full.sev : SEV_INFO;
        /* bound by the host's memory, not a limit: critical only when it
         * is short already (memory_short) */
        k->host_unshort = k->limit_row < 0 && k->sev == SEV_CRITICAL && !memory_short(r);
        if (k->host_unshort)
            k->sev = SEV_WARNING;
    }
    /* A parent grows with its child: the deepest cgroup that carries most
     * of the growth is the culprit, and keeps the tightest limit above it. */
    long pick = -1;
    for (size_t i = 0; i < g->nrows; i++) {
        if (c[i].row < 0)
            continue;
        const char *p = table_str(g, i, "path");
        bool explained = false;
        for (size_t j = 0; p && j < g->nrows && !explained; j++) {
            const char *q = table_str(g, j, "path");
            explained = c[j].row >= 0 && q && is_ancestor(p, q) && c[j].slope >= c[i].slope / 2;
        }
        if (explained)
            continue;
        if (pick < 0 || c[i].sev > c[pick].sev ||
            (c[i].sev == c[pick].sev && c[i].full_s < c[pick].full_s))
            pick = (long)i;
    }
    if (pick < 0) {
        free(c);
        return;
    }
    struct growth_case k = c[pick];
    free(c);
    size_t i = (size_t)k.row;
    const char *path = table_str(g, i, "path");
    char rate[48], span[48], room[48];
    fmt_kib(rate, sizeof rate, k.slope);
    fmt_span(span, sizeof span, k.full_s);
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "cgroup %s", path ? path : "?");
    workload(&t, g, i);
    sb_addf(&t, " grows %s/s of anonymous memory", rate);
    if (k.limit_row >= 0) {
        fmt_kib(room, sizeof room, table_num(g, (size_t)k.limit_row, "mem_limit_kib"));
        if ((size_t)k.limit_row == i)
            sb_addf(&t, ": its %s limit is reached in %s at this pace", room, span);
        else
            sb_addf(&t, ": the %s limit of %s is reached in %s at this pace", room,
                    table_str(g, (size_t)k.limit_row, "path"), span);
    } else if (!isnan(k.full_s)) {
        fmt_kib(room, sizeof room, avail);
        sb_addf(&t, ": the host's available memory (%s) runs out in %s at this pace", room,
                span);
    }
    struct finding *f = rule_add(r, self, k.sev, &t);
    sig_evidence(f, "Growth of its anonymous memory (least-squares slope)", &k.g);
    finding_evidence(f, "It rose in %.0f%% of the intervals (a leak rises steadily)", k.rise);
    char a0[48], a1[48];
    fmt_kib(a0, sizeof a0, table_num(g, i, "anon_first_kib"));
    fmt_kib(a1, sizeof a1, table_num(g, i, "anon_kib"));
    finding_evidence(f, "Anonymous memory %s at the start, %s at the end", a0, a1);
    sig_evidence(f, "Minutes until it runs out at this pace", &k.full);
    if (k.host_unshort)
        finding_evidence(f, "Kept at warning: the host's memory is not short yet (neither "
                            "available memory nor PSI memory past its threshold)");
    if (k.far && k.full.sev >= SEV_WARNING)
        finding_evidence(f, "Kept at info: that is more than %.0f times the %.0f s the trend was "
                            "seen for; a longer window (-d) tells a leak from a warm-up",
                         GROWTH_HORIZON, k.secs);
    double fg = table_num(g, i, "file_growth_kib_per_s");
    if (!isnan(fg)) {
        char fr[48];
        fmt_kib(fr, sizeof fr, fg);
        finding_evidence(f, "Its page cache changed %s/s (not counted: the kernel reclaims it)",
                         fr);
    }
    if (path)
        finding_set_culprit(f, path);
    f->score = rank_score(k.sev, k.full.excess, NAN, 0);
}
