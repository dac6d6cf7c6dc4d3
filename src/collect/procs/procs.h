/* Per-process collector (`procs`); its pure parsers over /proc/PID text
 * are procs_parse.h's. */
#ifndef PERFREPORT_COLLECT_PROCS_H
#define PERFREPORT_COLLECT_PROCS_H
#include "../collector.h"
#include "../../procfs/procs_parse.h"
#include <stddef.h>
#include <stdint.h>

/* Test hook: lowers the per-scan process cap (0 restores PROC_SCAN_CAP). */
void procs_set_scan_cap(size_t cap);
/* The memory cgroup of process (pid, starttime) (v1's memory hierarchy,
 * else v2's), as /proc/PID/cgroup gives it: the cgroup collector's name of
 * it when the hierarchy is mounted at its root.  Owned by the caller; NULL
 * when unknown or when pid now names another process (its start time,
 * read after the cgroup, differs). */
char *procs_memory_cgroup_of(int pid, uint64_t starttime);

extern const struct collector collector_procs;
#endif
