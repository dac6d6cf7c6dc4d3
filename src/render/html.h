/* Markdown -> HTML for index.html (internal to the html renderer; exposed for
 * unit tests, which feed hand-written Markdown). */
#ifndef PERFREPORT_HTML_H
#define PERFREPORT_HTML_H
#include "../util/strbuf.h"

struct report;

/* Appends the HTML fragment for `md` to out: raw HTML in md becomes text,
 * GFM pipe tables become <table>, chart images become inline SVG, other
 * images and non-'#' links become their text.  XHTML-compatible output. */
void html_from_markdown(const struct report *r, const char *md, struct strbuf *out);

/* Appends the whole index.html (head, CSP, CSS, banner, body) for `md`. */
void html_document(const struct report *r, const char *md, struct strbuf *out);
#endif
