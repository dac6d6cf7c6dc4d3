/* Per-process collector (`procs`); its pure parsers over /proc/PID text
 * are procs_parse.h's. */
#ifndef PERFREPORT_COLLECT_PROCS_H
#define PERFREPORT_COLLECT_PROCS_H
#include "collector.h"
#include "procs_parse.h"
#include <stddef.h>
#include <stdint.h>

/* Test hook: lowers the per-scan process cap (0 restores PROC_SCAN_CAP). */
void procs_set_scan_cap(size_t cap);

extern const struct collector collector_procs;
#endif
