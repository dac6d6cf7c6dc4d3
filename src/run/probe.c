/* The capability probe: decides once, before the window, what this host
 * lets us do, and records every answer (with its reason) in r->caps. */
#include "probe.h"
#include "../model/model.h"
#include "options.h"
#include "probe.skel.h"
#include "probe_parse.h"
#include "priority.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

const char *cgroup_mode_name(enum cgroup_mode m)
{
    switch (m) {
    case CGROUP_V1: return "v1";
    case CGROUP_V2: return "v2";
    case CGROUP_HYBRID: return "hybrid";
    case CGROUP_NONE: break;
    }
    return "none";
}

/* libbpf logs through this for the whole run (the BPF collectors use the
 * same library after us): silent unless -v, debug chatter only with -vv.
 * The last warning is kept so a failed load can say why. */
static int g_libbpf_verbose;
static char g_libbpf_last_warn[160];

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
    if (level == LIBBPF_WARN) {
        va_list cp;
        va_copy(cp, ap);
        vsnprintf(g_libbpf_last_warn, sizeof g_libbpf_last_warn, fmt, cp);
        va_end(cp);
        g_libbpf_last_warn[strcspn(g_libbpf_last_warn, "\n")] = '\0';
    }
    if (g_libbpf_verbose < 1 || (level == LIBBPF_DEBUG && g_libbpf_verbose < 2))
        return 0;
    return vfprintf(stderr, fmt, ap);
}

static void yes_no(struct report *r, const char *key, const char *title, bool ok,
                   const char *why_yes, const char *why_no)
{
    if (!r)
        return;
    if (ok)
        kv_addf(&r->caps, key, title, why_yes && *why_yes ? "yes (%s)" : "yes%s",
                why_yes ? why_yes : "");
    else
        kv_addf(&r->caps, key, title, why_no && *why_no ? "no (%s)" : "no%s",
                why_no ? why_no : "");
}

static bool has_cap(uint64_t mask, int cap) { return (mask >> cap) & 1u; }

/* tracefs with an events/ directory, where libbpf finds tracepoint ids. */
static bool find_tracefs(void)
{
    return hostfs_is_dir("/sys/kernel/tracing/events") ||
           hostfs_is_dir("/sys/kernel/debug/tracing/events");
}

/* Classic tracepoints need tracefs to resolve their ids, and some hosts
 * (minimal VMs, containers) boot without it mounted.  Mount it in a private
 * mount namespace of our own so the host's mount table is left untouched;
 * mounts made later on the host still propagate to us (slave).  This only
 * works while we are single-threaded, which the probe is. */
static int mount_tracefs_privately(void)
{
    if (unshare(CLONE_NEWNS) != 0)
        return -errno;
    if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0)
        return -errno;
    if (mount("tracefs", "/sys/kernel/tracing", "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              NULL) != 0)
        return -errno;
    return 0;
}

static void probe_pmu(struct host_caps *caps, char *why, size_t n)
{
    if (!hostfs_is_real()) {
        snprintf(why, n, "not probed: --root points at a captured tree");
        return;
    }
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HARDWARE;
    a.config = PERF_COUNT_HW_CPU_CYCLES;
    a.disabled = 1;
    /* User-only counting is what paranoid <= 2 allows without privilege. */
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd >= 0) {
        close((int)fd);
        caps->pmu = true;
        return;
    }
    int e = errno;
    if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV || e == EINVAL)
        snprintf(why, n, "no hardware PMU; profiles use cpu-clock");
    else if (e == EACCES || e == EPERM)
        snprintf(why, n, "not permitted (perf_event_paranoid=%d); profiles use cpu-clock",
                 caps->perf_event_paranoid);
    else
        snprintf(why, n, "cycles event: %s; profiles use cpu-clock", strerror(e));
}

/* Sum of the per-CPU sched_switch counter. */
static int read_switches(struct probe_bpf *skel, uint64_t *sum)
{
    int ncpu = libbpf_num_possible_cpus();
    if (ncpu <= 0)
        return ncpu < 0 ? ncpu : -EINVAL;
    uint64_t *vals = xcalloc((size_t)ncpu, sizeof *vals);
    uint32_t key = 0;
    int rc = bpf_map__lookup_elem(skel->maps.switches, &key, sizeof key, vals,
                                  (size_t)ncpu * sizeof *vals, 0);
    *sum = 0;
    for (int i = 0; rc == 0 && i < ncpu; i++)
        *sum += vals[i];
    free(vals);
    return rc;
}

/* Loads, attaches and exercises the probe program.  true when it counted
 * at least one context switch; otherwise why says what broke. */
static bool probe_bpf_program(bool tracefs, char *why, size_t n)
{
    char err[128];
    g_libbpf_last_warn[0] = '\0';
    struct probe_bpf *skel = probe_bpf__open_and_load();
    if (!skel) {
        int e = errno;
        libbpf_strerror(e, err, sizeof err);
        if (g_libbpf_last_warn[0])
            snprintf(why, n, "BPF load failed: %.60s (%.150s)", err, g_libbpf_last_warn);
        else
            snprintf(why, n, "BPF load failed: %s", err);
        return false;
    }
    int rc = probe_bpf__attach(skel);
    if (rc) {
        libbpf_strerror(rc, err, sizeof err);
        snprintf(why, n, "BPF attach of tracepoint sched/sched_switch failed: %s%s", err,
                 tracefs ? "" : " (tracefs is not mounted)");
        probe_bpf__destroy(skel);
        return false;
    }
    /* Sleeping switches this CPU to another task (or idle), which fires
     * sched_switch; give it up to ~100 ms on a very busy host. */
    uint64_t sum = 0;
    for (int i = 0; i < 100 && rc == 0 && sum == 0; i++) {
        sched_yield();
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
        rc = read_switches(skel, &sum);
    }
    probe_bpf__destroy(skel);
    if (rc) {
        libbpf_strerror(rc, err, sizeof err);
        snprintf(why, n, "BPF map read failed: %s", err);
        return false;
    }
    if (sum == 0) {
        snprintf(why, n, "BPF program attached but sched_switch never fired");
        return false;
    }
    return true;
}

static void read_text(const char *path, struct strbuf *sb)
{
    if (hostfs_read(path, sb, 1u << 20) != 0)
        sb_reset(sb);
}

static void cpuid_hypervisor(char *out, size_t n)
{
    out[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    __cpuid(1, a, b, c, d);
    if (!(c & (1u << 31))) /* the hypervisor-present bit */
        return;
    __cpuid(0x40000000, a, b, c, d);
    char sig[13];
    memcpy(sig, &b, 4);
    memcpy(sig + 4, &c, 4);
    memcpy(sig + 8, &d, 4);
    sig[12] = '\0';
    snprintf(out, n, "%s", sig);
#else
    (void)n;
#endif
}

static void probe_virt(struct host_caps *caps, const char *cpuinfo)
{
    char vendor[128], product[128], hyp[64], sig[16] = "";
    hostfs_read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof vendor);
    hostfs_read_line("/sys/class/dmi/id/product_name", product, sizeof product);
    hostfs_read_line("/sys/hypervisor/type", hyp, sizeof hyp);
    if (hostfs_is_real())
        cpuid_hypervisor(sig, sizeof sig);
    struct virt_facts f = {
        .sys_vendor = vendor,
        .product_name = product,
        .hypervisor_type = hyp,
        .cpuid_vendor = sig,
        .hypervisor_flag = probe_cpuinfo_has_flag(cpuinfo, "hypervisor"),
    };
    probe_classify_virt(&f, caps->virt, sizeof caps->virt);
}

static void probe_container(struct host_caps *caps, const char *mountinfo)
{
    struct strbuf cg = STRBUF_INIT;
    char fstype[64], sched[256];
    read_text("/proc/1/cgroup", &cg);
    probe_root_fstype(mountinfo, fstype, sizeof fstype);
    long pid = -1;
    if (hostfs_read_line("/proc/1/sched", sched, sizeof sched) == 0)
        pid = probe_parse_sched_pid(sched);
    struct container_facts f = {
        .dockerenv = hostfs_exists("/.dockerenv"),
        .containerenv = hostfs_exists("/run/.containerenv"),
        .pid1_cgroup = sb_str(&cg),
        .root_fstype = fstype,
        .pid1_sched_pid = pid,
    };
    probe_classify_container(&f, caps->container, sizeof caps->container);
    sb_free(&cg);
}

static const char *paranoid_meaning(int p)
{
    if (p <= -1)
        return "no restrictions";
    if (p == 0)
        return "no raw tracepoints for users";
    if (p == 1)
        return "users: no kernel profiling";
    if (p == 2)
        return "users: user-space only";
    return "users: no perf events";
}

void probe_host(struct host_caps *caps, const struct options *opt, struct report *r)
{
    memset(caps, 0, sizeof *caps);
    /* The probe is the start's first stage: from here until the window
     * opens, and again after it, run at the invoking priority or better. */
    if (hostfs_is_real())
        prio_raise_for_start(r);
    bool no_bpf = opt && opt->no_bpf;
    g_libbpf_verbose = opt ? opt->verbose : 0;
    libbpf_set_print(libbpf_log);

    struct strbuf sb = STRBUF_INIT, mountinfo = STRBUF_INIT, cpuinfo = STRBUF_INIT;
    char why[256];

    caps->is_root = geteuid() == 0;
    if (r)
        kv_addf(&r->caps, "root", "Running as root", caps->is_root ? "yes" : "no (euid %u)",
                (unsigned)geteuid());

    uint64_t capeff = 0;
    bool capeff_known = false;
    if (hostfs_read("/proc/self/status", &sb, 0) == 0 &&
        probe_parse_capeff(sb_str(&sb), &capeff) == 0)
        capeff_known = true;
    else if (caps->is_root)
        capeff = ~0ull; /* no status to read: assume root has everything */
    bool sys_admin = has_cap(capeff, PROBE_CAP_SYS_ADMIN);
    caps->cap_bpf = sys_admin || has_cap(capeff, PROBE_CAP_BPF);
    caps->cap_perfmon = sys_admin || has_cap(capeff, PROBE_CAP_PERFMON);
    const char *capsrc = capeff_known ? "" : "assumed for root; CapEff unreadable";
    yes_no(r, "cap_bpf", "CAP_BPF effective", caps->cap_bpf,
           has_cap(capeff, PROBE_CAP_BPF) ? capsrc : "via CAP_SYS_ADMIN",
           capeff_known ? "" : "CapEff unreadable");
    yes_no(r, "cap_perfmon", "CAP_PERFMON effective", caps->cap_perfmon,
           has_cap(capeff, PROBE_CAP_PERFMON) ? capsrc : "via CAP_SYS_ADMIN",
           capeff_known ? "" : "CapEff unreadable");

    caps->btf = hostfs_exists("/sys/kernel/btf/vmlinux");
    yes_no(r, "btf", "Kernel BTF", caps->btf, "/sys/kernel/btf/vmlinux",
           "no /sys/kernel/btf/vmlinux; CO-RE programs cannot load");

    caps->tracefs = find_tracefs();
    const char *tracefs_yes = "";
    char tracefs_no[160] = "not mounted at /sys/kernel/tracing or /sys/kernel/debug/tracing";
    if (!caps->tracefs && hostfs_is_real() && !no_bpf && sys_admin) {
        int rc = mount_tracefs_privately();
        caps->tracefs = rc == 0 && find_tracefs();
        if (caps->tracefs)
            tracefs_yes = "mounted at /sys/kernel/tracing for this run only";
        else
            snprintf(tracefs_no, sizeof tracefs_no,
                     "not mounted, and mounting it privately failed: %s",
                     strerror(rc < 0 ? -rc : ENOENT));
    }
    yes_no(r, "tracefs", "tracefs", caps->tracefs, tracefs_yes, tracefs_no);

    int rc = hostfs_read("/proc/pressure/cpu", &sb, 0);
    caps->psi = rc == 0 && strncmp(sb_str(&sb), "some ", 5) == 0;
    snprintf(why, sizeof why, "/proc/pressure/cpu: %s",
             rc ? strerror(-rc) : "unexpected content");
    yes_no(r, "psi", "Pressure stall information", caps->psi, "", why);

    read_text("/proc/self/mountinfo", &mountinfo);
    caps->cgroup_mode = probe_parse_cgroup_mode(sb_str(&mountinfo), caps->cgroup_v2_root,
                                                sizeof caps->cgroup_v2_root);
    if (r) {
        if (caps->cgroup_v2_root[0])
            kv_addf(&r->caps, "cgroup_mode", "cgroup mode", "%s (v2 at %s)",
                    cgroup_mode_name(caps->cgroup_mode), caps->cgroup_v2_root);
        else
            kv_add(&r->caps, "cgroup_mode", "cgroup mode", cgroup_mode_name(caps->cgroup_mode));
    }

    int64_t paranoid = 2; /* the kernel default when the file is missing */
    rc = hostfs_read_i64("/proc/sys/kernel/perf_event_paranoid", &paranoid);
    caps->perf_event_paranoid = (int)paranoid;
    if (r) {
        if (rc == 0)
            kv_addf(&r->caps, "perf_event_paranoid", "perf_event_paranoid", "%d (%s)",
                    caps->perf_event_paranoid, paranoid_meaning(caps->perf_event_paranoid));
        else
            kv_addf(&r->caps, "perf_event_paranoid", "perf_event_paranoid",
                    "unknown (%s)", strerror(-rc));
    }

    why[0] = '\0';
    probe_pmu(caps, why, sizeof why);
    yes_no(r, "pmu", "Hardware PMU (cycles)", caps->pmu, "", why);

    read_text("/proc/cpuinfo", &cpuinfo);
    probe_virt(caps, sb_str(&cpuinfo));
    probe_container(caps, sb_str(&mountinfo));

    if (no_bpf)
        snprintf(caps->bpf_reason, sizeof caps->bpf_reason, "BPF disabled by --no-bpf");
    else if (!hostfs_is_real())
        snprintf(caps->bpf_reason, sizeof caps->bpf_reason,
                 "not probed: --root points at a captured tree");
    else if (!caps->cap_bpf || !caps->cap_perfmon)
        snprintf(caps->bpf_reason, sizeof caps->bpf_reason, "%s",
                 caps->is_root ? "root without CAP_BPF+CAP_PERFMON (capabilities dropped)"
                               : LEDGER_NOT_ROOT ": BPF needs CAP_BPF+CAP_PERFMON");
    else if (!caps->btf) /* every collector's object has CO-RE relocations */
        snprintf(caps->bpf_reason, sizeof caps->bpf_reason,
                 "no kernel BTF (/sys/kernel/btf/vmlinux): the CO-RE programs cannot load");
    else
        caps->bpf_ok = probe_bpf_program(caps->tracefs, caps->bpf_reason, sizeof caps->bpf_reason);
    yes_no(r, "bpf", "BPF (tracepoint probe)", caps->bpf_ok,
           "sched_switch tracepoint program loaded, attached and fired", caps->bpf_reason);

    sb_free(&sb);
    sb_free(&mountinfo);
    sb_free(&cpuinfo);
}
