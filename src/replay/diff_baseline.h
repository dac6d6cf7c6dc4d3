/* --baseline BUNDLE: a run compared with an earlier bundle (analysis stage).
 * The comparison (diff_compare) goes into the model as the table
 * "baseline.changes" (resource "baseline"), the fact "baseline" (host and
 * time of the baseline) and, when the run's first finding is new or worse
 * than in the baseline, the headline says so.  Renderers show it like any
 * other section. */
#ifndef PERFREPORT_DIFF_BASELINE_H
#define PERFREPORT_DIFF_BASELINE_H
#include "../model/model.h"

/* The baseline itself is loaded with bundle_load_judged (replay/judge.h),
 * with the run's thresholds file. */
/* Adds the comparison of r (analysed) with base to r. */
void baseline_apply(struct report *r, const struct report *base);
/* Before analysis: what the rules compare with, from base into r (table
 * baseline.syscall_errors: the (syscall, errno) pairs that failed then). */
void baseline_note(struct report *r, const struct report *base);
#endif
