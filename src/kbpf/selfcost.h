/* What perfreport's own BPF programs cost inside the kernel.
 *
 * getrusage() sees perfreport's threads only; its BPF programs run in the
 * context of whatever task hit the hook (the workload), so their CPU time
 * shows up nowhere in perfreport's own figures.  The kernel keeps each
 * program's run time and run count when run-time statistics are on
 * (sysctl kernel.bpf_stats_enabled=1: a global switch perfreport does not
 * turn on by itself, since it adds two clock reads to every run of every
 * program on the host), and shows them in the program fd's fdinfo. */
#ifndef PERFREPORT_SELFCOST_H
#define PERFREPORT_SELFCOST_H
#include <stdbool.h>
#include <stdint.h>

struct bpf_cost {
    unsigned progs;   /* distinct programs of ours found loaded */
    uint64_t run_ns;  /* their summed run time (0 with statistics off) */
    uint64_t runs;    /* their summed run count (0 with statistics off) */
    bool stats_on;    /* statistics were on: the sysctl is 1, or runs were counted */
};

/* Sums over the BPF programs this process holds open (by fd).  Returns 0
 * or -errno (nothing filled). */
int selfcost_bpf(struct bpf_cost *out);

/* Parses one program fdinfo text ("prog_id:\t12\nrun_time_ns:\t..."): the
 * id (0 when absent), run time and count.  False when it is not a BPF
 * program's fdinfo.  Exposed for tests. */
bool selfcost_parse_fdinfo(const char *text, uint32_t *prog_id, uint64_t *run_ns,
                           uint64_t *runs);
#endif
