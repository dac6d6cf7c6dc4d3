/* The one collector interface.  Every collector, /proc or BPF, is a row in
 * the registry (registry.c) and goes through the same life cycle inside the
 * single capture window:
 *
 *   can_run  (plan)   - may it run on this host?  If not, why (shown in report)
 *   start    (t = 0)  - allocate state, attach, take the first reading
 *   begin    (t = 0)  - optional: start recording (flip a switch); runs for
 *                       all collectors after every start, so one collector's
 *                       load (verifier, BTF) is not recorded by another
 *   tick     (every interval) - sample; may set values of the current tick
 *   end      (end)    - optional: stop recording at once (flip a flag); every
 *                       collector's end runs before any stop, so no drain is
 *                       recorded by a collector that has not stopped yet
 *   stop     (end)    - final reading / drain maps, write aggregates into model
 *   destroy           - free state (also called after a failed start)
 *
 * Collectors only write into the model; they never format output.
 */
#ifndef PERFREPORT_COLLECTOR_H
#define PERFREPORT_COLLECTOR_H
#include "util/clock.h"
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct report;
/* What this host allows, decided once before the window by the probe
 * (run/probe.c); can_run() reads it instead of probing again. */
enum cgroup_mode { CGROUP_NONE = 0, CGROUP_V1, CGROUP_V2, CGROUP_HYBRID };

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

/* What the run tells its collectors: the scope and the few settings that
 * change what they record.  The runner fills it from the command line;
 * collectors never see the options.  Zero is a whole-host run that redacts
 * and counts every off-CPU wait. */
struct collect_config {
    pid_t pid;              /* -p: only this process; 0 = the whole host */
    /* A target made of several processes (a command's tree), for the
     * collectors that follow each process by pid (alloc); NULL/0 = none.
     * Borrowed from the runner for the run. */
    const pid_t *pids;
    size_t npids;
    const char *cgroup;     /* -c: only this cgroup (under the v2 root); NULL = the whole host */
    const char *target;     /* the scope in words for notes ("pid 42"); NULL = not filtered */
    int hz;                 /* -F: on-CPU samples per second; <= 0: 49 */
    double window_s;        /* -d: the window's planned length; <= 0: unknown */
    double interval_s;      /* -i: seconds between ticks; <= 0: 1 */
    unsigned min_block_us;  /* --min-block-us: shortest off-CPU wait counted */
    bool keep_secrets;      /* --no-redact: command lines as they are */
    bool follow_children;   /* with pid: its descendants too (`perfreport -- CMD`;
                             * the on-CPU profile) */
};

struct collect_ctx {
    /* The collector's own staging report: it writes there and reads back
     * only what it wrote (the runner merges it into the run's report). */
    struct report *r;
    const struct collect_config *cfg; /* never NULL while the runner drives */
    const struct host_caps *caps;
    double now_s; /* seconds since window start of the current tick/stop */
    /* The clock a collector reads when it takes its counters: rates divide
     * by the time between its own two reads, never by now_s (start runs
     * long before the window opens, a tick's worker may run late, a stopped
     * process resumes in mid-interval).  NULL = CLOCK_MONOTONIC; unit tests
     * with synthetic times set collect_tick_clock. */
    double (*clock_s)(const struct collect_ctx *ctx);
};

/* Seconds on the collector's clock, at the moment of the call. */
static inline double collect_clock_s(const struct collect_ctx *ctx)
{
    return ctx->clock_s ? ctx->clock_s(ctx) : mono_ms() / 1e3;
}

/* A synthetic clock for tests: the read happens at the tick's time. */
static inline double collect_tick_clock(const struct collect_ctx *ctx) { return ctx->now_s; }

struct collector {
    const char *name;  /* stable id shown in the manifest: "cpu", "disk" ... */
    const char *title;
    bool needs_bpf;    /* skipped with --no-bpf or when BPF is unavailable */
    bool tick_alone;   /* ticked first, alone: its reading (the run queue) must not
                        * see perfreport's other workers running */
    bool (*can_run)(const struct collect_ctx *ctx, char *reason, size_t n); /* NULL = always */
    int (*start)(struct collect_ctx *ctx, void **state, char *err, size_t n);
    int (*tick)(struct collect_ctx *ctx, void *state); /* NULL = nothing per tick */
    int (*begin)(struct collect_ctx *ctx, void *state); /* NULL = records from start */
    int (*end)(struct collect_ctx *ctx, void *state);   /* NULL = stop ends recording */
    int (*stop)(struct collect_ctx *ctx, void *state, char *err, size_t n);
    void (*destroy)(void *state);
};

/* NULL-terminated registry, in run order. */
extern const struct collector *const collector_registry[];
#endif
