/* Page-fault profiler: a perf_event program on the software page-faults
 * event, one event per CPU in frequency mode (the kernel picks the period
 * that gives the asked samples per second, so the cost stays bounded however
 * fast a process faults).  Each sample adds its period to (process, kernel
 * stack, user stack): the stack where resident memory grew. */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "khist.bpf.h"
#include "stackstore.bpf.h"
#include <bpf/bpf_tracing.h>
#include "pagefault.h"

#define PF_KTHREAD 0x00200000

const volatile __u32 targ_tgid = 0; /* 0 = every process */
const volatile __u64 targ_cgid = 0; /* v2 cgroup id; used when filter_cg */
const volatile bool filter_cg = false;

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, PF_MAX_STACKS);
    __type(key, __u32);
    __type(value, struct ss_stack);
} stackmap SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, PF_MAX_KEYS);
    __type(key, struct pf_key);
    __type(value, struct pf_val);
} counts SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, PF_NSTATS);
    __type(key, __u32);
    __type(value, __u64);
} stats SEC(".maps");

SEC("perf_event")
int on_fault(struct bpf_perf_event_data *ctx)
{
    __u64 id = bpf_get_current_pid_tgid();
    __u32 tgid = id >> 32;
    __u64 w = ctx->sample_period ? ctx->sample_period : 1;
    struct task_struct *t = (struct task_struct *)bpf_get_current_task();
    if (BPF_CORE_READ(t, flags) & PF_KTHREAD)
        return 0; /* kernel threads fault on no user memory */
    if ((targ_tgid && tgid != targ_tgid) || (filter_cg && bpf_get_current_cgroup_id() != targ_cgid)) {
        kcount(&stats, PF_ST_FILTERED);
        return 0;
    }
    kcount(&stats, PF_ST_SAMPLES);
    kadd(&stats, PF_ST_WEIGHT, w);

    struct pf_key k = {};
    k.tgid = tgid;
    bpf_get_current_comm(k.comm, sizeof k.comm);
    k.kstack = ss_get(ctx, &stackmap, 0);
    /* A fault taken in user mode has no kernel callchain (-EFAULT). */
    if (k.kstack == -EFAULT)
        k.kstack = PF_STACK_NONE;
    k.ustack = ss_get(ctx, &stackmap, BPF_F_USER_STACK);

    struct pf_val *v = bpf_map_lookup_elem(&counts, &k);
    if (v) {
        __sync_fetch_and_add(&v->faults, w);
        __sync_fetch_and_add(&v->samples, 1);
        return 0;
    }
    struct pf_val nv = {.faults = w, .samples = 1};
    long rc = bpf_map_update_elem(&counts, &k, &nv, BPF_NOEXIST);
    if (rc == -EEXIST) { /* another CPU inserted it first */
        v = bpf_map_lookup_elem(&counts, &k);
        if (v) {
            __sync_fetch_and_add(&v->faults, w);
            __sync_fetch_and_add(&v->samples, 1);
        }
    } else if (rc) {
        kcount(&stats, PF_ST_DROPPED);
        kadd(&stats, PF_ST_DROPPED_W, w);
    }
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
