/* report.md: the report's document tree (doc_report.h) as CommonMark with
 * GitHub pipe tables, for tickets.  index.html is the same tree rendered as
 * HTML; nothing parses this text back. */
#ifndef PERFREPORT_MARKDOWN_H
#define PERFREPORT_MARKDOWN_H

struct report;
struct renderer;
struct strbuf;

/* Appends the whole Markdown report to out. */
void markdown_render(const struct report *r, struct strbuf *out);

extern const struct renderer renderer_markdown;
#endif
