/* I/O layers collector (BPF): VFS vs page cache vs block, and fsync. */
#ifndef PERFREPORT_IOLAYERS_H
#define PERFREPORT_IOLAYERS_H
#include <stddef.h>
#include <stdint.h>

struct collector;
struct report;
extern const struct collector collector_iolayers;

#define IO_SLOTS 32 /* = KHIST_SLOTS */
#define IO_FSYNC_TOP 10

/* Counter slots; the order matches IO_C_* in bpf/systap.h. */
enum io_counter { IOC_VFS_READS = 0, IOC_VFS_WRITES, IOC_READ_BYTES, IOC_WRITE_BYTES,
                  IOC_PAGE_LOOKUPS, IOC_PAGES_ADDED, IOC_BLK_READS, IOC_BLK_WRITES,
                  IOC_DROP_THREADS, IOC_DROP_PROCS, IOC_N };

struct io_khist {
    uint64_t slots[IO_SLOTS]; /* log2 us */
    uint64_t sum, max;
};

struct io_sync_proc {
    uint32_t pid;
    char comm[16];
    struct io_khist h;
};

/* Read hit rate: 100 * (1 - added / lookups), clamped to 0..100; NAN when
 * no lookups.  Approximation: pages inserted while a read() ran count as
 * misses, including readahead pages that later reads then hit. */
double io_hit_pct(uint64_t lookups, uint64_t added);
/* Write coalescing: 100 * (1 - block writes / VFS writes), clamped to
 * 0..100; NAN when no VFS writes. */
double io_coalesce_pct(uint64_t vfs_writes, uint64_t blk_writes);
/* Metrics io.*, table "io.layers", histogram "fsync" and table "io.fsync"
 * (sorts procs in place).  window_s > 0. */
void iolayers_fill(struct report *r, const uint64_t *cnt, const struct io_khist *fsync_all,
                   struct io_sync_proc *procs, size_t n, double window_s, const char *note);
#endif
