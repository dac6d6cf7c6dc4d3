/* Shared between bpf/pagefault.bpf.c and src/collect/pagefault.c. */
#ifndef PERFREPORT_BPF_PAGEFAULT_H
#define PERFREPORT_BPF_PAGEFAULT_H

#define PF_COMM_LEN 16
#define PF_MAX_STACKS 4096 /* stack store entries (~1 KiB each, allocated when used) */
#define PF_MAX_KEYS 8192   /* aggregated (process, stacks) keys */
#define PF_STACK_NONE (-2147483647 - 1) /* == STACK_ID_NONE in stacks.h */

struct pf_key {
    __u32 tgid;
    __s32 kstack; /* the kernel path of a fault taken in kernel mode (copy_to_user...) */
    __s32 ustack; /* where the process touched the page */
    char comm[PF_COMM_LEN];
};

/* Faults a key stands for: each sample weighs its event's sample period
 * (the kernel adapts it to the asked sample rate), so the sum estimates
 * every fault, sampled or not. */
struct pf_val {
    __u64 faults;  /* sum of sample periods */
    __u64 samples; /* samples taken */
};

enum pf_stat {
    PF_ST_SAMPLES = 0, /* samples that passed the filters */
    PF_ST_WEIGHT,      /* their faults (sum of periods) */
    PF_ST_DROPPED,     /* samples lost: the key map was full */
    PF_ST_DROPPED_W,   /* their faults */
    PF_ST_FILTERED,    /* samples outside the -p/-c target */
    PF_NSTATS
};
#endif
