/* On-CPU profiler: a perf_event program on cpu-clock, one event per CPU.
 * Samples are aggregated here by (process, kernel stack, user stack); user
 * space drains the maps once after the window. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "khist.bpf.h"
#include "stackstore.bpf.h"
#include <bpf/bpf_tracing.h>
#include "profile.h"
#include "threads.h"

#define PF_KTHREAD 0x00200000

const volatile __u32 targ_tgid = 0;    /* 0 = every process */
const volatile __u64 targ_cgid = 0;    /* v2 cgroup id; used when filter_cg */
const volatile bool filter_cg = false;
/* With targ_tgid: its descendants are sampled too (`perfreport -- CMD`,
 * whose focus is the command's process tree).  Each process forked by one
 * in the tree joins it at its fork, before it can run. */
const volatile bool follow_children = false;

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, PROF_MAX_FOLLOWED);
    __type(key, __u32);
    __type(value, __u8);
} followed SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, PROF_MAX_STACKS);
    __type(key, __u32);
    __type(value, struct ss_stack);
} stackmap SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, PROF_MAX_KEYS);
    __type(key, struct prof_key);
    __type(value, __u64);
} counts SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, PROF_NSTATS);
    __type(key, __u32);
    __type(value, __u64);
} stats SEC(".maps");

/* -p only: samples per thread (tid) */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, THREAD_MAX_TIDS);
    __type(key, __u32);
    __type(value, struct thread_samples);
} tid_samples SEC(".maps");

static __always_inline void count_thread(__u32 tid)
{
    struct thread_samples *ts = bpf_map_lookup_elem(&tid_samples, &tid);
    if (!ts) {
        struct thread_samples zero = {};
        bpf_get_current_comm(zero.comm, sizeof zero.comm);
        if (bpf_map_update_elem(&tid_samples, &tid, &zero, BPF_NOEXIST) != 0 &&
            !bpf_map_lookup_elem(&tid_samples, &tid)) {
            kcount(&stats, PROF_ST_TID_DROPPED);
            return;
        }
        ts = bpf_map_lookup_elem(&tid_samples, &tid);
        if (!ts)
            return;
    }
    __sync_fetch_and_add(&ts->count, 1);
}

static __always_inline bool in_target(__u32 tgid)
{
    if (!targ_tgid || tgid == targ_tgid)
        return true;
    return follow_children && bpf_map_lookup_elem(&followed, &tgid);
}

/* Loaded and attached only with follow_children. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
    __u32 ptgid = parent->tgid, ctgid = child->tgid;
    if (ptgid == ctgid || !in_target(ptgid)) /* a new thread, or outside the tree */
        return 0;
    __u8 one = 1;
    if (bpf_map_update_elem(&followed, &ctgid, &one, BPF_ANY))
        kcount(&stats, PROF_ST_UNFOLLOWED);
    return 0;
}

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
    __u64 id = bpf_get_current_pid_tgid();
    __u32 tgid = id >> 32;
    if ((__u32)id == 0) {
        kcount(&stats, PROF_ST_IDLE);
        return 0;
    }
    if (!in_target(tgid) || (filter_cg && bpf_get_current_cgroup_id() != targ_cgid)) {
        kcount(&stats, PROF_ST_FILTERED);
        return 0;
    }
    kcount(&stats, PROF_ST_SAMPLES);
    if (targ_tgid)
        count_thread((__u32)id);

    struct prof_key k = {};
    k.tgid = tgid;
    if (targ_tgid)
        k.tid = (__u32)id;
    bpf_get_current_comm(k.comm, sizeof k.comm);
    k.kstack = ss_get(ctx, &stackmap, 0);
    /* An empty kernel callchain (-EFAULT) means the sample hit user mode. */
    if (k.kstack == -EFAULT)
        k.kstack = PROF_STACK_NONE;
    struct task_struct *t = (struct task_struct *)bpf_get_current_task();
    if (BPF_CORE_READ(t, flags) & PF_KTHREAD)
        k.ustack = PROF_STACK_NONE;
    else
        k.ustack = ss_get(ctx, &stackmap, BPF_F_USER_STACK);

    __u64 *c = bpf_map_lookup_elem(&counts, &k);
    if (c) {
        __sync_fetch_and_add(c, 1);
        return 0;
    }
    __u64 one = 1;
    long rc = bpf_map_update_elem(&counts, &k, &one, BPF_NOEXIST);
    if (rc == -EEXIST) { /* another CPU inserted it first */
        c = bpf_map_lookup_elem(&counts, &k);
        if (c)
            __sync_fetch_and_add(c, 1);
    } else if (rc) {
        kcount(&stats, PROF_ST_DROPPED);
    }
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
