/* Off-CPU time: how long user threads stay blocked (not preempted) and
 * where, aggregated per (process, kernel stack, user stack, syscall) in the
 * kernel for the whole window.  At sched_switch we still run in prev's
 * context, so both stack ids taken there belong to the thread that blocks. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "khist.bpf.h"
#include "stackstore.bpf.h"
#include <bpf/bpf_tracing.h>
#include "offcpu.h"
#include "threads.h"

#define PF_KTHREAD 0x00200000
/* Classic tracepoint prev_state: TASK_REPORT bits, TASK_REPORT_MAX when preempted. */
#define TP_STATE_PREEMPTED 0x100
#define TP_STATE_MASK 0xff

const volatile __u32 self_tgid = 0;
const volatile __u32 target_tgid = 0;
const volatile __u64 target_cgid = 0;
const volatile __u64 min_block_ns = 1000000;
/* With target_tgid: its descendants too (`perfreport -- CMD`); each process
 * forked by one in the tree joins it at its fork, before it can run. */
const volatile bool follow_children = false;
/* With target_tgid: futex waits on a sibling thread's exit word are joins
 * (join_words, filled by the seed pass 0 and at each thread's creation). */
const volatile bool find_joins = false;
/* The seed iterator's pass: 0 records exit words only, 1 seeds blocked
 * threads (a joiner may come before the thread it joins in task order). */
volatile __u32 seed_pass = 1;

/* The window's start (bpf_ktime_get_ns clock), set by user space at begin;
 * 0 until then.  Blocks are tracked from the attach, so a thread that
 * blocked earlier is known, but only the part of a wait inside the window
 * counts, and a wait that ended before it not at all. */
volatile __u64 begin_ns = 0;

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, OFFCPU_STACK_ENTRIES);
    __type(key, __u32);
    __type(value, struct ss_stack);
} stacks SEC(".maps");

struct start_rec {
    struct offcpu_start s;
    __u32 tgid;
    char comm[16];
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, OFFCPU_MAX_STARTS);
    __type(key, __u32); /* tid */
    __type(value, struct start_rec);
} starts SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, OFFCPU_MAX_AGG);
    __type(key, struct offcpu_key);
    __type(value, struct offcpu_val);
} agg SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, OFFCPU_MAX_SEEDS);
    __type(key, __u32); /* tid */
    __type(value, struct offcpu_seed_stack);
} seed_stacks SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct offcpu_seed_stack);
} seed_scratch SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, OFFCPU_ST_COUNT);
    __type(key, __u32);
    __type(value, __u64);
} stats SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, OFFCPU_MAX_FOLLOWED);
    __type(key, __u32);
    __type(value, __u8);
} followed SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, OFFCPU_MAX_JOIN_WORDS);
    __type(key, struct join_word);
    __type(value, __u32); /* the thread's tid */
} join_words SEC(".maps");

/* -p only: blocked time per (thread, kernel stack, syscall) */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, THREAD_MAX_TIDS);
    __type(key, struct thread_off_key);
    __type(value, struct thread_off_val);
} tid_off SEC(".maps");

/* User threads of the target (or of everyone), never ours nor the idle task. */
static __always_inline bool wanted(struct task_struct *t)
{
    if (BPF_CORE_READ(t, flags) & PF_KTHREAD)
        return false;
    __u32 pid = BPF_CORE_READ(t, pid), tgid = BPF_CORE_READ(t, tgid);
    if (pid == 0 || tgid == self_tgid)
        return false;
    if (target_tgid && tgid != target_tgid &&
        !(follow_children && bpf_map_lookup_elem(&followed, &tgid)))
        return false;
    if (target_cgid && BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id) != target_cgid)
        return false;
    return true;
}

/* orig_ax: the syscall number while in a syscall, -1 otherwise (for an
 * exception it holds the error code; user space checks the kernel frames).
 * A futex wait on a sibling thread's exit word is OFFCPU_SYSCALL_JOIN. */
static __always_inline __s32 syscall_of(struct task_struct *t)
{
    struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
    if (!regs)
        return -1;
    __s32 nr = (__s32)BPF_CORE_READ(regs, orig_ax);
    /* futex(2) and futex_wait(2) take the futex word first */
    if (find_joins && (nr == 202 || nr == 455)) {
        struct join_word w = {.tgid = BPF_CORE_READ(t, tgid), .addr = BPF_CORE_READ(regs, di)};
        if (bpf_map_lookup_elem(&join_words, &w))
            return OFFCPU_SYSCALL_JOIN;
    }
    return nr;
}

/* Records thread t's exit word (pthread_join waits on it). */
static __always_inline void note_join_word(struct task_struct *t)
{
    struct join_word w = {.tgid = BPF_CORE_READ(t, tgid),
                          .addr = (__u64)BPF_CORE_READ(t, clear_child_tid)};
    if (!w.addr)
        return;
    __u32 tid = BPF_CORE_READ(t, pid);
    if (bpf_map_update_elem(&join_words, &w, &tid, BPF_ANY))
        kcount(&stats, OFFCPU_ST_JOIN_FULL);
}

/* Loaded only for a target (-p, -- CMD): a new process of the tree is
 * followed, a new thread of a wanted process has its exit word noted. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(offcpu_fork, struct task_struct *parent, struct task_struct *child)
{
    __u32 ptgid = parent->tgid, ctgid = child->tgid;
    if (ptgid == ctgid) {
        if (find_joins && wanted(child))
            note_join_word(child);
        return 0;
    }
    if (!follow_children || !wanted(parent))
        return 0;
    __u8 one = 1;
    if (bpf_map_update_elem(&followed, &ctgid, &one, BPF_ANY))
        kcount(&stats, OFFCPU_ST_UNFOLLOWED);
    return 0;
}

static __always_inline void on_block(void *ctx, struct task_struct *prev, __u64 now)
{
    if (!wanted(prev))
        return;
    struct start_rec rec = {};
    rec.s.ts_ns = now;
    rec.s.kstack = ss_get(ctx, &stacks, 0);
    rec.s.ustack = ss_get(ctx, &stacks, BPF_F_USER_STACK);
    rec.s.syscall = syscall_of(prev);
    rec.tgid = BPF_CORE_READ(prev, tgid);
    bpf_probe_read_kernel(rec.comm, sizeof rec.comm, prev->comm);
    if (rec.s.kstack < 0)
        kcount(&stats, OFFCPU_ST_KSTACK_ERR);
    if (rec.s.ustack < 0)
        kcount(&stats, OFFCPU_ST_USTACK_ERR);
    __u32 tid = BPF_CORE_READ(prev, pid);
    if (bpf_map_update_elem(&starts, &tid, &rec, BPF_ANY) != 0)
        kcount(&stats, OFFCPU_ST_START_FULL);
}

static __always_inline void add_wait(const struct start_rec *rec, __u32 tid, __u64 delta)
{
    struct offcpu_key key = {};
    key.tgid = rec->tgid;
    key.seed_tid = rec->s.seeded ? tid : 0;
    key.kstack = rec->s.kstack;
    key.ustack = rec->s.ustack;
    key.syscall = rec->s.syscall;
    __builtin_memcpy(key.comm, rec->comm, sizeof key.comm);
    struct offcpu_val *v = bpf_map_lookup_elem(&agg, &key);
    if (!v) {
        struct offcpu_val zero = {};
        bpf_map_update_elem(&agg, &key, &zero, BPF_NOEXIST);
        v = bpf_map_lookup_elem(&agg, &key);
        if (!v) {
            kcount(&stats, OFFCPU_ST_AGG_FULL);
            return;
        }
    }
    __sync_fetch_and_add(&v->total_ns, delta);
    __sync_fetch_and_add(&v->count, 1);
    kcount(&stats, OFFCPU_ST_BLOCKS);
    if (!target_tgid)
        return;
    struct thread_off_key tk = {.tid = tid, .kstack = rec->s.kstack, .syscall = rec->s.syscall,
                               .seeded = rec->s.seeded};
    struct thread_off_val *tv = bpf_map_lookup_elem(&tid_off, &tk);
    if (!tv) {
        struct thread_off_val zero = {};
        bpf_map_update_elem(&tid_off, &tk, &zero, BPF_NOEXIST);
        tv = bpf_map_lookup_elem(&tid_off, &tk);
        if (!tv) {
            kcount(&stats, OFFCPU_ST_TID_FULL);
            return;
        }
    }
    __sync_fetch_and_add(&tv->total_ns, delta);
    __sync_fetch_and_add(&tv->count, 1);
}

static __always_inline void on_wake(__u32 tid, __u64 now)
{
    if (!tid)
        return;
    struct start_rec *p = bpf_map_lookup_elem(&starts, &tid);
    if (!p)
        return;
    struct start_rec rec = *p;
    bpf_map_delete_elem(&starts, &tid);
    __u64 from = begin_ns;
    if (!from || now <= from)
        return;
    if (rec.s.ts_ns > from)
        from = rec.s.ts_ns;
    __u64 delta = now - from;
    if (delta < min_block_ns) {
        kcount(&stats, OFFCPU_ST_SHORT);
        return;
    }
    add_wait(&rec, tid, delta);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next,
             unsigned int prev_state)
{
    __u64 now = bpf_ktime_get_ns();
    if (!preempt && prev_state != 0 && !prev->exit_state)
        on_block(ctx, prev, now);
    on_wake(next->pid, now);
    return 0;
}

SEC("tp/sched/sched_switch")
int offcpu_switch_tp(struct trace_event_raw_sched_switch *ctx)
{
    __u64 now = bpf_ktime_get_ns();
    long st = ctx->prev_state;
    if (!(st & TP_STATE_PREEMPTED) && (st & TP_STATE_MASK)) {
        struct task_struct *prev = bpf_get_current_task_btf();
        if (!BPF_CORE_READ(prev, exit_state))
            on_block(ctx, prev, now);
    }
    on_wake((__u32)ctx->next_pid, now);
    return 0;
}

/* Run once right after attach: threads already blocked when the window
 * opens would otherwise never be seen (a reader stuck on a pipe for hours
 * has no sched_switch inside the window).  Their kernel stack is read from
 * the sleeping task; user stacks cannot be taken for a task other than the
 * current one. */
SEC("iter/task")
int offcpu_seed(struct bpf_iter__task *ctx)
{
    struct task_struct *t = ctx->task;
    if (!t || !wanted(t))
        return 0;
    if (seed_pass == 0) {
        if (find_joins && !t->exit_state)
            note_join_word(t);
        return 0;
    }
    if (t->__state == 0 || t->exit_state)
        return 0;
    __u32 tid = t->pid;
    if (bpf_map_lookup_elem(&starts, &tid))
        return 0;
    __u32 zero = 0;
    struct offcpu_seed_stack *ss = bpf_map_lookup_elem(&seed_scratch, &zero);
    if (!ss)
        return 0;
    long n = bpf_get_task_stack(t, ss->ip, sizeof ss->ip, 0);
    ss->nr = n > 0 ? (__u32)(n / sizeof(__u64)) : 0;
    /* Its user stack cannot be walked from here, but the registers saved
     * when it entered the kernel say where it called from. */
    struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
    ss->uip = regs ? BPF_CORE_READ(regs, ip) : 0;
    if (bpf_map_update_elem(&seed_stacks, &tid, ss, BPF_NOEXIST) != 0)
        return 0;
    struct start_rec rec = {};
    rec.s.ts_ns = bpf_ktime_get_ns();
    rec.s.kstack = -1;
    rec.s.ustack = -1;
    rec.s.syscall = syscall_of(t);
    rec.s.seeded = 1;
    rec.tgid = t->tgid;
    bpf_probe_read_kernel(rec.comm, sizeof rec.comm, t->comm);
    if (bpf_map_update_elem(&starts, &tid, &rec, BPF_NOEXIST) == 0)
        kcount(&stats, OFFCPU_ST_SEEDED);
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
