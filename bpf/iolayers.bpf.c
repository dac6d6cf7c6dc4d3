/* I/O layers: VFS read/write syscalls (ops and bytes), page-cache lookups
 * and insertions made during reads, block requests issued, and the
 * fsync family with latency per process.
 *
 * Syscalls use the per-syscall classic tracepoints: unlike raw_syscalls
 * they run our program only for the dozen syscalls we care about. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "khist.bpf.h"

#define MAX_THREADS 16384
#define MAX_PROCS 4096

const volatile __u32 targ_tgid = 0;
const volatile __u64 targ_cgid = 0;

/* must match src/collect/iolayers.h */
enum { IO_READ = 1, IO_WRITE = 2, IO_SYNC = 3 };
enum {
    C_VFS_READS = 0, C_VFS_WRITES, C_READ_BYTES, C_WRITE_BYTES, C_PAGE_LOOKUPS,
    C_PAGES_ADDED, C_BLK_READS, C_BLK_WRITES, C_DROP_THREADS, C_DROP_PROCS, C_NCOUNTERS
};

struct call {
    __u64 ts;
    __u32 kind;
    __u32 looked; /* the read's page range was counted */
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, MAX_THREADS);
    __type(key, __u32); /* tid inside one of our syscalls */
    __type(value, struct call);
} calls SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, C_NCOUNTERS);
    __type(key, __u32);
    __type(value, __u64);
} counters SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct khist);
} sync_hist SEC(".maps");

struct sync_val {
    struct khist h; /* us */
    char comm[16];
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, MAX_PROCS);
    __type(key, __u32); /* tgid */
    __type(value, struct sync_val);
} sync_procs SEC(".maps");

static __always_inline void add(__u32 idx, __u64 v)
{
    __u64 *n = bpf_map_lookup_elem(&counters, &idx);
    if (n)
        *n += v;
}

static __always_inline bool wanted(void)
{
    if (targ_tgid && (bpf_get_current_pid_tgid() >> 32) != targ_tgid)
        return false;
    if (targ_cgid && bpf_get_current_cgroup_id() != targ_cgid)
        return false;
    return true;
}

static __always_inline int enter(__u32 kind)
{
    if (!wanted())
        return 0;
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    struct call c = {.ts = bpf_ktime_get_ns(), .kind = kind};
    if (bpf_map_update_elem(&calls, &tid, &c, BPF_ANY) != 0)
        add(C_DROP_THREADS, 1);
    return 0;
}

static __always_inline void sync_done(__u64 us)
{
    __u32 zero = 0;
    struct khist *h = bpf_map_lookup_elem(&sync_hist, &zero);
    if (h)
        khist_add(h, us);
    __u32 tgid = bpf_get_current_pid_tgid() >> 32;
    struct sync_val *sv = bpf_map_lookup_elem(&sync_procs, &tgid);
    if (!sv) {
        static const struct sync_val empty;
        if (bpf_map_update_elem(&sync_procs, &tgid, &empty, BPF_NOEXIST) != 0 &&
            !bpf_map_lookup_elem(&sync_procs, &tgid)) {
            add(C_DROP_PROCS, 1);
            return;
        }
        sv = bpf_map_lookup_elem(&sync_procs, &tgid);
        if (!sv)
            return;
        bpf_get_current_comm(sv->comm, sizeof sv->comm);
    }
    khist_add(&sv->h, us);
}

static __always_inline int leave(long ret)
{
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    struct call *c = bpf_map_lookup_elem(&calls, &tid);
    if (!c)
        return 0;
    __u32 kind = c->kind;
    __u64 ts = c->ts;
    bpf_map_delete_elem(&calls, &tid);
    if (kind == IO_READ) {
        add(C_VFS_READS, 1);
        if (ret > 0)
            add(C_READ_BYTES, ret);
    } else if (kind == IO_WRITE) {
        add(C_VFS_WRITES, 1);
        if (ret > 0)
            add(C_WRITE_BYTES, ret);
    } else if (kind == IO_SYNC) {
        sync_done((bpf_ktime_get_ns() - ts) / 1000);
    }
    return 0;
}

#define SYSCALL_PAIR(name, kind)                                                        \
    SEC("tp/syscalls/sys_enter_" #name)                                                 \
    int enter_##name(void *ctx) { return enter(kind); }                                 \
    SEC("tp/syscalls/sys_exit_" #name)                                                  \
    int exit_##name(struct trace_event_raw_sys_exit *ctx) { return leave(ctx->ret); }

SYSCALL_PAIR(read, IO_READ)
SYSCALL_PAIR(readv, IO_READ)
SYSCALL_PAIR(pread64, IO_READ)
SYSCALL_PAIR(preadv, IO_READ)
SYSCALL_PAIR(preadv2, IO_READ)
SYSCALL_PAIR(write, IO_WRITE)
SYSCALL_PAIR(writev, IO_WRITE)
SYSCALL_PAIR(pwrite64, IO_WRITE)
SYSCALL_PAIR(pwritev, IO_WRITE)
SYSCALL_PAIR(pwritev2, IO_WRITE)
SYSCALL_PAIR(fsync, IO_SYNC)
SYSCALL_PAIR(fdatasync, IO_SYNC)
SYSCALL_PAIR(sync_file_range, IO_SYNC)
SYSCALL_PAIR(msync, IO_SYNC)

static __always_inline struct call *in_read(void)
{
    __u32 tid = (__u32)bpf_get_current_pid_tgid();
    struct call *c = bpf_map_lookup_elem(&calls, &tid);
    return c && c->kind == IO_READ ? c : NULL;
}

/* Pages a read() looks up in the page cache.  filemap_read() calls this
 * once per batch with the range still to go, so only the first call of a
 * syscall counts: it spans the whole request (last_index is inclusive). */
SEC("tp/filemap/mm_filemap_get_pages")
int io_get_pages(struct trace_event_raw_mm_filemap_op_page_cache_range *ctx)
{
    struct call *c = in_read();
    if (c && !c->looked && ctx->last_index >= ctx->index) {
        c->looked = 1;
        add(C_PAGE_LOOKUPS, ctx->last_index - ctx->index + 1);
    }
    return 0;
}

/* Pages a read() had to bring in (misses plus the readahead they start). */
SEC("tp/filemap/mm_filemap_add_to_page_cache")
int io_add_page(struct trace_event_raw_mm_filemap_op_page_cache *ctx)
{
    if (in_read())
        add(C_PAGES_ADDED, 1ull << (ctx->order & 31));
    return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(io_blk_issue, struct request *rq)
{
    __u32 op = BPF_CORE_READ(rq, cmd_flags) & 0xff;
    if (op == 0)
        add(C_BLK_READS, 1);
    else if (op == 1)
        add(C_BLK_WRITES, 1);
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
