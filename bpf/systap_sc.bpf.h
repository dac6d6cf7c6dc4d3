/* Syscall part of the syscall tap (included by systap.bpf.c only): counts
 * per (process, syscall) at entry, sampled latency at exit, errors by errno
 * at exit. */
#ifndef PERFREPORT_SYSTAP_SC_BPF_H
#define PERFREPORT_SYSTAP_SC_BPF_H

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, SC_MAX_NR);
    __type(key, __u32);
    __type(value, struct sc_stat);
} per_nr SEC(".maps");

/* Written only when a cache slot is evicted, so a shared hash with atomic
 * adds: its size does not grow with the number of CPUs, as a per-CPU
 * hash's preallocated values would (64 CPUs x 64k entries = 32 MiB). */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, SC_MAX_PROC_NR);
    __type(key, struct sc_proc_key);
    __type(value, struct sc_proc_val);
} per_proc SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, SC_MAX_ERRS);
    __type(key, struct sc_err_key);
    __type(value, __u64);
} errs SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, SC_MAX_PROCS);
    __type(key, __u32);
    __type(value, struct sc_comm);
} comms SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, SC_CACHE_SLOTS);
    __type(key, __u32);
    __type(value, struct sc_slot);
} pcache SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, SC_DROP_N);
    __type(key, __u32);
    __type(value, __u64);
} drops SEC(".maps");

/* Writes an evicted slot's count to its syscall's total (this CPU's, so
 * no atomics) and to the shared per-process hash. */
static __always_inline void slot_flush(struct sc_slot *c)
{
    __u32 nr = c->nr;
    struct sc_stat *st = bpf_map_lookup_elem(&per_nr, &nr);
    if (st)
        st->count += c->count;
    struct sc_proc_key pk = {.tgid = c->tgid, .nr = c->nr};
    struct sc_proc_val *pv = bpf_map_lookup_elem(&per_proc, &pk);
    if (pv) {
        __sync_fetch_and_add(&pv->count, c->count);
    } else {
        struct sc_proc_val nv = {.count = c->count};
        if (bpf_map_update_elem(&per_proc, &pk, &nv, BPF_NOEXIST) != 0) {
            /* another CPU may have inserted the key first */
            pv = bpf_map_lookup_elem(&per_proc, &pk);
            if (pv)
                __sync_fetch_and_add(&pv->count, c->count);
            else
                kadd(&drops, SC_DROP_PROC, 1);
        }
    }
}

/* Counts the call and decides whether to time it: returns the weight of a
 * timed call, 0 when not timed.
 *
 * Every syscall of the host comes through here, so the common case is one
 * array access: a small per-CPU direct-mapped cache of (process, syscall)
 * counts.  A miss writes the evicted slot to the per-syscall and
 * per-process totals; user space adds the live slots at the drain. */
__noinline int sc_count(__u64 pid_tgid, __u32 nr)
{
    if (nr >= SC_MAX_NR)
        return 0; /* not a real syscall number */
    __u32 tgid = (__u32)(pid_tgid >> 32);
    __u32 idx = (tgid * 31 + nr) & (SC_CACHE_SLOTS - 1);
    struct sc_slot *c = bpf_map_lookup_elem(&pcache, &idx);
    if (!c)
        return 0;
    if (c->tgid != tgid || c->nr != nr || !c->count) {
        if (c->count)
            slot_flush(c);
        c->tgid = tgid;
        c->nr = nr;
        c->count = 0;
        if (!bpf_map_lookup_elem(&comms, &tgid)) {
            struct sc_comm cm = {};
            bpf_get_current_comm(cm.comm, sizeof cm.comm);
            bpf_map_update_elem(&comms, &tgid, &cm, BPF_ANY);
        }
    }
    __u64 seen = c->count++;

    if (nr == NR_exit || nr == NR_exit_group)
        return 0; /* never return: nothing to time, and no state to leave behind */
    if (seen < SC_TIME_ALL)
        return 1;
    /* Random, not every 16th call: a workload's own period must not alias
     * with the sample.  A per-slot LCG (its top bits) costs no helper call. */
    c->rng = c->rng * 6364136223846793005ull + 1442695040888963407ull;
    if (seen < SC_TIME_MID)
        return c->rng >> (64 - SC_SAMPLE_SHIFT) ? 0 : 1u << SC_SAMPLE_SHIFT;
    return c->rng >> (64 - SC_SAMPLE_SHIFT_HI) ? 0 : 1u << SC_SAMPLE_SHIFT_HI;
}

/* After a successful execve: the name the process has from now on (its
 * first calls, before the exec, recorded the parent's). */
__noinline int sc_renamed(__u64 pid_tgid)
{
    __u32 tgid = (__u32)(pid_tgid >> 32);
    struct sc_comm cm = {};
    bpf_get_current_comm(cm.comm, sizeof cm.comm);
    bpf_map_update_elem(&comms, &tgid, &cm, BPF_ANY);
    return 0;
}

/* mult: the slice weight (see slice_mult in systap.bpf.c), 256 = 1. */
__noinline int sc_time(__u32 nr, __u16 weight, __u64 d, __u32 mult)
{
    struct sc_stat *st = bpf_map_lookup_elem(&per_nr, &nr);
    if (!st)
        return 0;
    __u64 w = ((__u64)weight * mult + 128) >> 8;
    st->timed++;
    st->total_ns += d * w;
    __u32 b = klog2(d); /* ns: wider than khist's 32 slots */
    if (b > SC_HIST_BUCKETS - 1)
        b = SC_HIST_BUCKETS - 1;
    barrier_var(b); /* index with the clamped register (see khist_slot) */
    st->hist[b] += w;
    return 0;
}

__noinline int sc_error(__u64 pid_tgid, __u32 nr, long ret)
{
    struct sc_stat *st = bpf_map_lookup_elem(&per_nr, &nr);
    if (!st)
        return 0;
    st->errors++;
    struct sc_err_key ek = {.tgid = (__u32)(pid_tgid >> 32), .nr = nr, .err = (__u32)-ret};
    __u64 *n = bpf_map_lookup_elem(&errs, &ek);
    if (n) {
        __sync_fetch_and_add(n, 1);
    } else {
        __u64 one = 1;
        if (bpf_map_update_elem(&errs, &ek, &one, BPF_NOEXIST) != 0)
            kadd(&drops, SC_DROP_ERR, 1);
    }
    return 0;
}
#endif
