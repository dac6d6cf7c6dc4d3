#include "probe_parse.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int probe_parse_capeff(const char *status, uint64_t *capeff)
{
    for (const char *p = status; p && *p;) {
        if (strncmp(p, "CapEff:", 7) == 0) {
            p += 7;
            while (*p == ' ' || *p == '\t')
                p++;
            char *end;
            errno = 0;
            unsigned long long v = strtoull(p, &end, 16);
            if (errno || end == p || (*end && *end != '\n' && !isspace((unsigned char)*end)))
                return -EINVAL;
            *capeff = v;
            return 0;
        }
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : NULL;
    }
    return -EINVAL;
}

/* Whether a v1 cgroup mount carries a resource controller (as opposed to a
 * named hierarchy such as name=systemd, which controls nothing). */
static bool has_v1_controller(const char *superopts)
{
    static const char *const ctrls[] = {
        "cpu", "cpuacct", "cpuset", "memory", "blkio", "devices", "freezer",
        "net_cls", "net_prio", "perf_event", "hugetlb", "pids", "rdma", "misc", NULL,
    };
    const char *p = superopts;
    while (*p) {
        size_t l = strcspn(p, ",");
        for (size_t i = 0; ctrls[i]; i++)
            if (strlen(ctrls[i]) == l && strncmp(p, ctrls[i], l) == 0)
                return true;
        p += l;
        if (*p == ',')
            p++;
    }
    return false;
}

enum cgroup_mode probe_parse_cgroup_mode(const char *mountinfo, char *v2root, size_t n)
{
    bool v1 = false;
    int v2_rank = 0; /* 3 /sys/fs/cgroup, 2 .../unified, 1 anywhere else */
    char best[256] = "";
    const char *cur = mountinfo ? mountinfo : "";
    struct mountinfo_entry e;
    while (mountinfo_next(&cur, &e)) {
        if (strcmp(e.fstype, "cgroup") == 0 && has_v1_controller(e.superopts)) {
            v1 = true;
        } else if (strcmp(e.fstype, "cgroup2") == 0) {
            int rank = strcmp(e.mountpoint, "/sys/fs/cgroup") == 0           ? 3
                       : strcmp(e.mountpoint, "/sys/fs/cgroup/unified") == 0 ? 2
                                                                             : 1;
            if (rank > v2_rank) {
                v2_rank = rank;
                snprintf(best, sizeof best, "%s", e.mountpoint);
            }
        }
    }
    if (n)
        snprintf(v2root, n, "%s", v2_rank ? best : "");
    /* v1 controllers next to a cgroup2 mount is systemd's "hybrid" layout,
     * wherever the cgroup2 tree sits: the controllers live in v1 either way. */
    if (v1 && v2_rank)
        return CGROUP_HYBRID;
    if (v1)
        return CGROUP_V1;
    if (v2_rank)
        return CGROUP_V2;
    return CGROUP_NONE;
}

void probe_root_fstype(const char *mountinfo, char *out, size_t n)
{
    const char *cur = mountinfo ? mountinfo : "";
    struct mountinfo_entry e;
    if (n)
        out[0] = '\0';
    /* The last mount on "/" is the one visible. */
    while (mountinfo_next(&cur, &e))
        if (strcmp(e.mountpoint, "/") == 0)
            snprintf(out, n, "%s", e.fstype);
}

bool probe_cpuinfo_has_flag(const char *cpuinfo, const char *flag)
{
    size_t fl = strlen(flag);
    for (const char *p = cpuinfo; p && *p;) {
        const char *eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        if (strncmp(p, "flags", 5) == 0) {
            const char *colon = memchr(p, ':', (size_t)(eol - p));
            for (const char *w = colon ? colon + 1 : eol; w < eol;) {
                while (w < eol && isspace((unsigned char)*w))
                    w++;
                const char *we = w;
                while (we < eol && !isspace((unsigned char)*we))
                    we++;
                if ((size_t)(we - w) == fl && strncmp(w, flag, fl) == 0)
                    return true;
                w = we;
            }
            return false; /* every CPU lists the same flags */
        }
        p = *eol ? eol + 1 : eol;
    }
    return false;
}

static bool has(const char *s, const char *needle) { return s && strstr(s, needle); }

void probe_classify_virt(const struct virt_facts *f, char *out, size_t n)
{
    static const struct {
        const char *sig, *name;
    } cpuid_names[] = {
        {"KVMKVMKVM", "kvm"},       {"Microsoft Hv", "microsoft"}, {"VMwareVMware", "vmware"},
        {"XenVMMXenVMM", "xen"},    {"TCGTCGTCGTCG", "qemu"},      {"VBoxVBoxVBox", "oracle"},
        {"ACRNACRNACRN", "acrn"},   {"bhyve bhyve ", "bhyve"},     {"QNXQVMBSQG", "qnx"},
        {NULL, NULL},
    };
    static const struct {
        const char *vendor_substr, *name;
    } dmi_names[] = {
        {"QEMU", "qemu"},       {"VMware", "vmware"},        {"innotek", "oracle"},
        {"VirtualBox", "oracle"}, {"Xen", "xen"},             {"Amazon EC2", "amazon"},
        {"Google", "google"},   {"Parallels", "parallels"},  {"Bochs", "bochs"},
        {"KVM", "kvm"},         {"OpenStack", "kvm"},        {NULL, NULL},
    };
    const char *name = NULL;
    /* CPUID is the hypervisor speaking for itself; trust it first. */
    for (size_t i = 0; !name && f->cpuid_vendor && cpuid_names[i].sig; i++)
        if (strcmp(f->cpuid_vendor, cpuid_names[i].sig) == 0)
            name = cpuid_names[i].name;
    if (!name && f->hypervisor_type && *f->hypervisor_type)
        name = has(f->hypervisor_type, "xen") ? "xen" : NULL;
    if (!name && has(f->sys_vendor, "Microsoft") && has(f->product_name, "Virtual Machine"))
        name = "microsoft";
    for (size_t i = 0; !name && dmi_names[i].vendor_substr; i++)
        if (has(f->sys_vendor, dmi_names[i].vendor_substr) ||
            has(f->product_name, dmi_names[i].vendor_substr))
            name = dmi_names[i].name;
    if (!name && (f->hypervisor_flag || (f->cpuid_vendor && *f->cpuid_vendor)))
        name = "vm (unknown hypervisor)";
    snprintf(out, n, "%s", name ? name : "none");
}

/* First runtime named by a path in /proc/1/cgroup. */
static const char *runtime_from_cgroup(const char *text)
{
    if (!text)
        return NULL;
    if (strstr(text, "kubepods"))
        return "kubernetes";
    if (strstr(text, "/docker/") || strstr(text, "/docker-"))
        return "docker";
    if (strstr(text, "libpod"))
        return "podman";
    if (strstr(text, "/lxc/") || strstr(text, "/lxc.payload"))
        return "lxc";
    if (strstr(text, "containerd"))
        return "containerd";
    return NULL;
}

void probe_classify_container(const struct container_facts *f, char *out, size_t n)
{
    const char *rt = runtime_from_cgroup(f->pid1_cgroup);
    bool overlay = f->root_fstype && strcmp(f->root_fstype, "overlay") == 0;
    if (rt)
        snprintf(out, n, "%s", rt);
    else if (f->containerenv)
        snprintf(out, n, "podman");
    else if (f->dockerenv && overlay)
        snprintf(out, n, "docker");
    else if (f->dockerenv)
        /* Docker writes /.dockerenv at run time, but it also survives in
         * images exported from containers (VM root file systems built that
         * way); an overlay root would confirm it, a block device does not. */
        snprintf(out, n, "possibly docker (/.dockerenv; root is %s)",
                 f->root_fstype && *f->root_fstype ? f->root_fstype : "unknown");
    else if (f->pid1_sched_pid > 1)
        snprintf(out, n, "container (PID 1 is pid %ld outside)", f->pid1_sched_pid);
    else if (overlay)
        snprintf(out, n, "possibly (overlay root)");
    else
        snprintf(out, n, "none");
}

long probe_parse_sched_pid(const char *first_line)
{
    if (!first_line)
        return -1;
    /* comm may itself contain " (", so take the last one. */
    const char *p = NULL;
    for (const char *s = first_line; (s = strstr(s, " (")); s++)
        p = s;
    if (!p)
        return -1;
    char *end;
    errno = 0;
    long pid = strtol(p + 2, &end, 10);
    if (errno || end == p + 2 || *end != ',' || pid < 0)
        return -1;
    return pid;
}
