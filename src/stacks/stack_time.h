/* Stacks with time: per-bucket values of aggregated stacks (on-CPU samples
 * per second, off-CPU blocked microseconds per second), bounded in memory.
 *
 * A key is an opaque fixed-size record (a BPF aggregation key: process,
 * thread, stack ids); a bucket is a small integer (seconds since the window
 * opened for the profiles).  The collectors' BPF maps hold only cumulative
 * counts, so a collector reads them at each tick and hands the cumulative
 * value here (stack_time_observe): the growth since the key's last reading
 * lands in that tick's bucket.
 *
 * Bounds, all fixed at creation and never exceeded:
 *  - max_keys distinct keys (each key_size bytes + 24 B of bookkeeping);
 *  - max_cells (key, bucket) cells of 16 B each;
 *  - a span of max_buckets buckets, from the oldest bucket kept (0 until
 *    stack_time_forget_before() moves it) (16 B each for the totals).
 * When a bound is reached nothing is thrown away silently: the value still
 * counts in its bucket's total, and also in the bucket's `unstacked` count
 * (value that has no stack in the store) and in stack_time_stats()'s
 * refusal figures, which the caller reports.  A bucket outside the span is
 * counted in `outside` only (it has no total to go into).  An observation
 * of a key that does not fit has no last reading to take its growth from:
 * it is refused whole and counted in key_refusals (collectors size
 * max_keys as their BPF map, so that this does not happen).
 *
 * The store is meant for windows (a run's profile) and for rings (the
 * minutes before a trigger in `perfreport watch`): stack_time_forget_before()
 * drops the cells of old buckets, so a ring keeps only its recent span within
 * the same bounds.
 *
 * Ownership: the store owns copies of its keys; callers own nothing it
 * returns beyond the call except what stack_time_key() points at, valid
 * until the store is freed.  Not thread-safe: one thread at a time. */
#ifndef PERFREPORT_STACK_TIME_H
#define PERFREPORT_STACK_TIME_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The run's profiles: one bucket a second; an hour of window; cells for
 * 2^18 (key, second) pairs -- a 64-CPU host at 49 Hz for 80 s of distinct
 * stacks in every sample -- i.e. at most 4 MiB of cells. */
#define STACK_TIME_MAX_BUCKETS 3600u
#define STACK_TIME_MAX_CELLS (1u << 18)

struct stack_time;

/* key_size in 1..256; max_keys, max_cells, max_buckets >= 1 (and at most
 * 2^24, 2^26, 2^24).  NULL on a bad argument. */
struct stack_time *stack_time_new(size_t key_size, uint32_t max_keys, uint32_t max_cells,
                                  uint32_t max_buckets);
void stack_time_free(struct stack_time *t); /* NULL is fine */

/* Adds value to key in bucket.  Returns true when it went to the key's cell,
 * false when a bound kept it out (then counted as unstacked or outside). */
bool stack_time_add(struct stack_time *t, const void *key, uint32_t bucket, uint64_t value);

/* key's cumulative count is now `cumulative`: adds its growth since the last
 * observation (the whole of it the first time) to bucket.  A count that went
 * down (a map entry deleted and made again) counts from zero.  Returns the
 * growth added (0 when none). */
uint64_t stack_time_observe(struct stack_time *t, const void *key, uint64_t cumulative,
                            uint32_t bucket);

/* Drops every cell of a bucket below `bucket` and those buckets' totals, and
 * starts the span there (a ring's old minutes go, new ones fit).  Keys stay:
 * their last observations are still needed. */
void stack_time_forget_before(struct stack_time *t, uint32_t bucket);

struct stack_time_stats {
    uint32_t keys, cells;  /* in use */
    uint32_t first;        /* the span's first bucket */
    uint32_t buckets;      /* 1 + the highest bucket that received a value, 0 when none */
    uint64_t unstacked;    /* value kept out of cells by max_keys or max_cells */
    uint64_t outside;      /* value in buckets outside the span (in no total) */
    uint32_t key_refusals, cell_refusals, outside_refusals; /* adds each bound refused */
    size_t bytes;          /* memory held now */
};
void stack_time_stats(const struct stack_time *t, struct stack_time_stats *out);

/* A bucket's total (every value added to it, stacked or not) and the part of
 * it without a stack; 0 for a bucket never seen or forgotten. */
uint64_t stack_time_total(const struct stack_time *t, uint32_t bucket);
uint64_t stack_time_unstacked(const struct stack_time *t, uint32_t bucket);

/* Calls fn for every cell, ordered by key (in the order keys were first
 * seen), then bucket; a key's cells in one bucket are summed.  Stops early
 * when fn returns non-zero and returns that. */
typedef int (*stack_time_cell_fn)(void *ctx, const void *key, uint32_t key_index,
                                  uint32_t bucket, uint64_t value);
int stack_time_walk(const struct stack_time *t, stack_time_cell_fn fn, void *ctx);

/* Index of key (first-seen order), or -1 when it was never stored. */
int64_t stack_time_find(const struct stack_time *t, const void *key);

/* A bucket's width in seconds for readings every interval_s (-i):
 * max(1, ceil(interval_s)).  Readings come once an interval, so narrower
 * buckets than that cannot be told apart: with -i 3 and 1 s buckets, each
 * reading's 3 s of growth landed in one second and the two others stayed
 * empty, a comb the heat map drew as if the load came and went. */
double stack_time_bucket_width(double interval_s);

/* The bucket of width bucket_s (>= 1 s) a reading at to_s covers, after the
 * last one at from_s (seconds since the window opened): the one holding the
 * middle of the span, so a tick a little late still lands its growth in its
 * own bucket.  Negative times count as 0. */
uint32_t stack_time_bucket_of(double from_s, double to_s, double bucket_s);

/* Whether a tick at now_s reads the stack map (the last reading was at
 * read_s, the next tick comes interval_s later): only when the next one
 * would land in another bucket, since readings within one bucket only add
 * up in it.  A reading walks the map, 2 syscalls a key and one more: with
 * -i 0.25, four walks a second of a map of thousands of keys, where one
 * gives the same buckets.  interval_s <= 0: every tick. */
bool stack_time_read_due(double read_s, double now_s, double interval_s, double bucket_s);

/* Buckets of width bucket_s that cover span_s seconds (at least 1). */
uint32_t stack_time_buckets_for(double span_s, double bucket_s);

/* Fills p->time (replacing it) from t, whose key i became profile node
 * leaf[i] (PROFILE_NONE: not in p: its value counts as unstacked), with at
 * least nbuckets buckets of bucket_s seconds.  Notes what the bounds
 * refused in led (may be NULL), with `unit` the profile's unit. */
struct profile;
struct ledger_entry;
void stack_time_to_profile(const struct stack_time *t, struct profile *p, const uint32_t *leaf,
                           uint32_t nbuckets, double bucket_s, struct ledger_entry *led);

/* Number of keys and key i's bytes (i < that number), in first-seen order. */
uint32_t stack_time_nkeys(const struct stack_time *t);
const void *stack_time_key(const struct stack_time *t, uint32_t i);
#endif
