/* stack_time: per-bucket stack values, their bounds and what a bound does
 * with the value it refuses (counted, never lost silently). */
#include "harness.h"
#include "../../src/stacks/stack_time.h"
#include "../../src/codec/profile_time_text.h"
#include "../../src/flame/folded.h"
#include "../../src/model/profile.h"
#include "../../src/model/profile_time.h"
#include "../../src/util/strbuf.h"
#include <stdint.h>
#include <string.h>

struct sum {
    uint64_t v[8][8]; /* [key index][bucket] */
    unsigned calls;
};

static int sum_cell(void *ctx, const void *key, uint32_t k, uint32_t bucket, uint64_t value)
{
    struct sum *s = ctx;
    (void)key;
    if (k < 8 && bucket < 8)
        s->v[k][bucket] += value;
    s->calls++;
    return 0;
}

TEST(stack_time_observe_deltas_per_bucket)
{
    struct stack_time *t = stack_time_new(sizeof(uint64_t), 4, 16, 8);
    REQUIRE(t);
    uint64_t a = 0xaa, b = 0xbb;
    CHECK(stack_time_observe(t, &a, 10, 0) == 10); /* first reading: all of it */
    CHECK(stack_time_observe(t, &b, 3, 0) == 3);
    CHECK(stack_time_observe(t, &a, 10, 1) == 0);  /* idle second: no cell */
    CHECK(stack_time_observe(t, &a, 25, 2) == 15);
    CHECK(stack_time_observe(t, &a, 27, 2) == 2);  /* two ticks in one bucket merge */
    CHECK(stack_time_observe(t, &b, 1, 3) == 1);   /* went down: counted from zero */
    struct sum s = {0};
    CHECK(stack_time_walk(t, sum_cell, &s) == 0);
    CHECK(s.calls == 4);
    CHECK(s.v[0][0] == 10 && s.v[0][1] == 0 && s.v[0][2] == 17);
    CHECK(s.v[1][0] == 3 && s.v[1][3] == 1);
    CHECK(stack_time_total(t, 0) == 13 && stack_time_total(t, 2) == 17);
    CHECK(stack_time_total(t, 7) == 0);
    struct stack_time_stats st;
    stack_time_stats(t, &st);
    CHECK(st.keys == 2 && st.cells == 4 && st.buckets == 4 && st.unstacked == 0);
    CHECK(memcmp(stack_time_key(t, 1), &b, sizeof b) == 0);
    CHECK(stack_time_key(t, 2) == NULL);
    stack_time_free(t);
}

TEST(stack_time_bounds_count_what_they_refuse)
{
    /* 2 keys, 3 cells, 4 buckets */
    struct stack_time *t = stack_time_new(sizeof(uint32_t), 2, 3, 4);
    REQUIRE(t);
    uint32_t k1 = 1, k2 = 2, k3 = 3;
    CHECK(stack_time_add(t, &k1, 0, 5));
    CHECK(stack_time_add(t, &k2, 0, 7));
    CHECK(!stack_time_add(t, &k3, 0, 11)); /* third key: no room */
    CHECK(stack_time_add(t, &k1, 1, 1));   /* third cell */
    CHECK(!stack_time_add(t, &k2, 1, 13)); /* fourth cell: no room */
    CHECK(stack_time_add(t, &k1, 1, 2));   /* merges into its cell: fits */
    CHECK(!stack_time_add(t, &k1, 4, 17)); /* bucket 4 outside the span 0..3 */
    CHECK(stack_time_observe(t, &k3, 100, 2) == 0); /* no key to remember it by */
    CHECK(stack_time_total(t, 0) == 23);     /* 5 + 7 + 11: refused still totals */
    CHECK(stack_time_unstacked(t, 0) == 11);
    CHECK(stack_time_total(t, 1) == 16 && stack_time_unstacked(t, 1) == 13);
    struct stack_time_stats st;
    stack_time_stats(t, &st);
    CHECK(st.keys == 2 && st.cells == 3);
    CHECK(st.unstacked == 24 && st.outside == 17);
    CHECK(st.key_refusals == 2 && st.cell_refusals == 1 && st.outside_refusals == 1);
    /* the memory held stays within the bounds whatever is added */
    for (uint32_t i = 0; i < 10000; i++) {
        uint32_t k = i;
        stack_time_add(t, &k, i % 4, 1);
    }
    stack_time_stats(t, &st);
    CHECK(st.keys == 2 && st.cells == 3);
    CHECK(st.bytes < 4096);
    stack_time_free(t);
}

TEST(stack_time_ring_forgets_old_buckets)
{
    struct stack_time *t = stack_time_new(sizeof(uint32_t), 4, 4, 3);
    REQUIRE(t);
    uint32_t k = 9;
    for (uint32_t b = 0; b < 3; b++)
        CHECK(stack_time_observe(t, &k, 10 * (b + 1), b) == 10);
    CHECK(!stack_time_add(t, &k, 3, 1)); /* the span is full */
    stack_time_forget_before(t, 2);      /* keep bucket 2 only */
    CHECK(stack_time_total(t, 0) == 0 && stack_time_total(t, 2) == 10);
    CHECK(stack_time_observe(t, &k, 45, 3) == 15); /* the last reading survived */
    CHECK(stack_time_observe(t, &k, 46, 4) == 1);
    CHECK(stack_time_total(t, 4) == 1);
    struct stack_time_stats st;
    stack_time_stats(t, &st);
    CHECK(st.first == 2 && st.cells == 3 && st.buckets == 5);
    CHECK(!stack_time_add(t, &k, 1, 1)); /* before the span */
    stack_time_free(t);
}

TEST(stack_time_rejects_bad_bounds)
{
    CHECK(stack_time_new(0, 1, 1, 1) == NULL);
    CHECK(stack_time_new(257, 1, 1, 1) == NULL);
    CHECK(stack_time_new(8, 0, 1, 1) == NULL);
    CHECK(stack_time_new(8, 1, 0, 1) == NULL);
    CHECK(stack_time_new(8, 1, 1, 0) == NULL);
    CHECK(stack_time_new(8, 1u << 25, 1, 1) == NULL);
    stack_time_free(NULL);
}

/* -i 3: the collectors read their maps every 3 s.  With 1 s buckets each
 * reading's 3 s of samples landed in one second (1, 4, 7) and the seconds
 * between stayed empty, a comb of a steady load; the buckets are as wide as
 * the interval (whole seconds, at least 1) and say so in bucket_s. */
TEST(stack_time_buckets_as_wide_as_the_interval)
{
    CHECK(stack_time_bucket_width(0) == 1 && stack_time_bucket_width(0.5) == 1);
    CHECK(stack_time_bucket_width(1) == 1 && stack_time_bucket_width(2.5) == 3);
    CHECK(stack_time_bucket_width(3) == 3);
    double w = stack_time_bucket_width(3);
    struct stack_time *t = stack_time_new(sizeof(uint32_t), 4, 16, 16);
    REQUIRE(t);
    uint32_t k = 7;
    double prev = 0;
    for (int i = 1; i <= 3; i++) { /* a steady 30 samples per 3 s tick, a little late */
        double now = 3.0 * i + 0.05;
        CHECK(stack_time_observe(t, &k, 30u * (uint64_t)i, stack_time_bucket_of(prev, now, w)) ==
              30);
        prev = now;
    }
    for (uint32_t b = 0; b < 3; b++)
        CHECK(stack_time_total(t, b) == 30); /* no empty bucket between */
    CHECK(stack_time_buckets_for(9.05, w) == 4 && stack_time_buckets_for(9.0004, w) == 3);
    CHECK(stack_time_buckets_for(0, w) == 1);

    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    const char *stack[] = {"app", "spin"};
    uint32_t leaf = profile_add_stack(p, stack, NULL, 2, 90);
    stack_time_to_profile(t, p, &leaf, stack_time_buckets_for(9.0004, w), w, NULL);
    REQUIRE(p->time);
    CHECK(p->time->bucket_s == 3 && p->time->nbuckets == 3);
    struct strbuf text = STRBUF_INIT, folded = STRBUF_INIT;
    profile_time_write(p, &text);
    CHECK(strstr(sb_str(&text), "\nbucket_s 3\nbuckets 3\ntotal 30 30 30\n"));
    /* read back by perfreport render: the width is kept */
    folded_write(p, &folded);
    struct profile *q = profile_new("cpu", "On-CPU profile", "samples");
    struct flame_parse_stats st = {0};
    folded_parse(q, folded.buf, folded.len, &st);
    char err[256] = "";
    CHECK(profile_time_read(q, text.buf, text.len, NULL, 0, err, sizeof err) == 0);
    CHECK(q->time && q->time->bucket_s == 3);
    profile_free(q);
    profile_free(p);
    sb_free(&text);
    sb_free(&folded);
    stack_time_free(t);
}

/* -i 0.25: every tick walked the stack map (2 syscalls a key and one more)
 * to add four readings up in one bucket.  Only a bucket's last tick reads
 * now, and each second still gets its own growth. */
TEST(stack_time_reads_once_a_bucket)
{
    double w = stack_time_bucket_width(0.25);
    struct stack_time *t = stack_time_new(sizeof(uint32_t), 4, 16, 16);
    REQUIRE(t);
    uint32_t k = 1;
    double read_s = 0;
    unsigned reads = 0;
    for (int i = 1; i <= 16; i++) { /* 40 samples a second, steadily */
        double now = 0.25 * i;
        if (!stack_time_read_due(read_s, now, 0.25, w))
            continue;
        stack_time_observe(t, &k, 10u * (uint64_t)i, stack_time_bucket_of(read_s, now, w));
        read_s = now;
        reads++;
    }
    CHECK(reads == 4);
    for (uint32_t b = 0; b < 4; b++)
        CHECK(stack_time_total(t, b) == 40);
    /* at 1 s and over, every tick reads, late or not */
    CHECK(stack_time_read_due(0, 1, 1, 1) && stack_time_read_due(1, 2.02, 1, 1));
    CHECK(stack_time_read_due(0, 3, 3, stack_time_bucket_width(3)));
    CHECK(stack_time_read_due(0, 0.25, 0, 1)); /* no interval known: every tick */
    stack_time_free(t);
}
