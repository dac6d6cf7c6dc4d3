/* Per-thread maps of the profile, offcpu and runqlat programs, kept only
 * for a -p target (a whole-host run would need one entry per thread of the
 * host).  Read by src/collect/profile.c, offcpu.c and runqlat.c into their
 * threads.* tables (src/model/NAMES.md), joined by src/analyze/threads.c. */
#ifndef PERFREPORT_BPF_THREADS_H
#define PERFREPORT_BPF_THREADS_H

/* Threads of one process with entries; beyond it, counted as dropped. */
#define THREAD_MAX_TIDS 8192

/* profile: on-CPU samples of one thread */
struct thread_samples {
    __u64 count;
    char comm[16];
};

/* offcpu: blocked time of one thread at one kernel stack (the stack says
 * the wait class, as for the process aggregates) */
struct thread_off_key {
    __u32 tid;
    __s32 kstack;
    __s32 syscall;
    __u32 seeded; /* 1: blocked since before the window (kstack as in its offcpu_key) */
};

struct thread_off_val {
    __u64 total_ns;
    __u64 count;
};
#endif
