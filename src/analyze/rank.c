/* Ranking findings and writing the headline.
 *
 * The ranking rule (also in docs/ranking.md):
 *
 *   score = base(severity)                      critical 300, warning 200, info 100
 *         + 30 * excess * coverage              excess: how far the deciding number
 *                                               is past its warning threshold, in
 *                                               units of the warn..crit span, capped
 *                                               at 2 (so at most 60 points);
 *                                               coverage: share of the window's
 *                                               samples past the warning threshold
 *                                               (1 when only a window value exists)
 *         + 13 * corroborations, at most 39     independent signals that tell the
 *                                               same story (e.g. CPU busy AND run
 *                                               queue AND PSI cpu stall)
 *
 * The extras add up to at most 99, so severity always dominates: any critical
 * outranks any warning.  Within a severity, a number far past its threshold for
 * the whole window and backed by other signals comes first; a one-sample spike
 * scores little.
 *
 * A symptom explained by another finding does not compete with it: it is
 * folded into the cause's evidence (table `folds` below); the cause takes the
 * worse of the two severities and the better of the two scores plus 5 (one
 * more corroborating signal), still inside its severity band.  E.g. memory pressure while
 * the OOM killer fired is part of the OOM story, so memory.oom stays first, and
 * page-cache misses while memory ran out are the cache being reclaimed.
 *
 * A drill-down finding (cpu.hotspot: where the CPU time goes) ranks just
 * below the resource findings it details (cpu.saturation, run-queue
 * latency, a throttled cgroup), with at most their severity.
 *
 * Ties are broken by finding id so the order is stable across runs.
 */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double rank_score(enum severity sev, double excess, double cov, int corroborations)
{
    double base = sev == SEV_CRITICAL ? 300 : sev == SEV_WARNING ? 200 : sev == SEV_INFO ? 100 : 0;
    if (isnan(cov))
        cov = 1;
    if (cov < 0)
        cov = 0;
    if (cov > 1)
        cov = 1;
    if (isnan(excess) || excess < 0)
        excess = 0;
    if (excess > 2)
        excess = 2;
    if (corroborations < 0)
        corroborations = 0;
    if (corroborations > 3)
        corroborations = 3;
    return base + 30.0 * excess * cov + 13.0 * corroborations;
}

/* Whether the growing process `proc` (memory.growth's culprit) lives in
 * cgroup `cg` (cgroup.memory_growth's culprit) or below it; its cgroup is
 * in table memory.growth. */
static bool proc_in_cgroup(const struct report *r, const char *proc, const char *cg)
{
    const struct table *t = report_find_table(r, NM_MEMORY_GROWTH);
    for (size_t i = 0; t && proc && cg && i < t->nrows; i++) {
        char lab[160];
        proc_label(t, i, lab, sizeof lab);
        const char *pcg = table_str(t, i, "cgroup");
        if (strcmp(lab, proc) == 0)
            return pcg && *pcg && cgroup_path_within(pcg, cg);
    }
    return false;
}

/* A process growing inside a growing cgroup is one leak.  Told as the
 * cgroup's when a cgroup limit comes first (sym: the process's finding)... */
static bool grower_meets_cgroup_limit(const struct report *r, const struct finding *sym,
                                      const struct finding *cause)
{
    return proc_in_cgroup(r, sym->culprit, cause->culprit) &&
           cgroup_memory_limit_first(r, cause->culprit);
}

/* ...and as the process's when the host's memory does (sym: the cgroup's). */
static bool grower_takes_host_memory(const struct report *r, const struct finding *sym,
                                     const struct finding *cause)
{
    return proc_in_cgroup(r, cause->culprit, sym->culprit) &&
           !cgroup_memory_limit_first(r, sym->culprit);
}

/* symptom is explained by cause (when same_culprit: only for the same
 * device/process/cgroup).  Applied in order, so chains resolve
 * (swap -> pressure -> oom). */
static const struct fold {
    const char *symptom, *cause;
    bool same_culprit;
    /* when set, decides instead of same_culprit */
    bool (*related)(const struct report *, const struct finding *sym,
                    const struct finding *cause);
} folds[] = {
    {"memory.swap", "memory.pressure", false, NULL},   /* swapping is how pressure shows */
    /* tasks waiting for a CPU is how saturated CPUs show */
    {"sched.runqueue_latency", "cpu.saturation", false, NULL},
    /* reclaim evicts the page cache: misses are how memory pressure shows in I/O */
    {"io.cache_misses", "memory.pressure", false, NULL},
    {"io.cache_misses", "memory.oom", false, NULL},
    {"memory.pressure", "memory.oom", false, NULL},    /* the OOM is where pressure ended */
    {"cgroup.memory_limit", "memory.oom", true, NULL}, /* the OOM-killed cgroup was at its limit */
    {"disk.latency", "disk.saturation", true, NULL},   /* a full queue makes each I/O wait */
    /* tasks stuck in D on a saturated disk's file system wait for that disk */
    {"proc.uninterruptible", "disk.saturation", true, NULL},
    /* a process growing steadily is what takes the available memory */
    {"memory.pressure", "memory.growth", true, NULL},
    /* the allocation profile (-p) names the growing process's leaking stack */
    {"memory.growth", "memory.leak_suspect", true, NULL},
    /* a process growing inside a growing cgroup: the cgroup's limit, when
     * it meets one first, else the process taking the host's memory */
    {"memory.growth", "cgroup.memory_growth", false, grower_meets_cgroup_limit},
    {"cgroup.memory_growth", "memory.growth", false, grower_takes_host_memory},
    {"fd.growth", "fd.exhaustion", true, NULL},        /* the leak is what fills the table */
    /* many short-lived processes are the busy CPUs' load (a build, a loop) */
    {"process.churn", "cpu.saturation", false, NULL},
};

static struct finding *find_mut(struct report *r, const char *id)
{
    for (size_t i = 0; i < r->nfindings; i++)
        if (strcmp(r->findings[i].id, id) == 0)
            return &r->findings[i];
    return NULL;
}

static void fold_one(struct report *r, struct finding *cause, struct finding *sym)
{
    finding_evidence(cause, "Also seen, explained by this (%s): %s", sym->id, sym->title);
    /* one story: the symptom's resources now point at the cause */
    finding_add_related(cause, sym->resource);
    for (size_t i = 0; i < sym->nrelated; i++)
        finding_add_related(cause, sym->related[i]);
    for (size_t i = 0; i < sym->nevidence; i++)
        finding_evidence(cause, "  %s", sym->evidence[i]);
    if (sym->sev > cause->sev)
        cause->sev = sym->sev;
    /* Corroborated by its own symptom: a little more than the better of the two. */
    double best = cause->score > sym->score ? cause->score : sym->score;
    double base = cause->sev == SEV_CRITICAL ? 300 : cause->sev == SEV_WARNING ? 200 : 100;
    double s = best + 5;
    if (s < base)
        s = base + 5;
    if (s > base + 99)
        s = base + 99;
    cause->score = s;
    report_remove_finding(r, sym);
}

static int cmp_finding(const void *a, const void *b)
{
    const struct finding *x = a, *y = b;
    if (x->score != y->score)
        return x->score < y->score ? 1 : -1;
    if (x->sev != y->sev)
        return x->sev < y->sev ? 1 : -1;
    return strcmp(x->id, y->id);
}

/* A drill-down finding says where a resource finding's load goes; it
 * ranks right below it rather than competing (both stay: the hottest
 * function matters, but the first line must name the saturated resource). */
static const struct drill {
    const char *detail, *resource_finding;
} drills[] = {
    {"cpu.hotspot", "cpu.saturation"},
    {"cpu.hotspot", "sched.runqueue_latency"},
    {"cpu.hotspot", "cgroup.cpu_throttled"},
};

static void rank_drilldowns(struct report *r)
{
    for (size_t k = 0; k < sizeof drills / sizeof drills[0]; k++) {
        struct finding *d = find_mut(r, drills[k].detail);
        const struct finding *res = find_mut(r, drills[k].resource_finding);
        if (d && res && d->score >= res->score) {
            d->score = res->score - 1;
            if (d->sev > res->sev)
                d->sev = res->sev;
        }
    }
}

void rank_findings(struct report *r)
{
    for (size_t k = 0; k < sizeof folds / sizeof folds[0]; k++) {
        struct finding *sym = find_mut(r, folds[k].symptom);
        struct finding *cause = find_mut(r, folds[k].cause);
        if (!sym || !cause)
            continue;
        if (folds[k].related ? !folds[k].related(r, sym, cause)
                             : folds[k].same_culprit && (!sym->culprit || !cause->culprit ||
                                                         strcmp(sym->culprit, cause->culprit) != 0))
            continue;
        fold_one(r, cause, sym); /* moves array elements: re-find next time */
    }
    rank_drilldowns(r);
    if (r->nfindings > 1)
        qsort(r->findings, r->nfindings, sizeof *r->findings, cmp_finding);
}

/* ---- headline ------------------------------------------------------------ */

static void sep(struct strbuf *sb, bool *first)
{
    sb_add(sb, *first ? ": " : ", ");
    *first = false;
}

/* With a target: where its time went, in one sentence ("The command's
 * threads: waiting for its child processes 50% (by design), on a CPU 49%."),
 * from table target.time (rows largest first). */
static void target_time_sentence(const struct report *r, struct strbuf *sb)
{
    const struct table *t = report_find_table(r, NM_TARGET_TIME);
    if (!t || !t->nrows)
        return;
    sb_addf(sb, " The %s's time: ", r->command ? "command" : "target");
    for (size_t i = 0, shown = 0; i < t->nrows && shown < 3; i++) {
        double pct = table_num(t, i, "share_pct");
        const char *what = table_str(t, i, "what"), *kind = table_str(t, i, "kind");
        if (!(pct >= 1) || !what)
            continue;
        sb_addf(sb, "%s%s %.0f%%%s", shown ? ", " : "", what, pct,
                kind && strcmp(kind, "by design") == 0 ? " (by design)" : "");
        shown++;
    }
    sb_add(sb, ".");
}

/* perfreport watch: what triggered the capture and what the charts cover
 * (" Triggered by psi.memory.some 34 % at 03:12:07 UTC; 60 s before, 32 s
 * after."), from the model alone, so that a bundle judged again says it
 * as the capture did. */
static void trigger_sentence(const struct report *r, struct strbuf *sb)
{
    if (!r->window.triggered || !r->window.trigger_what)
        return;
    double before = r->nticks && r->ticks[0] < r->window.trigger_s
                        ? r->window.trigger_s - r->ticks[0] : 0;
    sb_addf(sb, " Triggered by %s; %.0f s before, %.0f s after.", r->window.trigger_what, before,
            r->window.actual_s - r->window.trigger_s);
}

void rank_headline(struct report *r)
{
    if (r->nfindings && r->findings[0].sev >= SEV_WARNING) {
        /* The severity word is added by each renderer in its own style. */
        struct strbuf sb = STRBUF_INIT;
        sb_add(&sb, r->findings[0].title);
        if (r->headline_note)
            sb_addf(&sb, " (%s)", r->headline_note);
        if (r->nfindings > 1)
            sb_addf(&sb, " (+%zu more finding%s)", r->nfindings - 1,
                    r->nfindings == 2 ? "" : "s");
        trigger_sentence(r, &sb);
        report_set_headline(r, sb_str(&sb));
        sb_free(&sb);
        return;
    }

    /* Nothing worth a warning: say what was measured, so "no problem" is
     * backed by numbers rather than by missing data. */
    struct strbuf sb = STRBUF_INIT;
    /* a run without root skipped the BPF collectors: its "no problem" is
     * about less, and says so */
    bool not_root = false;
    for (size_t i = 0; i < r->nledger && !not_root; i++)
        not_root = ledger_not_root(&r->ledger[i]);
    sb_add(&sb, not_root ? "No problem found in what a run without root measures"
                         : "No problem found");
    bool first = true;
    double util = report_metric_value(r, NM_CPU_UTIL_PCT);
    if (!isnan(util)) {
        sep(&sb, &first);
        sb_addf(&sb, "CPU %.0f%% busy", util);
    }
    double avail = report_metric_value(r, NM_MEM_AVAILABLE_PCT);
    if (!isnan(avail)) {
        sep(&sb, &first);
        sb_addf(&sb, "memory %.0f%% available", avail);
    }
    const struct table *disk = report_find_table(r, NM_DISK);
    long d = table_argmax(disk, "util_pct");
    if (d >= 0) {
        sep(&sb, &first);
        double u = table_num(disk, (size_t)d, "util_pct");
        if (u < 5)
            sb_add(&sb, "disks idle");
        else
            sb_addf(&sb, "busiest disk %s %.0f%% busy",
                    table_str(disk, (size_t)d, "device") ? table_str(disk, (size_t)d, "device") : "?",
                    u);
    }
    double drops = report_metric_value(r, NM_NET_DROPS_PER_S);
    double retr = report_metric_value(r, NM_TCP_RETRANS_SEGS);
    double rpct = report_metric_value(r, NM_TCP_RETRANS_PCT);
    if (!isnan(drops) || !isnan(retr) || !isnan(rpct)) {
        sep(&sb, &first);
        bool no_drops = isnan(drops) || drops == 0;
        bool no_retr = (isnan(retr) || retr == 0) && (isnan(rpct) || rpct == 0);
        if (no_drops && no_retr)
            sb_addf(&sb, "no %s", !isnan(drops) && (!isnan(retr) || !isnan(rpct))
                                      ? "drops or retransmits"
                                      : !isnan(drops) ? "drops" : "retransmits");
        else {
            bool any = false;
            if (!isnan(drops)) {
                sb_addf(&sb, "%.1f drops/s", drops);
                any = true;
            }
            if (!isnan(rpct))
                sb_addf(&sb, "%s%.2f%% TCP retransmits", any ? ", " : "", rpct);
            else if (!isnan(retr))
                sb_addf(&sb, "%s%.0f TCP retransmits", any ? ", " : "", retr);
        }
    }
    double win = report_window_s(r);
    if (win > 0)
        sb_addf(&sb, " in the %.0f s window", win);
    sb_add(&sb, ".");
    target_time_sentence(r, &sb);
    trigger_sentence(r, &sb);
    report_set_headline(r, sb_str(&sb));
    sb_free(&sb);
}
