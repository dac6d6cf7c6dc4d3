/* I/O layers part of the syscall tap (included by systap.bpf.c only): VFS
 * reads and writes counted at syscall exit, page-cache lookups and
 * insertions made while a read() runs, block requests issued, and
 * synchronous I/O (the fsync family, msync(MS_SYNC), writes to O_SYNC /
 * O_DSYNC files) with latency per process. */
#ifndef PERFREPORT_SYSTAP_IO_BPF_H
#define PERFREPORT_SYSTAP_IO_BPF_H

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, IO_C_N);
    __type(key, __u32);
    __type(value, __u64);
} io_counters SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct khist);
} sync_hist SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, IO_MAX_PROCS);
    __type(key, __u32); /* tgid */
    __type(value, struct io_sync_val);
} sync_procs SEC(".maps");

static __always_inline __u8 io_kind(__u32 nr)
{
    switch (nr) {
    case NR_read: case NR_readv: case NR_pread64: case NR_preadv: case NR_preadv2:
        return IO_READ;
    case NR_write: case NR_writev: case NR_pwrite64: case NR_pwritev: case NR_pwritev2:
        return IO_WRITE; /* IO_SYNCW when io_sync_write() says so */
    case NR_fsync: case NR_fdatasync: case NR_sync_file_range: case NR_msync:
        return IO_SYNC;
    default:
        return 0;
    }
}

/* O_DSYNC is 010000 on x86 and arm64 (asm-generic); O_SYNC includes it. */
#define IO_O_DSYNC 010000
#define IO_RWF_DSYNC 0x2
#define IO_RWF_SYNC 0x4
#define IO_MS_SYNC 4

/* Whether a write to fd waits for the device as fsync would: the file was
 * opened O_SYNC or O_DSYNC (what the kernel's iocb_flags() turns into
 * IOCB_DSYNC).  A synchronous inode or mount (chattr +S, mount -o sync)
 * is not checked: three more reads on every write for a rare setup.
 * current->files->fdt is walked with direct (fault-safe) BTF loads; the
 * fd array slot and the file's flags take one probe read each: the cost a
 * write of the target pays while the I/O part is on. */
static __always_inline bool fd_is_sync(__u64 fd)
{
    struct task_struct *t = bpf_get_current_task_btf();
    struct files_struct *files = t->files;
    if (!files)
        return false;
    struct fdtable *fdt = files->fdt;
    if (!fdt || fd >= fdt->max_fds)
        return false;
    struct file **fds = fdt->fd;
    struct file *f = NULL;
    if (!fds || bpf_probe_read_kernel(&f, sizeof f, &fds[fd]) != 0 || !f)
        return false;
    return BPF_CORE_READ(f, f_flags) & IO_O_DSYNC;
}

/* The I/O kind of a call io_kind() classed, refined by its arguments
 * (tp_btf entry only: the classic path has no I/O part): a synchronous
 * write becomes IO_SYNCW; msync without MS_SYNC only schedules writeback
 * and is not waited for, so it is no sync call. */
static __always_inline __u8 io_refine(__u8 kind, __u32 nr, struct pt_regs *regs)
{
    if (kind == IO_WRITE) {
        if (nr == NR_pwritev2 && (REGS_ARG6(regs) & (IO_RWF_DSYNC | IO_RWF_SYNC)))
            return IO_SYNCW;
        return fd_is_sync(REGS_ARG1(regs)) ? IO_SYNCW : IO_WRITE;
    }
    if (kind == IO_SYNC && nr == NR_msync && !(REGS_ARG3(regs) & IO_MS_SYNC))
        return 0;
    return kind;
}

static __always_inline void sync_done(__u64 us, bool write)
{
    __u32 zero = 0;
    struct khist *h = bpf_map_lookup_elem(&sync_hist, &zero);
    if (h)
        khist_add(h, us);
    __u32 tgid = bpf_get_current_pid_tgid() >> 32;
    struct io_sync_val *sv = bpf_map_lookup_elem(&sync_procs, &tgid);
    if (!sv) {
        static const struct io_sync_val empty;
        if (bpf_map_update_elem(&sync_procs, &tgid, &empty, BPF_NOEXIST) != 0 &&
            !bpf_map_lookup_elem(&sync_procs, &tgid)) {
            kadd(&io_counters, IO_C_DROP_PROCS, 1);
            return;
        }
        sv = bpf_map_lookup_elem(&sync_procs, &tgid);
        if (!sv)
            return;
        bpf_get_current_comm(sv->comm, sizeof sv->comm);
    }
    khist_add(&sv->h, us);
    if (write)
        __sync_fetch_and_add(&sv->writes, 1);
}

__noinline int io_done(__u8 kind, __u64 ts, __u64 now, long ret)
{
    if (kind == IO_READ) {
        kadd(&io_counters, IO_C_VFS_READS, 1);
        if (ret > 0)
            kadd(&io_counters, IO_C_READ_BYTES, ret);
    } else if (kind == IO_WRITE || kind == IO_SYNCW) {
        kadd(&io_counters, IO_C_VFS_WRITES, 1);
        if (ret > 0)
            kadd(&io_counters, IO_C_WRITE_BYTES, ret);
        if (kind == IO_SYNCW) {
            kadd(&io_counters, IO_C_SYNC_WRITES, 1);
            sync_done((now - ts) / 1000, true);
        }
    } else if (kind == IO_SYNC) {
        sync_done((now - ts) / 1000, false);
    }
    return 0;
}

static __always_inline struct call_state *in_read(void)
{
    if (!io_on || tap_down)
        return NULL;
    struct call_state *c = bpf_task_storage_get(&calls, bpf_get_current_task_btf(), 0, 0);
    return c && c->io == IO_READ ? c : NULL;
}

/* Pages a read() looks up in the page cache.  filemap_read() calls this
 * once per batch with the range still to go, so only the first call of a
 * syscall counts: it spans the whole request (last_index is inclusive). */
SEC("tp_btf/mm_filemap_get_pages")
int BPF_PROG(io_get_pages, struct address_space *mapping, unsigned long index,
             unsigned long last_index)
{
    struct call_state *c = in_read();
    if (c && !c->looked && last_index >= index) {
        c->looked = 1;
        kadd(&io_counters, IO_C_PAGE_LOOKUPS, last_index - index + 1);
    }
    return 0;
}

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

/* Pages a read() had to bring in (misses plus the readahead they start). */
SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(io_add_page, struct folio *folio)
{
    if (in_read())
        kadd(&io_counters, IO_C_PAGES_ADDED, folio_pages(folio));
    return 0;
}

/* Device-wide, whoever issues the request (writeback included). */
SEC("tp_btf/block_rq_issue")
int BPF_PROG(io_blk_issue, struct request *rq)
{
    if (!io_on)
        return 0;
    __u32 op = BPF_CORE_READ(rq, cmd_flags) & 0xff;
    if (op == 0)
        kadd(&io_counters, IO_C_BLK_READS, 1);
    else if (op == 1)
        kadd(&io_counters, IO_C_BLK_WRITES, 1);
    return 0;
}
#endif
