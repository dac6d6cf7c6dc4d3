/* `perf script` collapsed as stackcollapse-perf.pl collapses it
 * (src/flame/perf_collapse.c), the table of counts behind it and the bounded
 * line reader of `perfreport collapse`.
 *
 * Each NAME[--OPT].folded file in tests/fixtures/flame/collapse/ is the
 * output of FlameGraph's stackcollapse-perf.pl on NAME.txt, written by
 *     perl stackcollapse-perf.pl [--OPT] NAME.txt > NAME[--OPT].folded
 * (flame/perf-script.folded likewise from flame/perf-script.txt).  crlf.txt
 * is period.txt with "\r\n" line ends, compared with period.folded: the
 * Perl script itself finds no blank line in it and prints nothing. */
#include "harness.h"
#include "test_util.h"
#include "../../src/flame/perf_collapse.h"
#include "../../src/flame/stack_counts.h"
#include "../../src/model/profile.h"
#include "../../src/flame/folded.h"
#include "../../src/util/line_reader.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Feeds text line by line; returns the collapser (caller frees). */
static struct perf_collapse *collapse(const char *text, size_t len, const struct collapse_opts *o,
                                      const char *name)
{
    struct perf_collapse *pc = perf_collapse_new(o);
    perf_collapse_begin_file(pc, name);
    const char *s = text, *end = text + len;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        perf_collapse_line(pc, s, (size_t)(le - s));
        s = nl ? nl + 1 : end;
    }
    perf_collapse_end(pc);
    return pc;
}

static char *folded_of(const char *text, size_t len, const struct collapse_opts *o)
{
    struct perf_collapse *pc = collapse(text, len, o, "t");
    struct strbuf out = STRBUF_INIT;
    perf_collapse_write(pc, &out);
    perf_collapse_free(pc);
    return sb_detach(&out);
}

static char *report_of(const struct perf_collapse *pc)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (!f)
        return xstrdup("");
    perf_collapse_report(pc, f, "t");
    fclose(f);
    return buf;
}

/* Names the first line where got and want differ. */
static void check_same(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) == 0)
        return;
    size_t line = 1, i = 0, start = 0; /* start: of the first differing line */
    while (got[i] && got[i] == want[i]) {
        if (got[i] == '\n') {
            line++;
            start = i + 1;
        }
        i++;
    }
    i = start;
    test_fail(__FILE__, __LINE__, "%s: differs from stackcollapse-perf.pl at line %zu: got '%.60s' "
              "want '%.60s'", what, line, got + i, want + i);
}

TEST(collapse_fixtures_as_stackcollapse_perf)
{
    static const struct {
        const char *input, *expect;
        struct collapse_opts o;
    } cases[] = {
        {"period", "period", {0}},           /* weighted by the period column */
        {"noperiod", "noperiod", {0}},       /* no period: 1 per sample */
        {"crlf", "period", {0}},
        {"unindented", "unindented", {0}},
        {"events", "events", {0}},           /* cycles:u only, the first seen */
        {"events", "events--event-filter-cycles-k", {.event_filter = "cycles:k"}},
        {"unknown", "unknown", {0}},         /* [libpthread-2.19.so] */
        {"unknown", "unknown--addrs", {.addrs = true}},
        {"args", "args", {0}},
        {"java", "java", {0}},
        {"java", "java--all", {.kernel = true, .jit = true}},
        {"inline", "inline", {0}},
        {"inline", "inline", {.inline_frames = true}}, /* no addr2line: as the default */
        {"inline", "inline--all", {.kernel = true, .jit = true}},
        {"blank_symbol", "blank_symbol", {0}},
        {"pidtid", "pidtid", {0}},
        {"pidtid", "pidtid--pid", {.pid = true}},
        {"pidtid", "pidtid--tid", {.tid = true}},
        {"pidtid", "pidtid--tid", {.tid = true, .pid = true}},
        {"annotations", "annotations", {0}},
        {"annotations", "annotations--kernel", {.kernel = true}},
        {"annotations", "annotations--jit", {.jit = true}},
        {"annotations", "annotations--all", {.kernel = true, .jit = true}},
        {"bad_lines", "bad_lines", {0}},
        {"utf8", "utf8", {0}},
        {"../perf-script", "../perf-script", {0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char in[256], ex[256];
        snprintf(in, sizeof in, "flame/collapse/%s.txt", cases[i].input);
        snprintf(ex, sizeof ex, "flame/collapse/%s.folded", cases[i].expect);
        size_t len;
        char *text = test_slurp(fixture(in), &len);
        char *want = test_slurp(fixture(ex), NULL);
        REQUIRE(text && want);
        REQUIRE(want[0]); /* a fixture whose expected output is empty would test nothing */
        char *got = folded_of(text, len, &cases[i].o);
        check_same(ex, got, want);
        free(got);
        free(want);
        free(text);
    }
}

TEST(collapse_bad_lines_warned_with_their_line)
{
    size_t len;
    char *text = test_slurp(fixture("flame/collapse/bad_lines.txt"), &len);
    REQUIRE(text);
    struct perf_collapse *pc = collapse(text, len, &(struct collapse_opts){0}, "bad_lines.txt");
    const struct perf_collapse_stats *st = perf_collapse_stats(pc);
    CHECK_NUM(st->bad, 3, 0);
    CHECK_NUM(st->samples, 2, 0);
    char *rep = report_of(pc);
    CHECK_CONTAINS(rep, "t: 3 lines not understood; the first, bad_lines.txt:8: neither a "
                        "sample header nor a frame line: ignored: '");
    free(rep);
    perf_collapse_free(pc);
    free(text);

    /* one line however many (-F +srcline: one per frame), the count exact */
    struct strbuf many = STRBUF_INIT;
    sb_add(&many, "ab 1 1.0: 1 ev:\n\t1 f (m)\n");
    for (int i = 0; i < 50; i++)
        sb_add(&many, "\t?? not a frame\n");
    sb_add(&many, "\n");
    pc = collapse(many.buf, many.len, &(struct collapse_opts){0}, "m");
    CHECK_NUM(perf_collapse_stats(pc)->bad, 50, 0);
    rep = report_of(pc);
    size_t lines = 0;
    for (const char *s = rep; (s = strchr(s, '\n')) != NULL; s++)
        lines++;
    CHECK_NUM(lines, 1, 0);
    CHECK_CONTAINS(rep, "t: 50 lines not understood; the first, m:3: neither a sample "
                        "header nor a frame line: ignored: '");
    free(rep);
    perf_collapse_free(pc);
    sb_free(&many);
}

TEST(collapse_other_events_counted)
{
    size_t len;
    char *text = test_slurp(fixture("flame/collapse/events.txt"), &len);
    REQUIRE(text);
    struct perf_collapse *pc = collapse(text, len, &(struct collapse_opts){0}, "e");
    CHECK_STR(perf_collapse_event(pc), "cycles:u");
    CHECK_NUM(perf_collapse_stats(pc)->filtered, 3, 0);
    char *rep = report_of(pc);
    CHECK_CONTAINS(rep, "2 samples of event 'cycles:k' skipped: only 'cycles:u' is kept");
    CHECK_CONTAINS(rep, "1 samples of event 'instructions:u' skipped");
    free(rep);
    perf_collapse_free(pc);
    free(text);
}

/* A 1,000,000-byte symbol is a name like any other (stackcollapse-perf.pl
 * printed the same line for this input); a line over 1 MiB drops its
 * sample, and a NUL byte does too, the other samples stay. */
TEST(collapse_long_lines_and_nul_bytes)
{
    struct strbuf in = STRBUF_INIT, want = STRBUF_INIT;
    char *sym = xmalloc(1000001);
    memset(sym, 'x', 1000000);
    sym[1000000] = '\0';
    sb_addf(&in, "app 1 1.0: 5 cpu-clock:\n\t1 %s (m)\n\t2 main (m)\n\n", sym);
    sb_addf(&want, "app;main;%s 5\n", sym);
    char *got = folded_of(in.buf, in.len, &(struct collapse_opts){0});
    CHECK(strcmp(got, want.buf) == 0);
    free(got);

    sb_reset(&in);
    char *huge = xmalloc(PERF_COLLAPSE_MAX_LINE + 2);
    memset(huge, 'y', PERF_COLLAPSE_MAX_LINE + 1);
    huge[PERF_COLLAPSE_MAX_LINE + 1] = '\0';
    sb_addf(&in, "app 1 1.0: 5 cpu-clock:\n\t1 %s (m)\n\t2 main (m)\n\n", huge);
    static const char nul[] = "app 1 1.0: 5 cpu-clock:\n\t1 a\0b (m)\n\t2 main (m)\n\n";
    sb_addn(&in, nul, sizeof nul - 1);
    sb_add(&in, "app 1 1.0: 5 cpu-clock:\n\t1 a (m)\n\n");
    sb_add(&in, "app 1 1.0: 7 cpu-clock:\n\t2 main (m)\n\n");
    struct perf_collapse *pc = collapse(in.buf, in.len, &(struct collapse_opts){0}, "l");
    const struct perf_collapse_stats *st = perf_collapse_stats(pc);
    CHECK_NUM(st->dropped, 2, 0);
    CHECK_NUM(st->bad, 2, 0);
    struct strbuf out = STRBUF_INIT;
    perf_collapse_write(pc, &out);
    /* "app;main 5" of the sample cut short at the NUL never appears */
    CHECK_STR(sb_str(&out), "app;a 5\napp;main 7\n");
    char *rep = report_of(pc);
    CHECK_CONTAINS(rep, "t: 2 lines not understood; the first, l:2: line longer than 1 MiB: "
                        "its sample is dropped: '\\t1 yyyy");
    free(rep);
    sb_free(&out);
    perf_collapse_free(pc);
    free(huge);
    free(sym);
    sb_free(&in);
    sb_free(&want);
}

/* Perl's numbers: an integer sum past 2^64 becomes a double printed "%.15g"
 * (the Perl script printed these lines for this input); period "0" counts
 * 1 (Perl's "not $period"), "00" counts 0. */
TEST(collapse_counts_as_perl_adds_them)
{
    const char *text = "aa 1 1.0: 18446744073709551615 ev:\n\t1 f (m)\n\n"
                       "aa 1 1.0: 18446744073709551615 ev:\n\t1 f (m)\n\n"
                       "bb 1 1.0: 00 ev:\n\t1 f (m)\n\n"
                       "cc 1 1.0: 0 ev:\n\t1 f (m)\n\n"
                       "dd 1 1.0: 123456789012345678901234 ev:\n\t1 f (m)\n\n"
                       "ee 1 1.0: 0007 ev:\n\t1 f (m)\n\n";
    char *got = folded_of(text, strlen(text), &(struct collapse_opts){0});
    CHECK_STR(got, "aa;f 3.68934881474191e+19\nbb;f 0\ncc;f 1\ndd;f 1.23456789012346e+23\n"
                   "ee;f 7\n");
    free(got);

    /* sorted byte-wise, a prefix first, bytes >= 0x80 after ASCII */
    struct stack_counts *t = stack_counts_new();
    const char *keys[] = {"b", "a;b", "\xc3\xa9", "a", "B", "a;b;c"};
    for (size_t i = 0; i < 6; i++)
        stack_counts_add(t, keys[i], strlen(keys[i]), "1", 1);
    stack_counts_add(t, "a", 1, "41", 2);
    size_t n;
    const struct stack_entry *e = stack_counts_sorted(t, &n);
    REQUIRE(n == 6);
    const char *order[] = {"B", "a", "a;b", "a;b;c", "b", "\xc3\xa9"};
    for (size_t i = 0; i < 6; i++)
        CHECK(e[i].key_len == strlen(order[i]) && memcmp(e[i].key, order[i], e[i].key_len) == 0);
    CHECK_NUM(e[1].count.u, 42, 0);
    /* adding after sorting still finds the entries */
    stack_counts_add(t, "a;b", 3, "2", 1);
    e = stack_counts_sorted(t, &n);
    CHECK_NUM(n, 6, 0);
    CHECK_NUM(e[2].count.u, 3, 0);
    stack_counts_free(t);
}

TEST(collapse_open_last_sample_not_counted)
{
    /* as stackcollapse-perf.pl: a sample counts at the blank line after it */
    const char *text = "ab 1 1.0: 3 ev:\n\t1 f (m)\n\nab 1 1.0: 4 ev:\n\t1 g (m)\n";
    struct perf_collapse *pc = collapse(text, strlen(text), &(struct collapse_opts){0}, "o.txt");
    struct strbuf out = STRBUF_INIT;
    perf_collapse_write(pc, &out);
    CHECK_STR(sb_str(&out), "ab;f 3\n");
    char *rep = report_of(pc);
    CHECK_CONTAINS(rep, "t: o.txt:4: the last sample has no blank line after it");
    free(rep);
    sb_free(&out);
    perf_collapse_free(pc);
}

TEST(collapse_sniff)
{
    size_t len;
    const char *names[] = {"period", "unindented", "noperiod", "pidtid", "crlf"};
    for (size_t i = 0; i < 5; i++) {
        char p[128];
        snprintf(p, sizeof p, "flame/collapse/%s.txt", names[i]);
        char *text = test_slurp(fixture(p), &len);
        REQUIRE(text);
        if (!perf_collapse_sniff(text, len))
            test_fail(__FILE__, __LINE__, "%s not taken for perf script", names[i]);
        free(text);
    }
    /* "comm tid" headers (perf script -F comm,tid,...) and unindented frames */
    const char *bare = "dd  2040 \n12e84 search_cache (/lib/ld.so)\n\n";
    CHECK(perf_collapse_sniff(bare, strlen(bare)));
    /* a --header block longer than the lines looked at (one per CPU) */
    struct strbuf hdr = STRBUF_INIT;
    sb_add(&hdr, "# ========\n# captured on    : Tue Nov 25 10:00:00 2025\n");
    for (int i = 0; i < 300; i++)
        sb_addf(&hdr, "# CPU %d: Core ID 0, Die ID 0, Socket ID 0\n", i);
    CHECK(perf_collapse_sniff(hdr.buf, hdr.len));
    sb_free(&hdr);
    const char *folded[] = {"a;b 1\nc 2\n", "java 123;main 5\r\n", "main;foo (bar) 12\n",
                            "sh 1 2 3;x 4\n"};
    for (size_t i = 0; i < 4; i++)
        if (perf_collapse_sniff(folded[i], strlen(folded[i])))
            test_fail(__FILE__, __LINE__, "folded input %zu taken for perf script", i);
}

/* `perfreport flamegraph` reads `perf script` through this collapser with
 * --all: the annotations become frame kinds and leave the names. */
TEST(collapse_all_gives_frame_kinds)
{
    size_t len;
    char *text = test_slurp(fixture("flame/collapse/annotations.txt"), &len);
    REQUIRE(text);
    char *f = folded_of(text, len, &(struct collapse_opts){.kernel = true, .jit = true});
    struct profile *p = profile_new("cpu", NULL, NULL);
    struct flame_parse_stats st = {0};
    CHECK_NUM(folded_parse(p, f, strlen(f), &st), 1, 0);
    const char *path[] = {"node", "uv_run", "Builtin:", "LazyCompile:~main /opt/app.js:1",
                          "[unknown]", "tcp_sendmsg", "nft_do_chain", "native_safe_halt"};
    uint32_t n = profile_find(p, path, 8);
    REQUIRE(n != PROFILE_NONE);
    CHECK_NUM(profile_node_kind(p, n), FRAME_KERNEL, 0);
    CHECK_NUM(profile_node_kind(p, profile_find(p, path, 4)), FRAME_JIT, 0);
    CHECK_NUM(profile_node_kind(p, profile_find(p, path, 5)), FRAME_UNKNOWN, 0);
    CHECK_NUM(profile_node_kind(p, profile_find(p, path, 2)), FRAME_USER, 0);
    CHECK_NUM(profile_total(p), 1000000, 0);
    profile_free(p);
    free(f);
    free(text);
}

TEST(collapse_line_reader_bounded)
{
    FILE *f = tmpfile();
    REQUIRE(f);
    const size_t max = 1000;
    for (int i = 0; i < 300000; i++) /* 300 KB over several reads */
        fputc('z', f);
    fputs("\nshort\r\n\nlast", f);
    rewind(f);
    struct line_reader r;
    lr_init(&r, f, max);
    const char *l;
    size_t n;
    CHECK_NUM(lr_next(&r, &l, &n), 1, 0);
    CHECK_NUM(n, max + 1, 0); /* cut, and visibly too long */
    CHECK(n == max + 1 && l[0] == 'z' && l[max] == 'z');
    CHECK_NUM(lr_next(&r, &l, &n), 1, 0);
    CHECK(n == 6 && memcmp(l, "short\r", 6) == 0);
    CHECK_NUM(lr_next(&r, &l, &n), 1, 0);
    CHECK_NUM(n, 0, 0);
    CHECK_NUM(lr_next(&r, &l, &n), 1, 0);
    CHECK(n == 4 && memcmp(l, "last", 4) == 0);
    CHECK_NUM(lr_next(&r, &l, &n), 0, 0);
    lr_free(&r);
    fclose(f);
}

/* inferno's --skip-after FUNC: the callers of the first frame named FUNC
 * (outermost side) are left out, the process name stays; without a match the
 * stack is whole */
TEST(collapse_skip_after)
{
    static const char text[] = "app 1 1.0: 3 ev:\n\t1 leaf (m)\n\t2 mid+0x10 (m)\n"
                               "\t3 rt_start (m)\n\t4 main (m)\n\n"
                               "app 1 1.0: 2 ev:\n\t1 other (m)\n\t4 main (m)\n\n";
    const char *const funcs[] = {"nothing", "mid"};
    struct perf_collapse *pc =
        collapse(text, sizeof text - 1,
                 &(struct collapse_opts){.skip_after = funcs, .nskip_after = 2}, "s");
    struct strbuf out = STRBUF_INIT;
    perf_collapse_write(pc, &out);
    CHECK_STR(sb_str(&out), "app;main;other 2\napp;mid;leaf 3\n");
    perf_collapse_free(pc);
    sb_reset(&out);
    pc = collapse(text, sizeof text - 1, &(struct collapse_opts){0}, "s");
    perf_collapse_write(pc, &out);
    CHECK_STR(sb_str(&out), "app;main;other 2\napp;main;rt_start;mid;leaf 3\n");
    perf_collapse_free(pc);
    sb_free(&out);
}
