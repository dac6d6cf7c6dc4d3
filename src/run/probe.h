/* What this host allows, decided once before the window (design section 4,
 * "probe").  Collectors' can_run() read this instead of probing again. */
#ifndef PERFREPORT_PROBE_H
#define PERFREPORT_PROBE_H
#include <stdbool.h>

enum cgroup_mode { CGROUP_NONE = 0, CGROUP_V1, CGROUP_V2, CGROUP_HYBRID };
const char *cgroup_mode_name(enum cgroup_mode m);

struct host_caps {
    bool is_root;        /* euid 0 */
    bool cap_bpf;        /* CAP_BPF or CAP_SYS_ADMIN effective */
    bool cap_perfmon;    /* CAP_PERFMON or CAP_SYS_ADMIN effective */
    bool btf;            /* /sys/kernel/btf/vmlinux */
    bool tracefs;        /* tracefs mounted with events/ */
    bool psi;            /* /proc/pressure/cpu readable */
    bool pmu;            /* a hardware cycles event opens */
    int perf_event_paranoid;
    enum cgroup_mode cgroup_mode;
    char cgroup_v2_root[256]; /* "/sys/fs/cgroup" or "/sys/fs/cgroup/unified"; "" if none */
    bool bpf_ok;         /* our probe BPF program loaded and attached */
    char bpf_reason[256]; /* why not, when !bpf_ok */
    char virt[64];       /* "kvm", "none", ... */
    char container[64];  /* "docker", "lxc", "none" ... */
};

struct report;
struct options;
/* Fills caps and records them in r->caps. */
void probe_host(struct host_caps *caps, const struct options *opt, struct report *r);
#endif
