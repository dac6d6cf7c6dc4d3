#include "harness.h"
#include "../../src/collect/collector.h"
#include "../../src/collect/host.h"
#include "../../src/model/model.h"
#include "../../src/run/options.h"
#include "../../src/run/probe.h"
#include "../../src/util/hostfs.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

extern const struct collector collector_host;

TEST(host_range_list_counts)
{
    CHECK(host_parse_range_count("0-3,8,10-11\n") == 7);
    CHECK(host_parse_range_count("0-1\n") == 2);
    CHECK(host_parse_range_count("0") == 1);
    CHECK(host_parse_range_count("0-127") == 128);
    CHECK(host_parse_range_count("\n") == 0);
    CHECK(host_parse_range_count("") == 0);
    CHECK(host_parse_range_count("3-1") == -1);
    CHECK(host_parse_range_count("0,,1") == -1);
    CHECK(host_parse_range_count("1-") == -1);
    CHECK(host_parse_range_count("a-b") == -1);
    CHECK(host_parse_range_count("0-3 junk") == -1);
    CHECK(host_parse_range_count("0-99999999999999999999") == -1);
}

TEST(host_uptime_parsing)
{
    double s = 0;
    CHECK(host_parse_uptime("520.81 984.48\n", &s) == 0);
    CHECK_NUM(s, 520.81, 1e-9);
    CHECK(host_parse_uptime("x", &s) < 0);
}

TEST(host_os_release_quoting)
{
    char b[128];
    CHECK(host_parse_os_release("NAME=x\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n", b,
                                sizeof b));
    CHECK_STR(b, "Debian GNU/Linux 12 (bookworm)");
    CHECK(host_parse_os_release("PRETTY_NAME='it''s \"raw\" \\n'\n", b, sizeof b));
    CHECK_STR(b, "its \"raw\" \\n");
    CHECK(host_parse_os_release("PRETTY_NAME=Plain\\ Name\n", b, sizeof b));
    CHECK_STR(b, "Plain Name");
    CHECK(host_parse_os_release("NAME=\"Alpine\"\nVERSION=3.19\n", b, sizeof b));
    CHECK_STR(b, "Alpine 3.19");
    /* A key that merely starts like another does not match. */
    CHECK(!host_parse_os_release("PRETTY_NAMEX=bad\nID=x\n", b, sizeof b));
    CHECK_STR(b, "");
}

TEST(host_meminfo_cpuinfo_btime)
{
    uint64_t kib = 0;
    CHECK(host_parse_meminfo_kib("MemTotal:       24668924 kB\nMemFree: 1 kB\n", "MemTotal",
                                 &kib) == 0);
    CHECK(kib == 24668924);
    CHECK(host_parse_meminfo_kib("MemTotalX: 5 kB\n", "MemTotal", &kib) == -ENOENT);
    char b[64];
    CHECK(host_parse_cpu_model("processor\t: 0\nmodel name\t: Some CPU  \n", b, sizeof b));
    CHECK_STR(b, "Some CPU");
    CHECK(host_parse_cpu_model("Processor\t: ARMv7 Processor rev 4 (v7l)\n", b, sizeof b));
    CHECK_STR(b, "ARMv7 Processor rev 4 (v7l)");
    CHECK(!host_parse_cpu_model("processor\t: 0\n", b, sizeof b));
    time_t bt = 0;
    CHECK(host_parse_btime("cpu 1 2\nbtime 1700000000\n", &bt) == 0);
    CHECK(bt == 1700000000);
    CHECK(host_parse_btime("cpu 1 2\n", &bt) == -ENOENT);
}

/* Probe + host collector against one fixture tree, as the pipeline does. */
static struct report *collect_tree(const char *tree)
{
    char rel[256];
    snprintf(rel, sizeof rel, "host/%s", tree);
    hostfs_set_root(fixture(rel));
    struct options o;
    options_defaults(&o);
    struct host_caps caps;
    struct report *r = report_new();
    probe_host(&caps, &o, r);
    struct collect_ctx ctx = {.r = r, .cfg = &(struct collect_config){0}, .caps = &caps};
    void *state = (void *)1;
    char err[128] = "";
    if (collector_host.start(&ctx, &state, err, sizeof err) != 0 ||
        collector_host.stop(&ctx, state, err, sizeof err) != 0) {
        report_free(r);
        return NULL;
    }
    return state == NULL ? r : (report_free(r), (struct report *)NULL);
}

TEST(host_collector_debian12_hybrid)
{
    struct report *r = collect_tree("debian12-hybrid");
    REQUIRE(r);
    CHECK_STR(kv_get(&r->host, "hostname"), "vm");
    CHECK_STR(kv_get(&r->host, "kernel"), "6.18.44-fc-v669");
    CHECK_STR(kv_get(&r->host, "kernel_build"), "#1 SMP PREEMPT_DYNAMIC @0");
    CHECK_STR(kv_get(&r->host, "os"), "Debian GNU/Linux 12 (bookworm)");
    CHECK_STR(kv_get(&r->host, "arch"), "x86_64");
    CHECK_STR(kv_get(&r->host, "cpu_model"), "Intel(R) Xeon(R) Processor");
    /* numbers stay numbers (report.json); the renderers format them */
    CHECK_NUM(kv_num(&r->host, "cpus"), 2, 0);
    CHECK(kv_get(&r->host, "cpus") == NULL);
    CHECK_NUM(kv_num(&r->host, "numa_nodes"), 1, 0);
    CHECK_STR(kv_get(&r->host, "governor"), "n/a");
    CHECK_NUM(kv_num(&r->host, "mem_total_kib"), 24684084, 0);
    CHECK_NUM(kv_num(&r->host, "uptime_s"), 669.23, 1e-9);
    CHECK_STR(kv_get(&r->host, "boot_time"), "2026-11-21 11:00:30 UTC");
    CHECK_STR(kv_get(&r->host, "virt"), "vm (unknown hypervisor)");
    CHECK_STR(kv_get(&r->host, "container"), "possibly docker (/.dockerenv; root is ext4)");
    /* Display order is the NAMES.md order. */
    static const char *const order[] = {"hostname", "kernel", "kernel_build", "os", "arch", "cpu_model",
                                        "cpus", "numa_nodes", "governor", "mem_total_kib",
                                        "uptime_s", "virt", "container", "boot_time"};
    REQUIRE(r->host.n == sizeof order / sizeof order[0]);
    for (size_t i = 0; i < r->host.n; i++)
        CHECK_STR(r->host.v[i].key, order[i]);
    report_free(r);
}

TEST(host_collector_v2_only)
{
    struct report *r = collect_tree("v2-only");
    REQUIRE(r);
    CHECK_STR(kv_get(&r->host, "hostname"), "ci-runner-7");
    CHECK_STR(kv_get(&r->host, "os"), "Example \"Linux\" 24.04 \\ LTS");
    CHECK_STR(kv_get(&r->host, "cpu_model"), "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz");
    CHECK_NUM(kv_num(&r->host, "cpus"), 7, 0);
    CHECK_NUM(kv_num(&r->host, "numa_nodes"), 2, 0);
    CHECK_STR(kv_get(&r->host, "governor"), "performance");
    CHECK_NUM(kv_num(&r->host, "mem_total_kib"), 263839744, 0);
    CHECK_NUM(kv_num(&r->host, "uptime_s"), 273906.12, 1e-6);
    CHECK_STR(kv_get(&r->host, "boot_time"), "2023-11-14 22:13:20 UTC");
    CHECK_STR(kv_get(&r->host, "virt"), "none");
    CHECK_STR(kv_get(&r->host, "container"), "docker");
    report_free(r);
}

TEST(host_collector_v1_only)
{
    struct report *r = collect_tree("v1-only");
    REQUIRE(r);
    CHECK_STR(kv_get(&r->host, "kernel"), "3.10.0-1160.el7.x86_64");
    CHECK_STR(kv_get(&r->host, "kernel_build"), "#1 SMP Mon Oct 19 16:18:59 UTC 2020");
    CHECK_STR(kv_get(&r->host, "os"), "CentOS Linux 7 (Core)"); /* /usr/lib fallback */
    CHECK_STR(kv_get(&r->host, "arch"), "n/a");                 /* no kernel.arch on 3.10 */
    CHECK_NUM(kv_num(&r->host, "cpus"), 1, 0);
    CHECK(isnan(kv_num(&r->host, "numa_nodes"))); /* kernel without NUMA */
    CHECK_STR(kv_get(&r->host, "governor"), "powersave");
    CHECK_NUM(kv_num(&r->host, "mem_total_kib"), 524288, 0);
    CHECK_NUM(kv_num(&r->host, "uptime_s"), 59.99, 1e-9);
    CHECK_STR(kv_get(&r->host, "boot_time"), "n/a"); /* no btime, and no "now" in a fixture */
    CHECK_STR(kv_get(&r->host, "virt"), "xen");
    CHECK_STR(kv_get(&r->host, "container"), "lxc");
    report_free(r);
}

TEST(host_collector_minimal_tree_never_fails)
{
    struct report *r = collect_tree("minimal");
    REQUIRE(r);
    CHECK(r->host.n == 14);
    CHECK_STR(kv_get(&r->host, "hostname"), "n/a");
    CHECK_STR(kv_get(&r->host, "os"), "n/a");
    CHECK(isnan(kv_num(&r->host, "cpus")));
    CHECK(isnan(kv_num(&r->host, "mem_total_kib")));
    CHECK_NUM(kv_num(&r->host, "uptime_s"), 3600, 0);
    CHECK_STR(kv_get(&r->host, "container"), "none");
    report_free(r);
}

TEST(host_collector_real_host)
{
    struct options o;
    options_defaults(&o);
    o.no_bpf = true;
    struct host_caps caps;
    struct report *r = report_new();
    probe_host(&caps, &o, r);
    struct collect_ctx ctx = {.r = r, .cfg = &(struct collect_config){0}, .caps = &caps};
    void *state = NULL;
    char err[128] = "";
    CHECK(collector_host.start(&ctx, &state, err, sizeof err) == 0);
    CHECK(collector_host.tick == NULL);
    CHECK_STR(collector_host.name, "host");
    char hn[256];
    REQUIRE(gethostname(hn, sizeof hn) == 0);
    CHECK_STR(kv_get(&r->host, "hostname"), hn);
    CHECK_NUM(kv_num(&r->host, "cpus"), (double)sysconf(_SC_NPROCESSORS_ONLN), 0);
    CHECK(strcmp(kv_get(&r->host, "boot_time"), "n/a") != 0);
    CHECK(r->host.n == 14);
    report_free(r);
}
