/* Escaping per output context.  Everything the host controls (comm, cmdline,
 * paths, symbols, cgroup and device names) goes through one of these, after
 * truncation, on its way into any output.  All append to a strbuf. */
#ifndef PERFREPORT_ESCAPE_H
#define PERFREPORT_ESCAPE_H
#include "../util/strbuf.h"
#include <stddef.h>
#include <stdio.h>

/* HTML/XML text and attribute values (also SVG): & < > " ' escaped; bytes
 * that are illegal in XML (C0 controls but \t \n \r, DEL, invalid UTF-8)
 * become U+FFFD. */
void esc_xml(struct strbuf *sb, const char *s);
/* Markdown inline text (also inside table cells): a backslash before each
 * character that CommonMark could read as markup where it stands (emphasis,
 * code, links, images, raw HTML, entities, table pipes, a list or heading at
 * the start) and nowhere else, so that the Markdown pasted into a ticket
 * reads as written; newlines and controls become spaces.  Host text can
 * never become markup, a link, an image or raw HTML. */
void esc_md(struct strbuf *sb, const char *s);
/* esc_md for a whole table cell, written as "| " s " |". */
void esc_md_cell(struct strbuf *sb, const char *s);
/* esc_md for the text of a link or image ("![...](file)"), where every
 * bracket needs its backslash. */
void esc_md_label(struct strbuf *sb, const char *s);
/* JSON string body (no quotes): \" \\ \uXXXX for controls, and < > & as
 * \u003c \u003e \u0026 so the text is also safe inside <script> blocks;
 * invalid UTF-8 becomes U+FFFD. */
void esc_json(struct strbuf *sb, const char *s);

/* Terminal and log text: C0 controls (newline, tab, ESC ...), DEL, C1
 * controls, bidi overrides and invalid UTF-8 become visible escapes (\n,
 * \e, \x1b-style \xHH, \u202E), and a backslash is doubled, so host text can
 * never move the cursor, recolour, or start a line of its own. */
void esc_term(struct strbuf *sb, const char *s);
/* A value of a key=value log line: s through esc_term, then inside double
 * quotes with each '"' written \" (NULL: ""), so that every backslash inside
 * the quotes begins an escape and the value can neither end the line nor
 * close its quotes early. */
void esc_term_quoted(struct strbuf *sb, const char *s);
/* Prints one line to f: the formatted text through esc_term, then "\n".
 * Everything printed to a terminal or log goes through this.  Returns what
 * fputs returns (EOF when f's reader is gone). */
int term_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Copies at most max_chars UTF-8 characters of s; if cut, appends "…".
 * Returns a new string the caller frees. */
char *trunc_utf8(const char *s, size_t max_chars);

/* Whether s may be taken as a name the user gives a run (--label,
 * --case-id), checked as every host-facing text is before it is kept: NULL
 * when s is 1 to max_bytes bytes of valid UTF-8 without a character a
 * terminal acts on (C0, DEL, C1, bidi and line-separator controls), else
 * what is wrong ("is too long", ...).  Markup characters are allowed: every
 * output escapes them.  only: NULL, or the ASCII characters s may hold. */
const char *text_plain_why(const char *s, size_t max_bytes, const char *only);

/* Decodes one UTF-8 sequence at s (len bytes left).  Returns its length and
 * the code point in *cp, or 0 for an invalid sequence. */
size_t utf8_decode(const unsigned char *s, size_t len, unsigned *cp);
#endif
