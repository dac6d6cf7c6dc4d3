/* index.html (internal to the html renderer; exposed for unit tests). */
#ifndef PERFREPORT_HTML_H
#define PERFREPORT_HTML_H
#include "../util/strbuf.h"

struct report;
struct doc;

/* Appends the whole index.html (head, CSP, CSS, banner, body) for r. */
void html_document(const struct report *r, struct strbuf *out);
/* The same page around any document (perfreport diff's): the banner shows
 * headline and r's host and window; doc is rendered (and changed) as
 * doc_render_html does. */
void html_page(const struct report *r, struct doc *doc, const char *headline, struct strbuf *out);
#endif
