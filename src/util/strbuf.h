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
/* The text printf("%llu") and printf("%.*f", decimals, v) would append,
 * without printf's cost (most of a large SVG's): the same digits, v rounded
 * from its exact binary value, ties to even.  decimals is 0 to 6. */
void sb_add_u64(struct strbuf *sb, unsigned long long v);
void sb_add_fixed(struct strbuf *sb, double v, int decimals);
void sb_reset(struct strbuf *sb);
/* Hands the buffer to the caller (never NULL) and empties sb. */
char *sb_detach(struct strbuf *sb);
void sb_free(struct strbuf *sb);
const char *sb_str(const struct strbuf *sb); /* "" when empty */
#endif
