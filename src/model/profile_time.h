/* A profile's stacks in time: the value of each stack (by its leaf node) in
 * each bucket of the window (seconds since it opened, the charts' clock).
 * Collectors fill it from their stack_time store (src/stacks/stack_time.h);
 * the bundle keeps it as <profile>.time beside <profile>.folded
 * (codec/profile_time_text.h); the page draws its heat map from it.
 *
 * Ownership: the profile owns its profile_time (profile->time), freed with
 * it; cells are plain values. */
#ifndef PERFREPORT_PROFILE_TIME_H
#define PERFREPORT_PROFILE_TIME_H
#include <stddef.h>
#include <stdint.h>

/* A day of seconds: more than any window perfreport records. */
#define PROFILE_TIME_MAX_BUCKETS 86400u

struct profile_time_cell {
    uint32_t leaf;   /* profile node where the stack ends */
    uint32_t bucket;
    uint64_t value;
};

struct profile_time {
    double bucket_s;     /* a bucket's width in seconds: whole, >= 1 (1 unless -i is over 1 s) */
    uint32_t nbuckets;
    uint64_t *total;     /* per bucket: every value, with a stack or not */
    uint64_t *unstacked; /* per bucket: the part without a stack (a bound was reached) */
    struct profile_time_cell *cells;
    size_t ncells, cap_cells;
};

/* nbuckets in 1..PROFILE_TIME_MAX_BUCKETS, else NULL. */
struct profile_time *profile_time_new(double bucket_s, uint32_t nbuckets);
void profile_time_free(struct profile_time *pt); /* NULL is fine */
/* Appends a cell (bucket < nbuckets; the caller keeps totals itself). */
void profile_time_add(struct profile_time *pt, uint32_t leaf, uint32_t bucket, uint64_t value);
/* Sorts the cells by (leaf, bucket) and sums duplicates. */
void profile_time_sort(struct profile_time *pt);
#endif
