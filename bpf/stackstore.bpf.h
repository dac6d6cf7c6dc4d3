/* Stack stores (see stackstore.h): ss_get() is bpf_get_stackid() for a
 * store.  An object that includes this file gets one per-CPU scratch stack;
 * its programs must not run nested on a CPU (tracepoint, raw_tp and
 * perf_event programs of one object do not; uprobe programs can be
 * preempted, so the allocation profile keeps a STACK_TRACE map).
 *
 * A store is declared as
 *     struct {
 *         __uint(type, BPF_MAP_TYPE_HASH);
 *         __uint(max_entries, N);
 *         __type(key, __u32);
 *         __type(value, struct ss_stack);
 *     } name SEC(".maps");
 * and user space makes it allocate on insert (kbpf_alloc_on_insert). */
#ifndef PERFREPORT_STACKSTORE_BPF_H
#define PERFREPORT_STACKSTORE_BPF_H
#include "stackstore.h"

#ifndef EFAULT
#define EFAULT 14
#endif
#ifndef EEXIST
#define EEXIST 17
#endif
#ifndef ENOMEM
#define ENOMEM 12
#endif

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct ss_stack);
} ss_scratch SEC(".maps");

struct ss_mix_ctx {
    struct ss_stack *s;
    __u64 h;
};

static long ss_mix(__u32 i, void *arg)
{
    struct ss_mix_ctx *m = arg;
    if (i >= SS_DEPTH)
        return 1;
    __u64 h = (m->h ^ m->s->ip[i]) * 0x9e3779b97f4a7c15ULL;
    m->h = h ^ (h >> 29);
    return 0;
}

/* The id of the current stack in `store` (flags as for bpf_get_stack: 0 for
 * the kernel stack, BPF_F_USER_STACK for the user one), added if new; or a
 * negative errno as bpf_get_stackid gives: -EFAULT no stack, -EEXIST
 * another stack holds the id, -E2BIG / -ENOMEM the store is full. */
static __always_inline long ss_get(void *ctx, void *store, __u64 flags)
{
    __u32 zero = 0;
    struct ss_stack *s = bpf_map_lookup_elem(&ss_scratch, &zero);
    if (!s)
        return -ENOMEM;
    /* clears the slots past the stack's end */
    long n = bpf_get_stack(ctx, s->ip, sizeof s->ip, flags);
    if (n <= 0)
        return n < 0 ? n : -EFAULT;
    __u32 nr = (__u32)n / sizeof(__u64);
    struct ss_mix_ctx m = {s, 0x2545f4914f6cdd1dULL};
    /* bpf_loop: the verifier checks the body once, where an unrolled
     * 127-frame loop cost ~3,000 instructions at every place it was
     * reached (the syscall tap's entry program went from 5,000 to 38,000) */
    bpf_loop(nr, ss_mix, &m, 0);
    __u64 h = m.h ^ nr;
    s->hash = h;
    __u32 key = (__u32)(h ^ (h >> 32)) & 0x7fffffff; /* ids are s32 in the keys */
    struct ss_stack *old = bpf_map_lookup_elem(store, &key);
    if (!old) {
        long rc = bpf_map_update_elem(store, &key, s, BPF_NOEXIST);
        if (rc == 0)
            return key;
        if (rc != -EEXIST)
            return rc;
        old = bpf_map_lookup_elem(store, &key); /* another CPU added it first */
        if (!old)
            return -ENOMEM;
    }
    return old->hash == h ? (long)key : -EEXIST;
}

#endif
