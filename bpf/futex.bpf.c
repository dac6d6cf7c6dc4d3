/* Futex waits: time threads spend inside FUTEX_WAIT-type calls, per
 * (process, user stack, futex command), aggregated in the kernel.  The user
 * stack names the code that waited (the lock taker or the parked worker). */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "offcpu.h"

#define PF_KTHREAD 0x00200000
#define FUTEX_CMD_MASK 0x7f /* drops FUTEX_PRIVATE_FLAG (128) and FUTEX_CLOCK_REALTIME (256) */
#define NR_FUTEX 202        /* x86_64 */
#define NR_FUTEX_WAITV 449
#define NR_FUTEX_WAIT 455
#define ETIMEDOUT_NR 110

const volatile __u32 self_tgid = 0;
const volatile __u32 target_tgid = 0;
const volatile __u64 target_cgid = 0;
/* Set by user space at the window end: the drain starts while the slow
 * detach of the tracepoints runs. */
volatile bool stopped = false;

struct {
    __uint(type, BPF_MAP_TYPE_STACK_TRACE);
    __uint(max_entries, 4096);
    __uint(key_size, sizeof(__u32));
    __uint(value_size, OFFCPU_STACK_DEPTH * sizeof(__u64));
} fstacks SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, FUTEX_MAX_INFLIGHT);
    __type(key, __u32); /* tid */
    __type(value, struct fwait_start);
} inflight SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, FUTEX_MAX_AGG);
    __type(key, struct fwait_key);
    __type(value, struct fwait_val);
} fwaits SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, FUTEX_ST_COUNT);
    __type(key, __u32);
    __type(value, __u64);
} fstats SEC(".maps");

/* Classic syscall tracepoint records (see events/syscalls/sys_enter_futex/format). */
struct sys_enter_rec {
    __u64 common;
    __s32 nr;
    __u32 pad;
    __u64 args[6];
};
struct sys_exit_rec {
    __u64 common;
    __s32 nr;
    __u32 pad;
    __s64 ret;
};

static __always_inline void stat_inc(__u32 i)
{
    __u64 *v = bpf_map_lookup_elem(&fstats, &i);
    if (v)
        (*v)++;
}

static __always_inline bool wanted(void)
{
    if (stopped)
        return false;
    struct task_struct *t = bpf_get_current_task_btf();
    if (BPF_CORE_READ(t, flags) & PF_KTHREAD)
        return false;
    __u32 tgid = bpf_get_current_pid_tgid() >> 32;
    if (tgid == self_tgid || (target_tgid && tgid != target_tgid))
        return false;
    if (target_cgid && bpf_get_current_cgroup_id() != target_cgid)
        return false;
    return true;
}

/* The wait-type command of a futex call, or -1 when it does not wait. */
static __always_inline int wait_op(long nr, __u64 op)
{
    if (nr == NR_FUTEX_WAITV)
        return PR_FUTEX_WAITV;
    if (nr == NR_FUTEX_WAIT)
        return PR_FUTEX_WAIT2;
    if (nr != NR_FUTEX)
        return -1;
    int cmd = (int)(op & FUTEX_CMD_MASK);
    switch (cmd) {
    case PR_FUTEX_WAIT:
    case PR_FUTEX_LOCK_PI:
    case PR_FUTEX_WAIT_BITSET:
    case PR_FUTEX_WAIT_REQUEUE_PI:
    case PR_FUTEX_LOCK_PI2:
        return cmd;
    }
    return -1;
}

static __always_inline void on_enter(void *ctx, long nr, __u64 op)
{
    int cmd = wait_op(nr, op);
    if (cmd < 0 || !wanted())
        return;
    struct fwait_start s = {};
    s.ts_ns = bpf_ktime_get_ns();
    s.ustack = bpf_get_stackid(ctx, &fstacks, BPF_F_USER_STACK);
    s.op = (__u32)cmd;
    if (s.ustack < 0)
        stat_inc(FUTEX_ST_USTACK_ERR);
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    if (bpf_map_update_elem(&inflight, &tid, &s, BPF_ANY) != 0)
        stat_inc(FUTEX_ST_INFLIGHT_FULL);
}

static __always_inline void on_exit(long ret)
{
    __u64 id = bpf_get_current_pid_tgid();
    __u32 tid = (__u32)id;
    struct fwait_start *p = bpf_map_lookup_elem(&inflight, &tid);
    if (!p)
        return;
    struct fwait_start s = *p;
    bpf_map_delete_elem(&inflight, &tid);
    if (ret == -ETIMEDOUT_NR) {
        stat_inc(FUTEX_ST_TIMEDOUT);
        return;
    }
    __u64 delta = bpf_ktime_get_ns() - s.ts_ns;
    struct fwait_key key = {};
    key.tgid = id >> 32;
    key.ustack = s.ustack;
    key.op = s.op;
    bpf_get_current_comm(key.comm, sizeof key.comm);
    struct fwait_val *v = bpf_map_lookup_elem(&fwaits, &key);
    if (!v) {
        struct fwait_val zero = {};
        bpf_map_update_elem(&fwaits, &key, &zero, BPF_NOEXIST);
        v = bpf_map_lookup_elem(&fwaits, &key);
        if (!v) {
            stat_inc(FUTEX_ST_AGG_FULL);
            return;
        }
    }
    __sync_fetch_and_add(&v->total_ns, delta);
    __sync_fetch_and_add(&v->count, 1);
    if (delta > v->max_ns) /* racy max: good enough for a report */
        v->max_ns = delta;
    stat_inc(FUTEX_ST_WAITS);
}

SEC("tp/syscalls/sys_enter_futex")
int futex_enter(struct sys_enter_rec *ctx)
{
    on_enter(ctx, NR_FUTEX, ctx->args[1]);
    return 0;
}

SEC("tp/syscalls/sys_exit_futex")
int futex_exit(struct sys_exit_rec *ctx)
{
    on_exit(ctx->ret);
    return 0;
}

SEC("tp/syscalls/sys_enter_futex_waitv")
int futex_waitv_enter(struct sys_enter_rec *ctx)
{
    on_enter(ctx, NR_FUTEX_WAITV, 0);
    return 0;
}

SEC("tp/syscalls/sys_exit_futex_waitv")
int futex_waitv_exit(struct sys_exit_rec *ctx)
{
    on_exit(ctx->ret);
    return 0;
}

/* Fallback without per-syscall events (no tracefs or no
 * CONFIG_FTRACE_SYSCALLS): every syscall enters here, filtered by number. */
SEC("tp_btf/sys_enter")
int BPF_PROG(futex_raw_enter, struct pt_regs *regs, long id)
{
    if (id != NR_FUTEX && id != NR_FUTEX_WAITV && id != NR_FUTEX_WAIT)
        return 0;
    on_enter(ctx, id, BPF_CORE_READ(regs, si));
    return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(futex_raw_exit, struct pt_regs *regs, long ret)
{
    (void)regs;
    on_exit(ret);
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
