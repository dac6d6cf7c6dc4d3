/* Stack profiles, folded parsing, the flamegraph SVG (`perf script`
 * collapsing: test_collapse.c). */
#include "harness.h"
#include "test_util.h"
#include "../../src/model/model.h"
#include "../../src/model/profile.h"
#include "../../src/flame/folded.h"
#include "../../src/render/svg_flame.h"
#include "../../src/render/charts.h"
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

/* A line or a stack past the bounds is malformed, whatever else is right
 * with it: one line of a 1 GiB file cost 5 GB and 79 s (issue 30, 10). */
TEST(flame_folded_line_and_depth_bounds)
{
    struct profile *p = profile_new("cpu", NULL, NULL);
    struct strbuf sb = STRBUF_INIT;
    for (int i = 0; i < FOLDED_MAX_DEPTH; i++)
        sb_add(&sb, i ? ";a" : "a");
    sb_add(&sb, " 1\n"); /* as deep as allowed */
    for (int i = 0; i <= FOLDED_MAX_DEPTH; i++)
        sb_add(&sb, i ? ";b" : "b");
    sb_add(&sb, " 2\n"); /* one frame more */
    struct flame_parse_stats st = {0};
    folded_parse(p, sb.buf, sb.len, &st);
    CHECK_NUM(st.stacks, 1, 0);
    REQUIRE(st.nbad == 1);
    CHECK_NUM(st.bad_line[0], 2, 0);
    CHECK_STR(st.bad_why[0], "stack deeper than 65536 frames");
    CHECK_NUM(profile_total(p), 1, 0);
    sb_reset(&sb);
    sb_add(&sb, "x;");
    while (sb.len <= FOLDED_MAX_LINE)
        sb_add(&sb, "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");
    sb_add(&sb, " 3\nz 4\n");
    memset(&st, 0, sizeof st);
    folded_parse(p, sb.buf, sb.len, &st);
    REQUIRE(st.nbad == 1);
    CHECK_STR(st.bad_why[0], "line longer than 16 MiB");
    CHECK_NUM(profile_total(p), 5, 0);
    sb_free(&sb);
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

/* ---- flamegraph.pl's options, differential and chart profiles ---- */

#include "../../src/cmd/flamegraph.h"
#include "../../src/model/profile_chart.h"
#include "../../src/model/profile_diff.h"
#include "../../src/render/flame_colors.h"
#include "../../src/render/flame_nameattr.h"
#include "../../src/render/flame_palette_map.h"
#include <errno.h>
#include <sys/stat.h>

struct rgb {
    int r, g, b;
    bool found;
};

/* Fill of the first frame whose tooltip starts with "name (". */
static struct rgb fill_of(const char *svg, const char *name)
{
    struct rgb c = {0, 0, 0, false};
    char key[256];
    snprintf(key, sizeof key, "<title>%s (", name);
    const char *t = strstr(svg, key);
    if (!t)
        return c;
    const char *f = strstr(t, "fill=\"rgb(");
    if (f && sscanf(f + 10, "%d,%d,%d", &c.r, &c.g, &c.b) == 3)
        c.found = true;
    return c;
}

/* x and width of the n-th (0-based) frame named name. */
static bool rect_of(const char *svg, const char *name, int nth, double *x, double *w)
{
    char key[256];
    snprintf(key, sizeof key, "<title>%s (", name);
    const char *t = svg;
    for (int i = 0; i <= nth; i++) {
        t = strstr(t, key);
        if (!t)
            return false;
        t += strlen(key);
    }
    const char *r = strstr(t, "<rect x=\"");
    return r && sscanf(r, "<rect x=\"%lf\" y=\"%*[^\"]\" width=\"%lf\"", x, w) == 2;
}

static struct profile *folded(const char *text, struct flame_parse_stats *st)
{
    struct profile *p = profile_new("t", NULL, NULL);
    struct flame_parse_stats local = {0};
    folded_parse(p, text, strlen(text), st ? st : &local);
    return p;
}

static char *render_with(const struct profile *p, const struct flame_opts *o)
{
    struct strbuf sb = STRBUF_INIT;
    svg_flame_render(p, o, true, NULL, &sb);
    return sb_detach(&sb);
}

TEST(flame_folded_differential)
{
    struct flame_parse_stats st = {0};
    /* difffolded.pl's lines: stack BEFORE AFTER; names may end in digits */
    struct profile *p = folded("main;grow 10 30\n"
                               "main;shrink 40 10\n"
                               "main;same 5 5\n"
                               "main;gone 7 0\n"
                               "main;new 0 6\n"
                               "main;op 2 3 4\n" /* frame "op 2", counts 3 and 4 */
                               "main;zero 0 0\n",
                               &st);
    CHECK(profile_is_diff(p));
    CHECK_NUM(st.mixed, 0, 0);
    CHECK_NUM(st.zero, 1, 0);
    CHECK_NUM(profile_total(p), 30 + 10 + 5 + 0 + 6 + 4, 0);
    CHECK_NUM(profile_node_base(p, PROFILE_ROOT), 10 + 40 + 5 + 7 + 0 + 3, 0);
    uint32_t g = profile_find(p, (const char *[]){"main", "grow"}, 2);
    uint32_t gone = profile_find(p, (const char *[]){"main", "gone"}, 2);
    uint32_t op = profile_find(p, (const char *[]){"main", "op 2"}, 2);
    REQUIRE(g != PROFILE_NONE && gone != PROFILE_NONE && op != PROFILE_NONE);
    CHECK_NUM(p->nodes[g].total, 30, 0);
    CHECK_NUM(profile_node_base(p, g), 10, 0);
    CHECK_NUM(p->nodes[gone].total, 0, 0); /* only in the baseline: kept, zero width */
    CHECK_NUM(profile_self_base(p, gone), 7, 0);
    CHECK_NUM(p->nodes[op].total, 4, 0);
    CHECK_NUM(profile_node_base(p, op), 3, 0);
    profile_free(p);

    /* "1 2" is the stack "1" with one count: nothing would be left for a stack */
    memset(&st, 0, sizeof st);
    p = folded("1 2\n", &st);
    CHECK(!profile_is_diff(p));
    CHECK_NUM(total_at(p, (const char *[]){"1"}, 1), 2, 0);
    profile_free(p);

    /* mixed: the first counted line decides, the others are counted, not used */
    memset(&st, 0, sizeof st);
    p = folded("bad line\n"
               "a;b 1 2\n"
               "a;c 5\n"
               "a;d 3 4\n"
               "a;e 6\n",
               &st);
    CHECK_NUM(st.mixed, 2, 0);
    CHECK_NUM(st.mixed_line, 3, 0);
    CHECK_NUM(total_at(p, (const char *[]){"a", "c"}, 2), 0, 0);
    CHECK_NUM(profile_total(p), 6, 0);
    profile_free(p);
    memset(&st, 0, sizeof st);
    p = folded("a;c 5\na;b 1 2\n", &st);
    CHECK_NUM(st.mixed, 1, 0);
    CHECK_NUM(st.mixed_line, 2, 0);
    CHECK(!profile_is_diff(p));
    profile_free(p);
}

TEST(flame_svg_differential_colors)
{
    struct profile *p = folded("main;grow 10 30\n"
                               "main;shrink 40 10\n"
                               "main;same 5 5\n"
                               "main;bit 5 6\n",
                               NULL);
    struct flame_opts o;
    flame_opts_default(&o);
    char *svg = render_with(p, &o);
    struct rgb grow = fill_of(svg, "grow"), shrink = fill_of(svg, "shrink"),
               same = fill_of(svg, "same"), bit = fill_of(svg, "bit"), mainf = fill_of(svg, "main");
    REQUIRE(grow.found && shrink.found && same.found && bit.found && mainf.found);
    /* the largest change (-30) is full blue; +20 is red two thirds of the way */
    CHECK(shrink.r == 0 && shrink.g == 0 && shrink.b == 255);
    CHECK(grow.r == 255 && grow.g == grow.b && grow.g == 70);
    CHECK(bit.r == 255 && bit.g > 200 && bit.g < 255); /* +1: faint red */
    CHECK(same.r == 255 && same.g == 255 && same.b == 255);
    CHECK(mainf.r == 255 && mainf.g == 255 && mainf.b == 255); /* no own change */
    /* widths are the after counts: grow 30 of 51 */
    double x, w;
    REQUIRE(rect_of(svg, "grow", 0, &x, &w));
    CHECK_NUM(w, 1180.0 * 30 / 51, 0.01);
    CHECK_CONTAINS(svg, "<title>grow (30 samples, 58.82%; self +20, +39.22%)</title>");
    CHECK_CONTAINS(svg, "<title>shrink (10 samples, 19.61%; self -30, -58.82%)</title>");
    CHECK_CONTAINS(svg, "<title>same (5 samples, 9.80%; self 0, 0.00%)</title>");
    CHECK_NOT_CONTAINS(svg, "fg-legend");
    free(svg);

    /* --negate: the hues swap, the widths stay */
    o.negate = true;
    svg = render_with(p, &o);
    grow = fill_of(svg, "grow"), shrink = fill_of(svg, "shrink");
    CHECK(grow.b == 255 && grow.r == grow.g && grow.r == 70);
    CHECK(shrink.r == 255 && shrink.g == 0 && shrink.b == 0);
    REQUIRE(rect_of(svg, "grow", 0, &x, &w));
    CHECK_NUM(w, 1180.0 * 30 / 51, 0.01);
    CHECK_CONTAINS(svg, "<title>grow (30 samples, 58.82%; self -20, -39.22%)</title>");
    free(svg);

    /* --reverse keeps the baselines */
    o.negate = false;
    o.reverse = true;
    svg = render_with(p, &o);
    grow = fill_of(svg, "main");
    CHECK_CONTAINS(svg, "<title>grow (30 samples, 58.82%; self 0, 0.00%)</title>");
    CHECK_CONTAINS(svg, "<title>main (30 samples, 58.82%; self +20, +39.22%)</title>");
    free(svg);
    profile_free(p);
}

static bool in_range(int v, int lo, int hi) { return v >= lo && v <= hi; }

TEST(flame_svg_palettes)
{
    /* every frame of a flat palette is in that palette's range */
    static const struct {
        const char *pal;
        int r0, r1, g0, g1, b0, b1;
    } flat[] = {
        {"red", 200, 255, 50, 130, 50, 130},    {"green", 50, 110, 200, 255, 50, 110},
        {"blue", 80, 140, 80, 140, 205, 255},   {"aqua", 50, 110, 165, 220, 165, 220},
        {"yellow", 175, 230, 175, 230, 50, 70}, {"purple", 190, 255, 80, 140, 190, 255},
        {"orange", 190, 255, 90, 155, 0, 0},    {"wakeup", 50, 110, 165, 220, 165, 220},
    };
    struct profile *p = profile_new("t", NULL, NULL);
    char name[32];
    for (int i = 0; i < 60; i++) {
        snprintf(name, sizeof name, "fn%d", i);
        uint8_t k[] = {FRAME_USER, (uint8_t)(i % 3 == 0 ? FRAME_KERNEL : FRAME_USER)};
        profile_add_stack(p, (const char *[]){"main", name}, k, 2, 1);
    }
    for (size_t i = 0; i < sizeof flat / sizeof *flat; i++) {
        struct flame_opts o;
        flame_opts_default(&o);
        o.colors = flat[i].pal;
        char *svg = render_with(p, &o);
        int n = 0;
        for (int k = 0; k < 60; k++) {
            snprintf(name, sizeof name, "fn%d", k);
            struct rgb c = fill_of(svg, name);
            if (!c.found || !in_range(c.r, flat[i].r0, flat[i].r1) ||
                !in_range(c.g, flat[i].g0, flat[i].g1) || !in_range(c.b, flat[i].b0, flat[i].b1))
                test_fail(__FILE__, __LINE__, "%s: %s is rgb(%d,%d,%d)", flat[i].pal, name, c.r,
                          c.g, c.b);
            else
                n++;
        }
        CHECK_NUM(n, 60, 0);
        free(svg);
    }
    profile_free(p);
}

/* The multi-hue palettes say what a frame is from its name and annotation. */
TEST(flame_svg_java_js_perl_chain)
{
    struct profile *p = folded("java;java/util/HashMap.get_[j] 1\n"
                               "java;Lcom/acme/Foo.bar 1\n"
                               "java;Interpreter 1\n"
                               "java;JVM::gc 1\n"
                               "java;sys_read_[k] 1\n"
                               "java;inl_[i] 1\n"
                               "java;Foo:::bar 1\n"
                               "java;memcpy 1\n"
                               "java;start_thread 1\n",
                               NULL);
    struct flame_opts o;
    flame_opts_default(&o);
    o.colors = "java";
    char *svg = render_with(p, &o);
    struct rgb c;
    c = fill_of(svg, "java/util/HashMap.get"); /* jit: green */
    CHECK(c.found && c.g >= 200 && c.r <= 110 && c.r == c.b);
    c = fill_of(svg, "Lcom/acme/Foo.bar"); /* a Java class path: green */
    CHECK(c.found && c.g >= 200 && c.r <= 110);
    c = fill_of(svg, "Foo:::bar");
    CHECK(c.found && c.g >= 200 && c.r <= 110);
    c = fill_of(svg, "JVM::gc"); /* C++: yellow */
    CHECK(c.found && c.r == c.g && c.b <= 70);
    c = fill_of(svg, "sys_read"); /* kernel: orange */
    CHECK(c.found && c.b == 0 && c.r >= 190);
    c = fill_of(svg, "inl"); /* inlined: aqua */
    CHECK(c.found && c.g == c.b && c.r <= 110);
    /* unannotated native code is red ("system"), not yellow */
    const char *sys[] = {"memcpy", "start_thread", "Interpreter", "java"};
    for (size_t i = 0; i < 4; i++) {
        c = fill_of(svg, sys[i]);
        CHECK(c.found && c.r >= 200 && c.g == c.b && c.g <= 130);
    }
    free(svg);
    profile_free(p);

    p = folded("node;LazyCompile:*main /app/server.js:10_[j] 1\n"
               "node;Builtin:ArrayMap_[j] 1\n"
               "node;v8::internal::Invoke 1\n"
               "node;/app/lib.js:3 1\n"
               "node;epoll_wait_[k] 1\n"
               "node;uv_run 1\n",
               NULL);
    o.colors = "js";
    svg = render_with(p, &o);
    c = fill_of(svg, "LazyCompile:*main /app/server.js:10");
    CHECK(c.found && c.g >= 200 && c.r == c.b);
    c = fill_of(svg, "Builtin:ArrayMap");
    CHECK(c.found && c.g == c.b && c.g >= 165 && c.r <= 110);
    c = fill_of(svg, "v8::internal::Invoke");
    CHECK(c.found && c.r == c.g && c.b <= 70);
    c = fill_of(svg, "/app/lib.js:3");
    CHECK(c.found && c.g >= 200 && c.r == c.b);
    c = fill_of(svg, "epoll_wait");
    CHECK(c.found && c.b == 0);
    c = fill_of(svg, "uv_run");
    CHECK(c.found && c.r >= 200 && c.g == c.b);
    free(svg);
    profile_free(p);

    p = folded("perl;Perl_runops_standard 1\nperl;main::work 1\nperl;read 1\n", NULL);
    o.colors = "perl";
    svg = render_with(p, &o);
    c = fill_of(svg, "Perl_runops_standard");
    CHECK(c.found && c.g >= 200 && c.r == c.b);
    c = fill_of(svg, "main::work");
    CHECK(c.found && c.r == c.g && c.b <= 70);
    c = fill_of(svg, "read");
    CHECK(c.found && c.r >= 200 && c.g == c.b);
    free(svg);
    profile_free(p);

    /* chain: off-CPU stack, "--", then the waker's stack in aqua */
    p = folded("app;read;schedule;--;kworker;wake_up 5\napp;poll 2\n", NULL);
    o.colors = "chain";
    svg = render_with(p, &o);
    c = fill_of(svg, "schedule");
    CHECK(c.found && c.b >= 205 && c.r == c.g);
    c = fill_of(svg, "poll");
    CHECK(c.found && c.b >= 205 && c.r == c.g);
    c = fill_of(svg, "--");
    CHECK(c.found && c.r == 160 && c.g == 160 && c.b == 160);
    c = fill_of(svg, "kworker");
    CHECK(c.found && c.g == c.b && c.g >= 165 && c.r <= 110);
    c = fill_of(svg, "wake_up");
    CHECK(c.found && c.g == c.b && c.g >= 165 && c.r <= 110);
    free(svg);
    profile_free(p);
}

TEST(flame_svg_hash_and_random)
{
    struct profile *a = folded("x;ext4_readpage_one 3\nx;zz 1\n", NULL);
    struct profile *b = folded("y;z;w;ext4_readpage_one 9\ny;ext4_readpage_two 2\n", NULL);
    struct flame_opts o;
    flame_opts_default(&o);
    o.shade = FLAME_SHADE_HASH;
    char *sa = render_with(a, &o), *sb2 = render_with(b, &o), *sa2 = render_with(a, &o);
    struct rgb ca = fill_of(sa, "ext4_readpage_one"), cb = fill_of(sb2, "ext4_readpage_one"),
               ca2 = fill_of(sa2, "ext4_readpage_one"), two = fill_of(sb2, "ext4_readpage_two");
    REQUIRE(ca.found && cb.found && ca2.found && two.found);
    /* same name, same colour: across inputs and runs */
    CHECK(ca.r == cb.r && ca.g == cb.g && ca.b == cb.b);
    CHECK(ca.r == ca2.r && ca.g == ca2.g && ca.b == ca2.b);
    /* a shared prefix gives the same green (hot: green from the first characters) */
    CHECK(two.g == ca.g);
    CHECK(in_range(ca.r, 205, 255) && in_range(ca.g, 0, 230) && in_range(ca.b, 0, 55));
    free(sa);
    free(sb2);
    free(sa2);

    /* --random: another seed, other colours; still the palette's */
    o.shade = FLAME_SHADE_RANDOM;
    o.random_seed = 1;
    sa = render_with(b, &o);
    o.random_seed = 2;
    sa2 = render_with(b, &o);
    int differ = 0;
    const char *names[] = {"y", "z", "w", "ext4_readpage_one", "ext4_readpage_two"};
    for (size_t i = 0; i < 5; i++) {
        struct rgb x = fill_of(sa, names[i]), y = fill_of(sa2, names[i]);
        CHECK(x.found && in_range(x.r, 205, 255) && in_range(x.b, 0, 55));
        differ += x.r != y.r || x.g != y.g || x.b != y.b;
    }
    CHECK(differ >= 4);
    free(sa);
    free(sa2);
    profile_free(a);
    profile_free(b);
}

TEST(flame_svg_total_factor_minwidth)
{
    struct profile *p = folded("a;b 60\na;c 30\na;d 6\na;e 4\n", NULL);
    struct flame_opts o;
    flame_opts_default(&o);
    char *svg = render_with(p, &o);
    double x, w1, w2;
    REQUIRE(rect_of(svg, "b", 0, &x, &w1));
    free(svg);
    /* --total twice the input's: every frame half as wide, the root spans all */
    o.total = 200;
    svg = render_with(p, &o);
    REQUIRE(rect_of(svg, "b", 0, &x, &w2));
    CHECK_NUM(w2, w1 / 2, 0.01);
    REQUIRE(rect_of(svg, "a", 0, &x, &w2));
    CHECK_NUM(w2, 590, 0.01);
    REQUIRE(rect_of(svg, "all", 0, &x, &w2));
    CHECK_NUM(w2, 1180, 0.01);
    CHECK_CONTAINS(svg, "<title>all (200 samples, 100.00%)</title>");
    CHECK_CONTAINS(svg, "<title>b (60 samples, 30.00%)</title>");
    free(svg);

    /* --factor scales the counts shown, not the shares */
    o.total = 0;
    o.factor = 1000;
    svg = render_with(p, &o);
    CHECK_CONTAINS(svg, "<title>b (60,000 samples, 60.00%)</title>");
    CHECK_CONTAINS(svg, "<title>all (100,000 samples, 100.00%)</title>");
    free(svg);
    o.factor = 0.5;
    svg = render_with(p, &o);
    CHECK_CONTAINS(svg, "<title>b (30 samples, 60.00%)</title>");
    free(svg);

    /* --minwidth 5%: d (6 %) stays, e (4 %) goes; 6% drops d too */
    o.factor = 1;
    o.minwidth = 5;
    o.minwidth_pct = true;
    svg = render_with(p, &o);
    CHECK_CONTAINS(svg, "<title>d (6 samples");
    CHECK_NOT_CONTAINS(svg, "<title>e (");
    free(svg);
    o.minwidth = 6;
    svg = render_with(p, &o);
    CHECK_CONTAINS(svg, "<title>d (6 samples"); /* exactly 6 %: kept */
    free(svg);
    o.minwidth = 6.5;
    svg = render_with(p, &o);
    CHECK_NOT_CONTAINS(svg, "<title>d (");
    CHECK_CONTAINS(svg, "<title>c (30 samples");
    free(svg);
    profile_free(p);
}

/* Fractional counts stay exact (issue 35, 1): flamegraph.pl sums them as
 * numbers; rounding per line drew e at 14.29 % instead of 10 %. */
static struct profile *folded_exact(const char *text, unsigned *decimals)
{
    struct profile *p = profile_new("t", NULL, NULL);
    struct folded_parser fp;
    folded_init(&fp, p);
    fp.exact_fractions = true;
    size_t lineno = 0;
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        folded_line(&fp, s, n, ++lineno);
        s += n + (nl != NULL);
    }
    folded_finish(&fp);
    *decimals = fp.decimals;
    return p;
}

TEST(flame_fractional_counts_exact)
{
    unsigned dec = 0;
    struct profile *p = folded_exact("a;b 1.5\na;c 1.5\na;d 1.5\na;e 0.5\n", &dec);
    CHECK_NUM(dec, 1, 0);
    CHECK_NUM(profile_total(p), 50, 0); /* 5.0 in tenths */
    struct flame_opts o;
    flame_opts_default(&o);
    o.count_decimals = dec;
    char *svg = render_with(p, &o);
    double x, w;
    REQUIRE(rect_of(svg, "e", 0, &x, &w));
    CHECK_NUM(w, 118, 0.01); /* 10 % of 1180 */
    REQUIRE(rect_of(svg, "b", 0, &x, &w));
    CHECK_NUM(w, 354, 0.01); /* 30 % */
    CHECK_CONTAINS(svg, "<title>e (0.5 samples, 10.00%)</title>");
    CHECK_CONTAINS(svg, "<title>b (1.5 samples, 30.00%)</title>");
    CHECK_CONTAINS(svg, "<title>all (5 samples, 100.00%)</title>");
    free(svg);
    profile_free(p);

    /* a finer fraction later scales what came before (whole, pending and
     * merged alike); trailing zeros add no precision; a 7th digit rounds */
    p = folded_exact("x;y 2\nx;z 0.50\nx;y 0.25\nx;w 1.0000004\nx;v 0.0000005\n", &dec);
    CHECK_NUM(dec, 6, 0);
    CHECK_NUM(total_at(p, (const char *[]){"x", "y"}, 2), 2250000, 0);
    CHECK_NUM(total_at(p, (const char *[]){"x", "z"}, 2), 500000, 0);
    CHECK_NUM(total_at(p, (const char *[]){"x", "w"}, 2), 1000000, 0);
    CHECK_NUM(total_at(p, (const char *[]){"x", "v"}, 2), 1, 0);
    CHECK_NUM(profile_total(p), 3750001, 0);
    o.count_decimals = dec;
    o.factor = 2;
    svg = render_with(p, &o);
    CHECK_CONTAINS(svg, "<title>y (4.5 samples"); /* --factor on a fraction */
    free(svg);
    profile_free(p);

    /* differential lines with fractions: both counts in the same unit */
    p = folded_exact("m;g 1 2.5\nm;s 3 1\n", &dec);
    CHECK_NUM(dec, 1, 0);
    CHECK_NUM(total_at(p, (const char *[]){"m", "g"}, 2), 25, 0);
    uint32_t g = profile_find(p, (const char *[]){"m", "g"}, 2);
    REQUIRE(g != PROFILE_NONE);
    CHECK_NUM(profile_node_base(p, g), 10, 0);
    profile_free(p);

    /* a count that no longer fits once scaled is refused, not wrapped */
    struct profile *q = profile_new("t", NULL, NULL);
    struct folded_parser fp;
    folded_init(&fp, q);
    fp.exact_fractions = true;
    const char *l1 = "a 18446744073709552";
    const char *l2 = "b 0.001";
    folded_line(&fp, l1, strlen(l1), 1);
    folded_line(&fp, l2, strlen(l2), 2);
    folded_finish(&fp);
    CHECK_NUM(fp.st.malformed, 1, 0);
    CHECK_STR(fp.st.bad_why[0], "count too large");
    CHECK(profile_total(q) == 18446744073709552ull);
    profile_free(q);
}

/* Where flamegraph.pl draws them (issue 35, 4): a parent's own time left
 * of its children, and a blank name blank.  The x of each frame is what
 * flamegraph.pl 1.0 (FlameGraph master) writes for the same input. */
TEST(flame_svg_self_left_and_blank_names)
{
    struct profile *p = folded("a 5\na;b 3\na;c;d 2\na;c 1\n", NULL);
    char *svg = render_with(p, NULL);
    double x, w;
    REQUIRE(rect_of(svg, "b", 0, &x, &w));
    CHECK_NUM(x, 546.4, 0.05); /* after a's own 5 of 11 */
    REQUIRE(rect_of(svg, "c", 0, &x, &w));
    CHECK_NUM(x, 868.2, 0.05);
    REQUIRE(rect_of(svg, "d", 0, &x, &w));
    CHECK_NUM(x, 975.5, 0.05); /* after c's own 1 */
    free(svg);
    profile_free(p);

    p = profile_new("t", NULL, NULL);
    p->empty_names = true;
    struct flame_parse_stats st = {0};
    folded_parse(p, "a;;b 1\na;c 2\n", 13, &st);
    svg = render_with(p, NULL);
    REQUIRE(rect_of(svg, "", 0, &x, &w));
    CHECK_NUM(w, 393.33, 0.01);
    CHECK_NOT_CONTAINS(svg, "[unknown]");
    free(svg);
    profile_free(p);
    /* elsewhere (a bundle, a report) an empty name is still "[unknown]" */
    p = folded("a;;b 1\n", NULL);
    svg = render_with(p, NULL);
    CHECK_CONTAINS(svg, "<title>[unknown] (1 ");
    free(svg);
    profile_free(p);
}

/* Issue 34, 7: one stack from a broken frame-pointer walk, "[heap]+0x6966df"
 * 134 times, made the report's graph 2,019 px tall and 70 % empty. */
TEST(flame_report_garbage_stack_folded_and_height)
{
    struct strbuf in = STRBUF_INIT;
    sb_add(&in, "app;main;work 900\napp;main;idle 1\nperfreport;[truncated]");
    for (int i = 0; i < 134; i++)
        sb_add(&in, ";[heap]+0x6966df");
    sb_add(&in, " 99\n");
    /* a deep but rare stack: 2 of 1000 samples, 40 levels */
    sb_add(&in, "app;main");
    for (int i = 0; i < 40; i++)
        sb_addf(&in, ";deep%d", i);
    sb_add(&in, " 2\n");
    struct profile *p = folded(in.buf, NULL);
    struct flame_opts o;
    flame_opts_for(p, &o);
    char *svg = render_with(p, &o);
    CHECK_CONTAINS(svg, "<title>[heap]+0x6966df \xc3\x97" "134 (99 samples, 9.88%)</title>");
    CHECK_NUM(count_str(svg, "<title>[heap]+0x6966df"), 1, 0);
    CHECK_CONTAINS(svg, "<title>idle (1 sample, 0.10%)</title>"); /* singular */
    /* 3 levels: the deep stack's 0.2 % below them is not drawn, and the root
     * says so (1,002 samples in all) */
    double h = 0;
    const char *hs = strstr(svg, " height=\"");
    REQUIRE(hs && sscanf(hs, " height=\"%lf\"", &h) == 1);
    CHECK(h < 200);
    CHECK_CONTAINS(svg, "<title>deep0 (2 samples");
    CHECK_NOT_CONTAINS(svg, "<title>deep1 ");
    CHECK_CONTAINS(svg, "Not drawn: frames below level 3, where 0.20% of the total reaches deeper");
    free(svg);

    /* flamegraph.pl's graph (perfreport flamegraph) keeps every frame */
    flame_opts_default(&o);
    svg = render_with(p, &o);
    CHECK_NUM(count_str(svg, "<title>[heap]+0x6966df ("), 134, 0);
    CHECK_CONTAINS(svg, "<title>idle (1 samples, 0.10%)</title>");
    CHECK_CONTAINS(svg, "<title>deep39 (2 samples");
    free(svg);
    profile_free(p);
    sb_free(&in);

    /* off-CPU time in the one formatter's units: not "(523,146,000 us, 100.00%)" */
    p = profile_new("offcpu", "Off-CPU", "us");
    profile_add_stack(p, (const char *[]){"app", "read"}, NULL, 2, 523146000);
    flame_opts_for(p, &o);
    svg = render_with(p, &o);
    CHECK_CONTAINS(svg, "<title>all (523 s, 100.00%)</title>");
    CHECK_NOT_CONTAINS(svg, "523,146,000");
    free(svg);
    profile_free(p);
}

/* A hostile line of names "[a", "[a", "[a ×2", "[a ×2 ×2" ... (each the one
 * before plus " ×2"): folding "[a;[a" into "[a ×2" made a new run with the
 * next frame, and the graph was folded again, one more pass and one more
 * profile kept per level, ~(4/3)D^3 bytes (720 levels in a 1 MiB line: GBs).
 * Folded once, the graph draws the D - 1 frames of that single pass. */
TEST(flame_report_folds_runs_once)
{
    enum { D = 200 };
    struct strbuf names = STRBUF_INIT;
    size_t off[D];
    sb_add(&names, "[a");
    off[0] = 0;
    for (int i = 1; i < D; i++) {
        off[i] = names.len;
        sb_add(&names, "[a");
        for (int k = 1; k < i; k++)
            sb_add(&names, " \xc3\x97" "2");
    }
    struct pframe f[D];
    for (int i = 0; i < D; i++) {
        size_t end = i + 1 < D ? off[i + 1] : names.len;
        f[i] = (struct pframe){names.buf + off[i], end - off[i], FRAME_UNKNOWN};
    }
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    profile_add_frames(p, f, D, 1);
    struct flame_opts o;
    flame_opts_for(p, &o);
    char *svg = render_with(p, &o);
    /* one pass: "[a ×2" (the two "[a") and then the 198 others as they were */
    CHECK_NUM(count_str(svg, "<title>[a"), D - 1, 0);
    CHECK_NUM(count_str(svg, "<title>[a \xc3\x97" "2 (1 sample, "), 2, 0);
    free(svg);

    uint32_t *leaf_to = malloc(p->nnodes * sizeof *leaf_to);
    REQUIRE(leaf_to);
    struct profile *q = flame_report_folded(p, leaf_to);
    REQUIRE(q);
    uint32_t leaf = p->nnodes - 1, depth = 0; /* the chain's last node is its leaf */
    REQUIRE(leaf_to[leaf] != PROFILE_NONE);
    for (uint32_t n = leaf_to[leaf]; n != PROFILE_ROOT; n = q->nodes[n].parent)
        depth++;
    CHECK_NUM(depth, D - 1, 0);
    CHECK(leaf_to[1] == PROFILE_NONE); /* no stack ends at the first frame */
    free(leaf_to);
    profile_free(q);
    profile_free(p);
    sb_free(&names);
}

TEST(flame_chart_input_order)
{
    struct profile *p = profile_new("t", NULL, NULL);
    REQUIRE(profile_chart_begin(p, false));
    struct flame_parse_stats st = {0};
    /* b, c, b again apart in time, then two neighbours that merge */
    const char *text = "main;b;x 2\nmain;c 1\nmain;b 3\nmain;a 1\nmain;a 1\n";
    folded_parse(p, text, strlen(text), &st);
    CHECK(!profile_chart_begin(p, false)); /* only an empty profile */
    struct flame_opts o;
    flame_opts_default(&o);
    char *svg = render_with(p, &o);
    CHECK_CONTAINS(svg, ">Flame Chart</text>");
    CHECK_NUM(count_str(svg, "<title>main ("), 1, 0);
    CHECK_NUM(count_str(svg, "<title>b ("), 2, 0);
    CHECK_NUM(count_str(svg, "<title>a ("), 1, 0);
    double per = 1180.0 / 8, x, w;
    REQUIRE(rect_of(svg, "b", 0, &x, &w));
    double bx0 = x;
    REQUIRE(rect_of(svg, "b", 1, &x, &w));
    double bx1 = x;
    /* whichever order they are written in: one at 0 (width 2), one at 3 (width 3) */
    CHECK((fabs(bx0 - 10) < 0.01 && fabs(bx1 - (10 + 3 * per)) < 0.01) ||
          (fabs(bx1 - 10) < 0.01 && fabs(bx0 - (10 + 3 * per)) < 0.01));
    REQUIRE(rect_of(svg, "c", 0, &x, &w));
    CHECK_NUM(x, 10 + 2 * per, 0.01);
    REQUIRE(rect_of(svg, "a", 0, &x, &w));
    CHECK_NUM(x, 10 + 6 * per, 0.01);
    CHECK_NUM(w, 2 * per, 0.01);
    REQUIRE(rect_of(svg, "x", 0, &x, &w));
    CHECK_NUM(x, 10, 0.01);
    free(svg);
    profile_free(p);

    /* reversed as it is built: leaves at the bottom, order kept */
    p = profile_new("t", NULL, NULL);
    REQUIRE(profile_chart_begin(p, true));
    folded_parse(p, text, strlen(text), &st);
    o.reverse = true; /* already applied: must not be applied twice */
    svg = render_with(p, &o);
    CHECK_NUM(count_str(svg, "<title>main ("), 4, 0); /* under x, c, b, a */
    REQUIRE(rect_of(svg, "x", 0, &x, &w));
    CHECK_NUM(x, 10, 0.01);
    REQUIRE(rect_of(svg, "a", 0, &x, &w));
    CHECK_NUM(x, 10 + 6 * per, 0.01);
    free(svg);
    profile_free(p);
}

TEST(flame_svg_text_options)
{
    struct profile *p = sample_profile();
    struct flame_opts o;
    flame_opts_default(&o);
    o.notes = "run 7 <script>alert(1)</script> & --> <!--";
    o.fonttype = "Fira \"Mono\"";
    o.nametype = "Function:";
    o.fontwidth = 0.9;
    o.bgcolors = "blue";
    char *svg = render_with(p, &o);
    CHECK_CONTAINS(svg, "<desc class=\"fg-notes\">run 7 &lt;script&gt;alert(1)&lt;/script&gt; "
                        "&amp; --&gt; &lt;!--</desc>");
    CHECK_NUM(count_str(svg, "<script"), 1, 0);
    CHECK_CONTAINS(svg, "font-family=\"Fira &quot;Mono&quot;\"");
    CHECK_CONTAINS(svg, "data-fg-nametype=\"Function:\"");
    CHECK_CONTAINS(svg, "data-fg-fontwidth=\"0.900\"");
    CHECK_CONTAINS(svg, "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#e0e0ff\"");
    CHECK_CONTAINS(svg, "fill=\"url(#flamegraph-bg)\"");
    /* 590 px at 0.9 * 12 px a character fits 54: the 60-character name is cut */
    CHECK_NOT_CONTAINS(svg, ">compute_a_really_long_function_name_that_cannot_fit_anywhere</text>");
    CHECK_CONTAINS(svg, ">compute_a_really_long_function_name_that_cannot_fit_..</text>");
    int lint = xmllint_ok(svg);
    if (lint >= 0)
        CHECK(lint == 1);
    free(svg);
    o.bgcolors = "#102030";
    svg = render_with(p, &o);
    CHECK_CONTAINS(svg, "stop-color=\"#102030\" offset=\"5%\"/><stop stop-color=\"#102030\"");
    free(svg);
    char c1[8], c2[8];
    CHECK(!flame_bgcolors("#10203", c1, c2));
    CHECK(!flame_bgcolors("#1020zz", c1, c2));
    CHECK(!flame_bgcolors("red\"/><script>", c1, c2));
    profile_free(p);
}

TEST(flame_svg_encoding)
{
    CHECK(flame_encoding_valid("ISO-8859-1"));
    CHECK(flame_encoding_valid("UTF-8"));
    CHECK(!flame_encoding_valid("UTF-16")); /* ASCII is not ASCII there */
    CHECK(!flame_encoding_valid("x\" standalone=\"yes"));
    CHECK(!flame_encoding_valid("no-such-encoding-here"));
    struct profile *p = folded("main;caf\xc3\xa9_\xe2\x82\xac 3\n", NULL);
    struct flame_opts o;
    flame_opts_default(&o);
    o.encoding = "ISO-8859-1";
    char *svg = render_with(p, &o);
    CHECK(strncmp(svg, "<?xml version=\"1.0\" encoding=\"ISO-8859-1\" standalone=\"no\"?>", 58) == 0);
    CHECK_CONTAINS(svg, "<title>caf&#xE9;_&#x20AC; (3 samples");
    for (const unsigned char *s = (const unsigned char *)svg; *s; s++)
        if (*s >= 0x80) {
            test_fail(__FILE__, __LINE__, "byte 0x%02x in a ISO-8859-1 document", *s);
            break;
        }
    CHECK_CONTAINS(svg, "function initAll()"); /* the script intact */
    int lint = xmllint_ok(svg);
    if (lint >= 0)
        CHECK(lint == 1);
    free(svg);
    /* the script stays ASCII, or the conversion above would corrupt it */
    for (const unsigned char *s = (const unsigned char *)asset_flamegraph_js; *s; s++)
        if (*s >= 0x80) {
            test_fail(__FILE__, __LINE__, "non-ASCII byte in flamegraph.js");
            break;
        }
    profile_free(p);
}

static char *write_tmp(const char *text)
{
    char *path = xstrdup("/tmp/perfreport-flame-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) {
        free(path);
        return NULL;
    }
    size_t n = strlen(text);
    if (write(fd, text, n) != (ssize_t)n) {
        close(fd);
        unlink(path);
        free(path);
        return NULL;
    }
    close(fd);
    return path;
}

TEST(flame_svg_nameattr)
{
    char *path = write_tmp(
        "main\ttitle=the \"main\" loop <b>\thref=https://example.com/src?a=1&b=2\tclass=hot loop\n"
        "compute_a_really_long_function_name_that_cannot_fit_anywhere\thref=javascript:alert(1)\t"
        "g_extra=onclick=\"alert(1)\" style=\"fill:red\" data-x='a\"><script>x</script>'\n"
        "sys_write_[k]\tid=w1\ta_extra=target=\"x\" rel=\"noopener\"\thref=../doc/write.html\n"
        "vfs_write\thref=java\x01script:x\tid=\"bad\n"
        "app\tunknown=1\thref= https://x\n");
    REQUIRE(path);
    struct flame_nameattr na = {0};
    FILE *diag = tmpfile();
    REQUIRE(diag);
    CHECK_NUM(flame_nameattr_load(&na, path, diag), 0, 0);
    rewind(diag);
    char msgs[4096] = "";
    size_t nread = fread(msgs, 1, sizeof msgs - 1, diag);
    msgs[nread] = '\0';
    fclose(diag);
    CHECK_CONTAINS(msgs, ":2: href refused: javascript:alert(1)");
    CHECK_CONTAINS(msgs, ":2: g_extra refused: onclick");
    CHECK_CONTAINS(msgs, ":3: a_extra refused: target");
    CHECK_CONTAINS(msgs, ":4: id refused: \"bad");
    CHECK_CONTAINS(msgs, ":4: href refused: java\\x01script:x");
    CHECK_CONTAINS(msgs, ":5: unknown key refused: unknown");
    CHECK_CONTAINS(msgs, ":5: href refused:  https://x");
    struct profile *p = sample_profile();
    struct flame_opts o;
    flame_opts_default(&o);
    o.nameattr = &na;
    char *svg = render_with(p, &o);
    CHECK_CONTAINS(svg, "<g class=\"hot loop\"><title>main (95 samples, 95.00%)\n"
                        "the &quot;main&quot; loop &lt;b&gt;</title>"
                        "<a href=\"https://example.com/src?a=1&amp;b=2\" "
                        "xlink:href=\"https://example.com/src?a=1&amp;b=2\" target=\"_top\"><rect");
    CHECK_CONTAINS(svg, "xmlns:xlink=\"http://www.w3.org/1999/xlink\"");
    CHECK_CONTAINS(svg, "<g style=\"fill:red\" data-x=\"a&quot;&gt;&lt;script&gt;x&lt;/script&gt;\">"
                        "<title>compute_a");
    CHECK_CONTAINS(svg, "<g id=\"w1\"><title>sys_write (");
    CHECK_CONTAINS(svg, "href=\"../doc/write.html\" target=\"_top\" rel=\"noopener\">");
    CHECK_NOT_CONTAINS(svg, "javascript");
    CHECK_NOT_CONTAINS(svg, "onclick");
    CHECK_NUM(count_str(svg, "<script"), 1, 0);
    CHECK_CONTAINS(svg, "<g><title>vfs_write ("); /* nothing usable on line 4 */
    int lint = xmllint_ok(svg);
    if (lint >= 0)
        CHECK(lint == 1);
    free(svg);
    flame_nameattr_free(&na);
    profile_free(p);
    unlink(path);
    free(path);

    /* a line that is not NAME<TAB>key=value: the file is refused */
    path = write_tmp("main\ttitle=x\nno tab here\n");
    REQUIRE(path);
    struct flame_nameattr nb = {0};
    diag = fopen("/dev/null", "w");
    REQUIRE(diag);
    CHECK_NUM(flame_nameattr_load(&nb, path, diag), -1, 0);
    fclose(diag);
    flame_nameattr_free(&nb);
    unlink(path);
    free(path);
}

TEST(flame_palette_map_file)
{
    char dir[] = "/tmp/perfreport-cp-XXXXXX";
    REQUIRE(mkdtemp(dir));
    char path[256], other[256];
    snprintf(path, sizeof path, "%s/palette.map", dir);
    snprintf(other, sizeof other, "%s/other", dir);
    FILE *f = fopen(path, "w");
    REQUIRE(f);
    fputs("main->rgb(1,2,3)\n"
          "a->b->rgb(4,5,6)\r\n"  /* the last arrow splits */
          "x->rgb(256,0,0)\n"     /* out of range */
          "y->rgb(1,2,3);evil\n"  /* trailing junk */
          "z->rgb(1, 2, 3)\n"     /* not the written form */
          "->rgb(1,2,3)\n"        /* no name */
          "no arrow\n",
          f);
    fclose(f);
    struct flame_palette_map pm;
    flame_palette_map_init(&pm);
    CHECK_NUM(flame_palette_map_load(&pm, path), 0, 0);
    CHECK_STR(flame_palette_map_get(&pm, "main"), "rgb(1,2,3)");
    CHECK_STR(flame_palette_map_get(&pm, "a->b"), "rgb(4,5,6)");
    CHECK(flame_palette_map_get(&pm, "x") == NULL);
    CHECK(flame_palette_map_get(&pm, "y") == NULL);
    CHECK(flame_palette_map_get(&pm, "z") == NULL);
    CHECK_NUM(pm.skipped, 5, 0);
    CHECK_NUM(pm.first_skipped, 3, 0);

    /* a graph takes main's colour from the map and adds the names it lacks */
    struct profile *p = folded("main;sys_write_[k] 3\nmain;work 1\n", NULL);
    struct flame_opts o;
    flame_opts_default(&o);
    o.palette_map = &pm;
    char *svg = render_with(p, &o);
    struct rgb c = fill_of(svg, "main");
    CHECK(c.found && c.r == 1 && c.g == 2 && c.b == 3);
    CHECK(pm.changed);
    CHECK(flame_palette_map_get(&pm, "sys_write_[k]") != NULL); /* kept as annotated */
    const char *work = flame_palette_map_get(&pm, "work");
    REQUIRE(work);
    c = fill_of(svg, "work");
    char want[32];
    snprintf(want, sizeof want, "rgb(%d,%d,%d)", c.r, c.g, c.b);
    CHECK_STR(work, want);
    free(svg);

    /* written atomically: a symlink at the name is replaced, not followed */
    f = fopen(other, "w");
    REQUIRE(f);
    fputs("untouched\n", f);
    fclose(f);
    unlink(path);
    REQUIRE(symlink(other, path) == 0);
    CHECK_NUM(flame_palette_map_save(&pm, path), 0, 0);
    struct stat sst;
    CHECK(lstat(path, &sst) == 0 && S_ISREG(sst.st_mode));
    char *kept = test_slurp(other, NULL);
    CHECK(kept && strcmp(kept, "untouched\n") == 0);
    free(kept);
    char *text = test_slurp(path, NULL);
    REQUIRE(text);
    CHECK(strncmp(text, "a->b->rgb(4,5,6)\nmain->rgb(1,2,3)\nsys_write_[k]->rgb(", 53) == 0);
    free(text);
    /* and it reads back the same */
    struct flame_palette_map again;
    flame_palette_map_init(&again);
    CHECK_NUM(flame_palette_map_load(&again, path), 0, 0);
    CHECK_NUM(again.m.n, pm.m.n, 0);
    CHECK_NUM(again.skipped, 0, 0);
    CHECK_STR(flame_palette_map_get(&again, "work"), work);
    flame_palette_map_free(&again);
    flame_palette_map_free(&pm);
    profile_free(p);
    /* not a regular file: refused */
    flame_palette_map_init(&pm);
    CHECK(flame_palette_map_load(&pm, dir) < 0);
    flame_palette_map_free(&pm);
    unlink(path);
    unlink(other);
    rmdir(dir);
}

TEST(flame_cmd_args)
{
    /* single-dash forms, as Getopt::Long reads them, and several files */
    char *argv[] = {"flamegraph", "-title", "T", "-width=600", "-minwidth", "0.5%", "-colors",
                    "js", "-hash", "--cp", "-flamechart", "-negate", "-total", "99.5", "-factor",
                    "2", "-notes", "n", "-fonttype", "Mono", "-fontwidth", "0.7", "-nametype",
                    "Fn:", "-bgcolors", "grey", "-encoding", "UTF-8", "-countname", "bytes",
                    "-reverse", "-inverted", "-subtitle", "S", "a.folded", "b.folded", NULL};
    struct flamegraph_args a;
    int argc = (int)(sizeof argv / sizeof *argv) - 1;
    REQUIRE(flamegraph_parse_args(argc, argv, &a) == 0);
    CHECK_STR(a.o.title, "T");
    CHECK_NUM(a.o.width, 600, 0);
    CHECK_NUM(a.o.minwidth, 0.5, 0);
    CHECK(a.o.minwidth_pct);
    CHECK_STR(a.o.colors, "js");
    CHECK(a.o.shade == FLAME_SHADE_HASH);
    CHECK(a.cp && a.flamechart && a.o.negate && a.o.reverse && a.o.inverted);
    CHECK_NUM(a.o.total, 100, 0);
    CHECK_NUM(a.o.factor, 2, 0);
    CHECK_STR(a.o.notes, "n");
    CHECK_STR(a.o.fonttype, "Mono");
    CHECK_NUM(a.o.fontwidth, 0.7, 1e-9);
    CHECK_STR(a.o.nametype, "Fn:");
    CHECK_STR(a.o.bgcolors, "grey");
    CHECK_STR(a.o.encoding, "UTF-8");
    CHECK_STR(a.o.countname, "bytes");
    CHECK_STR(a.o.subtitle, "S");
    REQUIRE(a.nfiles == 2);
    CHECK_STR(a.files[0], "a.folded");
    CHECK_STR(a.files[1], "b.folded");

    char *argv2[] = {"flamegraph", "--minwidth=3", "--random", NULL};
    REQUIRE(flamegraph_parse_args(3, argv2, &a) == 0);
    CHECK(!a.o.minwidth_pct && a.o.minwidth == 3 && a.o.shade == FLAME_SHADE_RANDOM);
    CHECK_NUM(a.nfiles, 0, 0);

    /* refused: each with its own message, nothing else done */
    const char *bad[][2] = {{"--colors", "rainbow"}, {"--bgcolors", "#12345"},
                            {"--minwidth", "x%"},    {"--minwidth", "101%"},
                            {"--factor", "-1"},      {"--total", "0"},
                            {"--encoding", "UTF-16"}, {"-fontwidth", "0"}};
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *av[] = {"flamegraph", (char *)bad[i][0], (char *)bad[i][1], NULL};
        if (flamegraph_parse_args(3, av, &a) != 3)
            test_fail(__FILE__, __LINE__, "%s %s accepted", bad[i][0], bad[i][1]);
    }
    fclose(stderr);
    stderr = saved;
}
