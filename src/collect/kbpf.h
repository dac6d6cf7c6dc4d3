/* Small helpers shared by the kernel-event BPF collectors (syscalls,
 * procevents, tcpevents): target filter ids, per-CPU value sums, names. */
#ifndef PERFREPORT_KBPF_H
#define PERFREPORT_KBPF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct collect_ctx;
struct bpf_map;

/* The -p tgid and the v2 cgroup id of -c (inode of its directory under the
 * v2 mount); 0 when not asked for.  Returns 0, or -errno with err set. */
int kbpf_target(const struct collect_ctx *ctx, uint32_t *tgid, uint64_t *cgid, char *err,
                size_t n);

/* Whether tp_btf programs can be used (kernel BTF present) or else classic
 * tracepoint `cat/name` exists under tracefs; reason set when neither. */
bool kbpf_can_trace(const char *cat, const char *name, char *reason, size_t n);

int kbpf_ncpus(void); /* possible CPUs, as libbpf counts them (>= 1) */

/* Reads per-CPU value `key` of `map` (value size vsz, a multiple of 8) and
 * sums it field by field as u64 into out (vsz bytes).  0 or -errno. */
int kbpf_percpu_sum(const struct bpf_map *map, const void *key, size_t ksz, void *out,
                    size_t vsz);

/* "ENOENT" for 2; "E<n>" when glibc has no name. */
void kbpf_errno_name(int e, char *buf, size_t n);

/* Integer log2 bucket bounds helper: fills a model histogram. */
struct hist;
void kbpf_hist_fill(struct hist *h, const uint64_t *buckets, size_t nb);
#endif
