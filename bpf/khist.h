/* The log2 histogram the BPF collectors aggregate into, as both sides see
 * it: the programs (through khist.bpf.h) and the collectors that read the
 * maps (src/collect/).  __u64 comes from vmlinux.h in BPF and from
 * <linux/types.h> in user space. */
#ifndef PERFREPORT_BPF_KHIST_H
#define PERFREPORT_BPF_KHIST_H

/* 2^31 us is ~36 min: every latency we can see in one window fits. */
#define KHIST_SLOTS 32

/* Slot i counts 2^i <= v < 2^(i+1) (the model's bucket layout, struct
 * hist); the last slot everything above.  sum and max in the same unit. */
struct khist {
    __u64 slots[KHIST_SLOTS];
    __u64 sum;
    __u64 max;
};
#endif
