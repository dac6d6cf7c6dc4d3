/* Futex part of the syscall tap (included by systap.bpf.c only): time
 * threads spend inside FUTEX_WAIT-type calls, per (process, user stack,
 * futex command), aggregated in the kernel.  The user stack names the code
 * that waited (the lock taker or the parked worker). */
#ifndef PERFREPORT_SYSTAP_FUTEX_BPF_H
#define PERFREPORT_SYSTAP_FUTEX_BPF_H
#include "offcpu.h"
#include "stackstore.bpf.h"

#define FUTEX_CMD_MASK 0x7f /* drops FUTEX_PRIVATE_FLAG (128) and FUTEX_CLOCK_REALTIME (256) */
#define ETIMEDOUT_NR 110

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 4096);
    __type(key, __u32);
    __type(value, struct ss_stack);
} fstacks SEC(".maps");

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

/* The wait-type command of a futex-family call, or -1 when it does not
 * wait.  op is the futex() call's second argument. */
static __always_inline int futex_wait_op(__u32 nr, __u64 op)
{
    if (nr == NR_futex_waitv)
        return PR_FUTEX_WAITV;
    if (nr == NR_futex_wait)
        return PR_FUTEX_WAIT2;
    if (nr != NR_futex)
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

static __always_inline bool is_futex_nr(__u32 nr)
{
    return nr == NR_futex || nr == NR_futex_waitv || nr == NR_futex_wait;
}

/* At entry: the waiting user stack (ctx is the program's context). */
static __always_inline __s32 futex_stack(void *ctx)
{
    long id = ss_get(ctx, &fstacks, BPF_F_USER_STACK);
    if (id < 0)
        kadd(&fstats, FUTEX_ST_USTACK_ERR, 1);
    return (__s32)id;
}

/* op_stack: the futex command << 32 | the user stack id (a BPF function
 * takes five arguments); mult: the slice weight (see slice_mult in
 * systap.bpf.c), 256 = 1. */
__noinline int futex_done(__u64 pid_tgid, __u64 op_stack, __u64 ns, long ret, __u32 mult)
{
    if (ret == -ETIMEDOUT_NR) {
        kadd(&fstats, FUTEX_ST_TIMEDOUT, 1);
        return 0;
    }
    struct fwait_key key = {};
    key.tgid = (__u32)(pid_tgid >> 32);
    key.ustack = (__s32)(__u32)op_stack;
    key.op = (__u8)(op_stack >> 32);
    bpf_get_current_comm(key.comm, sizeof key.comm);
    struct fwait_val *v = bpf_map_lookup_elem(&fwaits, &key);
    if (!v) {
        struct fwait_val zero = {};
        bpf_map_update_elem(&fwaits, &key, &zero, BPF_NOEXIST);
        v = bpf_map_lookup_elem(&fwaits, &key);
        if (!v) {
            kadd(&fstats, FUTEX_ST_AGG_FULL, 1);
            return 0;
        }
    }
    __sync_fetch_and_add(&v->total_ns, ns * mult >> 8);
    __sync_fetch_and_add(&v->count, ((__u64)mult + 128) >> 8);
    if (ns > v->max_ns) /* racy max: good enough for a report */
        v->max_ns = ns;
    kadd(&fstats, FUTEX_ST_WAITS, 1);
    return 0;
}
#endif
