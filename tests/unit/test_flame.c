/* Stack profiles, folded parsing, the flamegraph SVG (`perf script`
 * collapsing: test_collapse.c). */
#include "harness.h"
#include "test_util.h"
#include "../../src/model/model.h"
#include "../../src/model/profile.h"
#include "../../src/render/folded.h"
#include "../../src/render/svg_flame.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/xalloc.h"
#include "assets.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t total_at(struct profile *p, const char *const *path, size_t depth)
{
    uint32_t n = profile_find(p, path, depth);
    return n == PROFILE_NONE ? 0 : p->nodes[n].total;
}

static size_t count_str(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *s = hay; (s = strstr(s, needle)) != NULL; s += strlen(needle))
        n++;
    return n;
}

TEST(flame_folded_basic)
{
    struct profile *p = profile_new("cpu", "On-CPU", "samples");
    struct flame_parse_stats st = {0};
    const char *text = "main;do work;compute 10\n"
                       "main;do work 5\n"
                       "main;idle 3\r\n"
                       "other 2\n";
    CHECK_NUM(folded_parse(p, text, strlen(text), &st), 4, 0);
    CHECK_NUM(profile_total(p), 20, 0);
    CHECK_NUM(total_at(p, (const char *[]){"main"}, 1), 18, 0);
    CHECK_NUM(total_at(p, (const char *[]){"main", "do work"}, 2), 15, 0);
    CHECK_NUM(total_at(p, (const char *[]){"main", "do work", "compute"}, 3), 10, 0);
    CHECK_NUM(total_at(p, (const char *[]){"main", "idle"}, 2), 3, 0); /* CR stripped */
    uint32_t dw = profile_find(p, (const char *[]){"main", "do work"}, 2);
    REQUIRE(dw != PROFILE_NONE);
    CHECK_NUM(profile_self(p, dw), 5, 0);
    CHECK_NUM(profile_max_depth(p), 3, 0);
    CHECK_NUM(st.malformed, 0, 0);
    profile_free(p);
}

TEST(flame_folded_malformed)
{
    struct profile *p = profile_new("cpu", NULL, NULL);
    struct flame_parse_stats st = {0};
    const char *text = "a;b 1\n"          /* 1 ok */
                       "\n"               /* 2 blank */
                       "a;b\n"            /* 3 missing count */
                       "a;b 0\n"          /* 4 zero */
                       " 7\n"             /* 5 empty stack */
                       "a;c 18446744073709551615\n" /* 6 huge but fits... */
                       "a;d 99999999999999999999\n" /* 7 too large */
                       "a;b x12\n"        /* 8 missing count */
                       "a;b 2.5\n"        /* 9 fractional, rounds to 3 */
                       "   \r\n";         /* 10 blank */
    folded_parse(p, text, strlen(text), &st);
    CHECK_NUM(st.lines, 10, 0);
    CHECK_NUM(st.blank, 2, 0);
    CHECK_NUM(st.zero, 1, 0);
    /* line 6 fits in u64 but then the total would overflow: refused too */
    CHECK_NUM(st.malformed, 5, 0);
    REQUIRE(st.nbad == 5);
    CHECK_NUM(st.bad_line[0], 3, 0);
    CHECK_STR(st.bad_why[0], "missing count after the last space");
    CHECK_NUM(st.bad_line[1], 5, 0);
    CHECK_STR(st.bad_why[1], "empty stack");
    CHECK_NUM(st.bad_line[2], 6, 0);
    CHECK_STR(st.bad_why[2], "total count overflows");
    CHECK_NUM(st.bad_line[3], 7, 0);
    CHECK_STR(st.bad_why[3], "count too large");
    CHECK_NUM(st.bad_line[4], 8, 0);
    CHECK_NUM(total_at(p, (const char *[]){"a", "b"}, 2), 4, 0);
    CHECK_NUM(profile_total(p), 4, 0);
    profile_free(p);

    /* a huge count alone is fine */
    p = profile_new("cpu", NULL, NULL);
    memset(&st, 0, sizeof st);
    const char *big = "x;y 18446744073709551615\n";
    folded_parse(p, big, strlen(big), &st);
    CHECK(profile_total(p) == UINT64_MAX);
    CHECK_NUM(st.malformed, 0, 0);
    profile_free(p);
}

TEST(flame_folded_kinds)
{
    struct profile *p = profile_new("cpu", NULL, NULL);
    struct flame_parse_stats st = {0};
    const char *text = "java;Interp_[j];inl_[i];sys_read_[k];[unknown] 4\n"
                       "java;plain_[x] 1\n";
    folded_parse(p, text, strlen(text), &st);
    const char *path[] = {"java", "Interp", "inl", "sys_read", "[unknown]"};
    for (size_t d = 1; d <= 5; d++)
        CHECK(profile_find(p, path, d) != PROFILE_NONE);
    CHECK_NUM(profile_node_kind(p, profile_find(p, path, 2)), FRAME_JIT, 0);
    CHECK_NUM(profile_node_kind(p, profile_find(p, path, 3)), FRAME_INLINE, 0);
    CHECK_NUM(profile_node_kind(p, profile_find(p, path, 4)), FRAME_KERNEL, 0);
    CHECK_NUM(profile_node_kind(p, profile_find(p, path, 5)), FRAME_UNKNOWN, 0);
    /* unknown annotation letters stay part of the name */
    CHECK(profile_find(p, (const char *[]){"java", "plain_[x]"}, 2) != PROFILE_NONE);
    profile_free(p);
}

TEST(flame_roundtrip)
{
    struct profile *p = profile_new("cpu", NULL, NULL);
    const char *s1[] = {"zeta", "b b", "<script>", "]]>"};
    const char *s2[] = {"alpha", "x"};
    const char *s3[] = {"zeta", "b b"};
    const char *s4[] = {"zeta", "semi;colon", "k"};
    uint8_t k4[] = {FRAME_USER, FRAME_USER, FRAME_KERNEL};
    profile_add_stack(p, s1, NULL, 4, 3);
    profile_add_stack(p, s2, NULL, 2, 7);
    profile_add_stack(p, s3, NULL, 2, 2);
    profile_add_stack(p, s4, k4, 3, 1);
    profile_add_stack(p, s1, NULL, 4, 1);
    struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    folded_write(p, &a);
    CHECK_STR(sb_str(&a), "alpha;x 7\n"
                          "zeta;b b 2\n"
                          "zeta;b b;<script>;]]> 4\n"
                          "zeta;semi_colon;k_[k] 1\n");
    struct profile *q = profile_new("cpu", NULL, NULL);
    struct flame_parse_stats st = {0};
    folded_parse(q, a.buf, a.len, &st);
    folded_write(q, &b);
    CHECK_STR(sb_str(&b), sb_str(&a));
    CHECK_NUM(profile_total(q), profile_total(p), 0);
    CHECK_NUM(profile_total(p), 14, 0);

    /* reverse: leaves become roots */
    struct profile *r = profile_reversed(p);
    CHECK_NUM(profile_total(r), 14, 0);
    CHECK_NUM(total_at(r, (const char *[]){"]]>", "<script>", "b b", "zeta"}, 4), 4, 0);
    CHECK_NUM(total_at(r, (const char *[]){"x", "alpha"}, 2), 7, 0);
    profile_free(r);
    profile_free(p);
    profile_free(q);
    sb_free(&a);
    sb_free(&b);
}

TEST(flame_report_owns_profiles)
{
    struct report *r = report_new();
    struct profile *p = report_add_profile(r, profile_new("cpu", "On-CPU", "samples"));
    report_add_profile(r, profile_new("offcpu", "Off-CPU", "us"));
    profile_add_stack(p, (const char *[]){"a"}, NULL, 1, 1);
    CHECK(report_find_profile(r, "cpu") == p);
    CHECK_STR(report_find_profile(r, "offcpu")->unit, "us");
    CHECK(report_find_profile(r, "nope") == NULL);
    report_free(r); /* LSan checks the rest */
}

/* ---- SVG ---- */

static struct profile *sample_profile(void)
{
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    uint8_t kk[] = {FRAME_PROCESS, FRAME_USER, FRAME_KERNEL, FRAME_KERNEL};
    profile_add_stack(p, (const char *[]){"app", "main", "sys_write", "vfs_write"}, kk, 4, 30);
    profile_add_stack(p, (const char *[]){"app", "main", "compute_a_really_long_function_name_"
                                                          "that_cannot_fit_anywhere"}, kk, 3, 50);
    uint32_t leaf = profile_add_stack(p, (const char *[]){"app", "main", "<script>alert(1)</script>",
                                                          "]]>", "ctl\x01\x1b byte"},
                                      (const uint8_t[]){FRAME_PROCESS, 0, 0, 0, 0}, 5, 15);
    profile_set_source(p, leaf, "src/evil.c:42");
    uint8_t kj[] = {FRAME_PROCESS, FRAME_JIT, FRAME_INLINE};
    profile_add_stack(p, (const char *[]){"java", "Interp", "inlined"}, kj, 3, 5);
    return p;
}

static int xmllint_ok(const char *doc)
{
    if (system("command -v xmllint >/dev/null 2>&1") != 0)
        return -1;
    char tmp[] = "/tmp/perfreport-flame-XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0)
        return 0;
    size_t n = strlen(doc);
    int ok = write(fd, doc, n) == (ssize_t)n;
    close(fd);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "xmllint --noout %s", tmp);
    ok = ok && system(cmd) == 0;
    unlink(tmp);
    return ok;
}

/* The bundle's graphs carry a legend of the kinds of frame they hold, and a
 * kernel frame's colour is one that no user frame of the default palette can
 * have (violet: blue well above red's share; "hot" user frames keep blue
 * under 56). */
TEST(flame_svg_legend_and_kernel_hue)
{
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    char names[200][16];
    for (int i = 0; i < 200; i++) {
        snprintf(names[i], sizeof names[i], "fn_%d", i);
        uint8_t k[] = {FRAME_PROCESS, (uint8_t)(i % 2 ? FRAME_KERNEL : FRAME_USER)};
        profile_add_stack(p, (const char *[]){"app", names[i]}, k, 2, 1);
    }
    struct flame_opts o;
    flame_opts_default(&o);
    o.legend = true;
    struct strbuf sb = STRBUF_INIT;
    svg_flame_render(p, &o, false, NULL, &sb);
    const char *svg = sb_str(&sb);
    const char *lg = strstr(svg, "<g class=\"fg-legend\"");
    REQUIRE(lg);
    const char *lg_end = strstr(lg, "</g>");
    CHECK(lg_end && strstr(lg, ">user</text>") && strstr(lg, ">user</text>") < lg_end);
    CHECK(strstr(lg, ">kernel</text>") && strstr(lg, ">kernel</text>") < lg_end);
    CHECK(!strstr(lg, ">JIT</text>") || strstr(lg, ">JIT</text>") > lg_end); /* none in it */
    int users = 0, kernels = 0;
    for (const char *q = svg; (q = strstr(q, "<title>fn_")); q++) {
        int idx = atoi(q + 10);
        const char *f = strstr(q, "fill=\"rgb(");
        REQUIRE(f);
        int r = 0, g = 0, b = 0;
        CHECK(sscanf(f + 10, "%d,%d,%d", &r, &g, &b) == 3);
        if (idx % 2) {
            CHECK(b >= 200 && b > r + 20);
            kernels++;
        } else {
            CHECK(b <= 55);
            users++;
        }
    }
    CHECK(users > 50 && kernels > 50);
    profile_free(p);
    sb_free(&sb);
}

TEST(flame_svg_golden)
{
    struct profile *p = sample_profile();
    struct flame_opts o;
    flame_opts_default(&o);
    o.title = "CPU <flame> & \"friends\"";
    o.subtitle = "subtitle 'quoted'";
    struct strbuf sb = STRBUF_INIT;
    svg_flame_render(p, &o, true, NULL, &sb);
    const char *svg = sb_str(&sb);
    CHECK_GOLDEN("golden/flame.svg", svg);
    int lint = xmllint_ok(svg);
    if (lint >= 0)
        CHECK(lint == 1);
    CHECK_CONTAINS(svg, "<title>all (100 samples, 100.00%)</title>");
    CHECK_CONTAINS(svg, "CPU &lt;flame&gt; &amp; &quot;friends&quot;");
    CHECK_CONTAINS(svg, "<title>main (95 samples, 95.00%)</title>");
    CHECK_CONTAINS(svg, "src/evil.c:42</title>");
    CHECK_CONTAINS(svg, "compute_a_really_long_function_name_that_cannot_fit_anywhere (50 samples");
    /* 590 px fits 83 characters: shown whole */
    CHECK_CONTAINS(svg, ">compute_a_really_long_function_name_that_cannot_fit_anywhere</text>");
    profile_free(p);
    sb_free(&sb);

    /* narrow: 140 px fits 19 characters, cut with a visible ".." */
    p = sample_profile();
    o.width = 300;
    svg_flame_render(p, &o, true, NULL, &sb);
    CHECK_CONTAINS(sb_str(&sb), ">compute_a_really_..</text>");
    profile_free(p);
    sb_free(&sb);
}

TEST(flame_svg_hostile_names)
{
    struct profile *p = sample_profile();
    struct strbuf sb = STRBUF_INIT;
    svg_flame_render(p, NULL, true, NULL, &sb);
    const char *svg = sb_str(&sb);
    /* exactly one script element, ours, and one CDATA end: the script's */
    CHECK_NUM(count_str(svg, "<script"), 1, 0);
    CHECK_NUM(count_str(svg, "]]>"), 1, 0);
    const char *script = strstr(svg, "<script");
    REQUIRE(script);
    CHECK(strstr(svg, "]]>") > script);
    CHECK_CONTAINS(svg, "&lt;script&gt;alert(1)&lt;/script&gt;");
    CHECK_CONTAINS(svg, "]]&gt;");
    for (const unsigned char *s = (const unsigned char *)svg; *s; s++)
        if (*s < 0x20 && *s != '\n' && *s != '\t' && *s != '\r') {
            test_fail(__FILE__, __LINE__, "control byte 0x%02x in SVG", *s);
            break;
        }
    CHECK_CONTAINS(svg, "ctl\xEF\xBF\xBD\xEF\xBF\xBD byte");
    /* the embedded script is the asset, intact */
    CHECK_CONTAINS(svg, "function initAll()");
    profile_free(p);
    sb_free(&sb);
}

TEST(flame_js_asset_rules)
{
    const char *js = asset_flamegraph_js;
    CHECK(strstr(js, "]]>") == NULL);
    CHECK(strstr(js, "innerHTML") == NULL);
    CHECK(strstr(js, "outerHTML") == NULL);
    CHECK(strstr(js, "eval(") == NULL);
    CHECK(strstr(js, "new Function") == NULL);
    CHECK(strstr(js, "prompt(") == NULL);
    CHECK(strstr(js, "getElementById") == NULL);
    CHECK(strstr(js, "://") == NULL);
}

TEST(flame_svg_inline_and_ids)
{
    struct profile *p = sample_profile();
    struct flame_opts o;
    flame_opts_default(&o);
    o.inverted = true;
    struct strbuf sb = STRBUF_INIT;
    svg_flame_render(p, &o, false, "g2-", &sb);
    const char *svg = sb_str(&sb);
    CHECK(strncmp(svg, "<svg ", 5) == 0);
    CHECK_NOT_CONTAINS(svg, "<?xml");
    CHECK_NUM(count_str(svg, "<script"), 0, 0);
    CHECK_NUM(count_str(svg, " id=\""), 1, 0);
    CHECK_CONTAINS(svg, " id=\"g2-flamegraph\"");
    CHECK_CONTAINS(svg, "data-fg-inverted=\"1\"");
    CHECK_CONTAINS(svg, ">Icicle Graph</text>");
    /* icicle: the root is the top row, right under the title area */
    CHECK_CONTAINS(svg, "<title>all (100 samples, 100.00%)</title><rect x=\"10.00\" y=\"36.0\"");
    profile_free(p);
    sb_free(&sb);
}

TEST(flame_svg_minwidth_prunes)
{
    /* one wide frame and 5000 tiny siblings under it */
    struct profile *p = profile_new("cpu", NULL, NULL);
    profile_add_stack(p, (const char *[]){"root", "big"}, NULL, 2, 100000);
    char name[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "tiny%04d", i);
        profile_add_stack(p, (const char *[]){"root", "many", name}, NULL, 3, 1);
    }
    struct strbuf sb = STRBUF_INIT;
    svg_flame_render(p, NULL, true, NULL, &sb);
    const char *svg = sb_str(&sb);
    /* 1180 px / 105000 samples: a tiny frame is 0.011 px, under 0.1 */
    CHECK_NUM(count_str(svg, "<g><title>"), 4, 0); /* all, root, big, many */
    CHECK_CONTAINS(svg, "<title>all (105,000 samples, 100.00%)</title>");
    CHECK_CONTAINS(svg, "<title>many (5,000 samples, 4.76%)</title>");
    CHECK_NOT_CONTAINS(svg, "tiny0001");
    sb_free(&sb);
    struct flame_opts o;
    flame_opts_default(&o);
    o.minwidth = 0;
    svg_flame_render(p, &o, true, NULL, &sb);
    CHECK_NUM(count_str(sb_str(&sb), "<g><title>"), 5004, 0);
    /* the data is untouched */
    CHECK_NUM(profile_total(p), 105000, 0);
    profile_free(p);
    sb_free(&sb);
}

TEST(flame_svg_stable_colors)
{
    /* same name, same colour, whatever the graph */
    struct profile *a = profile_new("a", NULL, NULL), *b = profile_new("b", NULL, NULL);
    profile_add_stack(a, (const char *[]){"x", "shared_fn"}, NULL, 2, 3);
    profile_add_stack(b, (const char *[]){"y", "z", "w", "shared_fn"}, NULL, 4, 9);
    struct strbuf sa = STRBUF_INIT, sbb = STRBUF_INIT;
    svg_flame_render(a, NULL, false, "a", &sa);
    svg_flame_render(b, NULL, false, "b", &sbb);
    const char *fa = strstr(sb_str(&sa), "<title>shared_fn");
    const char *fb = strstr(sb_str(&sbb), "<title>shared_fn");
    REQUIRE(fa && fb);
    fa = strstr(fa, "fill=\"");
    fb = strstr(fb, "fill=\"");
    REQUIRE(fa && fb);
    CHECK(strncmp(fa, fb, 24) == 0);
    profile_free(a);
    profile_free(b);
    sb_free(&sa);
    sb_free(&sbb);
}

TEST(flame_svg_empty_profile)
{
    struct profile *p = profile_new("offcpu", NULL, "us");
    struct strbuf sb = STRBUF_INIT;
    svg_flame_render(p, NULL, true, NULL, &sb);
    CHECK_CONTAINS(sb_str(&sb), "No us recorded");
    int lint = xmllint_ok(sb_str(&sb));
    if (lint >= 0)
        CHECK(lint == 1);
    profile_free(p);
    sb_free(&sb);
}
