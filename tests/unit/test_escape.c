#include "harness.h"
#include "../../src/render/escape.h"
#include <stdlib.h>

static const char *payloads[] = {"<script>alert(1)</script>", "\"><svg onload=x>", "]]>",
                                 "a\x01\x1b[31mb", "x\xff\xfey", "[x](javascript:alert(1))",
                                 "![i](http://e/x.png)", "`code` *em* _u_ | pipe", NULL};

TEST(escape_xml_neutralises_markup_and_controls)
{
    for (int i = 0; payloads[i]; i++) {
        struct strbuf sb = STRBUF_INIT;
        esc_xml(&sb, payloads[i]);
        const char *s = sb_str(&sb);
        CHECK(!strchr(s, '<'));
        CHECK(!strchr(s, '>'));
        CHECK(!strchr(s, '"'));
        for (const unsigned char *p = (const unsigned char *)s; *p; p++)
            CHECK(*p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r');
        sb_free(&sb);
    }
    struct strbuf sb = STRBUF_INIT;
    esc_xml(&sb, "a&b");
    CHECK_STR(sb_str(&sb), "a&amp;b");
    sb_free(&sb);
}

TEST(escape_md_leaves_no_active_punctuation)
{
    for (int i = 0; payloads[i]; i++) {
        struct strbuf sb = STRBUF_INIT;
        esc_md(&sb, payloads[i]);
        const char *s = sb_str(&sb);
        /* every markup character must be preceded by a backslash */
        for (size_t k = 0; s[k]; k++) {
            if (strchr("<>[]()`*_|!", s[k]))
                CHECK(k > 0 && s[k - 1] == '\\');
            CHECK(s[k] != '\n');
        }
        sb_free(&sb);
    }
}

TEST(escape_json_is_script_safe)
{
    struct strbuf sb = STRBUF_INIT;
    esc_json(&sb, "</script><!--\"\\\n\x01\xff");
    CHECK_STR(sb_str(&sb), "\\u003c/script\\u003e\\u003c!--\\\"\\\\\\n\\u0001\\ufffd");
    sb_free(&sb);
}

TEST(trunc_utf8_cuts_on_character_boundary)
{
    char *s = trunc_utf8("h\xc3\xa9llo", 2);
    CHECK_STR(s, "h\xc3\xa9\xe2\x80\xa6");
    free(s);
    s = trunc_utf8("abc", 3);
    CHECK_STR(s, "abc");
    free(s);
}

TEST(escape_md_keeps_plain_punctuation_readable)
{
    struct strbuf sb = STRBUF_INIT;
    esc_md(&sb, "web-1.example: 5% /usr/bin");
    CHECK_STR(sb_str(&sb), "web-1.example: 5% /usr/bin");
    sb_reset(&sb);
    esc_md(&sb, "- item");
    CHECK_STR(sb_str(&sb), "\\- item");
    sb_reset(&sb);
    esc_md(&sb, "12. x");
    CHECK_STR(sb_str(&sb), "12\\. x");
    sb_reset(&sb);
    esc_md(&sb, "6.18.0 10.0.0.1");
    CHECK_STR(sb_str(&sb), "6.18.0 10.0.0.1");
    sb_reset(&sb);
    esc_md(&sb, "# h <b>");
    CHECK_STR(sb_str(&sb), "\\# h \\<b\\>");
    sb_free(&sb);
}

TEST(escape_term_shows_controls_as_text)
{
    struct strbuf sb = STRBUF_INIT;
    /* ESC sequence, newline + fake line, CR, tab, DEL, C1 CSI, RLO, bad byte, backslash */
    esc_term(&sb, "a\x1b[2J\nBundle: x\r\t\x7f\xc2\x9b\xe2\x80\xae\xff\\ \xc3\xa9");
    CHECK_STR(sb_str(&sb), "a\\e[2J\\nBundle: x\\r\\t\\x7f\\u009B\\u202E\\xff\\\\ \xc3\xa9");
    for (int i = 0; payloads[i]; i++) {
        sb_reset(&sb);
        esc_term(&sb, payloads[i]);
        for (const unsigned char *p = (const unsigned char *)sb_str(&sb); *p; p++)
            CHECK(*p >= 0x20 && *p != 0x7f);
    }
    sb_free(&sb);
}
