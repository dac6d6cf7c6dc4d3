#include "counters.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- arithmetic ------------------------------------------------------- */

double ctr_scaled(const struct ctr_reading *c, bool *scaled)
{
    if (!c->have || (c->running == 0 && c->enabled > 0))
        return NAN;
    /* enabled 0: a task event whose task never ran in the window (its
     * times advance only while it runs): nothing happened, 0 is exact. */
    if (c->running >= c->enabled)
        return (double)c->value;
    *scaled = true;
    return (double)c->value * ((double)c->enabled / (double)c->running);
}

double ctr_rate(const struct ctr_reading *c, double seconds)
{
    bool scaled = false;
    double v = ctr_scaled(c, &scaled);
    return isnan(v) || !(seconds > 0) ? NAN : v / seconds;
}

static double ratio(double part, double whole, double mul)
{
    return isnan(part) || !(whole > 0) ? NAN : part / whole * mul;
}

struct hw_figures hw_figures_of(const double v[HW_NEV])
{
    return (struct hw_figures){
        .cycles = v[HW_CYCLES],
        .instructions = v[HW_INSTR],
        .ipc = ratio(v[HW_INSTR], v[HW_CYCLES], 1),
        .cache_miss_pct = ratio(v[HW_CACHE_MISSES], v[HW_CACHE_REFS], 100),
        .branch_miss_pct = ratio(v[HW_BRANCH_MISSES], v[HW_BRANCHES], 100),
    };
}

void hw_accumulate(double acc[HW_NEV], const double v[HW_NEV])
{
    for (int e = 0; e < HW_NEV; e++)
        if (!isnan(v[e]))
            acc[e] = isnan(acc[e]) ? v[e] : acc[e] + v[e];
}

/* ---- perf_event_open -------------------------------------------------- */

static const uint64_t hw_config[HW_NEV] = {
    PERF_COUNT_HW_CPU_CYCLES,       PERF_COUNT_HW_INSTRUCTIONS,
    PERF_COUNT_HW_CACHE_REFERENCES, PERF_COUNT_HW_CACHE_MISSES,
    PERF_COUNT_HW_BRANCH_INSTRUCTIONS, PERF_COUNT_HW_BRANCH_MISSES,
};
static const uint64_t sw_config[SW_NEV] = {
    PERF_COUNT_SW_PAGE_FAULTS,       PERF_COUNT_SW_PAGE_FAULTS_MIN,
    PERF_COUNT_SW_PAGE_FAULTS_MAJ,   PERF_COUNT_SW_CONTEXT_SWITCHES,
    PERF_COUNT_SW_CPU_MIGRATIONS,
};

/* A disabled counting event; -errno on failure.  pid -1 + cpu N counts
 * everything on CPU N; pid P + cpu -1 follows P (and, inherit, the
 * children it starts in the window). */
static int open_event(uint32_t type, uint64_t config, pid_t pid, int cpu)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    a.disabled = 1;
    a.inherit = pid > 0;
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    long fd = syscall(SYS_perf_event_open, &a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -errno : (int)fd;
}

static struct ctr_reading read_event(int fd)
{
    struct ctr_reading c = {0};
    uint64_t buf[3];
    if (fd >= 0 && read(fd, buf, sizeof buf) == (ssize_t)sizeof buf)
        c = (struct ctr_reading){.have = true, .value = buf[0], .enabled = buf[1], .running = buf[2]};
    return c;
}

/* The events of one kind on every CPU and, with -p, on the target: row
 * ncpu of fd[] is the target's. */
struct ctr_set {
    uint32_t type;
    const uint64_t *config;
    int nev;
    int ncpu;     /* CPUs possibly online (rows 0..ncpu-1; an offline one has no fds) */
    bool target;  /* row ncpu is the -p target */
    int *fd;      /* (ncpu + 1) * nev; -1 = not open */
    int nopen;
    int first_err; /* -errno of the first failed open other than an offline CPU */
    int budget_cpus; /* CPUs left out to stay within the fd budget (0: none) */
    double t_on, t_off; /* collector clock at enable and disable; NAN until then */
};

static int *set_fd(struct ctr_set *s, int row, int ev) { return &s->fd[row * s->nev + ev]; }

static void set_close(struct ctr_set *s)
{
    if (!s->fd)
        return;
    for (int i = 0; i < (s->ncpu + 1) * s->nev; i++)
        if (s->fd[i] >= 0)
            close(s->fd[i]);
    free(s->fd);
    s->fd = NULL;
}

static void set_open(struct ctr_set *s, uint32_t type, const uint64_t *config, int nev, pid_t pid)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    s->type = type;
    s->config = config;
    s->nev = nev;
    s->ncpu = n > 0 && n < 65536 ? (int)n : 1;
    s->target = pid > 0;
    s->fd = xmalloc((size_t)(s->ncpu + 1) * (size_t)nev * sizeof *s->fd);
    for (int i = 0; i < (s->ncpu + 1) * nev; i++)
        s->fd[i] = -1;
    /* One fd per event per CPU: on a large host that could take the fds the
     * BPF collectors need, so each set keeps to a quarter of the limit. */
    struct rlimit rl;
    long budget = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                      ? (long)(rl.rlim_cur / 4)
                      : 1L << 20;
    for (int row = 0; row <= s->ncpu; row++) {
        if (row == s->ncpu && !s->target)
            break;
        if (row < s->ncpu && s->nopen + nev * (s->target ? 2 : 1) > budget) {
            s->budget_cpus++; /* the target's row still fits */
            continue;
        }
        for (int e = 0; e < nev; e++) {
            int fd = row < s->ncpu ? open_event(type, config[e], -1, row)
                                   : open_event(type, config[e], pid, -1);
            if (fd >= 0) {
                *set_fd(s, row, e) = fd;
                s->nopen++;
            } else if (fd == -ENODEV && row < s->ncpu) {
                break; /* offline CPU: no row */
            } else if (!s->first_err) {
                s->first_err = fd;
            }
        }
    }
}

/* Enables (on) or disables every open event of the set. */
static void set_switch(struct ctr_set *s, bool on)
{
    for (int i = 0; i < (s->ncpu + 1) * s->nev; i++)
        if (s->fd[i] >= 0)
            ioctl(s->fd[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

static bool row_open(struct ctr_set *s, int row)
{
    for (int e = 0; e < s->nev; e++)
        if (*set_fd(s, row, e) >= 0)
            return true;
    return false;
}

static void row_label(int row, char *buf, size_t n) { snprintf(buf, n, "cpu%d", row); }

/* ---- collectors ------------------------------------------------------- */

/* Why a kind of counter cannot be opened here, or false when it can: one
 * event on this process, so the probe neither needs a CPU nor costs one. */
static bool probe(uint32_t type, uint64_t config, const char *what, bool hw, char *reason,
                  size_t n)
{
    int fd = open_event(type, config, 0, -1);
    if (fd >= 0) {
        close(fd);
        return true;
    }
    int e = -fd;
    if (hw && (e == ENOENT || e == EOPNOTSUPP || e == ENODEV))
        snprintf(reason, n, "no hardware PMU: perf_event_open(%s) failed: %s", what, strerror(e));
    else
        snprintf(reason, n, "perf_event_open(%s) failed: %s%s", what, strerror(e),
                 e == EACCES || e == EPERM ? " (see /proc/sys/kernel/perf_event_paranoid)" : "");
    return false;
}

static bool hw_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    return probe(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles", true, reason, n);
}

static bool sw_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    return probe(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches", false,
                 reason, n);
}

static void ctr_destroy(void *state)
{
    struct ctr_set *s = state;
    if (!s)
        return;
    set_close(s);
    free(s);
}

static int ctr_start(struct collect_ctx *ctx, void **state, uint32_t type,
                     const uint64_t *config, int nev, char *err, size_t n)
{
    struct ctr_set *s = xcalloc(1, sizeof *s);
    *state = s;
    s->t_on = s->t_off = NAN;
    set_open(s, type, config, nev, ctx->cfg ? ctx->cfg->pid : 0);
    if (s->nopen == 0) {
        snprintf(err, n, "perf_event_open failed on every CPU: %s",
                 strerror(s->first_err ? -s->first_err : ENODEV));
        return s->first_err ? s->first_err : -ENODEV;
    }
    return 0;
}

static int hw_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    return ctr_start(ctx, state, PERF_TYPE_HARDWARE, hw_config, HW_NEV, err, n);
}

static int sw_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    return ctr_start(ctx, state, PERF_TYPE_SOFTWARE, sw_config, SW_NEV, err, n);
}

static int ctr_begin(struct collect_ctx *ctx, void *state)
{
    struct ctr_set *s = state;
    set_switch(s, true);
    s->t_on = collect_clock_s(ctx);
    return 0;
}

static int ctr_end(struct collect_ctx *ctx, void *state)
{
    struct ctr_set *s = state;
    set_switch(s, false);
    s->t_off = collect_clock_s(ctx);
    return 0;
}

static void ledger_notes(struct collect_ctx *ctx, const char *name, const struct ctr_set *s)
{
    struct ledger_entry *le = report_ledger(ctx->r, name, NULL);
    if (s->first_err)
        ledger_note(le, "some events could not be opened: %s", strerror(-s->first_err));
    if (s->budget_cpus)
        ledger_note(le, "%d CPUs not counted (file descriptor budget): totals cover the others",
                    s->budget_cpus);
    if (ctx->cfg && ctx->cfg->cgroup)
        ledger_note(le, "counted system-wide: not limited to the cgroup");
}

static const struct col_spec hw_cols[] = {
    {"cpu", "CPU", "", 0},
    {"cycles", "Cycles", "", 0},
    {"instructions", "Instructions", "", 0},
    {"ipc", "IPC", "", 2},
    {"cache_miss_pct", "Cache miss %", "%", 1},
    {"branch_miss_pct", "Branch miss %", "%", 2},
    {"scaled", "Scaled", "", 0},
};

static void hw_row(struct table *t, const char *label, const struct hw_figures *f, bool scaled)
{
    size_t i = table_add_row(t);
    table_set_str(t, i, "cpu", label);
    table_set_num(t, i, "cycles", f->cycles);
    table_set_num(t, i, "instructions", f->instructions);
    table_set_num(t, i, "ipc", f->ipc);
    table_set_num(t, i, "cache_miss_pct", f->cache_miss_pct);
    table_set_num(t, i, "branch_miss_pct", f->branch_miss_pct);
    table_set_str(t, i, "scaled", scaled ? "yes" : "no");
}

static int hw_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    (void)err;
    (void)n;
    struct ctr_set *s = state;
    struct report *r = ctx->r;
    struct table *t = report_table(r, NM_HW_COUNTERS, "Hardware counters", "cpu");
    table_add_cols(t, hw_cols, ARRAY_LEN(hw_cols));
    double total[HW_NEV];
    for (int e = 0; e < HW_NEV; e++)
        total[e] = NAN;
    bool any_scaled = false, target_scaled = false, have_target = false;
    struct hw_figures target = {0};
    char label[32];
    for (int row = 0; row <= s->ncpu; row++) {
        if ((row == s->ncpu && !s->target) || !row_open(s, row))
            continue;
        double v[HW_NEV];
        bool scaled = false;
        for (int e = 0; e < HW_NEV; e++) {
            struct ctr_reading c = read_event(*set_fd(s, row, e));
            v[e] = ctr_scaled(&c, &scaled);
        }
        if (row == s->ncpu) { /* the target's row goes after the total */
            target = hw_figures_of(v);
            target_scaled = scaled;
            have_target = true;
            continue;
        }
        hw_accumulate(total, v);
        any_scaled |= scaled;
        struct hw_figures f = hw_figures_of(v);
        row_label(row, label, sizeof label);
        hw_row(t, label, &f, scaled);
    }
    struct hw_figures tf = hw_figures_of(total);
    hw_row(t, "total", &tf, any_scaled);
    if (have_target)
        hw_row(t, "target", &target, target_scaled);
    table_set_note(t, any_scaled ? "Counts scaled for multiplexing (value x enabled / running): "
                                   "the PMU had more events than counters."
                                 : "Counted over the whole window, system-wide per CPU.");
    if (!isnan(tf.cycles))
        report_metric(r, NM_HW_CYCLES, "CPU cycles (all CPUs)", "", "cpu", tf.cycles);
    if (!isnan(tf.ipc))
        report_metric(r, NM_HW_IPC, "Instructions per cycle", "", "cpu", tf.ipc);
    if (!isnan(tf.cache_miss_pct))
        report_metric(r, NM_HW_CACHE_MISS_PCT, "Cache misses (of references)", "%", "cpu",
                      tf.cache_miss_pct);
    if (!isnan(tf.branch_miss_pct))
        report_metric(r, NM_HW_BRANCH_MISS_PCT, "Branch misses (of branches)", "%", "cpu",
                      tf.branch_miss_pct);
    ledger_notes(ctx, "hwcounters", s);
    return 0;
}

static const struct col_spec sw_cols[] = {
    {"cpu", "CPU", "", 0},
    {"page_faults_per_s", "Page faults", "/s", 1},
    {"minor_faults_per_s", "Minor", "/s", 1},
    {"major_faults_per_s", "Major", "/s", 1},
    {"context_switches_per_s", "Context switches", "/s", 1},
    {"migrations_per_s", "Migrations", "/s", 1},
};

static void sw_row(struct table *t, const char *label, const double v[SW_NEV])
{
    size_t i = table_add_row(t);
    table_set_str(t, i, "cpu", label);
    for (int e = 0; e < SW_NEV; e++)
        table_set_num(t, i, sw_cols[e + 1].name, v[e]);
}

static int sw_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    (void)err;
    (void)n;
    struct ctr_set *s = state;
    struct report *r = ctx->r;
    struct table *t = report_table(r, NM_SW_COUNTERS, "Software counters", "cpu");
    table_add_cols(t, sw_cols, ARRAY_LEN(sw_cols));
    double total[SW_NEV], target[SW_NEV];
    for (int e = 0; e < SW_NEV; e++)
        total[e] = target[e] = NAN;
    char label[32];
    for (int row = 0; row <= s->ncpu; row++) {
        if ((row == s->ncpu && !s->target) || !row_open(s, row))
            continue;
        double v[SW_NEV];
        for (int e = 0; e < SW_NEV; e++) {
            struct ctr_reading c = read_event(*set_fd(s, row, e));
            v[e] = ctr_rate(&c, s->t_off - s->t_on);
            if (row < s->ncpu && !isnan(v[e]))
                total[e] = isnan(total[e]) ? v[e] : total[e] + v[e];
        }
        if (row == s->ncpu) {
            memcpy(target, v, sizeof v);
            continue;
        }
        row_label(row, label, sizeof label);
        sw_row(t, label, v);
    }
    sw_row(t, "total", total);
    if (s->target)
        sw_row(t, "target", target);
    table_set_note(t, s->target ? "Kernel software events per CPU over the window, from every "
                                  "process; the target row counts the -p process's main thread and "
                                  "the threads and children it started in the window (not "
                                  "threads that already ran)."
                                : "Kernel software events per CPU over the window.");
    if (!isnan(total[SW_FAULTS]))
        report_metric(r, NM_SW_PAGE_FAULTS_PER_S, "Page faults", "/s", "cpu", total[SW_FAULTS]);
    if (!isnan(total[SW_CS]))
        report_metric(r, NM_SW_CONTEXT_SWITCHES_PER_S, "Context switches", "/s", "cpu",
                      total[SW_CS]);
    if (!isnan(total[SW_MIGR]))
        report_metric(r, NM_SW_MIGRATIONS_PER_S, "CPU migrations", "/s", "cpu", total[SW_MIGR]);
    ledger_notes(ctx, "swcounters", s);
    return 0;
}

const struct collector collector_hwcounters = {
    .name = "hwcounters",
    .title = "Hardware counters (PMU)",
    .can_run = hw_can_run,
    .start = hw_start,
    .begin = ctr_begin,
    .end = ctr_end,
    .stop = hw_stop,
    .destroy = ctr_destroy,
};

const struct collector collector_swcounters = {
    .name = "swcounters",
    .title = "Software counters (perf events)",
    .can_run = sw_can_run,
    .start = sw_start,
    .begin = ctr_begin,
    .end = ctr_end,
    .stop = sw_stop,
    .destroy = ctr_destroy,
};
