/* Syscall collector: drained BPF maps -> model.  The fill step is a pure
 * function over plain arrays so unit tests can drive it with made-up data. */
#ifndef PERFREPORT_SYSCALLS_H
#define PERFREPORT_SYSCALLS_H
#include "../kbpf/tapslice.h"
#include <stddef.h>
#include <stdint.h>

struct report;

/* "getppid" for 110; "syscall_<nr>" in buf when the table has no name. */
const char *syscall_name(unsigned nr, char *buf, size_t n);
size_t syscall_names_count(void);

#define SCD_HIST 40
struct scd_nr {
    uint32_t nr;
    uint64_t count, errors;
    uint64_t timed;    /* calls whose latency was measured */
    uint64_t total_ns; /* estimate for all calls (timed ones weighted) */
    uint64_t hist[SCD_HIST]; /* log2 ns, weighted counts */
};
struct scd_proc {
    uint32_t tgid, nr;
    uint64_t count, errors;
};
struct scd_err {
    uint32_t tgid, nr, err;
    uint64_t count;
};
struct scd_comm {
    uint32_t tgid;
    char comm[17];
};
struct sc_data {
    struct scd_nr *nrs;
    size_t nnrs;
    struct scd_proc *procs;
    size_t nprocs;
    struct scd_err *errs;
    size_t nerrs;
    struct scd_comm *comms;
    size_t ncomms;
    /* How the tap recorded: sampled = in time slices, the counts above are
     * those recorded and syscalls_fill scales them by samp.scale. */
    struct tapslice_result samp;
};

/* Writes tables syscall.top / syscall.errors / syscall.by_process, metrics
 * syscall.total_per_s / syscall.errors_per_s / syscall.attached_pct (100:
 * exact counts; less: estimates from time slices, with
 * syscall.estimate_err_pct) and hists syscall.<name>. */
void syscalls_fill(struct report *r, struct sc_data *d, double window_s); /* sorts d in place */
void sc_data_free(struct sc_data *d);
#endif
