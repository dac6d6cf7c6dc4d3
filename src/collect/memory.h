/* Memory collector: /proc/meminfo and /proc/vmstat.  Pure parsers exposed
 * for unit tests. */
#ifndef PERFREPORT_COLLECT_MEMORY_H
#define PERFREPORT_COLLECT_MEMORY_H
#include "collector.h"
#include <stdbool.h>
#include <stdint.h>

extern const struct collector collector_memory;

/* Values in KiB.  A field is meaningful only when its MI_* bit is in have. */
#define MI_TOTAL 0x001u
#define MI_FREE 0x002u
#define MI_AVAILABLE 0x004u /* from the file, or estimated (see estimated) */
#define MI_BUFFERS 0x008u
#define MI_CACHED 0x010u
#define MI_SWAP_TOTAL 0x020u
#define MI_SWAP_FREE 0x040u
#define MI_DIRTY 0x080u
#define MI_WRITEBACK 0x100u
#define MI_ANON 0x200u
#define MI_SLAB 0x400u

struct meminfo {
    uint64_t total, free, available, buffers, cached;
    uint64_t swap_total, swap_free;
    uint64_t dirty, writeback, anon, slab;
    unsigned have;
    /* MemAvailable was missing (kernels before 3.14) and available was
     * estimated as MemFree+Buffers+Cached. */
    bool available_estimated;
};

/* Parses /proc/meminfo text; malformed lines are skipped.  Returns 0, or
 * -EINVAL when MemTotal is missing or 0. */
int parse_meminfo(const char *text, struct meminfo *out);

#define VM_PGFAULT 0x001u
#define VM_PGMAJFAULT 0x002u
#define VM_PSWPIN 0x004u
#define VM_PSWPOUT 0x008u
#define VM_PGSCAN 0x010u        /* at least one pgscan_{kswapd,direct,khugepaged} */
#define VM_PGSCAN_DIRECT 0x020u
#define VM_PGSTEAL 0x040u
#define VM_OOM_KILL 0x080u

struct vmstat {
    uint64_t pgfault, pgmajfault, pswpin, pswpout;
    uint64_t pgscan;        /* kswapd + direct (+ khugepaged when present) */
    uint64_t pgscan_direct;
    uint64_t pgsteal;       /* same sources as pgscan */
    uint64_t oom_kill;
    unsigned have;          /* VM_* */
};

/* Parses /proc/vmstat text; unknown and malformed lines are skipped.
 * Returns 0, or -EINVAL when none of the counters we use is present. */
int parse_vmstat(const char *text, struct vmstat *out);

#endif
