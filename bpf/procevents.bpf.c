/* Process churn: execs per command (with the parent's command) and the
 * lifetime of exiting processes, from sched_process_exec/exit.  These fire
 * per exec/exit, far below syscall rates, so plain hashes are fine. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "procevents.h"

const volatile __u32 targ_tgid = 0;
const volatile __u64 targ_cgid = 0;
/* CLOCK_MONOTONIC edges of the window, written by user space at begin and
 * end (0: not yet).  Without mmapable maps user space cannot write them:
 * start_ns stays at its load-time value 1 and everything counts as window. */
volatile __u64 win_start_ns;
volatile __u64 win_end_ns;

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, PE_PH_N * PE_CNT_N); /* [phase * PE_CNT_N + what] */
    __type(key, __u32);
    __type(value, __u64);
} counts SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, PE_MAX_EXEC);
    __type(key, struct pe_exec_key);
    __type(value, struct pe_exec_val);
} execs SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, PE_MAX_EXIT);
    __type(key, struct pe_exec_key); /* pcomm left zero */
    __type(value, struct pe_exit_val);
} exits SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct pe_hist);
} lifetime SEC(".maps");

static __always_inline __u32 phase_at(__u64 now)
{
    __u64 start = win_start_ns, end = win_end_ns;
    if (!start || now < start)
        return PE_PH_BEFORE;
    if (end && now >= end)
        return PE_PH_AFTER;
    return PE_PH_WINDOW;
}

static __always_inline void count(__u32 ph, __u32 what)
{
    __u32 k = ph * PE_CNT_N + what;
    __u64 *n = bpf_map_lookup_elem(&counts, &k);
    if (n)
        (*n)++;
}

static __always_inline bool wanted(struct task_struct *task)
{
    if (targ_tgid) {
        /* -p: the process itself and its children. */
        __u32 tgid = BPF_CORE_READ(task, tgid);
        __u32 ptgid = BPF_CORE_READ(task, real_parent, tgid);
        if (tgid != targ_tgid && ptgid != targ_tgid)
            return false;
    }
    if (targ_cgid && bpf_get_current_cgroup_id() != targ_cgid)
        return false;
    return true;
}

static __always_inline void on_exec(struct task_struct *task)
{
    if (!wanted(task))
        return;
    __u32 ph = phase_at(bpf_ktime_get_ns());
    if (ph >= PE_PH_N) /* bounds the index for the verifier */
        return;
    count(ph, PE_CNT_EXEC);
    struct pe_exec_key k = {};
    bpf_probe_read_kernel_str(k.comm, sizeof k.comm, task->comm);
    struct task_struct *parent = BPF_CORE_READ(task, real_parent);
    if (parent)
        bpf_probe_read_kernel_str(k.pcomm, sizeof k.pcomm, parent->comm);
    struct pe_exec_val *v = bpf_map_lookup_elem(&execs, &k);
    if (!v) {
        struct pe_exec_val z = {};
        bpf_map_update_elem(&execs, &k, &z, BPF_NOEXIST); /* may race another CPU: fine */
        v = bpf_map_lookup_elem(&execs, &k);
        if (!v) {
            count(ph, PE_CNT_DROP);
            return;
        }
    }
    __sync_fetch_and_add(&v->n[ph], 1);
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

/* Only the last thread of a process counts (whole-process lifetime). */
static __always_inline void on_exit(struct task_struct *task)
{
    if (BPF_CORE_READ(task, pid) != BPF_CORE_READ(task, tgid))
        return;
    if (!wanted(task))
        return;
    __u64 start = BPF_CORE_READ(task, start_time); /* CLOCK_MONOTONIC ns */
    __u64 now = bpf_ktime_get_ns();
    __u64 life = now > start ? now - start : 0;
    __u32 ph = phase_at(now);
    if (ph >= PE_PH_N)
        return;
    count(ph, PE_CNT_EXIT);
    bool is_short = life < PE_SHORT_NS;
    if (is_short)
        count(ph, PE_CNT_SHORT);
    if (ph != PE_PH_WINDOW) /* lifetimes describe the window only */
        return;
    if (is_short) {
        __u32 zero = 0;
        struct pe_hist *h = bpf_map_lookup_elem(&lifetime, &zero);
        if (h) {
            __u32 b = log2_u64(life / 1000000);
            if (b >= PE_HIST_BUCKETS)
                b = PE_HIST_BUCKETS - 1;
            h->b[b]++;
        }
    }
    struct pe_exec_key k = {};
    bpf_probe_read_kernel_str(k.comm, sizeof k.comm, task->comm);
    struct pe_exit_val *v = bpf_map_lookup_elem(&exits, &k);
    if (!v) {
        struct pe_exit_val z = {};
        bpf_map_update_elem(&exits, &k, &z, BPF_NOEXIST);
        v = bpf_map_lookup_elem(&exits, &k);
        if (!v) {
            count(ph, PE_CNT_DROP);
            return;
        }
    }
    /* CPU over its life: the exiting thread's own, plus that of the
     * threads that ended before it (summed into the signal struct). */
    __u64 cpu = BPF_CORE_READ(task, se.sum_exec_runtime) +
                BPF_CORE_READ(task, signal, sum_sched_runtime);
    __sync_fetch_and_add(&v->exits, 1);
    __sync_fetch_and_add(&v->life_ns, life);
    __sync_fetch_and_add(&v->cpu_ns, cpu);
    if (is_short) {
        __sync_fetch_and_add(&v->short_exits, 1);
        __sync_fetch_and_add(&v->short_life_ns, life);
        __sync_fetch_and_add(&v->churn_ns, cpu < PE_START_COST_NS ? cpu : PE_START_COST_NS);
    }
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(pe_exec_btf, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
    on_exec(p);
    return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(pe_exit_btf, struct task_struct *p)
{
    on_exit(p);
    return 0;
}

/* Classic tracepoints run in the context of the exec'ing/exiting task. */
SEC("tp/sched/sched_process_exec")
int pe_exec_tp(void *ctx)
{
    on_exec((struct task_struct *)bpf_get_current_task());
    return 0;
}

SEC("tp/sched/sched_process_exit")
int pe_exit_tp(void *ctx)
{
    on_exit((struct task_struct *)bpf_get_current_task());
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
