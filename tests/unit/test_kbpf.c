/* kbpf: the tp_btf hook questions answered from the kernel BTF's string
 * section must give libbpf's answer (a typedef named "btf_trace_<tp>")
 * for every hook of the running kernel. */
#include "harness.h"
#include "../../src/collect/kbpf.h"
#include <bpf/btf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

TEST(kbpf_tp_btf_hooks_match_libbpf)
{
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
        test_skip("no /sys/kernel/btf/vmlinux on this kernel");
        return;
    }
    struct btf *btf = btf__load_vmlinux_btf();
    REQUIRE(btf);
    size_t hooks = 0, agree = 0;
    const char *first_wrong = NULL;
    for (unsigned id = 1; id < btf__type_cnt(btf); id++) {
        const struct btf_type *t = btf__type_by_id(btf, id);
        if (!btf_is_typedef(t))
            continue;
        const char *name = btf__name_by_offset(btf, t->name_off);
        if (!name || strncmp(name, "btf_trace_", 10) != 0)
            continue;
        hooks++;
        if (kbpf_has_tp_btf(name + 10))
            agree++;
        else if (!first_wrong)
            first_wrong = name;
    }
    CHECK(hooks > 100); /* a real kernel has hundreds of tracepoints */
    if (agree != hooks)
        test_fail(__FILE__, __LINE__, "%zu of %zu hooks not found, first %s", hooks - agree,
                  hooks, first_wrong);
    /* names that are not hooks: a prefix of one, one with a suffix, empty */
    CHECK(!kbpf_has_tp_btf("sched_switc"));
    CHECK(!kbpf_has_tp_btf("sched_switch_"));
    CHECK(!kbpf_has_tp_btf(""));
    CHECK(kbpf_has_tp_btf("sched_switch"));
    kbpf_release_vmlinux_btf();
    /* after a release the answers are read again */
    CHECK(kbpf_has_tp_btf("sched_wakeup"));
    kbpf_release_vmlinux_btf();
    btf__free(btf);
}
