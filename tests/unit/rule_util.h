/* Helpers for the tests of rules: a finding's severity and evidence, and a
 * quiet 10 s host to build a case on. */
#ifndef PERFREPORT_TEST_RULE_UTIL_H
#define PERFREPORT_TEST_RULE_UTIL_H
#include "harness.h"
#include "../../src/analyze/analyze.h"
#include "../../src/model/model.h"
#include <stdbool.h>
#include <string.h>

/* SEV_NONE when the finding is absent. */
static inline enum severity sev_of(const struct report *r, const char *id)
{
    const struct finding *f = report_find_finding(r, id);
    return f ? f->sev : SEV_NONE;
}

/* Does a line of finding id's evidence contain needle? */
static inline bool evidence_has(const struct report *r, const char *id, const char *needle)
{
    const struct finding *f = report_find_finding(r, id);
    for (size_t i = 0; f && i < f->nevidence; i++)
        if (strstr(f->evidence[i], needle))
            return true;
    return false;
}

/* A 10 s window on a host with nothing queued; not analyzed yet. */
static inline struct report *quiet_host(void)
{
    struct report *r = report_new();
    r->window.actual_s = 10;
    r->window.planned_s = 10;
    report_metric(r, "cpu.runq_per_cpu", "", "", "cpu", 0.1);
    return r;
}
/* The default thresholds, as analyze_run loads them, for a rule run alone. */
static inline void load_default_thresholds(struct report *r)
{
    char err[256];
    CHECK(thresholds_load(r, NULL, err, sizeof err) == 0);
}
#endif
