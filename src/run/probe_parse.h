/* Pure parsers and classifiers behind probe_host(), exposed so unit tests
 * can run them on fixture text.  None of them touches the file system. */
#ifndef PERFREPORT_PROBE_PARSE_H
#define PERFREPORT_PROBE_PARSE_H
#include "../collect/collector.h" /* enum cgroup_mode */
#include "../util/proc_parse.h" /* mountinfo_next */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Capability numbers we care about (linux/capability.h). */
#define PROBE_CAP_SYS_ADMIN 21
#define PROBE_CAP_PERFMON 38
#define PROBE_CAP_BPF 39

/* The CapEff mask of a /proc/PID/status text.  0 or -EINVAL. */
int probe_parse_capeff(const char *status, uint64_t *capeff);

/* cgroup mode from mountinfo text: v1 controller mounts and/or a cgroup2
 * mount.  Writes the chosen cgroup2 mount point (or "") to v2root. */
enum cgroup_mode probe_parse_cgroup_mode(const char *mountinfo, char *v2root, size_t n);

/* The file system type mounted at "/" ("" when none is listed). */
void probe_root_fstype(const char *mountinfo, char *out, size_t n);

/* Whether a "flags" line of /proc/cpuinfo lists this flag (whole word). */
bool probe_cpuinfo_has_flag(const char *cpuinfo, const char *flag);

/* Facts gathered for the virtualisation guess; NULL/"" = unknown. */
struct virt_facts {
    const char *sys_vendor;      /* /sys/class/dmi/id/sys_vendor */
    const char *product_name;    /* /sys/class/dmi/id/product_name */
    const char *hypervisor_type; /* /sys/hypervisor/type */
    const char *cpuid_vendor;    /* CPUID leaf 0x40000000 signature (real host, x86) */
    bool hypervisor_flag;        /* "hypervisor" in /proc/cpuinfo flags */
};
/* "kvm", "vmware", "xen", ... "vm (unknown hypervisor)" or "none". */
void probe_classify_virt(const struct virt_facts *f, char *out, size_t n);

struct container_facts {
    bool dockerenv;          /* /.dockerenv exists */
    bool containerenv;       /* /run/.containerenv exists */
    const char *pid1_cgroup; /* /proc/1/cgroup text */
    const char *root_fstype; /* fs type mounted at / */
    long pid1_sched_pid;     /* pid printed in /proc/1/sched's first line; -1 unknown */
};
/* "docker", "podman", "lxc", "kubernetes", "none", or a hedged guess
 * ("possibly docker (...)") when the signals disagree. */
void probe_classify_container(const struct container_facts *f, char *out, size_t n);

/* The pid in "comm (PID, #threads: N)"; -1 when it does not parse. */
long probe_parse_sched_pid(const char *first_line);
#endif
