#ifndef PERFREPORT_CLOCK_H
#define PERFREPORT_CLOCK_H
#include <stdint.h>
/* CLOCK_MONOTONIC in milliseconds. */
double mono_ms(void);
/* CLOCK_MONOTONIC in nanoseconds: the clock of BPF's bpf_ktime_get_ns(). */
uint64_t mono_ns(void);
#endif
