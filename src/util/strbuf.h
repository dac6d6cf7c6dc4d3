/* Growable byte buffer; always NUL-terminated.  The owner calls sb_free(). */
#ifndef PERFREPORT_STRBUF_H
#define PERFREPORT_STRBUF_H
#include <stdarg.h>
#include <stddef.h>

struct strbuf {
    char *buf;
    size_t len, cap;
};
#define STRBUF_INIT {0}

void sb_add(struct strbuf *sb, const char *s);
void sb_addn(struct strbuf *sb, const char *s, size_t n);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void sb_reset(struct strbuf *sb);
/* Hands the buffer to the caller (never NULL) and empties sb. */
char *sb_detach(struct strbuf *sb);
void sb_free(struct strbuf *sb);
const char *sb_str(const struct strbuf *sb); /* "" when empty */
#endif
