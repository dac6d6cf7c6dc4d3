/* Run-queue latency: time from a task becoming runnable (wakeup, new task,
 * or preemption while still runnable) to it running on a CPU.  Log2
 * histogram in microseconds per CPU, and per process (tgid) totals.
 * A wait that ends when one of perfreport's own threads gives up the CPU
 * was (at least at its end) spent behind perfreport: it goes to its own
 * histogram, so the measurement's footprint is shown, not diagnosed.
 * tp_btf programs are the default; the classic tracepoint set is the
 * fallback (user space picks one with set_autoload before loading). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "khist.bpf.h"
#include "runqlat.h"
#include "threads.h"

#define TASK_RUNNING_STATE 0

/* Filled in by user space before load. */
const volatile __u32 targ_tgid = 0;
const volatile __u64 targ_cgid = 0;
const volatile __u32 self_tgid = 0; /* perfreport's own waits (it runs niced) and its children's are left out */

/* Set by user space for the window only: the maps hold exactly the window
 * even while other collectors still drain theirs. */
volatile bool recording = false;

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, RUNQ_MAX_STARTS); /* sized to the host's threads by user space */
    __type(key, __u32); /* tid */
    __type(value, __u64); /* ns when it became runnable */
} start SEC(".maps");

/* One histogram per CPU (index = CPU it was switched in on); user space
 * sizes this to the number of possible CPUs. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct khist);
} cpu_hist SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, RUNQ_MAX_PROCS);
    __type(key, __u32); /* tgid (tid in classic mode) */
    __type(value, struct runq_proc_val);
} procs SEC(".maps");

/* -p only: the same per thread (tid) */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, THREAD_MAX_TIDS);
    __type(key, __u32);
    __type(value, struct runq_proc_val);
} tids SEC(".maps");

/* Waits that ended when a perfreport thread was switched out. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct khist);
} behind_self SEC(".maps");

/* 0: start map full, 1: procs map full, 2: tids map full */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 3);
    __type(key, __u32);
    __type(value, __u64);
} drops SEC(".maps");

static __always_inline bool task_wanted(struct task_struct *p)
{
    /* perfreport and the children it forks (bounded reads of other users'
     * files): niced or short-lived, their waits are its own footprint */
    if (self_tgid && (BPF_CORE_READ(p, tgid) == (pid_t)self_tgid ||
                      BPF_CORE_READ(p, real_parent, tgid) == (pid_t)self_tgid))
        return false;
    if (targ_tgid && BPF_CORE_READ(p, tgid) != (pid_t)targ_tgid)
        return false;
    if (targ_cgid && BPF_CORE_READ(p, cgroups, dfl_cgrp, kn, id) != targ_cgid)
        return false;
    return true;
}

static __always_inline void mark_runnable(__u32 tid)
{
    __u64 now = bpf_ktime_get_ns();
    if (!tid)
        return;
    if (bpf_map_update_elem(&start, &tid, &now, BPF_ANY) != 0)
        kcount(&drops, 0);
}

/* Adds a wait to the entry `key` of map m (procs or tids); a full map
 * counts in drops[drop]. */
static __always_inline void add_wait(void *m, __u32 key, const char *comm, __u64 delta, __u32 drop)
{
    struct runq_proc_val *pv = bpf_map_lookup_elem(m, &key);
    if (!pv) {
        struct runq_proc_val zero = {};
        bpf_probe_read_kernel_str(zero.comm, sizeof zero.comm, comm);
        if (bpf_map_update_elem(m, &key, &zero, BPF_NOEXIST) != 0 && !bpf_map_lookup_elem(m, &key)) {
            kcount(&drops, drop);
            return;
        }
        pv = bpf_map_lookup_elem(m, &key);
        if (!pv)
            return;
    }
    __sync_fetch_and_add(&pv->total_ns, delta);
    __sync_fetch_and_add(&pv->count, 1);
    if (delta > pv->max_ns)
        pv->max_ns = delta;
}

/* Records the wait of `tid` that is being switched in now. */
/* key: the tgid (tp_btf) or the tid (classic, where procs is per thread
 * and tids is not kept). */
static __always_inline void switched_in(__u32 tid, __u32 key, const char *comm, bool per_tid)
{
    __u64 *ts = bpf_map_lookup_elem(&start, &tid);
    if (!ts)
        return;
    __u64 now = bpf_ktime_get_ns();
    __u64 delta = now > *ts ? now - *ts : 0;
    bpf_map_delete_elem(&start, &tid);

    /* At sched_switch the current task is the one being switched out. */
    if (self_tgid && (__u32)(bpf_get_current_pid_tgid() >> 32) == self_tgid) {
        __u32 zero = 0;
        struct khist *sh = bpf_map_lookup_elem(&behind_self, &zero);
        if (sh)
            khist_add(sh, delta / 1000);
        return;
    }

    __u32 cpu = bpf_get_smp_processor_id();
    struct khist *h = bpf_map_lookup_elem(&cpu_hist, &cpu);
    if (h)
        khist_add(h, delta / 1000);

    add_wait(&procs, key, comm, delta, 1);
    if (targ_tgid && per_tid)
        add_wait(&tids, tid, comm, delta, 2);
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(rq_wakeup_btf, struct task_struct *p)
{
    if (!recording)
        return 0;
    if (task_wanted(p))
        mark_runnable(BPF_CORE_READ(p, pid));
    return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(rq_wakeup_new_btf, struct task_struct *p)
{
    if (!recording)
        return 0;
    if (task_wanted(p))
        mark_runnable(BPF_CORE_READ(p, pid));
    return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(rq_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next,
             unsigned int prev_state)
{
    if (!recording)
        return 0;
    /* Preempted while runnable: it is back on the run queue from now. */
    if (prev_state == TASK_RUNNING_STATE && task_wanted(prev))
        mark_runnable(BPF_CORE_READ(prev, pid));
    __u32 tid = BPF_CORE_READ(next, pid);
    if (tid)
        switched_in(tid, BPF_CORE_READ(next, tgid), next->comm, true);
    return 0;
}

/* Classic fallback: the tracepoint records carry thread ids only, so the
 * per-process table is per thread and -p/-c filtering is not applied. */
SEC("tp/sched/sched_wakeup")
int rq_wakeup_tp(struct trace_event_raw_sched_wakeup_template *ctx)
{
    if (recording && !targ_tgid && !targ_cgid)
        mark_runnable(ctx->pid);
    return 0;
}

SEC("tp/sched/sched_wakeup_new")
int rq_wakeup_new_tp(struct trace_event_raw_sched_wakeup_template *ctx)
{
    if (recording && !targ_tgid && !targ_cgid)
        mark_runnable(ctx->pid);
    return 0;
}

SEC("tp/sched/sched_switch")
int rq_switch_tp(struct trace_event_raw_sched_switch *ctx)
{
    if (!recording || targ_tgid || targ_cgid)
        return 0;
    if (ctx->prev_state == TASK_RUNNING_STATE)
        mark_runnable(ctx->prev_pid);
    __u32 tid = ctx->next_pid;
    if (tid)
        switched_in(tid, tid, ctx->next_comm, false);
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
