/* The report's document tree, built from the model (doc.h); and the pieces
 * that summary.md shares with it. */
#ifndef PERFREPORT_DOC_REPORT_H
#define PERFREPORT_DOC_REPORT_H
#include "doc.h"

/* The whole report, as report.md and index.html show it.  Caller frees. */
struct doc *doc_report(const struct report *r);

/* "**CRITICAL:** headline" (FAILED for a failed run) as a paragraph marked
 * as the verdict. */
void doc_verdict(const struct report *r, cmark_node *parent);
/* "Case: INC-42 · after the kernel update" (--case-id, --label), nothing
 * when the run has neither. */
void doc_case(const struct report *r, cmark_node *parent);
/* "Host web1 · kernel 6.1 · 2 CPUs · 10.0 s window ... · started ... UTC". */
void doc_context(const struct report *r, cmark_node *parent);
/* The collectors a run without root skipped ("not root: ..."): how many,
 * and the first max_named titles into titles ("CPU profile, Off-CPU time
 * and 4 more"; NULL: only the count). */
struct strbuf;
size_t report_not_root(const struct report *r, struct strbuf *titles, size_t max_named);
/* "Not measured without root: TITLES (N collectors) ... run as root"; nothing
 * for a run that skipped none for that. */
void doc_not_root(const struct report *r, cmark_node *parent);
/* `perfreport -- CMD`: "Command: CMD (pid N, as user U) exited with
 * status S after T s" (doc_command.c); nothing for a run without one. */
void doc_command(const struct report *r, cmark_node *parent);
/* For a report without a finding at warning or above: a paragraph on what a
 * window of this length cannot see; nothing otherwise. */
void doc_window_limits(const struct report *r, cmark_node *parent);
/* One finding as an item of the ordered list `list`: title, at most
 * max_evidence evidence lines (and how many more), what to do.  Returns
 * the item, to which the caller may add paragraphs. */
cmark_node *doc_finding(cmark_node *list, const struct finding *f, size_t max_evidence);
#endif
