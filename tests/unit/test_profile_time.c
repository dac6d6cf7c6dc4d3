/* <profile>.time: written from a profile's time and read back against its
 * folded text; a forged file is refused with the rule it broke. */
#include "harness.h"
#include "../../src/codec/profile_time_text.h"
#include "../../src/flame/folded.h"
#include "../../src/model/profile.h"
#include "../../src/model/profile_time.h"
#include "../../src/render/heat_html.h"
#include "../../src/render/charts.h"
#include "../../src/render/svg_flame.h"
#include "../../src/util/strbuf.h"
#include <stdlib.h>
#include <string.h>

/* spin;a 6 (3 in s0, 3 in s1) and spin;b 4 (all in s3), 1 unstacked in s2 */
static struct profile *sample(void)
{
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    const char *a[] = {"spin", "a"}, *b[] = {"spin", "b"};
    uint32_t la = profile_add_stack(p, a, NULL, 2, 6);
    uint32_t lb = profile_add_stack(p, b, NULL, 2, 4);
    p->time = profile_time_new(1.0, 4);
    profile_time_add(p->time, lb, 3, 4);
    profile_time_add(p->time, la, 0, 3);
    profile_time_add(p->time, la, 1, 3);
    uint64_t tot[4] = {3, 3, 1, 4};
    memcpy(p->time->total, tot, sizeof tot);
    p->time->unstacked[2] = 1;
    return p;
}

static struct profile *from_folded(const char *text)
{
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    struct flame_parse_stats st = {0};
    folded_parse(p, text, strlen(text), &st);
    return p;
}

TEST(profile_time_round_trip)
{
    struct profile *p = sample();
    struct strbuf t = STRBUF_INIT, f = STRBUF_INIT;
    profile_time_write(p, &t);
    folded_write(p, &f);
    CHECK_STR(sb_str(&f), "spin;a 6\nspin;b 4\n");
    CHECK_STR(sb_str(&t), "perfreport-time 1\nbucket_s 1\nbuckets 4\ntotal 3 3 1 4\n"
                          "unstacked 0 0 1 0\n1 0:3 1:3\n2 3:4\n");
    struct profile *q = from_folded(sb_str(&f));
    char err[256] = "";
    CHECK(profile_time_read(q, t.buf, t.len, NULL, 0, err, sizeof err) == 0);
    REQUIRE(q->time);
    CHECK(q->time->nbuckets == 4 && q->time->ncells == 3);
    CHECK(q->time->total[3] == 4 && q->time->unstacked[2] == 1);
    /* the cells point at q's own leaves: written again, the same text */
    struct strbuf t2 = STRBUF_INIT;
    profile_time_write(q, &t2);
    CHECK_STR(sb_str(&t2), sb_str(&t));
    sb_free(&t);
    sb_free(&t2);
    sb_free(&f);
    profile_free(p);
    profile_free(q);
}

static const char *refused(const char *text)
{
    static char err[256];
    struct profile *q = from_folded("spin;a 6\nspin;b 4\n");
    err[0] = '\0';
    int rc = profile_time_read(q, text, strlen(text), NULL, 0, err, sizeof err);
    bool kept = q->time != NULL;
    profile_free(q);
    if (rc == 0 || kept)
        return NULL;
    return err;
}

#define HEAD "perfreport-time 1\nbucket_s 1\nbuckets 4\n"

TEST(profile_time_refuses_forged_files)
{
    const char *e;
    CHECK((e = refused("")) && strstr(e, "perfreport-time"));
    CHECK(refused("perfreport-time 2\nbucket_s 1\nbuckets 4\n"));
    CHECK(refused("perfreport-time 1\nbucket_s 0\nbuckets 4\n"));
    /* a day of seconds at most: no 2^32-bucket allocation */
    CHECK((e = refused("perfreport-time 1\nbucket_s 1\nbuckets 4294967296\n")) &&
          strstr(e, "buckets"));
    CHECK(refused("perfreport-time 1\nbucket_s 1\nbuckets 86401\n"));
    CHECK(refused("perfreport-time 1\nbucket_s 1\nbuckets 0\n"));
    CHECK(refused("perfreport-time 1\nbucket_s 1\nbuckets -1\n"));
    CHECK(refused(HEAD "total 3 3 1\nunstacked 0 0 1 0\n"));           /* short row */
    CHECK(refused(HEAD "total 3 3 1 4 5\nunstacked 0 0 1 0\n"));       /* long row */
    CHECK(refused(HEAD "total 3 3 1 99999999999999999999\nunstacked 0 0 1 0\n"));
    CHECK(refused(HEAD "total 3 3 1 4\nunstacked 0 0 1 0\n3 0:1\n")); /* no line 3 */
    CHECK(refused(HEAD "total 3 3 1 4\nunstacked 0 0 1 0\n0 0:1\n"));
    CHECK(refused(HEAD "total 3 3 1 4\nunstacked 0 0 1 0\n2 3:4\n1 0:3 1:3\n")); /* order */
    CHECK(refused(HEAD "total 3 3 1 4\nunstacked 0 0 1 0\n1 1:3 0:3\n2 3:4\n"));
    CHECK(refused(HEAD "total 3 3 1 4\nunstacked 0 0 1 0\n1 0:3 4:3\n"));  /* second 4 */
    CHECK(refused(HEAD "total 3 3 1 4\nunstacked 0 0 1 0\n1 0:3 1:0\n"));  /* zero */
    CHECK(refused(HEAD "total 3 3 1 4\nunstacked 0 0 1 0\n1\n"));
    CHECK(refused(HEAD "total 3 3 1 4\nunstacked 0 0 1 0\n1 0:3  1:3\n2 3:4\n"));
    /* more than the stack's folded count (6) */
    CHECK((e = refused(HEAD "total 3 4 1 4\nunstacked 0 0 1 0\n1 0:3 1:4\n2 3:4\n")) &&
          strstr(e, "folded count"));
    /* a second whose stacks do not make its total */
    CHECK((e = refused(HEAD "total 3 3 1 4\nunstacked 0 0 0 0\n1 0:3 1:3\n2 3:4\n")) &&
          strstr(e, "second 2"));
    /* the well-formed file is taken */
    CHECK(!refused(HEAD "total 3 3 1 4\nunstacked 0 0 1 0\n1 0:3 1:3\n2 3:4\n"));
}

TEST(profile_time_refuses_oversized_input)
{
    struct profile *q = from_folded("spin;a 6\n");
    char err[128];
    static const char text[] = "x";
    CHECK(profile_time_read(q, text, (size_t)PROFILE_TIME_MAX_FILE + 1, NULL, 0, err,
                            sizeof err) != 0);
    CHECK(q->time == NULL);
    profile_free(q);
}

/* The page's data block: a frame name a host chose is JSON text, never
 * markup (no '<' survives to close the <script> block), and only stacks
 * with time are tied to seconds. */
TEST(heat_html_data_escapes_names)
{
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    const char *evil[] = {"</script><img src=x onerror=alert(1)>", "a&b"};
    uint32_t leaf = profile_add_stack(p, evil, NULL, 2, 5);
    p->time = profile_time_new(1.0, 2);
    profile_time_add(p->time, leaf, 1, 5);
    p->time->total[1] = 5;
    struct strbuf out = STRBUF_INIT;
    heat_html(p, NULL, "fg0-", &out);
    const char *s = sb_str(&out);
    CHECK(strstr(s, "data-heat-for=\"fg0-\""));
    CHECK(strstr(s, "\\u003c/script\\u003e\\u003cimg"));
    CHECK(strstr(s, "a\\u0026b"));
    /* exactly one closing tag: the data block's own */
    const char *end = strstr(s, "</script>");
    CHECK(end && !strstr(end + 1, "</script>"));
    CHECK(!strstr(s, "<img"));
    CHECK(strstr(s, "\"total\":[0,5]"));
    CHECK(strstr(s, "\"cells\":[2,1,5]")); /* page node 2: the leaf, second 1 */
    sb_free(&out);
    profile_free(p);
}

/* A capture's profile and its bundle read back number their nodes apart
 * (collectors add stacks as resolved, the reader as sorted): the page's
 * data must not depend on that (e2e render.sh compares the two pages). */
TEST(heat_html_same_for_any_node_order)
{
    const char *a[] = {"p", "x", "one"}, *b[] = {"p", "y", "two"}, *c[] = {"p", "x", "three"};
    struct strbuf out[2] = {STRBUF_INIT, STRBUF_INIT};
    for (int k = 0; k < 2; k++) {
        struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
        uint32_t la, lb, lc;
        if (k == 0) {
            la = profile_add_stack(p, a, NULL, 3, 4);
            lb = profile_add_stack(p, b, NULL, 3, 2);
            lc = profile_add_stack(p, c, NULL, 3, 1);
        } else {
            lc = profile_add_stack(p, c, NULL, 3, 1);
            lb = profile_add_stack(p, b, NULL, 3, 2);
            la = profile_add_stack(p, a, NULL, 3, 4);
        }
        p->time = profile_time_new(1.0, 2);
        profile_time_add(p->time, la, 0, 4);
        profile_time_add(p->time, lb, 1, 2);
        profile_time_add(p->time, lc, 1, 1);
        p->time->total[0] = 4;
        p->time->total[1] = 3;
        profile_time_sort(p->time);
        heat_html(p, NULL, "fg0-", &out[k]);
        profile_free(p);
    }
    CHECK_STR(sb_str(&out[1]), sb_str(&out[0]));
    sb_free(&out[0]);
    sb_free(&out[1]);
}

/* The broken-walk case: the report's graph draws "[heap]+0x6966df ×134"
 * as one frame (3 levels), so the page's data names that frame, not the
 * 134 levels a redraw would otherwise stack into the graph's height; the
 * stack's seconds follow it to the folded frame. */
TEST(heat_html_names_the_graphs_folded_frames)
{
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    const char *walk[136] = {"perfreport", "[truncated]"};
    for (int i = 2; i < 136; i++)
        walk[i] = "[heap]+0x6966df";
    const char *work[] = {"app", "work"};
    uint32_t lw = profile_add_stack(p, walk, NULL, 136, 99);
    uint32_t lk = profile_add_stack(p, work, NULL, 2, 900);
    p->time = profile_time_new(1.0, 2);
    profile_time_add(p->time, lw, 0, 99);
    profile_time_add(p->time, lk, 1, 900);
    p->time->total[0] = 99;
    p->time->total[1] = 900;
    profile_time_sort(p->time);
    struct flame_opts o;
    flame_opts_for(p, &o);
    struct strbuf out = STRBUF_INIT;
    heat_html(p, &o, "fg0-", &out);
    const char *s = sb_str(&out);
    CHECK(strstr(s, "\"[heap]+0x6966df \xc3\x97" "134\""));
    /* nodes: all, perfreport, [truncated], the folded run, app, work */
    const char *nodes = strstr(s, "\"nodes\":[");
    REQUIRE(nodes);
    size_t commas = 0;
    for (const char *c = nodes + 9; *c && *c != ']'; c++)
        commas += *c == ',';
    CHECK_NUM(commas + 1, 6 * 3, 0);
    /* app;work first (name order): the walk's 99 samples in second 0 at the
     * folded frame, page node 5 */
    CHECK(strstr(s, "\"cells\":[2,1,900,5,0,99]"));
    sb_free(&out);

    /* flamegraph.pl's graph (no report options) keeps the 134 frames */
    heat_html(p, NULL, "fg0-", &out);
    nodes = strstr(sb_str(&out), "\"nodes\":[");
    REQUIRE(nodes);
    commas = 0;
    for (const char *c = nodes + 9; *c && *c != ']'; c++)
        commas += *c == ',';
    CHECK_NUM(commas + 1, 139 * 3, 0);
    sb_free(&out);
    profile_free(p);
}
