#include "harness.h"
#include "../../src/model/model.h"
#include "../../src/run/options.h"
#include "../../src/run/probe.h"
#include "../../src/run/probe_parse.h"
#include "../../src/util/hostfs.h"
#include "../../src/util/strbuf.h"
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* Runs the probe against one fixture tree (BPF and PMU are never tried
 * there: they need the live host). */
static struct report *probe_tree(const char *tree, struct host_caps *caps, bool no_bpf)
{
    char rel[256];
    snprintf(rel, sizeof rel, "host/%s", tree);
    hostfs_set_root(fixture(rel));
    struct options o;
    options_defaults(&o);
    o.no_bpf = no_bpf;
    struct report *r = report_new();
    probe_host(caps, &o, r);
    return r;
}

TEST(probe_capeff_from_captured_status)
{
    struct strbuf sb = STRBUF_INIT;
    hostfs_set_root(fixture("host/debian12-hybrid"));
    REQUIRE(hostfs_read("/proc/self/status", &sb, 0) == 0);
    uint64_t m = 0;
    CHECK(probe_parse_capeff(sb_str(&sb), &m) == 0);
    CHECK(m == 0x1fffeffffffull);
    CHECK((m >> PROBE_CAP_BPF) & 1);
    CHECK((m >> PROBE_CAP_PERFMON) & 1);
    CHECK((m >> PROBE_CAP_SYS_ADMIN) & 1);
    CHECK(!((m >> 24) & 1)); /* CAP_SYS_RESOURCE dropped on this host */
    CHECK(probe_parse_capeff("Name:\tx\nCapEff:\tzz\n", &m) < 0);
    CHECK(probe_parse_capeff("Name:\tx\n", &m) < 0);
    sb_free(&sb);
}

TEST(probe_cgroup_mode_per_tree)
{
    static const struct {
        const char *tree;
        enum cgroup_mode mode;
        const char *root, *kv;
    } cases[] = {
        {"debian12-hybrid", CGROUP_HYBRID, "/sys/fs/cgroup/unified",
         "hybrid (v2 at /sys/fs/cgroup/unified)"},
        {"v2-only", CGROUP_V2, "/sys/fs/cgroup", "v2 (v2 at /sys/fs/cgroup)"},
        {"v1-only", CGROUP_V1, "", "v1"},
        {"minimal", CGROUP_NONE, "", "none"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct host_caps caps;
        struct report *r = probe_tree(cases[i].tree, &caps, false);
        CHECK(caps.cgroup_mode == cases[i].mode);
        CHECK_STR(caps.cgroup_v2_root, cases[i].root);
        CHECK_STR(kv_get(&r->caps, "cgroup_mode"), cases[i].kv);
        report_free(r);
    }
    CHECK_STR(cgroup_mode_name(CGROUP_HYBRID), "hybrid");
    CHECK_STR(cgroup_mode_name(CGROUP_NONE), "none");
}

TEST(probe_cgroup_named_hierarchy_alone_is_not_v1)
{
    /* name=systemd controls nothing: with a unified mount it is plain v2. */
    const char *mi =
        "25 24 0:21 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd\n"
        "26 24 0:22 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n";
    char root[64];
    CHECK(probe_parse_cgroup_mode(mi, root, sizeof root) == CGROUP_V2);
    CHECK_STR(root, "/sys/fs/cgroup/unified");
    CHECK(probe_parse_cgroup_mode("garbage\n\n- - -\n", root, sizeof root) == CGROUP_NONE);
    CHECK_STR(root, "");
    CHECK(probe_parse_cgroup_mode("", root, sizeof root) == CGROUP_NONE);
}

TEST(probe_mountinfo_unescapes_and_skips_optional_fields)
{
    struct strbuf sb = STRBUF_INIT;
    hostfs_set_root(fixture("host/v2-only"));
    REQUIRE(hostfs_read("/proc/self/mountinfo", &sb, 0) == 0);
    const char *cur = sb_str(&sb);
    struct mountinfo_entry e;
    int n = 0;
    bool saw_space = false;
    while (mountinfo_next(&cur, &e)) {
        n++;
        if (strcmp(e.mountpoint, "/srv/my data") == 0) {
            saw_space = true;
            CHECK_STR(e.root, "/srv/my data");
            CHECK_STR(e.fstype, "ext4");
            CHECK_STR(e.source, "/dev/vdb");
            CHECK_STR(e.devno, "254:1");
        }
        CHECK(!e.mountpoint_cut);
        if (strcmp(e.mountpoint, "/sys/fs/cgroup") == 0) {
            CHECK_STR(e.fstype, "cgroup2"); /* after "shared:9 master:3" */
            CHECK_STR(e.superopts, "rw,nsdelegate,memory_recursiveprot");
        }
    }
    CHECK(n == 7);
    CHECK(saw_space);
    char fs[32];
    probe_root_fstype(sb_str(&sb), fs, sizeof fs);
    CHECK_STR(fs, "overlay");
    sb_free(&sb);
}

TEST(probe_caps_recorded_from_fixture_trees)
{
    struct host_caps caps;
    struct report *r = probe_tree("debian12-hybrid", &caps, false);
    CHECK(caps.cap_bpf && caps.cap_perfmon);
    CHECK_STR(kv_get(&r->caps, "cap_bpf"), "yes");
    CHECK(caps.btf);
    CHECK_STR(kv_get(&r->caps, "btf"), "yes (/sys/kernel/btf/vmlinux)");
    CHECK(!caps.tracefs); /* this VM boots without tracefs mounted */
    CHECK(caps.psi);
    CHECK_STR(kv_get(&r->caps, "psi"), "yes");
    CHECK(caps.perf_event_paranoid == 2);
    CHECK_STR(kv_get(&r->caps, "perf_event_paranoid"), "2 (users: user-space only)");
    CHECK(!caps.pmu);
    CHECK_CONTAINS(kv_get(&r->caps, "pmu"), "no (not probed");
    CHECK(!caps.bpf_ok);
    CHECK_STR(caps.bpf_reason, "not probed: --root points at a captured tree");
    CHECK_STR(caps.virt, "vm (unknown hypervisor)");
    CHECK_STR(caps.container, "possibly docker (/.dockerenv; root is ext4)");
    const char *keys[] = {"root", "cap_bpf", "cap_perfmon", "btf", "tracefs", "psi",
                          "cgroup_mode", "pmu", "perf_event_paranoid", "bpf"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        CHECK(kv_get(&r->caps, keys[i]) != NULL);
    report_free(r);

    r = probe_tree("v2-only", &caps, true);
    CHECK(!caps.cap_bpf && !caps.cap_perfmon); /* docker's default set */
    CHECK_STR(kv_get(&r->caps, "cap_perfmon"), "no");
    CHECK(!caps.btf);
    CHECK(caps.tracefs); /* the debugfs location counts too */
    CHECK(!caps.psi);
    CHECK_CONTAINS(kv_get(&r->caps, "psi"), "no (/proc/pressure/cpu:");
    CHECK(caps.perf_event_paranoid == 4);
    CHECK_STR(caps.bpf_reason, "BPF disabled by --no-bpf");
    CHECK_STR(kv_get(&r->caps, "bpf"), "no (BPF disabled by --no-bpf)");
    CHECK_STR(caps.virt, "none");
    CHECK_STR(caps.container, "docker");
    report_free(r);

    r = probe_tree("v1-only", &caps, false);
    CHECK_STR(caps.virt, "xen");
    CHECK_STR(caps.container, "lxc");
    CHECK(caps.perf_event_paranoid == 1);
    report_free(r);

    r = probe_tree("minimal", &caps, false);
    CHECK_STR(caps.virt, "none");
    CHECK_STR(caps.container, "none");
    CHECK(caps.perf_event_paranoid == 2); /* kernel default when unreadable */
    CHECK_CONTAINS(kv_get(&r->caps, "perf_event_paranoid"), "unknown");
    report_free(r);
}

TEST(probe_virt_classification)
{
    char out[64];
    struct virt_facts f = {.cpuid_vendor = "KVMKVMKVM", .hypervisor_flag = true};
    probe_classify_virt(&f, out, sizeof out);
    CHECK_STR(out, "kvm");
    f = (struct virt_facts){.sys_vendor = "QEMU", .product_name = "Standard PC (Q35 + ICH9, 2009)",
                            .hypervisor_flag = true};
    probe_classify_virt(&f, out, sizeof out);
    CHECK_STR(out, "qemu");
    f = (struct virt_facts){.sys_vendor = "Microsoft Corporation", .product_name = "Virtual Machine"};
    probe_classify_virt(&f, out, sizeof out);
    CHECK_STR(out, "microsoft");
    f = (struct virt_facts){.sys_vendor = "Microsoft Corporation", .product_name = "Surface Laptop"};
    probe_classify_virt(&f, out, sizeof out);
    CHECK_STR(out, "none");
    CHECK(probe_cpuinfo_has_flag("flags\t: fpu hypervisor lahf_lm\n", "hypervisor"));
    CHECK(!probe_cpuinfo_has_flag("flags\t: fpu hypervisorx lahf_lm\n", "hypervisor"));
    CHECK(!probe_cpuinfo_has_flag("model name\t: hypervisor\n", "hypervisor"));
}

TEST(probe_container_classification)
{
    CHECK(probe_parse_sched_pid("process_api (1, #threads: 13)") == 1);
    CHECK(probe_parse_sched_pid("we (ird) (4242, #threads: 1)") == 4242);
    CHECK(probe_parse_sched_pid("nothing here") == -1);
    CHECK(probe_parse_sched_pid("x (abc, #threads: 1)") == -1);
    char out[64];
    struct container_facts f = {.pid1_cgroup = "0::/\n", .root_fstype = "ext4",
                                .pid1_sched_pid = 4242};
    probe_classify_container(&f, out, sizeof out);
    CHECK_STR(out, "container (PID 1 is pid 4242 outside)");
    f = (struct container_facts){
        .pid1_cgroup = "12:pids:/kubepods/burstable/pod1/abc\n", .pid1_sched_pid = 1};
    probe_classify_container(&f, out, sizeof out);
    CHECK_STR(out, "kubernetes");
    f = (struct container_facts){.containerenv = true, .root_fstype = "overlay"};
    probe_classify_container(&f, out, sizeof out);
    CHECK_STR(out, "podman");
    f = (struct container_facts){.root_fstype = "overlay", .pid1_sched_pid = 1};
    probe_classify_container(&f, out, sizeof out);
    CHECK_STR(out, "possibly (overlay root)");
}

TEST(probe_real_host_bpf_works)
{
    if (geteuid() != 0) {
        test_skip("needs root for BPF");
        return;
    }
    if (running_on_valgrind()) {
        /* valgrind does not know every bpf() command and flags the unused
         * tail of libbpf's attr unions as uninitialised. */
        test_skip("BPF loading is not modelled by valgrind");
        return;
    }
    /* libbpf must stay silent without -v: capture stderr while probing. */
    fflush(stderr);
    FILE *cap = tmpfile();
    REQUIRE(cap != NULL);
    int saved = dup(STDERR_FILENO);
    REQUIRE(saved >= 0);
    REQUIRE(dup2(fileno(cap), STDERR_FILENO) >= 0);
    struct options o;
    options_defaults(&o);
    struct host_caps caps;
    struct report *r = report_new();
    probe_host(&caps, &o, r);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    struct stat st;
    CHECK(fstat(fileno(cap), &st) == 0 && st.st_size == 0);
    fclose(cap);

    CHECK(caps.is_root);
    CHECK(caps.bpf_ok);
    if (!caps.bpf_ok)
        fprintf(stderr, "  bpf_reason: %s\n", caps.bpf_reason);
    CHECK_CONTAINS(kv_get(&r->caps, "bpf"), "yes");
    CHECK(caps.tracefs); /* mounted privately when the host has none */
    CHECK(caps.cgroup_mode != CGROUP_NONE);
    if (!caps.pmu)
        CHECK_CONTAINS(kv_get(&r->caps, "pmu"), "profiles use cpu-clock");
    CHECK(caps.virt[0] && caps.container[0]);
    report_free(r);

    /* --no-bpf never touches the kernel. */
    r = report_new();
    o.no_bpf = true;
    probe_host(&caps, &o, r);
    CHECK(!caps.bpf_ok);
    CHECK_STR(caps.bpf_reason, "BPF disabled by --no-bpf");
    report_free(r);
}
