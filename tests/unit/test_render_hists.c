/* Histogram rendering (src/render/hists.c): bucket labels, file names,
 * the SVG (golden), the Markdown section and the JSON. */
#include "harness.h"
#include "test_util.h"
#include "../../src/model/model.h"
#include "../../src/render/hists.h"
#include "../../src/codec/report_json.h"
#include "../../src/render/markdown.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- labels and values ---- */

TEST(hist_bucket_labels_are_unit_aware)
{
    char b[64];
    hist_bucket_label("us", 0, b, sizeof b);
    CHECK_STR(b, "0-2 µs");
    hist_bucket_label("us", 1, b, sizeof b);
    CHECK_STR(b, "2-4 µs");
    hist_bucket_label("us", 8, b, sizeof b);
    CHECK_STR(b, "256-512 µs");
    hist_bucket_label("us", 9, b, sizeof b); /* 512-1024 µs: upper bound is past 1000 */
    CHECK_STR(b, "0.512-1.02 ms");
    hist_bucket_label("us", 20, b, sizeof b);
    CHECK_STR(b, "1.05-2.1 s");
    hist_bucket_label("KiB", 2, b, sizeof b);
    CHECK_STR(b, "4-8 KiB");
    hist_bucket_label("KiB", 10, b, sizeof b);
    CHECK_STR(b, "1-2 MiB");
    hist_bucket_label("widgets", 3, b, sizeof b);
    CHECK_STR(b, "8-16 widgets");
    hist_fmt_value(1500, "us", b, sizeof b);
    CHECK_STR(b, "1.5 ms");
    hist_fmt_value(999, "us", b, sizeof b);
    CHECK_STR(b, "999 µs");
    hist_fmt_value(2048, "KiB", b, sizeof b);
    CHECK_STR(b, "2 MiB");
    hist_fmt_value(NAN, "us", b, sizeof b);
    CHECK_STR(b, "-");
}

static struct hist *sample_hist(struct report *r)
{
    struct hist *h = report_hist(r, "biolat.vd<a>.read", "vd<a> & \"read\" latency", "us", "disk");
    hist_add_bucket(h, 3, 10);   /* 8-16 µs */
    hist_add_bucket(h, 4, 40);   /* 16-32 µs */
    hist_add_bucket(h, 6, 45);   /* 64-128 µs (bucket 5 empty inside the range) */
    hist_add_bucket(h, 11, 5);   /* 2.05-4.1 ms */
    h->sum = 20000;
    h->max = 3000;
    return h;
}

TEST(hist_filename_sanitises_host_text)
{
    struct report *r = report_new();
    struct hist *h = sample_hist(r);
    char f[128];
    hist_filename(h, f, sizeof f);
    CHECK_STR(f, "hist-biolat.vd_a_.read.svg");
    report_free(r);
}

TEST(hist_svg_matches_golden_and_is_valid_xml)
{
    struct report *r = report_new();
    struct hist *h = sample_hist(r);
    struct strbuf sb = STRBUF_INIT;
    svg_hist_render(h, &sb);
    const char *golden = fixture("golden/hist.svg");
    const char *upd = getenv("PERFREPORT_UPDATE_GOLDEN");
    if (upd && strcmp(upd, "1") == 0) {
        FILE *f = fopen(golden, "wb");
        REQUIRE(f);
        fwrite(sb.buf, 1, sb.len, f);
        fclose(f);
    }
    size_t glen = 0;
    char *want = test_slurp(golden, &glen);
    REQUIRE(want);
    CHECK(glen == sb.len && memcmp(want, sb.buf, glen) == 0);
    if (system("command -v xmllint >/dev/null 2>&1") == 0) {
        char *cmd = xasprintf("xmllint --noout --nonet '%s'", golden);
        CHECK(system(cmd) == 0);
        free(cmd);
    }
    const char *s = sb_str(&sb);
    /* trimmed to buckets 3..11: 9 bars, the empty ones inside included */
    size_t bars = 0;
    for (const char *p = strstr(s, "<rect x="); p; p = strstr(p + 1, "<rect x="))
        bars++;
    CHECK(bars == 9);
    CHECK_CONTAINS(s, ">8-16 µs</text>");
    CHECK_CONTAINS(s, ">2.05-4.1 ms</text>");
    CHECK_NOT_CONTAINS(s, ">4-8 µs<");
    CHECK_NOT_CONTAINS(s, ">4.1-8.19 ms<");
    CHECK_CONTAINS(s, "vd&lt;a&gt; &amp; &quot;read&quot; latency");
    CHECK_NOT_CONTAINS(s, "vd<a>");
    CHECK_CONTAINS(s, "count 100 \xC2\xB7 max 3 ms");
    CHECK_CONTAINS(s, ">p50 ");
    CHECK_CONTAINS(s, ">p90 ");
    CHECK_CONTAINS(s, ">p99 ");
    /* deterministic */
    struct strbuf again = STRBUF_INIT;
    svg_hist_render(h, &again);
    CHECK(again.len == sb.len && memcmp(again.buf, sb.buf, sb.len) == 0);
    sb_free(&again);
    free(want);
    sb_free(&sb);
    report_free(r);
}

TEST(hist_svg_empty_histogram)
{
    struct report *r = report_new();
    struct hist *h = report_hist(r, "fsync", "fsync latency", "us", "io");
    struct strbuf sb = STRBUF_INIT;
    svg_hist_render(h, &sb);
    CHECK_CONTAINS(sb_str(&sb), "no samples in this window");
    CHECK_NOT_CONTAINS(sb_str(&sb), "<rect x=");
    sb_free(&sb);
    report_free(r);
}

TEST(hist_markdown_section_table_and_image)
{
    struct report *r = report_new();
    sample_hist(r);
    struct strbuf md = STRBUF_INIT;
    markdown_render(r, &md);
    const char *s = sb_str(&md);
    CHECK_CONTAINS(s, "## Disks\n");
    CHECK_CONTAINS(s, "### vd\\<a> & \"read\" latency\n");
    /* p50: target 50 of 100, bucket 4 holds 11..50 -> 32; p90 in bucket 6 */
    CHECK_CONTAINS(s, "100 samples · p50 32 µs · p90 ");
    CHECK_CONTAINS(s, " · max 3 ms\n");
    CHECK_CONTAINS(s, "     8-16 µs |         10 |  10.0% | #######\n");
    CHECK_CONTAINS(s, "   64-128 µs |         45 |  45.0% | ##############################\n");
    CHECK_CONTAINS(s, "    32-64 µs |          0 |   0.0% |\n");
    CHECK_CONTAINS(s, "```\n\nGraph `hist-biolat.vd_a_.read.svg`: vd\\<a> & \"read\" latency\n");
    sb_free(&md);
    report_free(r);
}

TEST(hist_json_has_buckets_and_percentiles)
{
    struct report *r = report_new();
    sample_hist(r);
    struct strbuf js = STRBUF_INIT;
    CHECK(json_report_render(r, &js) == 0);
    const char *s = sb_str(&js);
    CHECK_CONTAINS(s, "\"histograms\": [");
    CHECK_CONTAINS(s, "\"name\": \"biolat.vd\\u003ca\\u003e.read\"");
    CHECK_CONTAINS(s, "\"count\": 100");
    CHECK_CONTAINS(s, "\"p50\": 32");
    CHECK_CONTAINS(s, "\"max\": 3000");
    CHECK_CONTAINS(s, "\"lo\": 2048");
    CHECK_CONTAINS(s, "\"hi\": 4096");
    CHECK_NOT_CONTAINS(s, "\"lo\": 32,"); /* empty bucket 5 is left out */
    sb_free(&js);
    report_free(r);
}
