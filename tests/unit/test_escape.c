#include "harness.h"
#include "../../src/render/escape.h"
#include "../../src/util/xalloc.h"
#include <cmark.h>
#include <stdio.h>
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

/* What cmark's HTML for a paragraph of plain text s is: & < > " as entities,
 * controls as spaces (esc_md turns them into spaces). */
static void literal_paragraph(struct strbuf *sb, const char *s)
{
    sb_add(sb, "<p>");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '&')
            sb_add(sb, "&amp;");
        else if (*p == '<')
            sb_add(sb, "&lt;");
        else if (*p == '>')
            sb_add(sb, "&gt;");
        else if (*p == '"')
            sb_add(sb, "&quot;");
        else if (*p < 0x20 || *p == 0x7F)
            sb_addc(sb, ' ');
        else
            sb_addc(sb, (char)*p);
    }
    sb_add(sb, "</p>\n");
}

/* Host text through esc_md, parsed by cmark, comes out as the same text:
 * no emphasis, code, link, image, raw HTML, entity, list, heading or quote,
 * whatever the text. */
TEST(escape_md_text_stays_text_in_cmark)
{
    static const char *const texts[] = {
        "<script>alert(1)</script>", "\"><svg onload=x>", "]]>", "[x](javascript:alert(1))",
        "![i](http://e/x.png)", "`code` *em* _u_ | pipe", "_x_", "__bold__", "**b**", "a*b*c",
        "snake_case_name", "x_", "_x", "a__b", "<a href=x>", "</p>", "<!-- c -->", "<?php x ?>",
        "<http://e.example>", "<1@e.example>", "a < b > c", "&amp;", "&#60;", "&#x3c;", "a & b",
        "AT&T;", "~~gone~~", "~x~", "x\\", "\\*", "[ref]: http://e.example", "- item",
        "+ item", "* item", "1. one", "1) one", "12345) x", "# heading", "## h", "> quote",
        "===", "close() -> EBADF", "(pid 27697)", "process_api", "6.18.0 10.0.0.1",
        "50% of 2 CPUs {a}", "x | y", "a\x01\x1b[31mb", "tab\there", "-> arrow", "!bang",
        "[pid 12 exited]", "java.lang.Thread.run(Thread.java:829)", "std::vector<int>::push_back",
        "<<x>>", "a<b", "<", "&", "_", "*", "`", "\\", "[", "]", "|", "~", "a <- b <- c",
        "x <= 5", "<- x", "x <-", "<-x@e.example>", "__GI___lll_lock_wait <- main",
        "open <- [unknown]", "[kernel]", "[x] [y]", "[x][y]", "[x]: y", "a_b_ c", "_a_b_",
        "x __y__ z", "*_x_*", "a_(b)_", "(_x_)", "\xc2\xa0_x_\xc2\xa0", "\xc3\xa9_x_\xc3\xa9",
        "x_ y _z", "_ x _", "#1 SMP PREEMPT_DYNAMIC", "-1", "-> x", "--", "---", "- - -", "-",
        "+", "+1", "=", "==", "=x", "#", "######", "####### x", "#x", "## x", "> x", ">x",
        "-\tx", NULL};
    for (int i = 0; texts[i]; i++) {
        struct strbuf md = STRBUF_INIT, want = STRBUF_INIT;
        esc_md(&md, texts[i]);
        char *html = cmark_markdown_to_html(md.buf, md.len, CMARK_OPT_DEFAULT);
        literal_paragraph(&want, texts[i]);
        if (strcmp(html, want.buf) != 0)
            fprintf(stderr, "  text %s\n  md   %s\n  html %s", texts[i], md.buf, html);
        CHECK_STR(html, want.buf);
        free(html);
        /* the same text as a table cell, between spaces: as cmark parses a
         * cell's content, after the row's "| " */
        sb_reset(&md);
        sb_reset(&want);
        sb_add(&md, "x ");
        esc_md_cell(&md, texts[i]);
        sb_add(&md, " y");
        html = cmark_markdown_to_html(md.buf, md.len, CMARK_OPT_DEFAULT);
        struct strbuf lit = STRBUF_INIT;
        sb_add(&lit, "x ");
        sb_add(&lit, texts[i]);
        sb_add(&lit, " y");
        literal_paragraph(&want, lit.buf);
        if (strcmp(html, want.buf) != 0)
            fprintf(stderr, "  cell %s\n  md   %s\n  html %s", texts[i], md.buf, html);
        CHECK_STR(html, want.buf);
        free(html);
        sb_free(&lit);
        sb_free(&md);
        sb_free(&want);
    }
}

/* The contexts where a fragment begins a block: right after a list marker
 * (evidence lines) and as a heading.  Blanks in front of host text must not
 * let a heading, quote, fence, code block, list or task box through, and a
 * heading keeps a host text's trailing '#'. */
TEST(escape_md_block_contexts_stay_text)
{
    static const char *const texts[] = {
        " # pwned", " > x", " ~~~", "    x", " 1. x", " - x", "\t# x", "\x01# x", "\xc2\x85# x",
        "[x] done", "[ ] todo", "x #", "x ##", "a # b", "x\t#", "####", "- [x] y", "  ", "a  ",
        "* x", "_x_", "<div>", "1) y", "~~~x", "```", "    # deep", NULL};
    for (int i = 0; texts[i]; i++) {
        /* what a reader should see: controls as spaces, no blanks at the ends */
        struct strbuf clean = STRBUF_INIT;
        for (const unsigned char *q = (const unsigned char *)texts[i]; *q; q++) {
            if (q[0] == 0xC2 && q[1] >= 0x80 && q[1] <= 0x9F) {
                sb_addc(&clean, ' ');
                q++;
            } else {
                sb_addc(&clean, *q < 0x20 || *q == 0x7F ? ' ' : (char)*q);
            }
        }
        size_t a = 0, e = clean.len;
        while (a < e && clean.buf[a] == ' ')
            a++;
        while (e > a && clean.buf[e - 1] == ' ')
            e--;
        char *shown = xstrndup(clean.buf + a, e - a);
        struct strbuf lit = STRBUF_INIT;
        literal_paragraph(&lit, shown);
        /* "<p>...</p>\n" -> the text between the tags */
        char *inner = xstrndup(lit.buf + 3, lit.len - 3 - 5);
        struct strbuf md = STRBUF_INIT, want = STRBUF_INIT;
        sb_add(&md, "- ");
        esc_md(&md, texts[i]);
        sb_add(&md, "\n");
        char *html = cmark_markdown_to_html(md.buf, md.len, CMARK_OPT_DEFAULT);
        if (*shown)
            sb_addf(&want, "<ul>\n<li>%s</li>\n</ul>\n", inner);
        else
            sb_add(&want, "<ul>\n<li></li>\n</ul>\n");
        if (strcmp(html, want.buf) != 0)
            fprintf(stderr, "  item %s\n  md   %s  html %s", texts[i], md.buf, html);
        CHECK_STR(html, want.buf);
        free(html);
        sb_reset(&md);
        sb_reset(&want);
        sb_add(&md, "### ");
        esc_md(&md, texts[i]);
        sb_add(&md, "\n");
        html = cmark_markdown_to_html(md.buf, md.len, CMARK_OPT_DEFAULT);
        sb_addf(&want, "<h3>%s</h3>\n", inner);
        if (strcmp(html, want.buf) != 0)
            fprintf(stderr, "  head %s\n  md   %s  html %s", texts[i], md.buf, html);
        CHECK_STR(html, want.buf);
        free(html);
        sb_free(&md);
        sb_free(&want);
        sb_free(&lit);
        sb_free(&clean);
        free(shown);
        free(inner);
    }
    /* a task box on a forge: the bracket that opens it is escaped */
    struct strbuf sb = STRBUF_INIT;
    esc_md(&sb, "[x] done");
    CHECK_STR(sb_str(&sb), "\\[x] done");
    sb_free(&sb);
}

/* The text of an image: a host title cannot end the label early or start a
 * link of its own inside it. */
TEST(escape_md_label_keeps_the_image_whole)
{
    static const char *const titles[] = {"vd[a]", "a](javascript:x) [", "]", "[", "x\\]y",
                                         "![i](e.png)", "<b>sda</b> & [x]", NULL};
    for (int i = 0; titles[i]; i++) {
        struct strbuf md = STRBUF_INIT, want = STRBUF_INIT;
        sb_add(&md, "![");
        esc_md_label(&md, titles[i]);
        sb_add(&md, "](chart-x.svg)");
        char *html = cmark_markdown_to_html(md.buf, md.len, CMARK_OPT_DEFAULT);
        /* one image, the title whole as its alt text, no link */
        sb_add(&want, "<p><img src=\"chart-x.svg\" alt=\"");
        struct strbuf lit = STRBUF_INIT;
        literal_paragraph(&lit, titles[i]);
        sb_addn(&want, lit.buf + 3, lit.len - 3 - 5); /* the text between <p> and </p>\n */
        sb_add(&want, "\" /></p>\n");
        CHECK_STR(html, want.buf);
        free(html);
        sb_free(&lit);
        sb_free(&md);
        sb_free(&want);
    }
}

/* Inside a table row the pipe stays escaped, so a cell cannot split. */
TEST(escape_md_pipe_never_splits_a_cell)
{
    struct strbuf sb = STRBUF_INIT;
    esc_md(&sb, "a|b||c\\|d");
    CHECK_STR(sb_str(&sb), "a\\|b\\|\\|c\\\\\\|d");
    sb_free(&sb);
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
    CHECK_STR(sb_str(&sb), "\\# h \\<b>");
    sb_reset(&sb);
    /* what a ticket reader sees is what the host wrote */
    esc_md(&sb, "process_api (pid 27697): close() -> EBADF, 3 < 5 & {x} #2!");
    CHECK_STR(sb_str(&sb), "process_api (pid 27697): close() -> EBADF, 3 < 5 & {x} #2!");
    sb_reset(&sb);
    esc_md(&sb, "1) x");
    CHECK_STR(sb_str(&sb), "1\\) x");
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

/* --label and --case-id: what the options and the bundle reader accept. */
TEST(text_plain_why_bounds_and_controls)
{
    CHECK(text_plain_why("after the <b>kernel</b> update \"q\" \xc3\xa9", 128, NULL) == NULL);
    CHECK_STR(text_plain_why("", 128, NULL), "is empty");
    CHECK_STR(text_plain_why("abcd", 3, NULL), "is too long");
    CHECK(text_plain_why("abc", 3, NULL) == NULL);
    CHECK_STR(text_plain_why("a\xff", 128, NULL), "is not valid UTF-8");
    CHECK_STR(text_plain_why("a\xc0\xaf", 128, NULL), "is not valid UTF-8"); /* overlong '/' */
    static const char *const controls[] = {"a\x1b]0;x\x07", "a\nb", "a\tb", "a\x7f",
                                           "a\xc2\x9b", "a\xe2\x80\xae", "a\xe2\x81\xa6",
                                           "a\xe2\x80\xa8", NULL};
    for (int i = 0; controls[i]; i++)
        CHECK_STR(text_plain_why(controls[i], 128, NULL), "holds a control character");
    CHECK(text_plain_why("INC-42/#7:a.b_c", 64, "abcINC0123456789-/#:._") == NULL);
    CHECK_STR(text_plain_why("INC 42", 64, "INC0123456789"), "holds a character it may not");
    CHECK_STR(text_plain_why("INC\xc3\xa9", 64, "INC"), "holds a character it may not");
}
