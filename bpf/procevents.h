/* Shared between bpf/procevents.bpf.c and src/collect/procevents.c. */
#ifndef PERFREPORT_BPF_PROCEVENTS_H
#define PERFREPORT_BPF_PROCEVENTS_H

#define PE_MAX_EXEC 4096   /* (comm, parent comm) pairs */
#define PE_MAX_EXIT 4096   /* comms seen exiting */
#define PE_HIST_BUCKETS 32 /* log2 ms */
#define PE_SHORT_NS 1000000000ULL /* "short-lived": under 1 s */
/* What starting a process costs at most (fork's copy, exec, the dynamic
 * linker, first page faults: ~1 ms for a small tool here): the part of a
 * short-lived process's CPU counted as churn; the rest is its work. */
#define PE_START_COST_NS 5000000ULL

enum { PE_CNT_EXEC = 0, PE_CNT_EXIT, PE_CNT_SHORT, PE_CNT_DROP, PE_CNT_N };
/* When an event happened: the programs record from their attach to the
 * drain; rates judge the window only, the rest is listed. */
enum { PE_PH_BEFORE = 0, PE_PH_WINDOW, PE_PH_AFTER, PE_PH_N };

struct pe_exec_key {
    char comm[16];
    char pcomm[16];
};

struct pe_exec_val {
    __u64 n[PE_PH_N]; /* execs by phase */
};

/* Exits and lifetimes are counted in the window only. */
struct pe_exit_val {
    __u64 exits;
    __u64 short_exits;
    __u64 short_life_ns; /* sum over short-lived exits */
    __u64 life_ns;       /* sum over all exits */
    __u64 cpu_ns;        /* CPU time over their whole life, all exits */
    __u64 churn_ns;      /* short-lived exits: each one's CPU up to PE_START_COST_NS */
};

struct pe_hist {
    __u64 b[PE_HIST_BUCKETS];
};
#endif
