/* -p / -c targets as BPF programs filter them. */
#ifndef PERFREPORT_BPF_TARGET_H
#define PERFREPORT_BPF_TARGET_H
#include <stddef.h>
#include <stdint.h>

struct collect_ctx;
/* The v2 cgroup id (inode of the directory under the v2 mount) of -c; 0
 * without -c.  Returns 0, or -errno with err filled (no v2 hierarchy, no
 * such cgroup). */
int bpf_target_cgroup_id(const struct collect_ctx *ctx, uint64_t *id, char *err, size_t n);
/* Threads of a process from /proc/PID/status, at least 1; 0 when gone. */
unsigned proc_threads(int pid);
#endif
