/* Shared between bpf/oomkill.bpf.c and src/collect/oomkill.c. */
#ifndef PERFREPORT_BPF_OOMKILL_H
#define PERFREPORT_BPF_OOMKILL_H

#define OOM_MAX_VICTIMS 64

struct oom_victim {
    __u64 ts_ns;
    __u64 memcg_id;       /* kernfs id (= directory inode) of its memory cgroup */
    __u64 total_vm_pages;
    __u32 pid;            /* tgid */
    __u32 uid;
    short oom_score_adj;
    char comm[16];
};
#endif
