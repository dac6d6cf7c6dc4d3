#include "strbuf.h"
#include "xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(struct strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return;
    size_t nc = sb->cap ? sb->cap : 64;
    while (nc < need)
        nc *= 2;
    sb->buf = xrealloc(sb->buf, nc);
    sb->cap = nc;
}

void sb_addn(struct strbuf *sb, const char *s, size_t n)
{
    reserve(sb, n);
    memcpy(sb->buf + sb->len, s, n);
    sb->len += n;
    sb->buf[sb->len] = '\0';
}

void sb_add(struct strbuf *sb, const char *s) { sb_addn(sb, s, strlen(s)); }

void sb_addc(struct strbuf *sb, char c) { sb_addn(sb, &c, 1); }

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0)
        return;
    reserve(sb, (size_t)n);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(sb, fmt, ap);
    va_end(ap);
}

void sb_reset(struct strbuf *sb)
{
    sb->len = 0;
    if (sb->buf)
        sb->buf[0] = '\0';
}

char *sb_detach(struct strbuf *sb)
{
    char *b = sb->buf ? sb->buf : xstrdup("");
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return b;
}

void sb_free(struct strbuf *sb)
{
    free(sb->buf);
    sb->buf = NULL;
    sb->len = sb->cap = 0;
}

const char *sb_str(const struct strbuf *sb) { return sb->buf ? sb->buf : ""; }
