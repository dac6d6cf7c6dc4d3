/* Syscall counts, errors and latency for the whole window.
 *
 * Hot path (every syscall, both ends): one task-storage slot per thread for
 * the entry time (tp_btf; no hash), one per-CPU array slot per syscall number
 * and one slot of a per-CPU cache of (process, syscall) counts.  Errors (the cold path)
 * go to a hash keyed by process, syscall and errno.  The classic
 * raw_syscalls tracepoints are the fallback where tp_btf is not available;
 * they keep the entry time in a hash by thread id instead. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "syscalls.h"

const volatile __u32 targ_tgid = 0; /* -p: only this process */
const volatile __u64 targ_cgid = 0; /* -c: only this v2 cgroup */
const volatile __u32 self_tgid = 0; /* perfreport itself: left out */

struct start {
    __u64 ts;
    __u32 nr;
    __u32 pad;
};

struct {
    __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
    __uint(map_flags, BPF_F_NO_PREALLOC);
    __type(key, int);
    __type(value, struct start);
} start_task SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, SC_MAX_THREADS);
    __type(key, __u32);
    __type(value, struct start);
} start_tid SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, SC_MAX_NR);
    __type(key, __u32);
    __type(value, struct sc_stat);
} per_nr SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
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

/* Losses: index SC_DROP_*. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, SC_DROP_N);
    __type(key, __u32);
    __type(value, __u64);
} drops SEC(".maps");

static __always_inline void drop(__u32 what)
{
    __u64 *n = bpf_map_lookup_elem(&drops, &what);
    if (n)
        (*n)++;
}

static __always_inline bool wanted(__u64 id)
{
    __u32 tgid = (__u32)(id >> 32);
    if (tgid == self_tgid)
        return false;
    if (targ_tgid && tgid != targ_tgid)
        return false;
    if (targ_cgid && bpf_get_current_cgroup_id() != targ_cgid)
        return false;
    return true;
}

static __always_inline __u32 log2_u64(__u64 v)
{
    __u32 r = 0;
    if (v >> 32) { v >>= 32; r += 32; }
    if (v >> 16) { v >>= 16; r += 16; }
    if (v >> 8) { v >>= 8; r += 8; }
    if (v >> 4) { v >>= 4; r += 4; }
    if (v >> 2) { v >>= 2; r += 2; }
    if (v >> 1) r += 1;
    return r;
}

static __always_inline void flush(struct sc_slot *c)
{
    struct sc_proc_key pk = {.tgid = c->tgid, .nr = c->nr};
    struct sc_proc_val *pv = bpf_map_lookup_elem(&per_proc, &pk);
    if (pv) {
        pv->count += c->count;
        pv->errors += c->errors;
    } else {
        struct sc_proc_val nv = {.count = c->count, .errors = c->errors};
        if (bpf_map_update_elem(&per_proc, &pk, &nv, BPF_NOEXIST) != 0)
            drop(SC_DROP_PROC);
    }
}

static __always_inline void account(__u64 id, __u32 nr, __u64 ts, long ret)
{
    __u64 d = bpf_ktime_get_ns() - ts;
    struct sc_stat *st = bpf_map_lookup_elem(&per_nr, &nr);
    if (!st)
        return; /* nr >= SC_MAX_NR: not a real syscall number */
    st->count++;
    st->total_ns += d;
    __u32 b = log2_u64(d);
    if (b >= SC_HIST_BUCKETS)
        b = SC_HIST_BUCKETS - 1;
    st->hist[b]++;
    bool failed = ret < 0 && ret >= -4095;
    if (failed)
        st->errors++;

    /* Per-process counts go through a small per-CPU direct-mapped cache;
     * a miss writes the evicted slot to the hash.  A syscall storm from one
     * process thus costs an array access, not a hash lookup, per call. */
    __u32 tgid = (__u32)(id >> 32);
    __u32 idx = (tgid * 31 + nr) & (SC_CACHE_SLOTS - 1);
    struct sc_slot *c = bpf_map_lookup_elem(&pcache, &idx);
    if (!c)
        return;
    if (c->count && c->tgid == tgid && c->nr == nr) {
        c->count++;
        c->errors += failed;
    } else {
        if (c->count)
            flush(c);
        c->tgid = tgid;
        c->nr = nr;
        c->count = 1;
        c->errors = failed;
        if (!bpf_map_lookup_elem(&comms, &tgid)) {
            struct sc_comm cm = {};
            bpf_get_current_comm(cm.comm, sizeof cm.comm);
            bpf_map_update_elem(&comms, &tgid, &cm, BPF_ANY);
        }
    }
    struct sc_proc_key pk = {.tgid = tgid, .nr = nr};
    if (failed) {
        struct sc_err_key ek = {.tgid = pk.tgid, .nr = nr, .err = (__u32)-ret};
        __u64 *n = bpf_map_lookup_elem(&errs, &ek);
        if (n) {
            __sync_fetch_and_add(n, 1);
        } else {
            __u64 one = 1;
            if (bpf_map_update_elem(&errs, &ek, &one, BPF_NOEXIST) != 0)
                drop(SC_DROP_ERR);
        }
    }
}

/* ---- tp_btf: task storage ------------------------------------------------- */

SEC("tp_btf/sys_enter")
int BPF_PROG(sc_enter_btf, struct pt_regs *regs, long nr)
{
    __u64 id = bpf_get_current_pid_tgid();
    if (!wanted(id))
        return 0;
    struct start *s = bpf_task_storage_get(&start_task, bpf_get_current_task_btf(), 0,
                                           BPF_LOCAL_STORAGE_GET_F_CREATE);
    if (!s) {
        drop(SC_DROP_START);
        return 0;
    }
    s->nr = (__u32)nr;
    s->ts = bpf_ktime_get_ns();
    return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sc_exit_btf, struct pt_regs *regs, long ret)
{
    struct start *s = bpf_task_storage_get(&start_task, bpf_get_current_task_btf(), 0, 0);
    if (!s || !s->ts)
        return 0; /* entered before we attached, or filtered out */
    __u64 ts = s->ts;
    s->ts = 0;
    account(bpf_get_current_pid_tgid(), s->nr, ts, ret);
    return 0;
}

/* ---- classic tracepoints: hash by thread id -------------------------------- */

SEC("tp/raw_syscalls/sys_enter")
int sc_enter_tp(struct trace_event_raw_sys_enter *ctx)
{
    __u64 id = bpf_get_current_pid_tgid();
    if (!wanted(id))
        return 0;
    __u32 tid = (__u32)id;
    struct start s = {.ts = bpf_ktime_get_ns(), .nr = (__u32)ctx->id};
    if (bpf_map_update_elem(&start_tid, &tid, &s, BPF_ANY) != 0)
        drop(SC_DROP_START);
    return 0;
}

SEC("tp/raw_syscalls/sys_exit")
int sc_exit_tp(struct trace_event_raw_sys_exit *ctx)
{
    __u64 id = bpf_get_current_pid_tgid();
    __u32 tid = (__u32)id;
    struct start *s = bpf_map_lookup_elem(&start_tid, &tid);
    if (!s)
        return 0;
    __u64 ts = s->ts;
    __u32 nr = s->nr;
    bpf_map_delete_elem(&start_tid, &tid);
    account(id, nr, ts, ctx->ret);
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
