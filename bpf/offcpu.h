/* Shared between bpf/offcpu.bpf.c and src/collect/offcpu.c, and (the futex
 * part) between bpf/systap_futex.bpf.h and src/collect/futex.c. */
#ifndef PERFREPORT_BPF_OFFCPU_H
#define PERFREPORT_BPF_OFFCPU_H

#define OFFCPU_STACK_ENTRIES 8192  /* distinct stacks (kernel + user) kept per window, at most */
#define OFFCPU_MAX_STARTS 32768    /* threads blocked at the same time */
#define OFFCPU_MAX_AGG 16384       /* distinct (process, stacks) aggregates */
#define OFFCPU_SEED_DEPTH 32       /* kernel frames kept for threads blocked before the window */
#define OFFCPU_MAX_SEEDS 8192
#define OFFCPU_MAX_FOLLOWED 8192   /* processes of a command's tree followed */
#define OFFCPU_MAX_JOIN_WORDS 8192 /* threads of a target whose exit word is known */
/* offcpu_key.syscall of a futex wait on a sibling thread's exit word
 * (clear_child_tid): pthread_join.  Never a syscall number; the same value
 * as WAIT_SYSCALL_JOIN in src/stacks/waitclass.h. */
#define OFFCPU_SYSCALL_JOIN (-2)

/* A thread's exit word: the kernel clears it and wakes its futex when the
 * thread ends, which is what pthread_join waits on. */
struct join_word {
    __u32 tgid;
    __u32 pad;
    __u64 addr;
};

/* A thread that went off CPU: when, and where (stack ids, syscall). */
struct offcpu_start {
    __u64 ts_ns;
    __s32 kstack;    /* stack store id, or negative errno */
    __s32 ustack;
    __s32 syscall;   /* orig_ax at block time; -1 outside a syscall (see offcpu.c) */
    __u32 seeded;    /* 1: already blocked when the window opened (stack in seed_stacks) */
};

/* Aggregation key.  seed_tid != 0 marks a thread blocked since before the
 * window, whose kernel stack lives in seed_stacks[seed_tid] instead of the
 * stack store (ss_get(), like bpf_get_stackid(), only works for the current
 * task). */
struct offcpu_key {
    __u32 tgid;
    __u32 seed_tid;
    __s32 kstack;
    __s32 ustack;
    __s32 syscall;
    char comm[16];
};

struct offcpu_val {
    __u64 total_ns;
    __u64 count;
};

struct offcpu_seed_stack {
    __u32 nr;
    __u32 pad;
    __u64 uip; /* the user instruction pointer it blocked at (its leaf user frame), 0 = none */
    __u64 ip[OFFCPU_SEED_DEPTH];
};

/* Counters in the `stats` array. */
enum offcpu_stat {
    OFFCPU_ST_BLOCKS = 0,      /* block events recorded */
    OFFCPU_ST_START_FULL,      /* starts map full: a block not timed */
    OFFCPU_ST_AGG_FULL,        /* aggregate map full: a wait dropped */
    OFFCPU_ST_KSTACK_ERR,      /* kernel stack id failed (stack store full / collision) */
    OFFCPU_ST_USTACK_ERR,
    OFFCPU_ST_SHORT,           /* waits below min_block_ns */
    OFFCPU_ST_SEEDED,          /* threads blocked when the window opened */
    OFFCPU_ST_TID_FULL,        /* -p: per-thread map full, a wait not kept per thread */
    OFFCPU_ST_UNFOLLOWED,      /* -- CMD: followed-process map full, a process not followed */
    OFFCPU_ST_JOIN_FULL,       /* exit-word map full: a thread's joins not told apart */
    OFFCPU_ST_COUNT
};

/* ---- futex waits (collector "futex") ---- */
#define FUTEX_MAX_AGG 8192

struct fwait_key {
    __u32 tgid;
    __s32 ustack;
    __u32 op;
    __u32 pad;
    char comm[16];
};

struct fwait_val {
    __u64 total_ns;
    __u64 count;
    __u64 max_ns;
};

enum futex_stat {
    FUTEX_ST_WAITS = 0,
    FUTEX_ST_INFLIGHT_FULL,    /* no per-thread slot: wait not timed */
    FUTEX_ST_AGG_FULL,
    FUTEX_ST_USTACK_ERR,
    FUTEX_ST_TIMEDOUT,         /* waits ended by their timeout: sleeps, not counted */
    FUTEX_ST_COUNT
};

/* op values stored in fwait_key.op */
#define PR_FUTEX_WAIT 0
#define PR_FUTEX_LOCK_PI 6
#define PR_FUTEX_WAIT_BITSET 9
#define PR_FUTEX_WAIT_REQUEUE_PI 11
#define PR_FUTEX_LOCK_PI2 13
#define PR_FUTEX_WAITV 100     /* the futex_waitv syscall */
#define PR_FUTEX_WAIT2 101     /* the futex_wait syscall (6.7+) */
#endif
