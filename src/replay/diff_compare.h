/* Comparing two reports (perfreport diff OLD NEW): which findings are new,
 * resolved, worse or better, how each key metric moved and whether the move
 * is beyond the variation within each window, which host facts differ, and
 * differential stack profiles.  Built from two analysed reports; nothing
 * here knows about output formats (diff_render.c draws it).
 *
 * Ownership: a struct diff borrows both reports (they must outlive it) and
 * owns its arrays, strings and profiles; diff_free() releases them. */
#ifndef PERFREPORT_DIFF_COMPARE_H
#define PERFREPORT_DIFF_COMPARE_H
#include "../model/model.h"
#include <stdbool.h>
#include <stddef.h>

enum diff_change { DIFF_NEW, DIFF_RESOLVED, DIFF_WORSE, DIFF_BETTER, DIFF_SAME };
const char *diff_change_name(enum diff_change c); /* "new" "resolved" ... */

struct diff_finding {
    const struct finding *old, *neu; /* borrowed; one of them NULL for new/resolved */
    enum diff_change change;
};

/* The spread rule: a change of the mean is "beyond the spread" when
 * |new - old| > DIFF_SPREAD_K * max(sd_old, sd_new) and also at least
 * DIFF_MIN_REL of max(|old|, |new|).  Without per-tick series for the metric
 * (no spread known), only the relative change counts, and such a change is
 * shown as such but never makes the headline. */
#define DIFF_SPREAD_K 2.0
#define DIFF_MIN_REL 0.05

struct diff_metric {
    const struct metric *old, *neu; /* borrowed; both present */
    double delta;   /* neu - old */
    double rel;     /* delta / |old|; NAN when old is 0 */
    double sd_old, sd_new; /* within-window standard deviation of the series
                            * of the same name; NAN when there is none */
    bool spread_known; /* a per-tick series of the same name on both sides */
    bool beyond;    /* the change is beyond the spread (a clear change); without
                     * a known spread, only that it passes DIFF_MIN_REL */
};

struct diff_fact {
    char *key, *title;       /* owned */
    char *old, *neu;         /* owned, formatted; NULL when absent on that side */
};

struct diff {
    const struct report *old, *neu;
    struct diff_finding *findings; /* new, worse, resolved, better, same; each by severity */
    size_t nfindings;
    struct diff_metric *metrics; /* in NEW's order, metrics present on both sides */
    size_t nmetrics;
    struct diff_fact *facts; /* host facts that differ */
    size_t nfacts;
    struct profile *cpu, *offcpu; /* differential (profile_diff.h), or NULL */
    char *headline;               /* the most important change in words */
};

/* Host facts, capabilities (configuration) and the CPU quota and memory
 * limit of each cgroup listed in both reports' "cgroup" tables are
 * compared; facts that differ between any two runs (uptime, perfreport's
 * own costs) are not.
 * Compares two analysed reports. */
struct diff *diff_compare(const struct report *old, const struct report *neu);
void diff_free(struct diff *d);

/* Mean and population standard deviation of the finite values series s of
 * report r has in r's window (report_window_first_tick: not a watch
 * bundle's samples from before its trigger); NAN both when it has none. */
void diff_series_stats(const struct report *r, const struct series *s, double *mean,
                       double *sd);
/* The spread rule above (sd_old/sd_new NAN: no spread known). */
bool diff_beyond_spread(double old, double neu, double sd_old, double sd_new);
/* A differential profile: NEW's counts drawn, OLD's as the baseline scaled
 * to NEW's total (so each side is normalised by its own total, as
 * difffolded.pl -n does).  NULL when either side has no samples. */
struct profile *diff_profile(const struct profile *old, const struct profile *neu,
                             const char *name, const char *title);
#endif
