/* OOM victims: who the OOM killer chose, with its memory cgroup, so the
 * report can name the killed process (the kernel log is not read). */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "oomkill.h"

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, OOM_MAX_VICTIMS);
    __type(key, __u32);
    __type(value, struct oom_victim);
} victims SEC(".maps");

/* Number of victims seen; entries past OOM_MAX_VICTIMS are counted only. */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, __u64);
} nvictims SEC(".maps");

SEC("tp_btf/mark_victim")
int BPF_PROG(on_mark_victim, struct task_struct *task, uid_t uid)
{
    __u32 zero = 0;
    __u64 *n = bpf_map_lookup_elem(&nvictims, &zero);
    if (!n)
        return 0;
    __u64 i = __sync_fetch_and_add(n, 1);
    if (i >= OOM_MAX_VICTIMS)
        return 0;
    __u32 key = (__u32)i;
    struct oom_victim *v = bpf_map_lookup_elem(&victims, &key);
    if (!v)
        return 0;
    v->ts_ns = bpf_ktime_get_ns();
    v->pid = BPF_CORE_READ(task, tgid);
    v->uid = uid;
    bpf_probe_read_kernel_str(v->comm, sizeof v->comm, task->comm);
    struct mm_struct *mm = BPF_CORE_READ(task, mm);
    v->total_vm_pages = mm ? BPF_CORE_READ(mm, total_vm) : 0;
    v->oom_score_adj = BPF_CORE_READ(task, signal, oom_score_adj);
    /* The memory controller's cgroup: its kernfs id is the inode number of
     * the cgroup directory, which user space maps back to a path. */
    int ss = bpf_core_enum_value(enum cgroup_subsys_id, memory_cgrp_id);
    struct css_set *cset = BPF_CORE_READ(task, cgroups);
    struct cgroup_subsys_state *css = NULL;
    if (cset && ss >= 0 && ss < CGROUP_SUBSYS_COUNT)
        bpf_probe_read_kernel(&css, sizeof css, &cset->subsys[ss]);
    v->memcg_id = css ? BPF_CORE_READ(css, cgroup, kn, id) : 0;
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
