/* Shared pieces of the BPF collectors: log2 slots, a histogram value and
 * per-CPU counters. */
#ifndef PERFREPORT_KHIST_BPF_H
#define PERFREPORT_KHIST_BPF_H

#include "khist.h"

/* floor(log2(v)), 0 for v <= 1. */
static __always_inline __u32 klog2(__u64 v)
{
    __u32 r = 0, s;
    s = (v > 0xFFFFFFFFull) << 5; v >>= s; r |= s;
    s = (v > 0xFFFF) << 4; v >>= s; r |= s;
    s = (v > 0xFF) << 3; v >>= s; r |= s;
    s = (v > 0xF) << 2; v >>= s; r |= s;
    s = (v > 0x3) << 1; v >>= s; r |= s;
    r |= (v >> 1);
    return r;
}

/* Slot i holds 2^i <= v < 2^(i+1), the model's bucket layout (struct
 * hist); the last slot holds everything above. */
static __always_inline __u32 khist_slot(__u64 v)
{
    __u32 r = klog2(v);
    if (r > KHIST_SLOTS - 1)
        r = KHIST_SLOTS - 1;
    /* The index used must be the clamped register: clang would otherwise
     * check a copy and index with the original, which the verifier rejects. */
    barrier_var(r);
    return r;
}

/* Concurrent updaters may race on max; the loss is one stale maximum at
 * worst, which is cheaper than a lock on a hot path. */
static __always_inline void khist_add(struct khist *h, __u64 v)
{
    __u32 s = khist_slot(v);
    if (s < KHIST_SLOTS)
        __sync_fetch_and_add(&h->slots[s], 1);
    __sync_fetch_and_add(&h->sum, v);
    if (v > h->max)
        h->max = v;
}

/* Adds v to slot idx of a per-CPU u64 array (no atomics needed). */
static __always_inline void kadd(void *map, __u32 idx, __u64 v)
{
    __u64 *n = bpf_map_lookup_elem(map, &idx);
    if (n)
        *n += v;
}

static __always_inline void kcount(void *map, __u32 idx) { kadd(map, idx, 1); }
#endif
