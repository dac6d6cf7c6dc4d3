/* Host facts and capability-probe parsers (src/collect/host.h,
 * src/probe_parse.h). */
#include "fuzz.h"
#include "collect/host.h"
#include "run/probe_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    char out[256];
    uint64_t u;
    double d;
    time_t t;

    host_parse_range_count(text);
    if (host_parse_os_release(text, out, sizeof out))
        FUZZ_ASSERT(strlen(out) < sizeof out);
    if (host_parse_cpu_model(text, out, sizeof out))
        FUZZ_ASSERT(strlen(out) < sizeof out);
    host_parse_meminfo_kib(text, "MemTotal", &u);
    host_parse_uptime(text, &d);
    host_parse_btime(text, &t);
    /* Small buffers: truncation paths. */
    host_parse_os_release(text, out, 4);
    host_parse_cpu_model(text, out, 1);

    probe_parse_capeff(text, &u);
    const char *cur = text;
    struct mountinfo_entry e;
    size_t guard = 0;
    while (mountinfo_next(&cur, &e)) {
        FUZZ_ASSERT(++guard <= size + 1); /* always advances */
        FUZZ_ASSERT(strlen(e.mountpoint) < sizeof e.mountpoint);
    }
    char v2root[128];
    probe_parse_cgroup_mode(text, v2root, sizeof v2root);
    probe_root_fstype(text, out, sizeof out);
    probe_cpuinfo_has_flag(text, "hypervisor");
    probe_parse_sched_pid(text);

    struct virt_facts vf = {text, text, text, text, true};
    probe_classify_virt(&vf, out, sizeof out);
    struct container_facts cf = {false, false, text, text, probe_parse_sched_pid(text)};
    probe_classify_container(&cf, out, sizeof out);
    FUZZ_ASSERT(strlen(out) < sizeof out);
    free(text);
    return 0;
}
