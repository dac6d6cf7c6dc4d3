/* How the profile trie is built: stack by stack (profile_add_stack), in bulk
 * from folded text (sorted and merged, in one pass or in several), with
 * parents wide enough to have their children hashed.  Every way must give
 * the same trie, and that trie must hold what the input says. */
#include "harness.h"
#include "../../src/model/profile.h"
#include "../../src/flame/folded.h"
#include "../../src/render/svg_flame.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/xalloc.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* Names that share prefixes, kinds by suffix, and a parent ("hub") with
 * more children than a sibling scan is used for. */
static const char *const vocab[] = {
    "main",  "mai",     "main_",  "a",        "a b",      "ab",     "run_[k]", "run",
    "run_[j]", "run_[i]", "[unknown]", "hub",   "x1",       "x2",     "x3",      "x4",
    "x5",    "x6",      "x7",     "x8",       "x9",       "x10",    "x11",     "x12",
    "read_[k]", "vfs_read_[k]", "copy", "copy_user", "lock", "unlock",
};
#define NVOCAB (sizeof vocab / sizeof vocab[0])

/* n random folded lines "f1;f2;... count\n", duplicates included. */
static char *random_folded(uint64_t seed, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        size_t depth = 1 + rnd(&seed) % 12;
        for (size_t d = 0; d < depth; d++) {
            /* shallow frames from a few names, so that stacks share prefixes */
            uint32_t r = rnd(&seed);
            const char *f = d < 2 ? vocab[r % 4] : d == 2 ? "hub" : vocab[r % NVOCAB];
            sb_addf(&sb, "%s%s", d ? ";" : "", f);
        }
        sb_addf(&sb, " %u\n", 1 + rnd(&seed) % 5);
    }
    return sb.buf;
}

static int cmp_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text sorted bytewise; when merge, identical stacks become one
 * line with their counts summed (what a trie must give back). */
static char *sorted_lines(const char *text, bool merge)
{
    char *copy = xstrdup(text);
    char **lines = NULL;
    size_t n = 0, cap = 0;
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        xgrow(&lines, &cap, n + 1, sizeof *lines);
        lines[n++] = l;
    }
    qsort(lines, n, sizeof *lines, cmp_lines);
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n;) {
        char *sp = strrchr(lines[i], ' ');
        unsigned long long sum = strtoull(sp + 1, NULL, 10);
        size_t stack_len = (size_t)(sp - lines[i]);
        size_t j = i + 1;
        while (merge && j < n && strncmp(lines[j], lines[i], stack_len + 1) == 0 &&
               strchr(lines[j] + stack_len + 1, ' ') == NULL) {
            sum += strtoull(lines[j] + stack_len + 1, NULL, 10);
            j++;
        }
        if (merge)
            sb_addf(&sb, "%.*s %llu\n", (int)stack_len, lines[i], sum);
        else
            sb_addf(&sb, "%s\n", lines[i]);
        i = j;
    }
    free(lines);
    free(copy);
    return sb.buf ? sb.buf : xstrdup("");
}

static char *folded_of(const struct profile *p)
{
    struct strbuf sb = STRBUF_INIT;
    folded_write(p, &sb);
    return sb.buf ? sb.buf : xstrdup("");
}

/* One stack at a time, through the lookups of profile_add_frames. */
static struct profile *build_one_by_one(const char *text)
{
    struct profile *p = profile_new("cpu", NULL, NULL);
    char *copy = xstrdup(text);
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *sp = strrchr(l, ' ');
        *sp = '\0';
        struct pframe f[16];
        size_t depth = 0;
        for (char *s2 = NULL, *fr = strtok_r(l, ";", &s2); fr; fr = strtok_r(NULL, ";", &s2)) {
            size_t len = strlen(fr);
            uint8_t k = (uint8_t)folded_frame_kind(fr, &len);
            f[depth++] = (struct pframe){fr, len, k};
        }
        profile_add_frames(p, f, depth, strtoull(sp + 1, NULL, 10));
    }
    free(copy);
    return p;
}

/* In batches of 64 through profile_add_stacks, with the frames each stack
 * shares with the one before it. */
static struct profile *build_batches(const char *text)
{
    struct profile *p = profile_new("cpu", NULL, NULL);
    char *copy = xstrdup(text);
    struct pframe f[64][16];
    struct pstack st[64];
    size_t n = 0;
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save);; l = strtok_r(NULL, "\n", &save)) {
        if (!l || n == 64) {
            profile_add_stacks(p, st, n);
            n = 0;
        }
        if (!l)
            break;
        char *sp = strrchr(l, ' ');
        *sp = '\0';
        size_t depth = 0, shared = 0;
        for (char *s2 = NULL, *fr = strtok_r(l, ";", &s2); fr; fr = strtok_r(NULL, ";", &s2)) {
            size_t len = strlen(fr);
            uint8_t k = (uint8_t)folded_frame_kind(fr, &len);
            f[n][depth] = (struct pframe){fr, len, k};
            const struct pframe *q = n ? &f[n - 1][depth] : NULL;
            if (q && shared == depth && depth < st[n - 1].depth && q->len == len &&
                q->kind == k && memcmp(q->s, fr, len) == 0)
                shared++;
            depth++;
        }
        st[n] = (struct pstack){f[n], depth, shared, strtoull(sp + 1, NULL, 10)};
        n++;
    }
    free(copy);
    return p;
}

static void folded_parse_lines(struct folded_parser *fp, const char *text)
{
    size_t lineno = 0;
    for (const char *s = text; *s;) {
        const char *nl = strchr(s, '\n');
        folded_line(fp, s, (size_t)(nl - s), ++lineno);
        s = nl + 1;
    }
}

/* Through the folded parser's bulk, merging every max_ids frames (0: once). */
static struct profile *build_bulk(const char *text, size_t max_ids)
{
    struct profile *p = profile_new("cpu", NULL, NULL);
    struct folded_parser fp;
    folded_init(&fp, p);
    if (max_ids)
        profile_bulk_limit(fp.bulk, max_ids);
    folded_parse_lines(&fp, text);
    folded_finish(&fp);
    CHECK_NUM(fp.st.malformed, 0, 0);
    return p;
}

TEST(profile_build_ways_agree)
{
    char *text = random_folded(7, 3000);
    char *sorted = sorted_lines(text, false);
    char *want = sorted_lines(text, true); /* each distinct stack once, counts summed */
    struct profile *ps[] = {build_one_by_one(text), build_bulk(text, 0),  build_bulk(sorted, 0),
                            build_bulk(text, 100),  build_bulk(sorted, 37), build_batches(sorted)};
    const char *how[] = {"one by one",             "bulk",
                         "bulk, sorted input",     "bulk, merged every 100",
                         "bulk, sorted, merged every 37", "batches, sorted"};
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++) {
        char *got = folded_of(ps[i]);
        char *got_sorted = sorted_lines(got, false); /* folded_write orders by name, then kind */
        if (strcmp(got_sorted, want) != 0)
            test_fail(__FILE__, __LINE__, "%s: the trie does not hold the input's stacks", how[i]);
        CHECK_NUM(profile_total(ps[i]), profile_total(ps[0]), 0);
        CHECK_NUM(ps[i]->nnodes, ps[0]->nnodes, 0); /* no duplicate nodes either */
        free(got);
        free(got_sorted);
    }
    /* and the same picture */
    struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
    svg_flame_render(ps[0], NULL, true, NULL, &a);
    svg_flame_render(ps[4], NULL, true, NULL, &b);
    CHECK(a.len > 0 && strcmp(sb_str(&a), sb_str(&b)) == 0);
    sb_free(&a);
    sb_free(&b);
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++)
        profile_free(ps[i]);
    free(text);
    free(sorted);
    free(want);
}

/* Sorted input shares prefixes with the line before: frames that only look
 * alike in the text ("b" and "bc", "b" and "b_[k]") must stay apart. */
TEST(profile_build_shared_prefix_edges)
{
    const char *text = "a;b 1\n"
                       "a;bc 2\n"
                       "a;b;c 4\n"
                       "a;b 8\n"
                       "a;b_[k] 16\n"
                       "a;b_[k];c 32\n"
                       "a 64\n"
                       "a;b;c 128\n"
                       "a;b;cd;e 256\n"
                       "ab;b 512\n"
                       "a;b;c 1024\n";
    struct profile *p = build_bulk(text, 0);
    const char *abc[] = {"a", "b", "c"};
    CHECK_NUM(profile_total(p), 2047, 0);
    uint32_t a = profile_find(p, abc, 1), ab = profile_find(p, abc, 2);
    REQUIRE(a != PROFILE_NONE && ab != PROFILE_NONE);
    CHECK_NUM(p->nodes[a].total, 2047 - 512, 0);
    CHECK_NUM(profile_self(p, a), 64, 0);
    uint32_t b_user = profile_child(p, a, "b", FRAME_USER, false);
    uint32_t b_kern = profile_child(p, a, "b", FRAME_KERNEL, false);
    REQUIRE(b_user != PROFILE_NONE && b_kern != PROFILE_NONE && b_user != b_kern);
    CHECK_NUM(p->nodes[b_user].total, 1 + 4 + 8 + 128 + 256 + 1024, 0);
    CHECK_NUM(profile_self(p, b_user), 9, 0);
    CHECK_NUM(p->nodes[b_kern].total, 48, 0);
    CHECK_NUM(p->nodes[profile_child(p, a, "bc", FRAME_USER, false)].total, 2, 0);
    CHECK_NUM(p->nodes[profile_child(p, b_user, "c", FRAME_USER, false)].total, 4 + 128 + 1024, 0);
    CHECK_NUM(p->nodes[profile_child(p, b_user, "cd", FRAME_USER, false)].total, 256, 0);
    CHECK_NUM(profile_nchildren(p, b_user), 2, 0);
    CHECK_NUM(p->nodes[profile_find(p, (const char *[]){"ab", "b"}, 2)].total, 512, 0);
    profile_free(p);
}

/* A parent with hundreds of children (hashed beyond a few), in both build
 * paths, and after its names are rewritten. */
static char *upper(void *ctx, const char *s)
{
    (void)ctx;
    char *u = xstrdup(s);
    for (char *c = u; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    return u;
}

TEST(profile_build_wide_parent)
{
    struct strbuf sb = STRBUF_INIT;
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 300; i++)
            sb_addf(&sb, "proc;fn%d%s;leaf%d %d\n", i, i % 3 == 0 ? "_[k]" : "", i % 20, round + 1);
    struct profile *bulk = build_bulk(sb.buf, 0), *one = build_one_by_one(sb.buf);
    struct profile *ps[] = {bulk, one};
    for (size_t k = 0; k < 2; k++) {
        struct profile *p = ps[k];
        uint32_t proc = profile_child(p, PROFILE_ROOT, "proc", FRAME_USER, false);
        REQUIRE(proc != PROFILE_NONE);
        CHECK_NUM(profile_nchildren(p, proc), 300, 0);
        CHECK_NUM(p->nodes[proc].total, 300 * 6, 0);
        for (int i = 0; i < 300; i++) {
            char name[32];
            snprintf(name, sizeof name, "fn%d", i);
            enum frame_kind kind = i % 3 == 0 ? FRAME_KERNEL : FRAME_USER;
            uint32_t fn = profile_child(p, proc, name, kind, false);
            REQUIRE(fn != PROFILE_NONE);
            CHECK_NUM(p->nodes[fn].total, 6, 0);
            CHECK(profile_child(p, proc, name, kind == FRAME_USER ? FRAME_KERNEL : FRAME_USER,
                                false) == PROFILE_NONE);
        }
        CHECK(profile_child(p, proc, "fn300", FRAME_USER, false) == PROFILE_NONE);
        uint32_t before = p->nnodes;
        /* a new child of the wide parent is findable at once */
        uint32_t nc = profile_child(p, proc, "late", FRAME_USER, true);
        CHECK(nc == before && p->nnodes == before + 1);
        CHECK(profile_child(p, proc, "late", FRAME_USER, false) == nc);

        /* names rewritten: the same nodes answer to the new names */
        profile_map_strings(p, upper, NULL);
        uint32_t fn7 = profile_child(p, proc, "FN7", FRAME_USER, false);
        CHECK(fn7 != PROFILE_NONE);
        profile_add_stack(p, (const char *[]){"PROC", "FN7", "LEAF7"}, NULL, 3, 10);
        CHECK_NUM(p->nodes[fn7].total, 16, 0);
        CHECK_NUM(p->nnodes, before + 1, 0);
    }
    profile_free(bulk);
    profile_free(one);
    sb_free(&sb);
}

/* A frame given its children by one merge (none of them looked up, so
 * nothing counted them) gets them indexed all the same: a later merge whose
 * stacks are pruned (flamegraph's final one) adds nothing there, and would
 * otherwise scan every sibling for every stack, quadratic past ~8 M
 * children (issue 30, 10: 10 M lines took over 200 s). */
TEST(profile_build_bulk_children_indexed_across_merges)
{
    struct profile *p = profile_new("cpu", NULL, NULL);
    struct profile_bulk *b = profile_bulk_new(p);
    profile_bulk_limit(b, 2000); /* a merge every 1,000 two-frame stacks */
    char name[32];
    for (int i = 0; i < 1500; i++) {
        snprintf(name, sizeof name, "b%d", i);
        struct pframe f[] = {{"a", 1, FRAME_USER}, {name, strlen(name), FRAME_USER}};
        profile_bulk_add(b, &(struct pstack){f, 2, 0, 1});
    }
    profile_bulk_prune(b, 2); /* the last merge makes no node of count 1 */
    profile_bulk_end(b);
    uint32_t a = profile_child(p, PROFILE_ROOT, "a", FRAME_USER, false);
    REQUIRE(a != PROFILE_NONE);
    CHECK_NUM(profile_nchildren(p, a), 1000, 0);
    CHECK(p->nodes[a].wide); /* indexed: found by hash, not by scanning */
    CHECK(profile_child(p, a, "b999", FRAME_USER, false) != PROFILE_NONE);
    CHECK_NUM(p->nodes[a].total, 1500, 0);
    CHECK_NUM(profile_self(p, a), 500, 0); /* the pruned stacks' counts stay in "a" */
    profile_free(p);
}

/* A profile with bounds (one read from a bundle that may be forged): what
 * does not fit stays in the last node that did, and the profile says so. */
TEST(profile_build_bounds)
{
    struct profile *p = profile_new("cpu", NULL, NULL);
    profile_set_bounds(p, 5, 100); /* the root and 4 more nodes */
    profile_add_stack(p, (const char *[]){"a", "b", "c"}, NULL, 3, 2);
    CHECK(!profile_over_bounds(p));
    profile_add_stack(p, (const char *[]){"a", "x", "y"}, NULL, 3, 3);
    CHECK(profile_over_bounds(p));
    CHECK_NUM(p->nnodes, 5, 0);
    CHECK_NUM(profile_total(p), 5, 0);
    profile_free(p);
    p = profile_new("cpu", NULL, NULL);
    profile_set_bounds(p, 1000, 3); /* "all" and two names */
    profile_add_stack(p, (const char *[]){"a", "b"}, NULL, 2, 1);
    CHECK(!profile_over_bounds(p));
    profile_add_stack(p, (const char *[]){"a", "c"}, NULL, 2, 1);
    CHECK(profile_over_bounds(p));
    profile_free(p);
}

/* Stacks merged into a trie that already has nodes: below those nodes the
 * merge must look children up instead of assuming they are new. */
TEST(profile_build_bulk_into_existing)
{
    struct profile *p = profile_new("cpu", NULL, NULL);
    profile_add_stack(p, (const char *[]){"a", "b", "c"}, NULL, 3, 5);
    profile_add_stack(p, (const char *[]){"a", "x"}, NULL, 2, 1);
    uint32_t n_before = p->nnodes;
    struct profile_bulk *b = profile_bulk_new(p);
    struct pframe abc[] = {{"a", 1, FRAME_USER}, {"b", 1, FRAME_USER}, {"c", 1, FRAME_USER},
                           {"d", 1, FRAME_USER}};
    profile_bulk_add(b, &(struct pstack){abc, 3, 0, 2});
    profile_bulk_add(b, &(struct pstack){abc, 4, 3, 4});
    profile_bulk_add(b, &(struct pstack){abc, 0, 0, 8}); /* the root only */
    CHECK_NUM(profile_total(p), 6 + 14, 0);              /* the root counts at once */
    profile_bulk_end(b);
    CHECK_NUM(p->nnodes, n_before + 1, 0); /* only "d" is new */
    const char *path[] = {"a", "b", "c", "d"};
    uint32_t c = profile_find(p, path, 3);
    REQUIRE(c != PROFILE_NONE);
    CHECK_NUM(p->nodes[c].total, 11, 0);
    CHECK_NUM(profile_self(p, c), 7, 0);
    CHECK_NUM(p->nodes[profile_find(p, path, 4)].total, 4, 0);
    CHECK_NUM(p->nodes[profile_find(p, path, 1)].total, 12, 0);
    CHECK_NUM(profile_self(p, PROFILE_ROOT), 8, 0);
    profile_free(p);
    profile_bulk_end(NULL);
}

/* Frames too narrow to draw are not built, and the picture does not change:
 * pruned and complete profiles give the same SVG, for wide and narrow
 * minimum widths. */
TEST(profile_build_prune_keeps_the_picture)
{
    char *text = random_folded(11, 4000);
    /* skewed counts, as profiles have: a few heavy stacks make a frame's
     * minimum count well above the light ones' */
    struct strbuf heavy = STRBUF_INIT;
    uint64_t seed = 3;
    for (const char *l = text; *l;) {
        const char *sp = strchr(l, ' '), *nl = strchr(l, '\n');
        while (strchr(sp + 1, ' ') && strchr(sp + 1, ' ') < nl)
            sp = strchr(sp + 1, ' ');
        uint32_t r = rnd(&seed);
        sb_addf(&heavy, "%.*s %u\n", (int)(sp - l), l, r % 50 ? 1 + r % 3 : 1000 + r % 50000);
        l = nl + 1;
    }
    static const double minwidths[] = {0.1, 0, 3};
    for (size_t m = 0; m < 3; m++) {
        struct flame_opts o;
        flame_opts_default(&o);
        o.minwidth = minwidths[m];
        struct profile *full = build_bulk(heavy.buf, 0);
        struct profile *pruned = profile_new("cpu", NULL, NULL);
        struct folded_parser fp;
        folded_init(&fp, pruned);
        folded_parse_lines(&fp, heavy.buf);
        uint64_t below = svg_flame_undrawn_below(&o, profile_total(pruned));
        CHECK(m == 1 ? below == 1 : below > 10);
        profile_bulk_prune(fp.bulk, below);
        folded_finish(&fp);
        struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
        svg_flame_render(full, &o, true, NULL, &a);
        svg_flame_render(pruned, &o, true, NULL, &b);
        CHECK(a.len > 1000 && strcmp(sb_str(&a), sb_str(&b)) == 0);
        if (m == 1)
            CHECK_NUM(pruned->nnodes, full->nnodes, 0); /* minwidth 0: everything is drawn */
        else
            CHECK(pruned->nnodes * 2 < full->nnodes);
        CHECK_NUM(profile_total(pruned), profile_total(full), 0);
        sb_free(&a);
        sb_free(&b);
        profile_free(full);
        profile_free(pruned);
    }
    /* a frame of exactly the minimum count is drawn, one below it is not */
    struct flame_opts o1;
    flame_opts_default(&o1);
    uint64_t k = svg_flame_undrawn_below(&o1, 1000000);
    while (svg_flame_undrawn_below(&o1, 1000000 + k + k - 1) != k)
        k = svg_flame_undrawn_below(&o1, 1000000 + k + k - 1);
    char edge[200];
    snprintf(edge, sizeof edge, "a;b 1000000\na;c;d %llu\na;e;f %llu\n", (unsigned long long)k,
             (unsigned long long)k - 1);
    struct profile *pe = profile_new("cpu", NULL, NULL);
    struct folded_parser fe;
    folded_init(&fe, pe);
    folded_parse_lines(&fe, edge);
    REQUIRE(svg_flame_undrawn_below(&o1, profile_total(pe)) == k);
    profile_bulk_prune(fe.bulk, k);
    folded_finish(&fe);
    CHECK(profile_find(pe, (const char *[]){"a", "c", "d"}, 3) != PROFILE_NONE);
    CHECK(profile_find(pe, (const char *[]){"a", "e"}, 2) == PROFILE_NONE);
    CHECK_NUM(profile_self(pe, profile_find(pe, (const char *[]){"a"}, 1)), k - 1, 0);
    struct strbuf se = STRBUF_INIT;
    svg_flame_render(pe, &o1, true, NULL, &se);
    CHECK_CONTAINS(sb_str(&se), "<title>d (");
    CHECK(strstr(sb_str(&se), "<title>e (") == NULL);
    sb_free(&se);
    profile_free(pe);

    /* where every node matters, nothing may be left out */
    struct flame_opts o;
    flame_opts_default(&o);
    o.reverse = true;
    CHECK_NUM(svg_flame_undrawn_below(&o, 1000000), 0, 0);
    flame_opts_default(&o);
    o.legend = true;
    CHECK_NUM(svg_flame_undrawn_below(&o, 1000000), 0, 0);
    sb_free(&heavy);
    free(text);
}
