/* CPU collector: /proc/stat and /proc/loadavg.  The parsers are pure functions
 * over file text so unit tests can feed them fixture files. */
#ifndef PERFREPORT_COLLECT_CPU_H
#define PERFREPORT_COLLECT_CPU_H
#include "../util/proc_parse.h" /* parse_loadavg, its home */
#include "collector.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern const struct collector collector_cpu;

/* The ten jiffies counters of a "cpu" line, in file order.  user already
 * contains guest and nice contains guest_nice. */
enum cpu_field {
    CPU_USER, CPU_NICE, CPU_SYSTEM, CPU_IDLE, CPU_IOWAIT,
    CPU_IRQ, CPU_SOFTIRQ, CPU_STEAL, CPU_GUEST, CPU_GUEST_NICE,
    CPU_NFIELDS
};

struct cpu_times {
    uint64_t v[CPU_NFIELDS]; /* fields missing on old kernels stay 0 */
};

struct cpu_entry {
    unsigned id; /* N of "cpuN" */
    struct cpu_times t;
};

#define STAT_HAVE_CTXT 0x01u
#define STAT_HAVE_INTR 0x02u
#define STAT_HAVE_PROCESSES 0x04u
#define STAT_HAVE_RUNNING 0x08u
#define STAT_HAVE_BLOCKED 0x10u

/* Parsed /proc/stat.  Owns cpus; release with proc_stat_free(). */
struct proc_stat {
    struct cpu_times total;  /* the aggregate "cpu" line */
    struct cpu_entry *cpus;  /* online CPUs, sorted by id, no duplicates */
    size_t ncpus;
    uint64_t ctxt, intr, processes, procs_running, procs_blocked;
    unsigned have; /* STAT_HAVE_* for the scalar lines that were present */
};

/* Parses /proc/stat text into *out (which it initialises).  Malformed lines
 * are skipped.  Returns 0, or -EINVAL when there is no valid aggregate "cpu"
 * line (*out is then empty and needs no free). */
int parse_proc_stat(const char *text, struct proc_stat *out);
void proc_stat_free(struct proc_stat *st);
const struct cpu_entry *proc_stat_cpu(const struct proc_stat *st, unsigned id);

/* Where the time between two readings went, in percent of the interval.
 * Counters that went backwards count as 0.  valid is false when no time
 * passed (zero-length interval); the percentages are then NAN. */
struct cpu_split {
    bool valid;
    double total_jiffies;
    double util; /* user+nice+system+irq+softirq */
    double user, nice, system, idle, iowait, irq, softirq, steal;
};
void cpu_split(const struct cpu_times *a, const struct cpu_times *b, struct cpu_split *out);

#endif
