/* io.cache_misses and io.fsync (synchronous I/O: fsync family and
 * O_SYNC/O_DSYNC writes): the I/O-layer findings (BPF iolayers). */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>

/* Below this many page lookups a hit rate says nothing about the cache. */
#define IO_MIN_LOOKUPS 1000
/* 1 MiB/s of cache fills: below it misses cost the disk little. */
#define IO_MIN_MISS_KIB_PER_S 1024.0

void rule_io_cache_misses(struct report *r, const struct rule *self)
{
    double lookups = report_metric_value(r, NM_IO_PAGE_LOOKUPS);
    double hit = report_metric_value(r, NM_IO_CACHE_HIT_PCT);
    if (isnan(hit) || isnan(lookups) || lookups < IO_MIN_LOOKUPS)
        return;
    struct sig s = sig_value(r, "io.cache_hit_pct", hit, NULL);
    if (s.sev < SEV_WARNING)
        return;
    double added = report_metric_value(r, NM_IO_PAGES_ADDED);
    /* A ratio alone overstates small volumes: a program starting cold reads
     * a few MiB from disk once.  Misses matter when they cost real disk
     * bandwidth; below IO_MIN_MISS_KIB_PER_S the finding stays info. */
    double secs = r->window.actual_s > 0 ? r->window.actual_s : r->window.planned_s;
    double miss_kib_s = !isnan(added) && secs > 0 ? added * 4.0 / secs : NAN;
    bool small = !isnan(miss_kib_s) && miss_kib_s < IO_MIN_MISS_KIB_PER_S;
    if (small)
        s.sev = SEV_INFO;
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Page-cache misses: only %.1f%% of pages read were already cached", hit);
    struct finding *f = rule_add(r, self, s.sev, &t);
    sig_evidence(f, "Read page-cache hit rate", &s);
    finding_evidence(f, "%.0f pages looked up by read() calls, %.0f added to the cache while "
                        "they ran (1 - added / looked up; readahead counts as a miss)",
                     lookups, isnan(added) ? 0 : added);
    if (!isnan(miss_kib_s))
        finding_evidence(f, "Read from disk into the cache: %.0f KiB/s%s", miss_kib_s,
                         small ? " (a small volume: kept at info)" : "");
    double br = report_metric_value(r, NM_IO_BLOCK_READS);
    if (!isnan(br))
        finding_evidence(f, "%.0f block read requests issued in the window", br);
    struct sig psi = sig_metric(r, "psi.some_pct", NM_PSI_IO_SOME_PCT, NM_PSI_IO_SOME_PCT);
    if (!isnan(psi.v))
        sig_evidence(f, "I/O pressure (PSI io some)", &psi);
    if (psi.sev >= SEV_WARNING)
        finding_add_related(f, "psi");
    f->score = rank_score(s.sev, s.excess, NAN, psi.sev >= SEV_WARNING);
}

void rule_io_fsync(struct report *r, const struct rule *self)
{
    struct sig rate = sig_metric(r, "io.fsync_per_s", NM_IO_FSYNC_PER_S, NULL);
    const struct table *t = report_find_table(r, NM_IO_FSYNC);
    struct sig share = {.v = NAN, .cov = NAN};
    long row = t ? table_argmax(t, "window_pct") : -1;
    if (row >= 0)
        share = sig_value(r, "io.fsync_time_pct", table_num(t, (size_t)row, "window_pct"), NULL);
    if (rate.sev < SEV_WARNING && share.sev < SEV_WARNING)
        return;
    const struct sig *lead = sig_worse(&share, &rate) ? &share : &rate;
    /* the process that spent the most time syncing; else the busiest caller */
    if (row < 0 || share.sev < SEV_WARNING) {
        long byrate = t ? table_argmax(t, "calls") : -1;
        if (byrate >= 0)
            row = byrate;
    }
    char lab[128] = "";
    if (row >= 0)
        proc_label(t, (size_t)row, lab, sizeof lab);
    /* Writes to an O_SYNC/O_DSYNC file are as synchronous as fsync but no
     * fsync appears in the code: say which kind the culprit made. */
    double calls = row >= 0 ? table_num(t, (size_t)row, "calls") : NAN;
    double sw = row >= 0 ? table_num(t, (size_t)row, "sync_writes") : NAN;
    bool writes = !isnan(sw) && sw > 0 && sw * 2 >= calls;
    struct strbuf tt = STRBUF_INIT;
    if (writes)
        sb_addf(&tt, "Frequent synchronous writes (O_SYNC/O_DSYNC): %.1f sync I/O calls/s",
                isnan(rate.v) ? 0 : rate.v);
    else
        sb_addf(&tt, "Frequent fsync: %.1f calls/s", isnan(rate.v) ? 0 : rate.v);
    if (row >= 0)
        sb_addf(&tt, "; %s made %.0f, blocked %.1f%% of the window (p99 %.1f ms)", lab, calls,
                table_num(t, (size_t)row, "window_pct"),
                table_num(t, (size_t)row, "p99_us") / 1000.0);
    struct finding *f = rule_add(r, self, lead->sev, &tt);
    sig_evidence(f, "Synchronous I/O calls: fsync family and O_SYNC/O_DSYNC writes "
                    "(all processes)", &rate);
    if (row >= 0) {
        char l2[192];
        snprintf(l2, sizeof l2, "Time %s spent in synchronous I/O calls", lab);
        sig_evidence(f, l2, &share);
        finding_set_culprit(f, lab);
        if (!isnan(sw) && sw > 0)
            finding_evidence(f, "%.0f of %s's %.0f calls were writes to a file opened O_SYNC or "
                                "O_DSYNC (each waits for the device like an fdatasync)",
                             sw, lab, calls);
    }
    double ms = report_metric_value(r, NM_IO_FSYNC_MS);
    if (!isnan(ms))
        finding_evidence(f, "%.0f ms spent in synchronous I/O calls in total "
                            "(fsync, fdatasync, sync_file_range, msync(MS_SYNC), O_SYNC/O_DSYNC writes)",
                         ms);
    f->score = rank_score(lead->sev, lead->excess, NAN, rate.sev >= SEV_WARNING &&
                                                          share.sev >= SEV_WARNING);
}
