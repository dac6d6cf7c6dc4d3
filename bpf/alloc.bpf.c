/* Allocation profiler: uprobes on one process's C library (malloc, calloc,
 * realloc, free, mmap, munmap), attached per pid by user space.  Bytes and
 * calls are summed per (process, user stack); each allocation made in the
 * window is kept by address until it is freed, in a bounded map (what does
 * not fit is counted), so that what is left at the end is what was
 * allocated in the window and not freed. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "khist.bpf.h"
#include "alloc.h"

#define EEXIST 17

/* Set by user space for the window: calls outside it are not recorded. */
volatile bool recording = false;

struct {
    __uint(type, BPF_MAP_TYPE_STACK_TRACE);
    __uint(max_entries, ALLOC_MAX_STACKS);
    __uint(key_size, sizeof(__u32));
    __uint(value_size, 127 * sizeof(__u64));
} stackmap SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, ALLOC_MAX_SITES);
    __type(key, struct alloc_site_key);
    __type(value, struct alloc_site);
} sites SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, ALLOC_MAX_LIVE);
    __type(key, struct alloc_live_key);
    __type(value, struct alloc_live);
} live SEC(".maps");

/* A thread between a call's entry and its return: the size asked and the
 * pointer realloc gives back; a thread inside malloc does not count the
 * mmap/munmap malloc makes for itself. */
struct inflight {
    __u64 size;
    __u64 old;
    __u32 fn;
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, ALLOC_MAX_INFLIGHT);
    __type(key, __u64);
    __type(value, struct inflight);
} inflight SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, AS_NSTATS);
    __type(key, __u32);
    __type(value, __u64);
} stats SEC(".maps");

static __always_inline void enter(__u32 fn, __u64 size, __u64 old)
{
    __u64 id = bpf_get_current_pid_tgid();
    kcount(&stats, AS_CALLS + fn);
    struct inflight in = {.size = size, .old = old, .fn = fn};
    bpf_map_update_elem(&inflight, &id, &in, BPF_ANY);
}

static __always_inline bool in_alloc_call(void)
{
    __u64 id = bpf_get_current_pid_tgid();
    return bpf_map_lookup_elem(&inflight, &id) != NULL;
}

static __always_inline void forget(__u32 tgid, __u64 addr)
{
    if (!addr)
        return;
    struct alloc_live_key k = {.tgid = tgid, .addr = addr};
    struct alloc_live *l = bpf_map_lookup_elem(&live, &k);
    if (!l) {
        kcount(&stats, AS_FREE_UNKNOWN);
        return;
    }
    kadd(&stats, AS_LIVE_BYTES, -l->size);
    bpf_map_delete_elem(&live, &k);
}

static __always_inline void done(struct pt_regs *ctx, __u64 addr, __u32 want_fn)
{
    __u64 id = bpf_get_current_pid_tgid();
    __u32 tgid = id >> 32;
    struct inflight *in = bpf_map_lookup_elem(&inflight, &id);
    if (!in || in->fn != want_fn)
        return;
    __u64 size = in->size, old = in->old;
    bpf_map_delete_elem(&inflight, &id);
    if (want_fn == AF_MMAP && (long)addr < 0 && (long)addr > -4096)
        return; /* MAP_FAILED */
    /* realloc moved or freed the old block (realloc(p, 0) frees p and may
     * return NULL); a failed realloc (NULL for a size) left it alone */
    if (want_fn == AF_REALLOC && (addr || size == 0))
        forget(tgid, old);
    if (!addr)
        return;
    struct alloc_site_key sk = {.tgid = tgid};
    sk.ustack = bpf_get_stackid(ctx, &stackmap, BPF_F_USER_STACK);
    struct alloc_site *s = bpf_map_lookup_elem(&sites, &sk);
    if (s) {
        __sync_fetch_and_add(&s->bytes, size);
        __sync_fetch_and_add(&s->count, 1);
    } else {
        struct alloc_site ns = {.bytes = size, .count = 1};
        bpf_get_current_comm(ns.comm, sizeof ns.comm);
        long rc = bpf_map_update_elem(&sites, &sk, &ns, BPF_NOEXIST);
        if (rc == -EEXIST) {
            s = bpf_map_lookup_elem(&sites, &sk);
            if (s) {
                __sync_fetch_and_add(&s->bytes, size);
                __sync_fetch_and_add(&s->count, 1);
            }
        } else if (rc) {
            kcount(&stats, AS_SITE_DROPPED);
        }
    }
    struct alloc_live_key lk = {.tgid = tgid, .addr = addr};
    struct alloc_live lv = {.size = size, .ustack = sk.ustack};
    if (bpf_map_update_elem(&live, &lk, &lv, BPF_ANY)) {
        kcount(&stats, AS_LIVE_DROPPED);
        kadd(&stats, AS_LIVE_DROPPED_B, size);
        return;
    }
    kadd(&stats, AS_LIVE_BYTES, size);
}

SEC("uprobe")
int BPF_KPROBE(malloc_enter, __u64 size)
{
    if (!recording)
        return 0;
    enter(AF_MALLOC, size, 0);
    return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(malloc_exit, __u64 ret)
{
    if (!recording)
        return 0;
    done(ctx, ret, AF_MALLOC);
    return 0;
}

SEC("uprobe")
int BPF_KPROBE(calloc_enter, __u64 n, __u64 size)
{
    if (!recording)
        return 0;
    enter(AF_CALLOC, n * size, 0);
    return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(calloc_exit, __u64 ret)
{
    if (!recording)
        return 0;
    done(ctx, ret, AF_CALLOC);
    return 0;
}

SEC("uprobe")
int BPF_KPROBE(realloc_enter, __u64 old, __u64 size)
{
    if (!recording)
        return 0;
    enter(AF_REALLOC, size, old);
    return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(realloc_exit, __u64 ret)
{
    if (!recording)
        return 0;
    done(ctx, ret, AF_REALLOC);
    return 0;
}

SEC("uprobe")
int BPF_KPROBE(free_enter, __u64 addr)
{
    if (!recording)
        return 0;
    kcount(&stats, AS_CALLS + AF_FREE);
    forget(bpf_get_current_pid_tgid() >> 32, addr);
    return 0;
}

SEC("uprobe")
int BPF_KPROBE(mmap_enter, __u64 addr, __u64 len)
{
    if (!recording)
        return 0;
    if (in_alloc_call())
        return 0; /* malloc's own mapping: counted as the malloc */
    enter(AF_MMAP, len, 0);
    return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(mmap_exit, __u64 ret)
{
    if (!recording)
        return 0;
    done(ctx, ret, AF_MMAP);
    return 0;
}

SEC("uprobe")
int BPF_KPROBE(munmap_enter, __u64 addr, __u64 len)
{
    if (!recording)
        return 0;
    if (in_alloc_call())
        return 0;
    kcount(&stats, AS_CALLS + AF_MUNMAP);
    forget(bpf_get_current_pid_tgid() >> 32, addr);
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
