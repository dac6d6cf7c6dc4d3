/* Markdown pieces shared by the document tree (doc.h) and its renderings:
 * number and severity words, heading anchors, the file writer. */
#ifndef PERFREPORT_MD_COMMON_H
#define PERFREPORT_MD_COMMON_H
#include "../model/model.h"
#include "../util/strbuf.h"
#include <stddef.h>

#define MD_MAX_TEXT 80 /* characters of host/model text in one place */
#define MD_MAX_CMDLINE 120

struct out_sink;
/* Renders the whole file with render and writes it to out as name: a
 * Markdown renderer's render(). */
int md_write_file(const struct report *r, const struct out_sink *out, const char *name,
                  void (*render)(const struct report *, struct strbuf *));
/* Adaptive precision for numbers without a declared number of decimals. */
void md_number(struct strbuf *sb, double v);
/* "CRITICAL", "WARNING", "INFO", "OK". */
const char *md_sev_word(enum severity s);
/* Heading anchors as GitHub and GitLab make them, so that "#cpu" finds
 * "## CPU" in index.html and in report.md shown by a forge alike: the
 * heading's text lowercased, letters, digits, '-' and '_' kept, spaces as
 * '-', other ASCII and Unicode punctuation dropped; a repeated anchor gets
 * "-1", "-2"... in document order. */
struct md_slugs {
    char **v; /* owned: every anchor given so far, in document order */
    size_t n, cap;
};
/* The anchor for the next heading whose plain text is `text` (owned by sl). */
const char *md_slugs_add(struct md_slugs *sl, const char *text);
void md_slugs_free(struct md_slugs *sl);
#endif
