/* Collector "profile": on-CPU stack sampling (BPF perf_event on cpu-clock). */
#ifndef PERFREPORT_COLLECT_PROFILE_H
#define PERFREPORT_COLLECT_PROFILE_H
#include "../util/proc_parse.h" /* profile_parse_cpu_list, its home */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Entries of the CPU profile's stack store for a window: a sample adds at
 * most two stacks (kernel and user); room for every sample's two twice
 * over, as a power of two from PROF_MIN_STACKS to PROF_MAX_STACKS (unknown
 * window: the most).  The store allocates a stack (~2 KiB of kernel memory)
 * when it first comes, so this bounds what a window of new stacks can take
 * (the STACK_TRACE map it replaced allocated and touched all of it at
 * creation: 8 MiB cost ~4 % of an idle run's own CPU on the test VM). */
uint32_t profile_stack_entries(int hz, int ncpu, double window_s);
#endif
