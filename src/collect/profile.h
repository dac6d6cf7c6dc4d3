/* Collector "profile": on-CPU stack sampling (BPF perf_event on cpu-clock). */
#ifndef PERFREPORT_COLLECT_PROFILE_H
#define PERFREPORT_COLLECT_PROFILE_H
#include <stdbool.h>
#include <stddef.h>

/* "0-3,5,7-8" (/sys/devices/system/cpu/online) -> on[i] = true for listed
 * CPUs below n.  Returns how many were set; -1 on malformed text. */
int profile_parse_cpu_list(const char *text, bool *on, size_t n);
#endif
