/* summary.md: the verdict and the findings at warning or above, with their
 * first evidence and what to do, in at most 60 lines, ready to paste into a
 * ticket or a chat (CommonMark, escaped as report.md). */
#ifndef PERFREPORT_SUMMARY_H
#define PERFREPORT_SUMMARY_H

struct report;
struct renderer;
struct strbuf;

/* Appends the summary to out. */
void summary_render(const struct report *r, struct strbuf *out);

extern const struct renderer renderer_summary;
#endif
