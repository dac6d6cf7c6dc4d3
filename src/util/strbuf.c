#include "strbuf.h"
#include "xalloc.h"
#include <math.h>
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
    /* straight into the free space; formatted a second time only when it
     * does not fit */
    size_t room = sb->cap > sb->len ? sb->cap - sb->len : 0;
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(room ? sb->buf + sb->len : NULL, room, fmt, cp);
    va_end(cp);
    if (n < 0) {
        if (room)
            sb->buf[sb->len] = '\0';
        return;
    }
    if ((size_t)n >= room) {
        reserve(sb, (size_t)n);
        vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    }
    sb->len += (size_t)n;
}

void sb_add_u64(struct strbuf *sb, unsigned long long v)
{
    char d[24];
    size_t i = sizeof d;
    do {
        d[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    sb_addn(sb, d + i, sizeof d - i);
}

void sb_add_fixed(struct strbuf *sb, double v, int decimals)
{
    static const double scales[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
    /* beyond 2^52 / 10^6 the scaled value has no fraction left to round */
    if (decimals < 0 || decimals > 6 || !(v >= 0 && v < 4e9) || signbit(v)) {
        sb_addf(sb, "%.*f", decimals, v);
        return;
    }
    double scale = scales[decimals];
    /* n is within a hair of the exact v * scale (off by one only where the
     * product rounds across an integer, and then the answer is n anyway);
     * fma rounds once, so `half` has the sign of the exact difference */
    double n = floor(v * scale);
    double half = fma(v, 2 * scale, -(2 * n + 1)); /* (v * scale - (n + 1/2)) * 2 */
    if (half > 0 || (half == 0 && fmod(n, 2) != 0))
        n += 1;
    unsigned long long q = (unsigned long long)n, unit = (unsigned long long)scale;
    sb_add_u64(sb, q / unit);
    if (decimals) {
        char f[8];
        unsigned long long r = q % unit;
        for (int i = decimals; i > 0; i--, r /= 10)
            f[i] = (char)('0' + r % 10);
        f[0] = '.';
        sb_addn(sb, f, (size_t)decimals + 1);
    }
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
