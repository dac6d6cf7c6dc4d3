/* I/O layers collector (BPF): VFS vs page cache vs block, and synchronous
 * I/O (fsync family, O_SYNC/O_DSYNC writes). */
#ifndef PERFREPORT_IOLAYERS_H
#define PERFREPORT_IOLAYERS_H
#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>
#include "../../bpf/khist.h"
#include "../../bpf/systap.h" /* IO_C_*: the counter slots */

struct collector;
struct report;
extern const struct collector collector_iolayers;

#define IO_FSYNC_TOP 10

/* One process's synchronous I/O calls: the fsync family, msync(MS_SYNC)
 * and writes to O_SYNC/O_DSYNC files (writes of them). */
struct io_sync_proc {
    uint32_t pid;
    char comm[16];
    struct khist h; /* us */
    uint64_t writes;
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
void iolayers_fill(struct report *r, const uint64_t *cnt, const struct khist *fsync_all,
                   struct io_sync_proc *procs, size_t n, double window_s, const char *note);
#endif
