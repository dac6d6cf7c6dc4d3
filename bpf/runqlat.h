/* Shared between bpf/runqlat.bpf.c and src/collect/runqlat.c. */
#ifndef PERFREPORT_BPF_RUNQLAT_H
#define PERFREPORT_BPF_RUNQLAT_H

#define RUNQ_MAX_STARTS 10240 /* threads runnable at the same time, at most */
#define RUNQ_MAX_PROCS 10240 /* processes (threads in the classic fallback) with waits */

/* Per process: the waits' total, count and longest, and its comm. */
struct runq_proc_val {
    __u64 total_ns;
    __u64 count;
    __u64 max_ns;
    char comm[16];
};
#endif
