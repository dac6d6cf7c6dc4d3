/* Shared between bpf/syscalls.bpf.c and src/collect/syscalls.c. */
#ifndef PERFREPORT_BPF_SYSCALLS_H
#define PERFREPORT_BPF_SYSCALLS_H

#define SC_MAX_NR 512          /* x86_64 numbers stay below 470 */
#define SC_HIST_BUCKETS 40     /* log2 ns: the last one holds >= 2^39 ns (9 min) */
#define SC_MAX_THREADS 16384   /* classic fallback: threads inside a syscall */
#define SC_MAX_PROC_NR 16384   /* (process, syscall) pairs */
#define SC_MAX_PROCS 8192      /* comm per process */
#define SC_MAX_ERRS 4096       /* (process, syscall, errno) triples */

enum { SC_DROP_START = 0, SC_DROP_PROC, SC_DROP_ERR, SC_DROP_N };

struct sc_stat {
    __u64 count;
    __u64 errors;
    __u64 total_ns;
    __u64 hist[SC_HIST_BUCKETS];
};

struct sc_proc_key {
    __u32 tgid;
    __u32 nr;
};

struct sc_proc_val {
    __u64 count;
    __u64 errors;
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
    __u64 errors;
};

struct sc_comm {
    char comm[16];
};
#endif
