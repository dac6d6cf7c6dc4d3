/* Shared between bpf/profile.bpf.c and src/collect/profile.c. */
#ifndef PERFREPORT_BPF_PROFILE_H
#define PERFREPORT_BPF_PROFILE_H

#define PROF_COMM_LEN 16
#define PROF_MAX_STACKS 8192 /* stack store entries (~1 KiB each, allocated when used); fewer for short windows */
#define PROF_MIN_STACKS 1024
#define PROF_MAX_KEYS 16384  /* aggregated (process, stacks) keys */
#define PROF_STACK_NONE (-2147483647 - 1) /* == STACK_ID_NONE in stacks.h */
#define PROF_MAX_FOLLOWED 8192 /* descendants of the target followed (follow_children) */

struct prof_key {
    __u32 tgid;
    __u32 tid; /* the thread in a targeted run (-p, -- CMD); 0 system-wide, where
                * a key per thread would multiply the keys by the threads */
    __s32 kstack; /* ss_get result (a stack id or -errno), PROF_STACK_NONE when none expected */
    __s32 ustack;
    char comm[PROF_COMM_LEN];
};

enum prof_stat {
    PROF_ST_SAMPLES = 0, /* non-idle samples that passed the filters */
    PROF_ST_IDLE,        /* samples in the idle task (pid 0), not stacked */
    PROF_ST_DROPPED,     /* counted samples lost: the key map was full */
    PROF_ST_FILTERED,    /* non-idle samples outside the -p/-c target */
    PROF_ST_TID_DROPPED, /* -p: samples of threads beyond THREAD_MAX_TIDS */
    PROF_ST_UNFOLLOWED,  /* children not followed: the followed map was full */
    PROF_NSTATS
};
#endif
