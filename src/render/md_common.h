/* Markdown pieces shared by report.md and summary.md.  Every host or model
 * string goes through md_text, md_cell or md_label (escape.h). */
#ifndef PERFREPORT_MD_COMMON_H
#define PERFREPORT_MD_COMMON_H
#include "../model/model.h"
#include "../util/strbuf.h"
#include <stddef.h>

#define MD_MAX_TEXT 80 /* characters of host/model text in one place */
#define MD_MAX_CMDLINE 120

/* Host or model text: truncated to max characters, then escaped; "-" when
 * absent.  md_cell for a whole table cell, md_label for an image's text. */
void md_text(struct strbuf *sb, const char *s, size_t max);
void md_cell(struct strbuf *sb, const char *s, size_t max);
void md_label(struct strbuf *sb, const char *s, size_t max);
struct out_sink;
/* Renders the whole file with render and writes it to out as name: a
 * Markdown renderer's render(). */
int md_write_file(const struct report *r, const struct out_sink *out, const char *name,
                  void (*render)(const struct report *, struct strbuf *));
/* Adaptive precision for numbers without a declared number of decimals. */
void md_number(struct strbuf *sb, double v);
/* "CRITICAL", "WARNING", "INFO", "OK". */
const char *md_sev_word(enum severity s);
/* "**CRITICAL:** headline" (FAILED for a failed run), no newline. */
void md_verdict(const struct report *r, struct strbuf *sb);
/* "Host web1 · kernel 6.1 · 2 CPUs · 10.0 s window ... · started ... UTC",
 * no newline. */
void md_context(const struct report *r, struct strbuf *sb);
/* For a report without a finding at warning or above: one paragraph on what
 * a window of this length cannot see; nothing otherwise. */
void md_window_limits(const struct report *r, struct strbuf *sb);
/* One numbered finding: title, at most max_evidence evidence lines (and how
 * many more), what to do, and `links` (Markdown written by the caller, e.g.
 * "[CPU](#cpu)") as where its evidence is, unless NULL; ends with a blank
 * line. */
void md_finding(struct strbuf *sb, const struct finding *f, size_t number, size_t max_evidence,
                const char *links);

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
