/* The escaping functions, with the invariants their callers rely on. */
#include "fuzz.h"
#include "render/escape.h"

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

static void check_md(const char *in)
{
    struct strbuf sb = STRBUF_INIT;
    esc_md(&sb, in);
    const char *o = sb_str(&sb);
    FUZZ_ASSERT(valid_utf8(o, sb.len));
    for (size_t i = 0; i < sb.len; i++) {
        unsigned char c = (unsigned char)o[i];
        FUZZ_ASSERT(c >= 0x20 && c != 0x7f); /* no line breaks: stays one cell/line */
        if (c == '\\') {
            i++; /* the escaped character */
            continue;
        }
        /* Markup characters only ever appear escaped. */
        FUZZ_ASSERT(!strchr("`*_{}[]()<>#!|~&", c));
    }
    sb_free(&sb);
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
