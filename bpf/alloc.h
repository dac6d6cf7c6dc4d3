/* Shared between bpf/alloc.bpf.c and src/collect/alloc.c. */
#ifndef PERFREPORT_BPF_ALLOC_H
#define PERFREPORT_BPF_ALLOC_H

#define ALLOC_COMM_LEN 16
#define ALLOC_MAX_STACKS 4096 /* STACK_TRACE entries (~1 KiB each) */
#define ALLOC_MAX_SITES 8192  /* (process, stack) allocation sites */
#define ALLOC_MAX_LIVE 65536  /* allocations not freed yet (~40 B each) */
#define ALLOC_MAX_INFLIGHT 4096 /* threads inside a traced call */

enum alloc_fn { AF_MALLOC = 0, AF_CALLOC, AF_REALLOC, AF_FREE, AF_MMAP, AF_MUNMAP, AF_NFN };

struct alloc_site_key {
    __u32 tgid;
    __s32 ustack; /* bpf_get_stackid at the call's return: the caller's stack */
};

struct alloc_site {
    __u64 bytes;
    __u64 count;
    char comm[ALLOC_COMM_LEN];
};

struct alloc_live_key {
    __u32 tgid;
    __u32 pad;
    __u64 addr;
};

struct alloc_live {
    __u64 size;
    __s32 ustack;
    __u32 pad;
};

enum alloc_stat {
    AS_CALLS = 0,       /* .. AS_CALLS + AF_NFN - 1: calls per function */
    AS_LIVE_BYTES = AF_NFN, /* bytes allocated in the window minus those freed (may wrap) */
    AS_LIVE_DROPPED,    /* allocations not kept: the live map was full */
    AS_LIVE_DROPPED_B,  /* their bytes */
    AS_SITE_DROPPED,    /* allocations not counted by site: the site map was full */
    AS_FREE_UNKNOWN,    /* frees of memory allocated before the window (or not kept) */
    AS_NSTATS
};
#endif
