/* Capability probe: the smallest program that proves the whole BPF path
 * works on this host (BTF-based build, load, verifier, tracepoint attach,
 * map read-back).  It counts sched_switch events per CPU. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, __u64);
} switches SEC(".maps");

SEC("tp/sched/sched_switch")
int probe_sched_switch(void *ctx)
{
    __u32 key = 0;
    __u64 *n = bpf_map_lookup_elem(&switches, &key);

    (void)ctx;
    if (n)
        (*n)++;
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
