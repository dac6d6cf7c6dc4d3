/* The run as metrics for Prometheus, in a form node_exporter's textfile
 * collector reads (--metrics FILE): text exposition format 0.0.4 that is at
 * the same time OpenMetrics 1.0 text (only gauges, HELP/TYPE/UNIT lines,
 * "# EOF" last, which the 0.0.4 parser takes as a comment).
 *
 * What is in it: the exit status and worst severity, the number of findings
 * per severity, one series per finding (labels id and resource: ours, never
 * host text such as titles or culprits), a fixed set of window metrics
 * converted to base units (seconds, bytes, 0-1 ratios) with the unit in the
 * name, and the run's own cost.  A metric the model lacks is left out, never
 * written as 0. */
#ifndef PERFREPORT_OPENMETRICS_H
#define PERFREPORT_OPENMETRICS_H
#include <stdbool.h>

struct report;
struct strbuf;

struct metrics_run {
    int exit_status; /* what perfreport exits with (3: the run failed) */
    double wall_s;   /* the run's wall time so far; NAN when unknown */
};

/* Appends the exposition of r and run to out. */
void openmetrics_render(const struct report *r, const struct metrics_run *run,
                        struct strbuf *out);
/* A label value: '\\', '"' and newline escaped; other control characters and
 * invalid UTF-8 become U+FFFD (the format has no escape for them). */
void openmetrics_label_value(struct strbuf *out, const char *s);
#endif
