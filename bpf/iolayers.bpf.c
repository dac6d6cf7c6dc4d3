/* I/O layers: VFS read/write syscalls (ops and bytes), page-cache lookups
 * and insertions made during reads, block requests issued, and the
 * fsync family with latency per process.
 *
 * Everything attaches as tp_btf (BTF raw tracepoints).  The per-syscall
 * classic tracepoints (syscalls/sys_enter_read...) would run us only for
 * the syscalls we care about, but 28 perf-event attachments cost ~80 ms
 * each to detach here (2.3 s at the end of the window, measured), while a
 * tp_btf link detaches in microseconds.  The price is a program run on
 * every syscall entry and exit (one task-storage lookup at exit). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "khist.bpf.h"

#define MAX_PROCS 4096

const volatile __u32 targ_tgid = 0;
const volatile __u64 targ_cgid = 0;
const volatile __u32 self_tgid = 0; /* perfreport itself: its /proc reads are not the host's I/O */

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

/* Per-thread state in task local storage: a hash keyed by tid costs an
 * insert and a delete per syscall (~150 ns measured on read/write); task
 * storage is created once per thread and then only read and written. */
struct {
    __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
    __uint(map_flags, BPF_F_NO_PREALLOC);
    __type(key, int);
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
    if (self_tgid && (bpf_get_current_pid_tgid() >> 32) == self_tgid)
        return false;
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
    struct call *c = bpf_task_storage_get(&calls, bpf_get_current_task_btf(), 0,
                                          BPF_LOCAL_STORAGE_GET_F_CREATE);
    if (!c) {
        add(C_DROP_THREADS, 1);
        return 0;
    }
    c->kind = kind;
    c->looked = 0;
    c->ts = kind == IO_SYNC ? bpf_ktime_get_ns() : 0;
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
    struct call *c = bpf_task_storage_get(&calls, bpf_get_current_task_btf(), 0, 0);
    if (!c || !c->kind)
        return 0;
    __u32 kind = c->kind;
    __u64 ts = c->ts;
    c->kind = 0;
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

/* Syscall numbers of this architecture (native ABI only; 32-bit compat
 * calls are not counted). */
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
#define NR_sync_file_range 277
#define NR_preadv 295
#define NR_pwritev 296
#define NR_preadv2 327
#define NR_pwritev2 328
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
#define NR_msync 227
#define NR_preadv2 286
#define NR_pwritev2 287
#else
#error "syscall numbers for this architecture are missing"
#endif

static __always_inline __u32 syscall_kind(long id)
{
    switch (id) {
    case NR_read: case NR_readv: case NR_pread64: case NR_preadv: case NR_preadv2:
        return IO_READ;
    case NR_write: case NR_writev: case NR_pwrite64: case NR_pwritev: case NR_pwritev2:
        return IO_WRITE;
    case NR_fsync: case NR_fdatasync: case NR_sync_file_range: case NR_msync:
        return IO_SYNC;
    default:
        return 0;
    }
}

SEC("tp_btf/sys_enter")
int BPF_PROG(io_sys_enter, struct pt_regs *regs, long id)
{
    __u32 kind = syscall_kind(id);
    if (kind)
        enter(kind);
    return 0;
}

/* The calls map says whether this thread is in one of our syscalls. */
SEC("tp_btf/sys_exit")
int BPF_PROG(io_sys_exit, struct pt_regs *regs, long ret)
{
    return leave(ret);
}

static __always_inline struct call *in_read(void)
{
    struct call *c = bpf_task_storage_get(&calls, bpf_get_current_task_btf(), 0, 0);
    return c && c->kind == IO_READ ? c : NULL;
}

/* Pages a read() looks up in the page cache.  filemap_read() calls this
 * once per batch with the range still to go, so only the first call of a
 * syscall counts: it spans the whole request (last_index is inclusive). */
SEC("tp_btf/mm_filemap_get_pages")
int BPF_PROG(io_get_pages, struct address_space *mapping, unsigned long index,
             unsigned long last_index)
{
    struct call *c = in_read();
    if (c && !c->looked && last_index >= index) {
        c->looked = 1;
        add(C_PAGE_LOOKUPS, last_index - index + 1);
    }
    return 0;
}

/* Pages a read() had to bring in (misses plus the readahead they start). */
/* Pages in a folio: a large folio has PG_head set and its order in the
 * low byte of _flags_1 (what folio_order() reads).  flags is read by
 * address because its type changed (unsigned long -> memdesc_flags_t). */
static __always_inline __u64 folio_pages(struct folio *folio)
{
    unsigned long flags = 0;
    bpf_core_read(&flags, sizeof flags, &folio->flags);
    int head = bpf_core_enum_value(enum pageflags, PG_head);
    if (!(flags & (1ul << (head & 63))))
        return 1;
    unsigned long f1 = BPF_CORE_READ(folio, _flags_1);
    return 1ull << (f1 & 0x1f);
}

SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(io_add_page, struct folio *folio)
{
    if (in_read())
        add(C_PAGES_ADDED, folio_pages(folio));
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
