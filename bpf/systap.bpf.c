/* The syscall tap: the one pair of programs on sys_enter/sys_exit, serving
 * three collectors through their parts:
 *   syscalls  counts, errors by errno, sampled latency (systap_sc.bpf.h)
 *   iolayers  VFS reads/writes, page cache, fsync family (systap_io.bpf.h)
 *   futex     time in FUTEX_WAIT-type calls by user stack (systap_futex.bpf.h)
 *
 * Every program on these hooks runs on every syscall of the host: one
 * empty tp_btf program costs ~20 ns per syscall on the test VM and a
 * second probe on the same tracepoint turns its static call into an
 * indirect-call loop (measured: systap alone ~55 ns, with the old separate
 * futex tracepoints ~110 ns).  So the collectors share this pair;
 * src/collect/systap.c loads it once.  sc_on / io_on / futex_on switch
 * each part on and off without detaching.
 *
 * Hot path of a syscall nobody times (the common case under a storm):
 * entry = one per-CPU cache slot per (process, syscall); exit = one
 * task-storage lookup that finds nothing to do. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "khist.bpf.h"
#include "systap.h"

const volatile __u32 targ_tgid = 0; /* -p: only this process */
const volatile __u64 targ_cgid = 0; /* -c: only this v2 cgroup */
const volatile __u32 self_tgid = 0; /* perfreport itself: left out */

/* Written by user space through the mmapped .bss. */
volatile bool sc_on = false;
volatile bool io_on = false;
volatile bool futex_on = false;
/* Time slices (src/collect/systap.c): slice_gen changes at each attach of
 * a sliced period, 0 while never sliced.  A call whose entry was recorded
 * in an earlier slice than its exit was recorded with the chance of its
 * exit falling into a slice too, so it weighs slice_mult / 256 (1 / duty)
 * more; 256 = 1 (as is 0, before any slice). */
volatile __u8 slice_gen = 0;
volatile __u32 slice_mult = 0;
/* Sliced, entries are recorded only while slice_open: user space opens it
 * once the pair is attached and closes it before detaching, so the slice's
 * recorded calls and its timed length cover the same span (attaching and
 * detaching take milliseconds, during which the programs run: counted,
 * they inflated the estimate by up to 40 % on a loaded host).  Errors,
 * counted at the exit, are gated the same way; a call entered in the slice
 * is still completed (its latency) after the gate closes. */
volatile bool slice_open = false;
/* true while the pair is detached: the filemap hooks, which stay attached,
 * must not read a state whose exit went unseen */
volatile bool tap_down = false;

/* I/O kinds (struct call_state.io). */
/* IO_SYNCW: a write that waits for the device (O_SYNC/O_DSYNC file) */
enum { IO_READ = 1, IO_WRITE = 2, IO_SYNC = 3, IO_SYNCW = 4 };

/* Per thread, between the entry and the exit of one syscall. */
struct call_state {
    __u64 ts;      /* entry time, when anything below needs it */
    __u32 nr;
    __u16 weight;  /* syscall latency: calls this sample stands for; 0 = not timed */
    __u8 io;       /* IO_* or 0 */
    __u8 looked;   /* the read's page range was counted */
    __s32 ustack;  /* futex wait: user stack id */
    __u8 futex;    /* a futex wait is in progress */
    __u8 fop;      /* its PR_FUTEX_* command */
    __u8 exec;     /* an execve: the process's name changes if it succeeds */
    __u8 gen;      /* slice_gen at the entry */
};

/* Task storage: created once per thread, then only read and written (a
 * hash by tid would cost an insert and a delete per tracked call). */
struct {
    __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
    __uint(map_flags, BPF_F_NO_PREALLOC);
    __type(key, int);
    __type(value, struct call_state);
} calls SEC(".maps");

/* Classic-tracepoint fallback: the same state in a hash by thread id. */
struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, SC_MAX_THREADS);
    __type(key, __u32);
    __type(value, struct call_state);
} calls_tid SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct tap_calls);
} tap_calls SEC(".maps");

static __always_inline bool is_self(__u64 pid_tgid)
{
    return (__u32)(pid_tgid >> 32) == self_tgid;
}

/* Counts an entry of another process (a per-CPU array lookup is inlined:
 * a couple of ns). */
static __always_inline struct tap_calls *count_call(void)
{
    __u32 zero = 0;
    struct tap_calls *c = bpf_map_lookup_elem(&tap_calls, &zero);
    if (c)
        c->all++;
    return c;
}

static __always_inline bool wanted(__u64 pid_tgid)
{
    __u32 tgid = (__u32)(pid_tgid >> 32);
    if (targ_tgid && tgid != targ_tgid)
        return false;
    if (targ_cgid && bpf_get_current_cgroup_id() != targ_cgid)
        return false;
    return true;
}

static __always_inline bool is_error(long ret) { return ret < 0 && ret >= -4095; }

/* Syscall numbers of this architecture's native ABI.  32-bit compat calls
 * (rare) are not told apart: their numbers are read as native ones. */
#if defined(__TARGET_ARCH_x86)
#define NR_read 0
#define NR_write 1
#define NR_pread64 17
#define NR_pwrite64 18
#define NR_readv 19
#define NR_writev 20
#define NR_msync 26
#define NR_fsync 74
#define NR_fdatasync 75
#define NR_execve 59
#define NR_exit 60
#define NR_futex 202
#define NR_exit_group 231
#define NR_sync_file_range 277
#define NR_preadv 295
#define NR_pwritev 296
#define NR_preadv2 327
#define NR_pwritev2 328
#define NR_execveat 322
#define NR_futex_waitv 449
#define NR_futex_wait 455
/* Read with CO-RE probe reads: a tp_btf argument is not known to be
 * non-NULL on every kernel's verifier. */
#define REGS_SYSCALL_NR(regs) BPF_CORE_READ(regs, orig_ax)
#define REGS_ARG1(regs) BPF_CORE_READ(regs, di)
#define REGS_ARG2(regs) BPF_CORE_READ(regs, si)
#define REGS_ARG3(regs) BPF_CORE_READ(regs, dx)
#define REGS_ARG6(regs) BPF_CORE_READ(regs, r9)
#elif defined(__TARGET_ARCH_arm64)
#define NR_read 63
#define NR_write 64
#define NR_readv 65
#define NR_writev 66
#define NR_pread64 67
#define NR_pwrite64 68
#define NR_preadv 69
#define NR_pwritev 70
#define NR_fsync 82
#define NR_fdatasync 83
#define NR_sync_file_range 84
#define NR_exit 93
#define NR_exit_group 94
#define NR_futex 98
#define NR_execve 221
#define NR_msync 227
#define NR_preadv2 286
#define NR_pwritev2 287
#define NR_execveat 281
#define NR_futex_waitv 449
#define NR_futex_wait 455
#define REGS_SYSCALL_NR(regs) BPF_CORE_READ(regs, syscallno)
#define REGS_ARG1(regs) BPF_CORE_READ(regs, orig_x0)
#define REGS_ARG2(regs) BPF_CORE_READ(regs, regs[1])
#define REGS_ARG3(regs) BPF_CORE_READ(regs, regs[2])
#define REGS_ARG6(regs) BPF_CORE_READ(regs, regs[5])
#else
#error "syscall numbers for this architecture are missing"
#endif

#include "systap_sc.bpf.h"
#include "systap_io.bpf.h"
#include "systap_futex.bpf.h"

/* What the entry decided: whether anything must happen at the exit. */
struct plan {
    __u16 weight;
    __u8 io;
    __u8 futex;
    __u8 fop;
    __u8 exec;
};

/* futex_op: the second argument of a futex() call (read by the caller,
 * which knows its context type), else 0. */
static __always_inline struct plan on_enter(__u64 pid_tgid, __u32 nr, __u64 futex_op)
{
    struct plan p = {};
    if (sc_on) {
        p.weight = sc_count(pid_tgid, nr);
        p.exec = nr == NR_execve || nr == NR_execveat;
    }
    if (io_on)
        p.io = io_kind(nr);
    if (futex_on && is_futex_nr(nr)) {
        int cmd = futex_wait_op(nr, futex_op);
        if (cmd >= 0) {
            p.futex = 1;
            p.fop = (__u8)cmd;
        }
    }
    return p;
}

static __always_inline bool plan_empty(struct plan p)
{
    return !p.weight && !p.io && !p.futex && !p.exec;
}

static __always_inline void fill_state(void *ctx, struct call_state *s, __u32 nr, struct plan p)
{
    s->nr = nr;
    s->weight = p.weight;
    s->io = p.io;
    s->looked = 0;
    s->futex = p.futex;
    s->fop = p.fop;
    s->exec = p.exec;
    s->gen = slice_gen;
    s->ustack = p.futex ? futex_stack(ctx) : -1;
    s->ts = p.weight || p.io >= IO_SYNC || p.futex ? bpf_ktime_get_ns() : 0;
}

/* s is a copy of the state the entry left (plan not empty). */
static __always_inline void on_exit(__u64 pid_tgid, const struct call_state *s, long ret)
{
    __u64 now = s->ts ? bpf_ktime_get_ns() : 0;
    __u32 mult = s->gen != slice_gen && slice_mult ? slice_mult : 256;
    if (s->weight && sc_on)
        sc_time(s->nr, s->weight, now - s->ts, mult);
    if (s->io && io_on)
        io_done(s->io, s->ts, now, ret);
    if (s->futex && futex_on)
        futex_done(pid_tgid, (__u64)s->fop << 32 | (__u32)s->ustack, now - s->ts, ret, mult);
    if (s->exec && ret == 0 && sc_on)
        sc_renamed(pid_tgid);
}

static __always_inline void drop_state(struct plan p)
{
    if (p.weight)
        kadd(&drops, SC_DROP_START, 1);
    if (p.io)
        kadd(&io_counters, IO_C_DROP_THREADS, 1);
    if (p.futex)
        kadd(&fstats, FUTEX_ST_INFLIGHT_FULL, 1);
    /* a lost exec keeps the name the process had before */
}

/* ---- tp_btf: task storage ------------------------------------------------- */

SEC("tp_btf/sys_enter")
int BPF_PROG(tap_enter_btf, struct pt_regs *regs, long id)
{
    __u64 pid_tgid = bpf_get_current_pid_tgid();
    if (is_self(pid_tgid))
        return 0;
    if (slice_gen && !slice_open)
        return 0;
    struct tap_calls *tc = count_call();
    if (!wanted(pid_tgid))
        return 0;
    if (tc)
        tc->wanted++;
    __u64 op = id == NR_futex && futex_on ? REGS_ARG2(regs) : 0;
    struct plan p = on_enter(pid_tgid, (__u32)id, op);
    if (p.io)
        p.io = io_refine(p.io, (__u32)id, regs);
    if (plan_empty(p)) {
        /* Sliced, the exit of a tracked call may have fallen into a
         * detached time: its state must not be taken for this call's.  A
         * thread entering a syscall has left the one before, so whatever
         * the state holds is over. */
        if (slice_gen) {
            struct call_state *old = bpf_task_storage_get(&calls, bpf_get_current_task_btf(), 0, 0);
            if (old)
                old->weight = old->io = old->futex = old->exec = 0;
        }
        return 0;
    }
    struct call_state *s = bpf_task_storage_get(&calls, bpf_get_current_task_btf(), 0,
                                                BPF_LOCAL_STORAGE_GET_F_CREATE);
    if (!s) {
        drop_state(p);
        return 0;
    }
    fill_state(ctx, s, (__u32)id, p);
    return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(tap_exit_btf, struct pt_regs *regs, long ret)
{
    __u64 pid_tgid = 0;
    /* errors count at the exit, within the open slice like the entries */
    if (is_error(ret) && sc_on && (!slice_gen || slice_open)) {
        pid_tgid = bpf_get_current_pid_tgid();
        if (!is_self(pid_tgid) && wanted(pid_tgid))
            sc_error(pid_tgid, (__u32)REGS_SYSCALL_NR(regs), ret);
    }
    struct call_state *s = bpf_task_storage_get(&calls, bpf_get_current_task_btf(), 0, 0);
    if (!s || !(s->weight | s->io | s->futex | s->exec))
        return 0; /* nothing tracked, or entered before we attached */
    struct call_state c = *s;
    s->weight = 0;
    s->io = 0;
    s->futex = 0;
    s->exec = 0;
    /* State of another call (its exit was missed): drop, do not misattribute.
     * A successful exec rewrites the registers (arm64 resets the number). */
    if (c.nr != (__u32)REGS_SYSCALL_NR(regs) && !(c.exec && ret == 0))
        return 0;
    on_exit(pid_tgid ? pid_tgid : bpf_get_current_pid_tgid(), &c, ret);
    return 0;
}

/* ---- classic tracepoints: hash by thread id (no I/O part) ------------------ */

SEC("tp/raw_syscalls/sys_enter")
int tap_enter_tp(struct trace_event_raw_sys_enter *ctx)
{
    __u64 pid_tgid = bpf_get_current_pid_tgid();
    if (is_self(pid_tgid))
        return 0;
    if (slice_gen && !slice_open)
        return 0;
    struct tap_calls *tc = count_call();
    if (!wanted(pid_tgid))
        return 0;
    if (tc)
        tc->wanted++;
    struct plan p = on_enter(pid_tgid, (__u32)ctx->id, ctx->id == NR_futex ? ctx->args[1] : 0);
    p.io = 0; /* the filemap hooks are tp_btf only */
    __u32 tid = (__u32)pid_tgid;
    if (plan_empty(p)) {
        if (slice_gen) /* as in tap_enter_btf */
            bpf_map_delete_elem(&calls_tid, &tid);
        return 0;
    }
    struct call_state s = {};
    fill_state(ctx, &s, (__u32)ctx->id, p);
    if (bpf_map_update_elem(&calls_tid, &tid, &s, BPF_ANY) != 0)
        drop_state(p);
    return 0;
}

SEC("tp/raw_syscalls/sys_exit")
int tap_exit_tp(struct trace_event_raw_sys_exit *ctx)
{
    __u64 pid_tgid = bpf_get_current_pid_tgid();
    long ret = ctx->ret;
    if (is_error(ret) && sc_on && (!slice_gen || slice_open) && !is_self(pid_tgid) &&
        wanted(pid_tgid))
        sc_error(pid_tgid, (__u32)ctx->id, ret);
    __u32 tid = (__u32)pid_tgid;
    struct call_state *s = bpf_map_lookup_elem(&calls_tid, &tid);
    if (!s)
        return 0;
    struct call_state c = *s;
    bpf_map_delete_elem(&calls_tid, &tid);
    if (c.nr != (__u32)ctx->id && !(c.exec && ret == 0))
        return 0; /* left by a call whose exit was missed (a reused tid) */
    on_exit(pid_tgid, &c, ret);
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
