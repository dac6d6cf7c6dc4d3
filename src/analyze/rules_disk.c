/* Disk findings: saturation and latency (iostat, and the BPF block-latency
 * p99 when biolat ran). */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static struct sig disk_sig(const struct report *r, const struct table *d, size_t row,
                           const char *thr_id, const char *col, const char *suffix)
{
    char sname[256];
    const char *dev = table_str(d, row, "device");
    snprintf(sname, sizeof sname, NMF_DISK_SERIES, dev ? dev : "", suffix);
    return sig_value(r, thr_id, table_num(d, row, col), dev ? sname : NULL);
}

static struct sig disk_await_sig(const struct report *r, const struct table *d, size_t row)
{
    char sname[256];
    const char *dev = table_str(d, row, "device");
    snprintf(sname, sizeof sname, NMF_DISK_SERIES, dev ? dev : "", "await_ms");
    return sig_with(r, thr_disk_await(r, table_str(d, row, "class")),
                    table_num(d, row, "await_ms"), dev ? sname : NULL);
}

static void evidence_dstate(struct finding *f, const struct report *r)
{
    const struct table *ds = report_find_table(r, NM_PROC_DSTATE);
    size_t idx[16];
    size_t n = top_rows(ds, "ticks_in_d", idx, 16);
    if (!n)
        return;
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, "Processes seen waiting in D state (uninterruptible, usually I/O): ");
    /* a row per task: a process's threads are named once, by its busiest */
    double named[3];
    size_t nn = 0;
    for (size_t i = 0; i < n && nn < 3; i++) {
        double pid = table_num(ds, idx[i], "pid");
        bool skip = dstate_frozen(ds, idx[i]); /* paused, not waiting for the disk */
        for (size_t k = 0; k < nn; k++)
            skip = skip || named[k] == pid;
        if (skip)
            continue;
        char lab[128];
        proc_label(ds, idx[i], lab, sizeof lab);
        sb_addf(&sb, "%s%s in %.0f samples", nn ? ", " : "", lab, table_num(ds, idx[i], "ticks_in_d"));
        named[nn++] = pid;
    }
    if (nn)
        finding_evidence(f, "%s", sb_str(&sb));
    sb_free(&sb);
}

void rule_disk_saturation(struct report *r, const struct rule *self)
{
    const struct table *d = report_find_table(r, NM_DISK);
    if (!d)
        return;
    struct sig bu = {.v = NAN, .cov = NAN}, bq = bu;
    long row = -1;
    int others = 0;
    for (size_t i = 0; i < d->nrows; i++) {
        struct sig u = disk_sig(r, d, i, "disk.util_pct", "util_pct", "util_pct");
        struct sig q = disk_sig(r, d, i, "disk.aqu_sz", "aqu_sz", "aqu_sz");
        const struct sig *w = sig_worse(&q, &u) ? &q : &u;
        const struct sig *bw = sig_worse(&bq, &bu) ? &bq : &bu;
        others += w->sev >= SEV_WARNING;
        if (row < 0 || sig_worse(w, bw)) {
            bu = u;
            bq = q;
            row = (long)i;
        }
    }
    enum severity sev = sev_max(bu.sev, bq.sev);
    if (row < 0 || sev < SEV_WARNING)
        return;
    size_t i = (size_t)row;
    const char *dev = table_str(d, i, "device");
    double rps = table_num(d, i, "r_per_s"), wps = table_num(d, i, "w_per_s");
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Disk %s %s", dev ? dev : "?",
            sev == SEV_CRITICAL || bq.sev >= SEV_WARNING ? "saturated" : "busy");
    const char *sepr = ": ";
    if (!isnan(bu.v)) {
        sb_addf(&t, "%s%.0f%% busy", sepr, bu.v);
        sepr = ", ";
    }
    if (!isnan(bq.v)) {
        sb_addf(&t, "%squeue depth %.1f", sepr, bq.v);
        sepr = ", ";
    }
    if (!isnan(rps) || !isnan(wps))
        sb_addf(&t, "%s%.0f I/O per s", sepr, num0(rps) + num0(wps));
    struct finding *f = rule_add(r, self, sev, &t);
    sig_evidence(f, "Disk busy time", &bu);
    sig_evidence(f, "Average queue depth", &bq);
    struct sig aw = disk_await_sig(r, d, i);
    const char *cls = table_str(d, i, "class");
    char lab[96];
    snprintf(lab, sizeof lab, "Average I/O latency (%s class)", cls ? cls : "unknown");
    sig_evidence(f, lab, &aw);
    double rk = table_num(d, i, "rkb_per_s"), wk = table_num(d, i, "wkb_per_s");
    if (!isnan(rps) || !isnan(wps))
        finding_evidence(f, "Reads %.0f/s (%.0f KiB/s), writes %.0f/s (%.0f KiB/s)", num0(rps),
                         num0(rk), num0(wps), num0(wk));
    struct sig psi = sig_metric(r, "psi.some_pct", NM_PSI_IO_SOME_PCT, NM_PSI_IO_SOME_PCT);
    sig_evidence(f, "PSI io some (share of time tasks waited for I/O)", &psi);
    if (psi.sev >= SEV_WARNING)
        finding_add_related(f, "psi");
    evidence_dstate(f, r);
    if (others > 1)
        finding_evidence(f, "%d other disk%s also past a warning level", others - 1,
                         others == 2 ? " is" : "s are");
    if (dev)
        finding_set_culprit(f, dev);
    const struct sig *lead = sig_worse(&bq, &bu) ? &bq : &bu;
    int corr = (bu.sev >= SEV_WARNING && bq.sev >= SEV_WARNING) + (psi.sev >= SEV_WARNING);
    f->score = rank_score(sev, lead->excess, lead->cov, corr);
}

/* disk.latency from the BPF block-latency table: when biolat ran, the p99
 * per device (issue to completion) is judged against its class threshold.
 * A p99 is a better latency signal than iostat's average await: a device
 * that is fast on average but stalls one request in a hundred shows here.
 * Below BIO_MIN_IOS I/Os a p99 is the slowest one or two requests.  Its
 * advice names the p99 instead of the row's await. */
#define BIO_MIN_IOS 100
/* An average await over fewer I/Os in the window is an anecdote, not a
 * latency problem: reported as information. */
#define AWAIT_MIN_IOS 10
/* The window length a report without one is taken to have (the default). */
#define DEFAULT_WINDOW_S 30.0

static bool disk_latency_bio(struct report *r, const struct rule *self)
{
    const struct table *d = report_find_table(r, NM_DISK_LATENCY);
    if (!d || d->nrows == 0)
        return false;
    struct sig best = {.v = NAN, .cov = NAN};
    long row = -1;
    for (size_t i = 0; i < d->nrows; i++) {
        struct sig s = sig_with(r, thr_disk_await(r, table_str(d, i, "class")),
                                table_num(d, i, "p99_ms"), NULL);
        sig_keep_worst(&best, &row, &s, i);
    }
    if (row < 0 || best.sev < SEV_WARNING)
        return true; /* measured, and fine */
    size_t i = (size_t)row;
    double ios = table_num(d, i, "ios");
    enum severity sev = isnan(ios) || ios < BIO_MIN_IOS ? SEV_INFO : best.sev;
    const char *dev = table_str(d, i, "device");
    const char *cls = table_str(d, i, "class");
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Disk %s slow: p99 I/O latency %.1f ms over %.0f I/Os (%s disk: warning at "
                "%g ms, critical at %g ms)",
            dev ? dev : "?", best.v, isnan(ios) ? 0 : ios, cls ? cls : "unknown",
            best.t->warn, best.t->crit);
    struct finding *f = rule_add(r, self, sev, &t);
    char lab[96];
    snprintf(lab, sizeof lab, "p99 device latency (%s class)", cls ? cls : "unknown");
    sig_evidence(f, lab, &best);
    double rp50 = table_num(d, i, "read_p50_ms"), rp99 = table_num(d, i, "read_p99_ms");
    double wp50 = table_num(d, i, "write_p50_ms"), wp99 = table_num(d, i, "write_p99_ms");
    if (!isnan(rp99))
        finding_evidence(f, "Reads: p50 %.2f ms, p99 %.2f ms", rp50, rp99);
    if (!isnan(wp99))
        finding_evidence(f, "Writes: p50 %.2f ms, p99 %.2f ms", wp50, wp99);
    double mx = table_num(d, i, "max_ms");
    if (!isnan(mx))
        finding_evidence(f, "Slowest request %.1f ms", mx);
    /* the iostat view of the same disk, for corroboration */
    const struct table *ds = report_find_table(r, NM_DISK);
    int corr = 0;
    for (size_t k = 0; ds && dev && k < ds->nrows; k++) {
        const char *n = table_str(ds, k, "device");
        if (!n || strcmp(n, dev) != 0)
            continue;
        double aw = table_num(ds, k, "await_ms");
        if (!isnan(aw)) {
            struct sig a = sig_with(r, thr_disk_await(r, cls), aw, NULL);
            sig_evidence(f, "Average await (iostat)", &a);
            corr += a.sev >= SEV_WARNING;
        }
    }
    if (sev == SEV_INFO)
        finding_evidence(f, "Only %.0f I/Os in the window: too few for a reliable p99",
                         isnan(ios) ? 0 : ios);
    finding_set_recommendation(
        f, "The slowest requests take longer than this class of device should need. If the "
           "queue is deep, the disk is overloaded (see disk.saturation); if not, the device or "
           "its backend is slow or degraded: check smartctl / nvme smart-log, the RAID or "
           "hypervisor storage, and whether synchronous writes (fsync, flushes) dominate.");
    if (dev)
        finding_set_culprit(f, dev);
    f->score = rank_score(sev, best.excess, NAN, corr);
    return true;
}

void rule_disk_latency(struct report *r, const struct rule *self)
{
    /* the BPF p99 per device, when measured, is the better signal */
    if (disk_latency_bio(r, self))
        return;
    const struct table *d = report_find_table(r, NM_DISK);
    if (!d)
        return;
    double win = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    if (!(win > 0))
        win = DEFAULT_WINDOW_S;
    struct sig best = {.v = NAN, .cov = NAN};
    long row = -1;
    for (size_t i = 0; i < d->nrows; i++) {
        struct sig s = disk_await_sig(r, d, i);
        sig_keep_worst(&best, &row, &s, i);
    }
    if (row < 0 || best.sev < SEV_WARNING)
        return;
    size_t i = (size_t)row;
    double iops = num0(table_num(d, i, "r_per_s")) + num0(table_num(d, i, "w_per_s"));
    enum severity sev = iops * win < AWAIT_MIN_IOS ? SEV_INFO : best.sev;
    const char *dev = table_str(d, i, "device");
    const char *cls = table_str(d, i, "class");
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Disk %s slow: %.1f ms average I/O latency at %.0f I/O per s (%s disk: warning "
                "at %g ms, critical at %g ms)",
            dev ? dev : "?", best.v, iops, cls ? cls : "unknown", best.t->warn, best.t->crit);
    struct finding *f = rule_add(r, self, sev, &t);
    char lab[96];
    snprintf(lab, sizeof lab, "Average I/O latency (await, %s class)", cls ? cls : "unknown");
    sig_evidence(f, lab, &best);
    double ra = table_num(d, i, "r_await_ms"), wa = table_num(d, i, "w_await_ms");
    if (!isnan(ra) || !isnan(wa))
        finding_evidence(f, "Reads %.1f ms at %.0f/s, writes %.1f ms at %.0f/s", num0(ra),
                         num0(table_num(d, i, "r_per_s")), num0(wa), num0(table_num(d, i, "w_per_s")));
    double rq = table_num(d, i, "avg_rq_kib");
    if (!isnan(rq))
        finding_evidence(f, "Average request size %.0f KiB", rq);
    struct sig q = disk_sig(r, d, i, "disk.aqu_sz", "aqu_sz", "aqu_sz");
    sig_evidence(f, "Average queue depth", &q);
    if (sev == SEV_INFO)
        finding_evidence(f, "Only %.0f I/Os in the window: too few to call it a problem", iops * win);
    if (dev)
        finding_set_culprit(f, dev);
    f->score = rank_score(sev, best.excess, best.cov, q.sev >= SEV_WARNING);
}

