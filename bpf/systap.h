/* Shared between bpf/systap.bpf.c and its readers (src/collect/systap.c,
 * syscalls.c, iolayers.c). */
#ifndef PERFREPORT_BPF_SYSTAP_H
#define PERFREPORT_BPF_SYSTAP_H

#include "khist.h"

#define SC_MAX_NR 512          /* x86_64 numbers stay below 470 */
#define SC_HIST_BUCKETS 40     /* log2 ns: the last one holds >= 2^39 ns (9 min) */
#define SC_MAX_THREADS 16384   /* classic fallback: threads inside a timed syscall */
#define SC_MAX_PROC_NR 65536   /* (process, syscall) pairs: ~5 MiB of kernel memory */
#define SC_MAX_PROCS 8192      /* comm per process */
#define SC_MAX_ERRS 4096       /* (process, syscall, errno) triples */

/* Latency sampling, per CPU and per (process, syscall) cache slot: the
 * first SC_TIME_ALL calls are all timed, the next ones up to SC_TIME_MID
 * with probability 1 / 2^SC_SAMPLE_SHIFT, later ones with 1 / 2^
 * SC_SAMPLE_SHIFT_HI; a sample weighs the calls it stands for.  Rare calls
 * keep exact histograms; a storm of cheap calls pays for timing one in 64
 * (two clock reads and a task-storage write each, ~65 ns on the test VM). */
#define SC_TIME_ALL 64
#define SC_TIME_MID 4096
#define SC_SAMPLE_SHIFT 4
#define SC_SAMPLE_SHIFT_HI 6

enum { SC_DROP_START = 0, SC_DROP_PROC, SC_DROP_ERR, SC_DROP_N };

struct sc_stat {
    __u64 count;    /* calls entered, added when their cache slot is evicted:
                     * the live slots (struct sc_slot) hold the rest */
    __u64 errors;   /* returns in -4095..-1 */
    __u64 timed;    /* calls whose latency was measured */
    __u64 total_ns; /* weighted: estimates the time of all calls */
    __u64 hist[SC_HIST_BUCKETS]; /* weighted counts, log2 ns */
};

struct sc_proc_key {
    __u32 tgid;
    __u32 nr;
};

struct sc_proc_val {
    __u64 count;
};

struct sc_err_key {
    __u32 tgid;
    __u32 nr;
    __u32 err;
};

#define SC_CACHE_SLOTS 256 /* power of two */
struct sc_slot {
    __u32 tgid;
    __u32 nr;
    __u64 count; /* 0 = empty */
    __u64 rng;   /* sampling state (not a count); kept across evictions */
};

/* Per-CPU calls seen by the entry program (index 0 of tap_calls): the
 * slicer in src/collect/systap.c reads it to measure the host's syscall
 * rate (all: every call but perfreport's own, each paying the cost) and to scale the
 * recorded counts (wanted: the calls the tap records). */
struct tap_calls {
    __u64 all;
    __u64 wanted;
};

struct sc_comm {
    char comm[16];
};

/* I/O layer counters (index of the io_counters per-CPU array); the order
 * matches enum io_counter in src/collect/iolayers.h. */
enum {
    IO_C_VFS_READS = 0, IO_C_VFS_WRITES, IO_C_READ_BYTES, IO_C_WRITE_BYTES, IO_C_PAGE_LOOKUPS,
    IO_C_PAGES_ADDED, IO_C_BLK_READS, IO_C_BLK_WRITES, IO_C_DROP_THREADS, IO_C_DROP_PROCS,
    IO_C_SYNC_WRITES, /* writes that waited for the device (O_SYNC/O_DSYNC, RWF_*SYNC) */
    IO_C_N
};
#define IO_MAX_PROCS 4096

/* Per process (sync_procs): latency of every synchronous I/O call -- the
 * fsync family, msync(MS_SYNC) and the writes the kernel completes only
 * once the data is on the device -- and how many of them were such writes. */
struct io_sync_val {
    struct khist h; /* us */
    char comm[16];
    __u64 writes;
};
#endif
