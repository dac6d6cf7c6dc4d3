/* A stack store: stacks kept by their content in a hash map, each allocated
 * when first seen (bpf/stackstore.bpf.h), shared with src/collect/stacks.c,
 * which reads it as it reads a BPF_MAP_TYPE_STACK_TRACE map.
 *
 * Why not a STACK_TRACE map: the kernel allocates and touches every slot of
 * one when it is created, ~1 KiB a slot, whether a stack ever comes or not.
 * The four profiles' maps were 21 MB for a `-d 10` run, ~60 ms of
 * perfreport's start on the test VM (page clearing and freelist set-up,
 * 2026-11-26), more than any other part of the loads.  A store costs only
 * the stacks the window sees. */
#ifndef PERFREPORT_BPF_STACKSTORE_H
#define PERFREPORT_BPF_STACKSTORE_H

#define SS_DEPTH 127 /* PERF_MAX_STACK_DEPTH: frames kept, leaf first */

/* The map value: the frames, 0-terminated when fewer than SS_DEPTH, then a
 * 64-bit hash of them.  The map's 31-bit key comes from the same hash; a
 * second stack with that key but another hash is refused (-EEXIST, as a
 * STACK_TRACE map refuses a bucket collision) instead of taking its id. */
struct ss_stack {
    __u64 ip[SS_DEPTH];
    __u64 hash;
};

#endif
