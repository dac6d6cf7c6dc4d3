#include "escape.h"
#include "../util/xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
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

static bool ascii_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Character classes of CommonMark's flanking rules, as a set: a byte outside
 * ASCII (NBSP, a letter or a sign) or the unknown text beyond the
 * fragment's edge may be any of them. */
enum { CL_WS = 1, CL_PUNCT = 2, CL_ALNUM = 4, CL_ANY = 7 };

static int md_class(const unsigned char *p, size_t len, size_t i)
{
    if (i >= len || p[i] >= 0x80)
        return CL_ANY;
    unsigned char c = p[i];
    if (c <= ' ' || c == 0x7F)
        return CL_WS; /* controls are written as spaces */
    return ascii_alnum(c) ? CL_ALNUM : CL_PUNCT;
}

/* Whether a run of c ('_' or '~') between characters of classes `before`
 * and `after` can close emphasis or a strikethrough in some context
 * (CommonMark 6.2 rules 3 and 8; GFM's '~' closes as '*' does).  Only
 * closers are escaped: with none left no opener finds a partner, and the
 * renderer's own text has neither '_' emphasis nor strikethrough. */
static bool run_can_close(unsigned char c, int before, int after)
{
    for (int b = 1; b <= CL_ALNUM; b <<= 1) {
        for (int a = 1; a <= CL_ALNUM; a <<= 1) {
            if (!(before & b) || !(after & a))
                continue;
            bool left = a != CL_WS && (a != CL_PUNCT || b != CL_ALNUM);
            bool right = b != CL_WS && (b != CL_PUNCT || a != CL_ALNUM);
            if (right && (c == '~' || !left || a == CL_PUNCT))
                return true;
        }
    }
    return false;
}

/* Whether the ASCII punctuation at p[i] of the fragment p[0..len) needs a
 * backslash in CommonMark inline text.  What the renderer writes around the
 * fragment counts as anything, except that a table cell has a space on
 * either side (cell). */
static bool md_active(const unsigned char *p, size_t len, size_t i, bool cell)
{
    unsigned char c = p[i], next = i + 1 < len ? p[i + 1] : 0;
    int edge = cell ? CL_WS : CL_ANY;
    switch (c) {
    case '\\': case '`': case '*': case '|':
        return true; /* escapes, code spans, emphasis, cells */
    case '_': case '~': {
        size_t a = i, b = i;
        while (a > 0 && p[a - 1] == c)
            a--;
        while (b < len && p[b] == c)
            b++;
        if (a == 0)
            return true; /* first: "___", "_ _ _" a rule, "~~~" a fence */
        return run_can_close(c, md_class(p, len, a - 1), b < len ? md_class(p, len, b) : edge);
    }
    case '[':
        /* "[ ] " or "[x] " first in a list item is a task box on a forge */
        return i == 0 && !cell;
    case ']':
        /* a link, an image, a reference or a definition needs "](", "][" or
         * "]:"; '[' elsewhere never makes one */
        return next == '(' || next == '[' || next == ':' || (i + 1 == len && !cell);
    case '#': {
        /* a heading's closing sequence: blanks, then '#'s to the end (the
         * first character, a heading's opening, is esc_md's start check) */
        size_t b = i;
        while (b < len && p[b] == '#')
            b++;
        return i > 0 && b == len && p[i - 1] != '#' && (md_class(p, len, i - 1) & CL_WS);
    }
    case '<':
        /* raw HTML and autolinks need a non-space right after '<'; "<- " and
         * "<= " are neither */
        return !(next == ' ' || ((next == '-' || next == '=') && i + 2 < len && p[i + 2] == ' '));
    case '&':
        /* entity and numeric character references */
        return next == '#' || (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z');
    default:
        /* ( ) > ! { } . - + = and the rest: inline text leaves them alone
         * (a heading or quote needs the start of a line, which md_escape
         * handles) */
        return false;
    }
}

/* Whether esc_md writes p[i] as white space, or the fragment ends there:
 * spaces, tabs, controls (written as spaces, C1 ones too). */
static bool md_blank_at(const unsigned char *p, size_t len, size_t i)
{
    if (i >= len || p[i] <= ' ' || p[i] == 0x7F)
        return true;
    return p[i] == 0xC2 && i + 1 < len && p[i + 1] >= 0x80 && p[i + 1] <= 0x9F;
}

static void md_escape(struct strbuf *sb, const char *s, bool cell)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s), i = 0;
    /* Blanks at either end go: after a list marker four spaces make code,
     * and any block marker behind them would count; nobody sees them. */
    while (len && md_blank_at(p, len, 0)) {
        size_t n = p[0] == 0xC2 && len > 1 ? 2 : 1;
        p += n;
        len -= n;
    }
    while (len && (p[len - 1] <= ' ' || p[len - 1] == 0x7F ||
                   (len >= 2 && p[len - 2] == 0xC2 && p[len - 1] >= 0x80 && p[len - 1] <= 0x9F)))
        len -= p[len - 1] >= 0x80 ? 2 : 1;
    /* What starts a block matters only at the start, where the fragment may
     * begin a line: a quote ('>'), a list item ("- ", "+ "), a heading ("# "
     * to "###### "), a rule or setext underline ("---", "==").  "->", "#1"
     * and "-1" start nothing. */
    if (len && (*p == '-' || *p == '+' || *p == '=' || *p == '#')) {
        size_t r = 0;
        while (r < len && p[r] == *p)
            r++;
        bool blank = md_blank_at(p, len, r);
        if (blank || (*p != '#' && *p != '+' && r >= 2))
            sb_addc(sb, '\\');
    } else if (len && *p == '>') {
        sb_addc(sb, '\\');
    } else if (len && *p >= '0' && *p <= '9') {
        /* "1. x" or "1) x" would start an ordered list ("6.18" would not) */
        size_t d = 0;
        while (d < len && p[d] >= '0' && p[d] <= '9')
            d++;
        if (d < len && (p[d] == '.' || p[d] == ')') &&
            md_blank_at(p, len, d + 1)) {
            sb_addn(sb, (const char *)p, d);
            sb_addc(sb, '\\');
            i = d;
        }
    }
    while (i < len) {
        unsigned cp;
        size_t n = utf8_decode(p + i, len - i, &cp);
        if (n == 0) {
            sb_add(sb, REPLACEMENT);
            i++;
            continue;
        }
        if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) {
            sb_addc(sb, ' ');
        } else if (cp < 0x80 && md_active(p, len, i, cell)) {
            sb_addc(sb, '\\');
            sb_addc(sb, (char)cp);
        } else {
            sb_addn(sb, (const char *)p + i, n);
        }
        i += n;
    }
}

void esc_md(struct strbuf *sb, const char *s) { md_escape(sb, s, false); }

void esc_md_cell(struct strbuf *sb, const char *s) { md_escape(sb, s, true); }

void esc_md_label(struct strbuf *sb, const char *s)
{
    struct strbuf t = STRBUF_INIT;
    esc_md(&t, s);
    /* inside "[...]" any bracket counts: escape those esc_md left */
    for (size_t i = 0; i < t.len; i++) {
        if (t.buf[i] == '\\' && i + 1 < t.len) {
            sb_addn(sb, t.buf + i, 2);
            i++;
            continue;
        }
        if (t.buf[i] == '[' || t.buf[i] == ']')
            sb_addc(sb, '\\');
        sb_addc(sb, t.buf[i]);
    }
    sb_free(&t);
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

const char *text_plain_why(const char *s, size_t max_bytes, const char *only)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    if (len == 0)
        return "is empty";
    if (len > max_bytes)
        return "is too long";
    for (size_t i = 0; i < len;) {
        unsigned cp;
        size_t n = utf8_decode(p + i, len - i, &cp);
        if (n == 0)
            return "is not valid UTF-8";
        if (term_control(cp))
            return "holds a control character";
        if (only && (cp > 0x7F || !strchr(only, (int)cp)))
            return "holds a character it may not";
        i += n;
    }
    return NULL;
}
