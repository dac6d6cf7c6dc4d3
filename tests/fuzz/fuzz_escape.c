/* The escaping functions, with the invariants their callers rely on. */
#include "fuzz.h"
#include "render/escape.h"
#include <cmark.h>
#include <stdlib.h>

/* Valid UTF-8 throughout; returns false otherwise. */
static bool valid_utf8(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    while (len) {
        unsigned cp;
        size_t n = utf8_decode(p, len, &cp);
        if (!n)
            return false;
        p += n;
        len -= n;
    }
    return true;
}

static void check_xml(const char *in)
{
    struct strbuf sb = STRBUF_INIT;
    esc_xml(&sb, in);
    const char *o = sb_str(&sb);
    FUZZ_ASSERT(strlen(o) == sb.len);
    FUZZ_ASSERT(valid_utf8(o, sb.len));
    const unsigned char *p = (const unsigned char *)o;
    for (size_t i = 0; i < sb.len;) {
        unsigned cp;
        size_t n = utf8_decode(p + i, sb.len - i, &cp);
        FUZZ_ASSERT(cp != '<' && cp != '>' && cp != '"' && cp != '\'');
        FUZZ_ASSERT(cp >= 0x20 || cp == '\t' || cp == '\n' || cp == '\r');
        FUZZ_ASSERT(cp != 0x7f && !(cp >= 0x80 && cp <= 0x9f) && cp != 0xfffe && cp != 0xffff);
        if (cp == '&') /* only the entities esc_xml writes */
            FUZZ_ASSERT(!strncmp(o + i, "&amp;", 5) || !strncmp(o + i, "&lt;", 4) ||
                        !strncmp(o + i, "&gt;", 4) || !strncmp(o + i, "&quot;", 6) ||
                        !strncmp(o + i, "&#39;", 5));
        i += n;
    }
    sb_free(&sb);
}

static void check_json(const char *in)
{
    struct strbuf sb = STRBUF_INIT;
    esc_json(&sb, in);
    const char *o = sb_str(&sb);
    FUZZ_ASSERT(valid_utf8(o, sb.len));
    for (size_t i = 0; i < sb.len; i++) {
        unsigned char c = (unsigned char)o[i];
        FUZZ_ASSERT(c >= 0x20 && c != '"' && c != '<' && c != '>' && c != '&' && c != 0x7f);
        if (c == '\\') {
            FUZZ_ASSERT(i + 1 < sb.len);
            char e = o[++i];
            if (e == 'u') {
                FUZZ_ASSERT(i + 4 < sb.len);
                for (int k = 1; k <= 4; k++)
                    FUZZ_ASSERT(strchr("0123456789abcdefABCDEF", o[i + k]) && o[i + k]);
                i += 4;
            } else {
                FUZZ_ASSERT(e && strchr("\"\\/bfnrt", e));
            }
        }
    }
    /* U+2028/2029 break JavaScript string literals. */
    FUZZ_ASSERT(!strstr(o, "\xE2\x80\xA8") && !strstr(o, "\xE2\x80\xA9"));
    sb_free(&sb);
}

/* The paragraph cmark makes of plain text: controls as spaces (as esc_md
 * writes them) and blanks at either end dropped (as esc_md drops them),
 * invalid UTF-8 as U+FFFD, & < > " as entities. */
static void literal_html(struct strbuf *sb, const char *in)
{
    const unsigned char *p = (const unsigned char *)in;
    size_t len = strlen(in);
    /* the ends esc_md trims: spaces, controls, C1 controls */
    for (;;) {
        if (len && (p[0] <= ' ' || p[0] == 0x7F)) {
            p++, len--;
        } else if (len >= 2 && p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
            p += 2, len -= 2;
        } else {
            break;
        }
    }
    for (;;) {
        if (len && (p[len - 1] <= ' ' || p[len - 1] == 0x7F))
            len--;
        else if (len >= 2 && p[len - 2] == 0xC2 && p[len - 1] >= 0x80 && p[len - 1] <= 0x9F)
            len -= 2;
        else
            break;
    }
    while (len) {
        unsigned cp;
        size_t n = utf8_decode(p, len, &cp);
        if (!n) {
            sb_add(sb, "\xEF\xBF\xBD");
            n = 1;
        } else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) {
            sb_addc(sb, ' ');
        } else if (cp == '&' || cp == '<' || cp == '>' || cp == '"') {
            sb_add(sb, cp == '&' ? "&amp;" : cp == '<' ? "&lt;" : cp == '>' ? "&gt;" : "&quot;");
        } else {
            sb_addn(sb, (const char *)p, n);
        }
        p += n;
        len -= n;
    }
}

/* esc_md's promise, checked by cmark itself: whatever the text, between
 * other words or in a table cell it comes out of the parser as the same
 * text (no emphasis, code, link, image, raw HTML or entity), on one line. */
static void check_md_in(const char *in, bool cell)
{
    struct strbuf sb = STRBUF_INIT;
    (cell ? esc_md_cell : esc_md)(&sb, in);
    FUZZ_ASSERT(valid_utf8(sb_str(&sb), sb.len));
    for (size_t i = 0; i < sb.len; i++)
        FUZZ_ASSERT((unsigned char)sb.buf[i] >= 0x20 && sb.buf[i] != 0x7f); /* one line */
    struct strbuf md = STRBUF_INIT, want = STRBUF_INIT;
    sb_add(&md, "x ");
    sb_add(&md, sb_str(&sb));
    sb_add(&md, " y");
    sb_add(&want, "<p>x ");
    literal_html(&want, in);
    sb_add(&want, " y</p>\n");
    char *html = cmark_markdown_to_html(md.buf, md.len, CMARK_OPT_DEFAULT);
    FUZZ_ASSERT(html && strcmp(html, want.buf) == 0);
    free(html);
    sb_free(&md);
    sb_free(&want);
    sb_free(&sb);
}

/* Where a fragment begins a block: a line's start, a list item's text (the
 * findings' evidence lines), a heading.  Text with nothing visible is left
 * out (cmark makes no paragraph of it). */
static void check_md_block(const char *in, const char *before, const char *open,
                           const char *close)
{
    struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT, lit = STRBUF_INIT;
    literal_html(&lit, in);
    if (!lit.len) {
        sb_free(&lit);
        return;
    }
    /* after a first paragraph: cmark drops a byte-order mark that opens
     * the whole document, and no fragment of ours does */
    sb_add(&sb, "x\n\n");
    sb_add(&sb, before);
    esc_md(&sb, in);
    sb_add(&sb, "\n");
    sb_add(&want, "<p>x</p>\n");
    sb_add(&want, open);
    sb_add(&want, lit.buf);
    sb_add(&want, close);
    char *html = cmark_markdown_to_html(sb_str(&sb), sb.len, CMARK_OPT_DEFAULT);
    FUZZ_ASSERT(html && strcmp(html, want.buf) == 0);
    free(html);
    sb_free(&lit);
    sb_free(&want);
    sb_free(&sb);
}

static void check_md(const char *in)
{
    check_md_in(in, false);
    check_md_in(in, true);
    check_md_block(in, "", "<p>", "</p>\n");
    check_md_block(in, "- ", "<ul>\n<li>", "</li>\n</ul>\n");
    check_md_block(in, "### ", "<h3>", "</h3>\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    check_xml(text);
    check_json(text);
    check_md(text);

    size_t max = size ? data[0] % 40 : 0;
    char *t = trunc_utf8(text, max);
    FUZZ_ASSERT(t);
    size_t tl = strlen(t);
    FUZZ_ASSERT(tl <= strlen(text) + 3);
    if (tl < strlen(text) || strcmp(t, text) != 0) /* cut: ends in the ellipsis */
        FUZZ_ASSERT(tl >= 3 && !strcmp(t + tl - 3, "\xE2\x80\xA6"));
    free(t);

    for (size_t i = 0; i < size; i++) {
        unsigned cp = 0;
        size_t n = utf8_decode(data + i, size - i, &cp);
        FUZZ_ASSERT(n <= 4 && n <= size - i);
        if (n)
            FUZZ_ASSERT(cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF));
    }
    free(text);
    return 0;
}
