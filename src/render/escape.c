#include "escape.h"
#include "../util/xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPLACEMENT "\xEF\xBF\xBD"

size_t utf8_decode(const unsigned char *s, size_t len, unsigned *cp)
{
    if (len == 0)
        return 0;
    unsigned c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n;
    unsigned min;
    if ((c & 0xE0) == 0xC0) {
        n = 2;
        c &= 0x1F;
        min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3;
        c &= 0x0F;
        min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4;
        c &= 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return n;
}

/* XML 1.0 Char production, minus the noncharacters FFFE/FFFF. */
static int xml_legal(unsigned cp)
{
    if (cp == 0x9 || cp == 0xA || cp == 0xD)
        return 1;
    if (cp < 0x20 || cp == 0x7F)
        return 0;
    if (cp >= 0x80 && cp <= 0x9F)
        return 0;
    if (cp == 0xFFFE || cp == 0xFFFF)
        return 0;
    return 1;
}

void esc_xml(struct strbuf *sb, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    while (len) {
        unsigned cp;
        size_t n = utf8_decode(p, len, &cp);
        if (n == 0) {
            sb_add(sb, REPLACEMENT);
            p++;
            len--;
            continue;
        }
        if (!xml_legal(cp))
            sb_add(sb, REPLACEMENT);
        else if (cp == '&')
            sb_add(sb, "&amp;");
        else if (cp == '<')
            sb_add(sb, "&lt;");
        else if (cp == '>')
            sb_add(sb, "&gt;");
        else if (cp == '"')
            sb_add(sb, "&quot;");
        else if (cp == '\'')
            sb_add(sb, "&#39;");
        else
            sb_addn(sb, (const char *)p, n);
        p += n;
        len -= n;
    }
}

void esc_md(struct strbuf *sb, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    /* Characters that start a block (list, heading, quote) matter only at
     * the start; inline markup characters are escaped everywhere.  Others
     * (. : - % ...) stay readable in the raw Markdown pasted into tickets. */
    if (len && strchr("-+=0123456789", *p)) {
        if (*p >= '0' && *p <= '9') {
            /* "1. x" or "1) x" would start an ordered list ("6.18" would not). */
            size_t d = 0;
            while (d < len && p[d] >= '0' && p[d] <= '9')
                d++;
            /* ')' is escaped by the loop below anyway; a second backslash
             * here would escape that backslash and leave ')' bare. */
            if (d < len && p[d] == '.' &&
                (d + 1 == len || p[d + 1] == ' ' || p[d + 1] == '\t')) {
                sb_addn(sb, (const char *)p, d);
                sb_addc(sb, '\\');
                p += d;
                len -= d;
            }
        } else {
            sb_addc(sb, '\\');
        }
    }
    while (len) {
        unsigned cp;
        size_t n = utf8_decode(p, len, &cp);
        if (n == 0) {
            sb_add(sb, REPLACEMENT);
            p++;
            len--;
            continue;
        }
        if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) {
            sb_addc(sb, ' ');
        } else if (cp < 0x80 && strchr("\\`*_{}[]()<>#!|~&", (int)cp)) {
            sb_addc(sb, '\\');
            sb_addc(sb, (char)cp);
        } else {
            sb_addn(sb, (const char *)p, n);
        }
        p += n;
        len -= n;
    }
}

void esc_json(struct strbuf *sb, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    while (len) {
        unsigned cp;
        size_t n = utf8_decode(p, len, &cp);
        if (n == 0) {
            sb_add(sb, "\\ufffd");
            p++;
            len--;
            continue;
        }
        switch (cp) {
        case '"': sb_add(sb, "\\\""); break;
        case '\\': sb_add(sb, "\\\\"); break;
        case '\n': sb_add(sb, "\\n"); break;
        case '\r': sb_add(sb, "\\r"); break;
        case '\t': sb_add(sb, "\\t"); break;
        case '<': sb_add(sb, "\\u003c"); break;
        case '>': sb_add(sb, "\\u003e"); break;
        case '&': sb_add(sb, "\\u0026"); break;
        default:
            if (cp < 0x20 || cp == 0x7F || cp == 0x2028 || cp == 0x2029)
                sb_addf(sb, "\\u%04x", cp);
            else
                sb_addn(sb, (const char *)p, n);
        }
        p += n;
        len -= n;
    }
}

char *trunc_utf8(const char *s, size_t max_chars)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s), off = 0, chars = 0;
    while (off < len && chars < max_chars) {
        unsigned cp;
        size_t n = utf8_decode(p + off, len - off, &cp);
        off += n ? n : 1;
        chars++;
    }
    if (off >= len)
        return xstrdup(s);
    char *out = xmalloc(off + 4);
    memcpy(out, s, off);
    memcpy(out + off, "\xE2\x80\xA6", 4); /* "…" + NUL */
    return out;
}

/* Code points a terminal acts on instead of showing: C0, DEL, C1, and the
 * bidi controls that reorder what follows them on the line. */
static int term_control(unsigned cp)
{
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C ||
           cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
           (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029;
}

void esc_term(struct strbuf *sb, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    while (len) {
        unsigned cp;
        size_t n = utf8_decode(p, len, &cp);
        if (n == 0) {
            sb_addf(sb, "\\x%02x", *p);
            p++;
            len--;
            continue;
        }
        if (cp == '\\')
            sb_add(sb, "\\\\");
        else if (cp == '\n')
            sb_add(sb, "\\n");
        else if (cp == '\r')
            sb_add(sb, "\\r");
        else if (cp == '\t')
            sb_add(sb, "\\t");
        else if (cp == 0x1B)
            sb_add(sb, "\\e");
        else if (cp < 0x80 && term_control(cp))
            sb_addf(sb, "\\x%02x", cp);
        else if (term_control(cp))
            sb_addf(sb, "\\u%04X", cp);
        else
            sb_addn(sb, (const char *)p, n);
        p += n;
        len -= n;
    }
}

void esc_term_quoted(struct strbuf *sb, const char *s)
{
    struct strbuf t = STRBUF_INIT;
    esc_term(&t, s ? s : "");
    sb_addc(sb, '"');
    for (const char *p = sb_str(&t); *p; p++) {
        if (*p == '"')
            sb_addc(sb, '\\');
        sb_addc(sb, *p);
    }
    sb_addc(sb, '"');
    sb_free(&t);
}

int term_printf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    struct strbuf raw = STRBUF_INIT, out = STRBUF_INIT;
    va_start(ap, fmt);
    sb_vaddf(&raw, fmt, ap);
    va_end(ap);
    esc_term(&out, sb_str(&raw));
    sb_addc(&out, '\n');
    int rc = fputs(sb_str(&out), f);
    sb_free(&raw);
    sb_free(&out);
    return rc;
}
