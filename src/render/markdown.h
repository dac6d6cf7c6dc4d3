/* report.md: the report as CommonMark + GitHub pipe tables, for tickets.
 * The HTML renderer converts the same text with cmark, so it must hold no
 * raw HTML: every host or model string is escaped with esc_md(), and charts
 * are image nodes ![title](chart-*.svg) that the HTML side swaps for SVG. */
#ifndef PERFREPORT_MARKDOWN_H
#define PERFREPORT_MARKDOWN_H

struct report;
struct renderer;
struct strbuf;

/* Appends the whole Markdown report to out. */
void markdown_render(const struct report *r, struct strbuf *out);

extern const struct renderer renderer_markdown;
#endif
