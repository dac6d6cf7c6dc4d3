/* Collector "profile": on-CPU stack sampling (BPF perf_event on cpu-clock). */
#ifndef PERFREPORT_COLLECT_PROFILE_H
#define PERFREPORT_COLLECT_PROFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "0-3,5,7-8" (/sys/devices/system/cpu/online) -> on[i] = true for listed
 * CPUs below n.  Returns how many were set; -1 on malformed text. */
int profile_parse_cpu_list(const char *text, bool *on, size_t n);

struct collect_ctx;
/* The v2 cgroup id of -c (ctx->cfg->cgroup) for a BPF filter: true with
 * *cgid and *scope ("cgroup /x", malloc'd) set; false with *note (malloc'd)
 * saying why `what` ("the CPU profile") is system-wide instead. */
bool profile_cgroup_filter(const struct collect_ctx *ctx, const char *what, uint64_t *cgid,
                           char **scope, char **note);
#endif
