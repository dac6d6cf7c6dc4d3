/* Regression tests for bugs found by the fuzz targets (tests/fuzz/): each
 * feeds the minimized crashing input, kept in tests/fixtures/fuzz/. */
#include "harness.h"
#include "test_util.h"
#include "../../src/collect/host.h"
#include "../../src/model/profile.h"
#include "../../src/render/escape.h"
#include "../../src/flame/folded.h"
#include "../../src/render/markdown.h"
#include "../../src/model/model.h"
#include "../../src/render/svg_flame.h"
#include "../../src/util/strbuf.h"
#include <stdio.h>
#include <stdlib.h>

/* Whole fixture file, NUL-terminated; *len excludes the NUL. */
static char *load(const char *rel, size_t *len) { return test_slurp(fixture(rel), len); }

/* A profile with no stacks: walking it did pointer arithmetic on the NULL
 * child list (UBSan: "applying zero offset to null pointer"). */
TEST(fuzz_flame_childless_root_walk)
{
    size_t len;
    char *text = load("fuzz/flame-childless-root.txt", &len);
    REQUIRE(text);
    struct profile *p = profile_new("cpu", NULL, NULL);
    struct flame_parse_stats st = {0};
    CHECK_NUM(folded_parse(p, text, len, &st), 0, 0);
    CHECK_NUM(st.malformed, 1, 0);
    struct strbuf out = STRBUF_INIT;
    folded_write(p, &out);
    CHECK_STR(sb_str(&out), "");
    struct flame_opts o;
    flame_opts_default(&o);
    svg_flame_render(p, &o, true, NULL, &out);
    CHECK_CONTAINS(sb_str(&out), "</svg>");
    sb_free(&out);
    profile_free(p);
    free(text);
}

/* A folded frame name that is a NUL byte: the reversed profile looked it up
 * as "[unknown]" and memcmp read 9 bytes of the 1-byte stored name, past the
 * end of the string table (ASan heap-buffer-overflow). */
TEST(fuzz_flame_nul_frame_name)
{
    size_t len;
    char *text = load("fuzz/flame-nul-frame.txt", &len);
    REQUIRE(text);
    REQUIRE(len == 3 && text[0] == '\0');
    struct profile *p = profile_new("cpu", NULL, NULL);
    struct flame_parse_stats st = {0};
    /* The folded parser now refuses the line; the profile itself must
     * still treat such a name like "" on both lookups. */
    CHECK_NUM(folded_parse(p, text, len, &st), 0, 0);
    CHECK_NUM(st.malformed, 1, 0);
    CHECK_STR(st.bad_why[0], "NUL byte in line");
    struct pframe f = {text, 1, 0};
    profile_add_frames(p, &f, 1, 1);
    struct strbuf out = STRBUF_INIT;
    folded_write(p, &out);
    CHECK_STR(sb_str(&out), "[unknown] 1\n"); /* empty name, like "" */
    struct profile *r = profile_reversed(p);
    sb_reset(&out);
    folded_write(r, &out);
    CHECK_STR(sb_str(&out), "[unknown] 1\n");
    CHECK_NUM(profile_total(r), 1, 0);
    sb_free(&out);
    profile_free(r);
    profile_free(p);
    free(text);
}

/* /proc/uptime holding 1.1e56: converting it to unsigned long long was
 * undefined behaviour (UBSan float-cast-overflow); it now saturates. */
TEST(fuzz_host_uptime_huge)
{
    size_t len;
    char *text = load("fuzz/host-uptime-huge.txt", &len);
    REQUIRE(text);
    double secs = 0;
    REQUIRE(host_parse_uptime(text, &secs) == 0);
    CHECK(secs > 1e55);
    /* the renderer shows such a number without converting it */
    struct report *r = report_new();
    kv_add_num(&r->host, "uptime_s", "Uptime", secs, "s");
    struct strbuf sb = STRBUF_INIT;
    markdown_render(r, &sb);
    CHECK_CONTAINS(sb_str(&sb), "- **Uptime:** -\n");
    sb_free(&sb);
    report_free(r);
    free(text);
}

/* " \0 1": the stack " \0" was accepted, stored as " " and written back as
 * "  1", which reads as an empty stack: folded_write() output must parse. */
TEST(fuzz_flame_nul_in_folded_line)
{
    size_t len;
    char *text = load("fuzz/flame-nul-space-frame.txt", &len);
    REQUIRE(text);
    REQUIRE(len == 4 && text[1] == '\0');
    struct profile *p = profile_new("cpu", NULL, NULL);
    struct flame_parse_stats st = {0};
    CHECK_NUM(folded_parse(p, text, len, &st), 0, 0);
    CHECK_NUM(st.malformed, 1, 0);
    CHECK_NUM(st.nbad, 1, 0);
    CHECK_NUM(st.bad_line[0], 1, 0);
    /* A good line next to it still counts. */
    static const char two[] = "a;b\0c 3\na;b 2\n";
    CHECK_NUM(folded_parse(p, two, sizeof two - 1, &st), 1, 0);
    CHECK_NUM(profile_total(p), 2, 0);
    struct strbuf out = STRBUF_INIT;
    folded_write(p, &out);
    CHECK_STR(sb_str(&out), "a;b 2\n");
    sb_free(&out);
    profile_free(p);
    free(text);
}

/* "0)" looks like an ordered-list marker: esc_md() put a backslash before
 * the ')' and the generic rule escaped ')' again, giving "0\\\\)": an escaped
 * backslash followed by a bare ')'. */
TEST(fuzz_escape_md_ordered_list_paren)
{
    size_t len;
    char *text = load("fuzz/escape-md-ordered-paren.txt", &len);
    REQUIRE(text);
    struct strbuf sb = STRBUF_INIT;
    esc_md(&sb, text);
    CHECK_STR(sb_str(&sb), "0\\)");
    sb_reset(&sb);
    esc_md(&sb, "12) x");
    CHECK_STR(sb_str(&sb), "12\\) x");
    sb_reset(&sb);
    esc_md(&sb, "12. x");
    CHECK_STR(sb_str(&sb), "12\\. x");
    sb_reset(&sb);
    esc_md(&sb, "6.18");
    CHECK_STR(sb_str(&sb), "6.18");
    sb_free(&sb);
    free(text);
}
