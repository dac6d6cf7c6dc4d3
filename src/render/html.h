/* index.html (internal to the html renderer; exposed for unit tests). */
#ifndef PERFREPORT_HTML_H
#define PERFREPORT_HTML_H
#include "../util/strbuf.h"

struct report;

/* Appends the whole index.html (head, CSP, CSS, banner, body) for r. */
void html_document(const struct report *r, struct strbuf *out);
#endif
