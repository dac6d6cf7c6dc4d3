/* disk.latency from the BPF block-latency table: when biolat ran, the p99
 * per device (issue to completion) is judged against its class threshold.
 * A p99 is a better latency signal than iostat's average await: a device
 * that is fast on average but stalls one request in a hundred shows here. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Below this many I/Os a p99 is the slowest one or two requests. */
#define BIO_MIN_IOS 100

bool rule_disk_latency_bio(struct report *r)
{
    const struct table *d = report_find_table(r, "disk.latency");
    if (!d || d->nrows == 0)
        return false;
    struct sig best = {.v = NAN, .cov = NAN};
    long row = -1;
    for (size_t i = 0; i < d->nrows; i++) {
        struct sig s = sig_with(r, thr_disk_await(r, table_str(d, i, "class")),
                                table_num(d, i, "p99_ms"), NULL);
        if (row < 0 || sig_worse(&s, &best)) {
            best = s;
            row = (long)i;
        }
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
    struct finding *f = report_add_finding(r, "disk.latency", sev, "disk", sb_str(&t));
    sb_free(&t);
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
    const struct table *ds = report_find_table(r, "disk");
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
