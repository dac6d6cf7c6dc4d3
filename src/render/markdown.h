#ifndef PERFREPORT_MARKDOWN_H
#define PERFREPORT_MARKDOWN_H
struct report;
struct strbuf;

void markdown_render(const struct report *r, struct strbuf *out);
#endif
