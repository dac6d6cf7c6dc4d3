#include "cpu.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CONFIG_NR_CPUS tops out at 8192; anything beyond is a broken file. */
#define MAX_CPUS 8192

/* ---- parsing ---------------------------------------------------------- */

/* Reads one unsigned decimal at *p (after blanks); advances *p.  Rejects
 * signs and overflow, and requires a blank/end after the digits. */
static bool next_u64(const char **p, uint64_t *v)
{
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || (*end && *end != ' ' && *end != '\t' && *end != '\n' && *end != '\r'))
        return false;
    *v = x;
    *p = end;
    return true;
}

static bool rest_is_blank(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    return *p == '\0' || *p == '\n';
}

/* Parses the counters after "cpu"/"cpuN": at least the 4 fields every kernel
 * has; later kernels add up to 10, and fields beyond that are ignored. */
static bool parse_cpu_fields(const char *p, struct cpu_times *t)
{
    memset(t, 0, sizeof *t);
    size_t n = 0;
    uint64_t v;
    while (next_u64(&p, &v)) {
        if (n < CPU_NFIELDS)
            t->v[n] = v;
        n++;
    }
    return n >= 4 && rest_is_blank(p);
}

/* A scalar line "key N": the first number only (intr has more after it). */
static bool parse_scalar(const char *p, uint64_t *v, bool more_allowed)
{
    if (!next_u64(&p, v))
        return false;
    return more_allowed || rest_is_blank(p);
}

struct cpu_tmp {
    struct cpu_entry e;
    size_t seq;
};

static int cmp_cpu_tmp(const void *a, const void *b)
{
    const struct cpu_tmp *x = a, *y = b;
    if (x->e.id != y->e.id)
        return x->e.id < y->e.id ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int parse_proc_stat(const char *text, struct proc_stat *out)
{
    memset(out, 0, sizeof *out);
    bool have_total = false, sorted = true;
    struct cpu_tmp *tmp = NULL;
    size_t ntmp = 0, cap = 0;

    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        /* Copy so parsing never runs past this line. */
        char *l = xstrndup(line, len);
        line = nl ? nl + 1 : NULL;

        uint64_t v;
        struct cpu_times t;
        if (strncmp(l, "cpu", 3) == 0 && (l[3] == ' ' || l[3] == '\t')) {
            if (!have_total && parse_cpu_fields(l + 3, &t)) {
                out->total = t;
                have_total = true;
            }
        } else if (strncmp(l, "cpu", 3) == 0 && l[3] >= '0' && l[3] <= '9') {
            char *end;
            errno = 0;
            unsigned long id = strtoul(l + 3, &end, 10);
            if (!errno && id < (1ul << 31) && (*end == ' ' || *end == '\t') &&
                parse_cpu_fields(end, &t) && ntmp < MAX_CPUS) {
                xgrow(&tmp, &cap, ntmp + 1, sizeof *tmp);
                tmp[ntmp] = (struct cpu_tmp){{(unsigned)id, t}, ntmp};
                if (ntmp && tmp[ntmp - 1].e.id >= (unsigned)id)
                    sorted = false;
                ntmp++;
            }
        } else if (strncmp(l, "ctxt ", 5) == 0) {
            if (parse_scalar(l + 5, &v, false)) {
                out->ctxt = v;
                out->have |= STAT_HAVE_CTXT;
            }
        } else if (strncmp(l, "intr ", 5) == 0) {
            if (parse_scalar(l + 5, &v, true)) {
                out->intr = v;
                out->have |= STAT_HAVE_INTR;
            }
        } else if (strncmp(l, "processes ", 10) == 0) {
            if (parse_scalar(l + 10, &v, false)) {
                out->processes = v;
                out->have |= STAT_HAVE_PROCESSES;
            }
        } else if (strncmp(l, "procs_running ", 14) == 0) {
            if (parse_scalar(l + 14, &v, false)) {
                out->procs_running = v;
                out->have |= STAT_HAVE_RUNNING;
            }
        } else if (strncmp(l, "procs_blocked ", 14) == 0) {
            if (parse_scalar(l + 14, &v, false)) {
                out->procs_blocked = v;
                out->have |= STAT_HAVE_BLOCKED;
            }
        }
        free(l);
    }

    if (!have_total) {
        free(tmp);
        memset(out, 0, sizeof *out);
        return -EINVAL;
    }
    /* The kernel lists CPUs in ascending order; anything else is repaired,
     * and of duplicate ids the first line wins. */
    if (!sorted)
        qsort(tmp, ntmp, sizeof *tmp, cmp_cpu_tmp);
    if (ntmp) {
        out->cpus = xcalloc(ntmp, sizeof *out->cpus);
        for (size_t i = 0; i < ntmp; i++) {
            if (out->ncpus && out->cpus[out->ncpus - 1].id == tmp[i].e.id)
                continue;
            out->cpus[out->ncpus++] = tmp[i].e;
        }
    }
    free(tmp);
    return 0;
}

void proc_stat_free(struct proc_stat *st)
{
    if (!st)
        return;
    free(st->cpus);
    memset(st, 0, sizeof *st);
}

const struct cpu_entry *proc_stat_cpu(const struct proc_stat *st, unsigned id)
{
    size_t lo = 0, hi = st->ncpus;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (st->cpus[mid].id == id)
            return &st->cpus[mid];
        if (st->cpus[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static uint64_t delta(uint64_t a, uint64_t b) { return b > a ? b - a : 0; }

void cpu_split(const struct cpu_times *a, const struct cpu_times *b, struct cpu_split *out)
{
    double d[CPU_NFIELDS];
    for (int i = 0; i < CPU_NFIELDS; i++)
        d[i] = (double)delta(a->v[i], b->v[i]);
    /* guest/guest_nice are already inside user/nice: leave them out of the
     * total, or guest time would be counted twice. */
    double total = d[CPU_USER] + d[CPU_NICE] + d[CPU_SYSTEM] + d[CPU_IDLE] + d[CPU_IOWAIT] +
                   d[CPU_IRQ] + d[CPU_SOFTIRQ] + d[CPU_STEAL];
    memset(out, 0, sizeof *out);
    out->total_jiffies = total;
    out->valid = total > 0;
    double k = out->valid ? 100.0 / total : NAN;
    out->user = d[CPU_USER] * k;
    out->nice = d[CPU_NICE] * k;
    out->system = d[CPU_SYSTEM] * k;
    out->idle = d[CPU_IDLE] * k;
    out->iowait = d[CPU_IOWAIT] * k;
    out->irq = d[CPU_IRQ] * k;
    out->softirq = d[CPU_SOFTIRQ] * k;
    out->steal = d[CPU_STEAL] * k;
    out->util = out->user + out->nice + out->system + out->irq + out->softirq;
}

/* ---- collector -------------------------------------------------------- */

/* One CPU as seen over the window: first and last reading it appeared in. */
struct cpu_track {
    unsigned id;
    struct cpu_times first, last;
    size_t seen; /* readings it appeared in */
};

struct cpu_state {
    struct proc_stat first, prev;
    double t_first, t_prev;
    size_t nreadings;
    struct cpu_track *tracks; /* sorted by id */
    size_t ntracks, cap_tracks;
    double runq_sum, runq_max, blocked_sum;
    size_t runq_n, blocked_n;
    bool have_load;
    struct loadavg load; /* latest good reading */
};

/* Threads of our own process that are runnable right now (the reader
 * included, so at least 1).  procs_running counts them, and collectors
 * tick on parallel worker threads: subtracting only the reader would show
 * perfreport's own sampling as run-queue pressure on an idle host. */
static unsigned own_running_threads(void)
{
    DIR *d = hostfs_opendir("/proc/self/task");
    if (!d)
        return 1;
    unsigned n = 0;
    struct strbuf sb = STRBUF_INIT;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        if (hostfs_readf(&sb, 4096, "/proc/self/task/%s/stat", e->d_name) != 0)
            continue;
        const char *rp = strrchr(sb_str(&sb), ')'); /* the state follows the comm */
        if (rp && rp[1] == ' ' && rp[2] == 'R')
            n++;
    }
    sb_free(&sb);
    closedir(d);
    return n ? n : 1;
}

static int read_stat(struct proc_stat *st, unsigned *self_running)
{
    struct strbuf sb = STRBUF_INIT;
    int rc = hostfs_read("/proc/stat", &sb, 0);
    if (rc == 0)
        rc = parse_proc_stat(sb_str(&sb), st);
    sb_free(&sb);
    *self_running = own_running_threads();
    return rc;
}

static int read_loadavg(struct loadavg *l)
{
    char line[256];
    int rc = hostfs_read_line("/proc/loadavg", line, sizeof line);
    return rc ? rc : parse_loadavg(line, l);
}

static int cmp_track(const void *a, const void *b)
{
    const struct cpu_track *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static void track_cpus(struct cpu_state *s, const struct proc_stat *st)
{
    bool added = false;
    for (size_t i = 0; i < st->ncpus; i++) {
        const struct cpu_entry *e = &st->cpus[i];
        struct cpu_track key = {.id = e->id};
        struct cpu_track *t =
            s->ntracks ? bsearch(&key, s->tracks, s->ntracks, sizeof key, cmp_track) : NULL;
        if (!t) {
            xgrow(&s->tracks, &s->cap_tracks, s->ntracks + 1, sizeof *s->tracks);
            t = &s->tracks[s->ntracks++];
            *t = (struct cpu_track){.id = e->id, .first = e->t};
            added = true;
        }
        t->last = e->t;
        t->seen++;
    }
    if (added)
        qsort(s->tracks, s->ntracks, sizeof *s->tracks, cmp_track);
    s->nreadings++;
}

/* Gauges of one reading: run queue per CPU (without our own runnable
 * threads) and blocked. */
static double runq_per_cpu(const struct proc_stat *st, unsigned self_running)
{
    if (!(st->have & STAT_HAVE_RUNNING) || st->ncpus == 0)
        return NAN;
    double running = st->procs_running > self_running
                         ? (double)(st->procs_running - self_running)
                         : 0.0;
    return running / (double)st->ncpus;
}

static double blocked(const struct proc_stat *st)
{
    return (st->have & STAT_HAVE_BLOCKED) ? (double)st->procs_blocked : NAN;
}

static double rate(const struct proc_stat *a, const struct proc_stat *b, unsigned flag,
                   uint64_t va, uint64_t vb, double dt)
{
    if (!(a->have & flag) || !(b->have & flag) || !(dt > 0))
        return NAN;
    return (double)delta(va, vb) / dt;
}

static void cpu_destroy(void *state)
{
    struct cpu_state *s = state;
    if (!s)
        return;
    proc_stat_free(&s->first);
    proc_stat_free(&s->prev);
    free(s->tracks);
    free(s);
}

static int cpu_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct cpu_state *s = xcalloc(1, sizeof *s);
    *state = s;
    unsigned self_running;
    int rc = read_stat(&s->first, &self_running);
    if (rc) {
        snprintf(err, n, "cannot read /proc/stat: %s", strerror(-rc));
        return rc;
    }
    /* Rates divide by the time between our own reads, not by the ticks':
     * start runs long before the window opens, a tick's worker late. */
    s->t_first = s->t_prev = collect_clock_s(ctx);
    track_cpus(s, &s->first);
    /* prev is a private copy so first survives the tick loop. */
    s->prev = s->first;
    s->prev.cpus = s->first.ncpus ? xmalloc(s->first.ncpus * sizeof *s->first.cpus) : NULL;
    if (s->first.ncpus)
        memcpy(s->prev.cpus, s->first.cpus, s->first.ncpus * sizeof *s->first.cpus);
    if (read_loadavg(&s->load) == 0)
        s->have_load = true;
    return 0;
}

/* A series drawn as a chart; its threshold lines come from analysis. */
static struct series *chart_series(struct report *r, const char *name, const char *title,
                                   const char *unit)
{
    struct series *s = report_series(r, name, title, unit, "cpu");
    s->chart = true;
    return s;
}

static int cpu_tick(struct collect_ctx *ctx, void *state)
{
    struct cpu_state *s = state;
    struct report *r = ctx->r;
    struct proc_stat cur;
    unsigned self_running;
    int rc = read_stat(&cur, &self_running);
    if (rc)
        return rc;
    double t_now = collect_clock_s(ctx);

    struct cpu_split sp;
    cpu_split(&s->prev.total, &cur.total, &sp);
    series_set(r, chart_series(r, NM_CPU_UTIL_PCT, "CPU utilisation", "%"), sp.util);
    series_set(r, report_series(r, NM_CPU_USER_PCT, "CPU user", "%", "cpu"), sp.user);
    series_set(r, report_series(r, NM_CPU_SYSTEM_PCT, "CPU system", "%", "cpu"), sp.system);
    series_set(r, report_series(r, NM_CPU_IOWAIT_PCT, "CPU iowait", "%", "cpu"), sp.iowait);
    series_set(r, report_series(r, NM_CPU_STEAL_PCT, "CPU steal", "%", "cpu"), sp.steal);
    series_set(r, report_series(r, NM_CPU_SOFTIRQ_PCT, "CPU softirq", "%", "cpu"), sp.softirq);

    double rq = runq_per_cpu(&cur, self_running);
    series_set(r, chart_series(r, NM_CPU_RUNQ_PER_CPU, "Run queue per CPU", ""), rq);
    if (!isnan(rq)) {
        s->runq_sum += rq;
        s->runq_max = s->runq_n ? fmax(s->runq_max, rq) : rq;
        s->runq_n++;
    }
    double bl = blocked(&cur);
    series_set(r, report_series(r, NM_CPU_PROCS_BLOCKED, "Blocked tasks", "", "cpu"), bl);
    if (!isnan(bl)) {
        s->blocked_sum += bl;
        s->blocked_n++;
    }
    series_set(r, report_series(r, NM_CPU_CTXSW_PER_S, "Context switches", "/s", "cpu"),
               rate(&s->prev, &cur, STAT_HAVE_CTXT, s->prev.ctxt, cur.ctxt,
                    t_now - s->t_prev));

    struct loadavg l;
    if (read_loadavg(&l) == 0) {
        s->load = l;
        s->have_load = true;
        series_set(r, report_series(r, NM_LOAD_LOAD1, "Load average (1 min)", "", "cpu"),
                   l.load1);
    }

    track_cpus(s, &cur);
    proc_stat_free(&s->prev);
    s->prev = cur;
    s->t_prev = t_now;
    return 0;
}

static void metric_if(struct report *r, const char *name, const char *title, const char *unit,
                      double v)
{
    if (!isnan(v))
        report_metric(r, name, title, unit, "cpu", v);
}

static void write_per_cpu(struct report *r, struct cpu_state *s)
{
    struct table *t = report_table(r, NM_CPU_PER_CPU, "Per-CPU utilisation", "cpu");
    static const struct col_spec cpu_per_cpu_cols[] = {
        {"cpu", "CPU", "", 0},
        {"util_pct", "Util", "%", 1},
        {"user_pct", "User", "%", 1},
        {"system_pct", "System", "%", 1},
        {"iowait_pct", "Iowait", "%", 1},
        {"irq_pct", "Irq", "%", 1},
        {"softirq_pct", "Softirq", "%", 1},
        {"steal_pct", "Steal", "%", 1},
        {"idle_pct", "Idle", "%", 1},
    };
    table_add_cols(t, cpu_per_cpu_cols, ARRAY_LEN(cpu_per_cpu_cols));

    struct strbuf partial = STRBUF_INIT;
    double max_util = NAN;
    for (size_t i = 0; i < s->ntracks; i++) {
        const struct cpu_track *c = &s->tracks[i];
        char name[32];
        snprintf(name, sizeof name, "cpu%u", c->id);
        size_t row = table_add_row(t);
        table_set_str(t, row, "cpu", name);
        if (c->seen < s->nreadings)
            sb_addf(&partial, "%s%s", partial.len ? ", " : "", name);
        struct cpu_split sp;
        cpu_split(&c->first, &c->last, &sp);
        if (!sp.valid)
            continue; /* seen once, or no time passed: cells stay empty */
        table_set_num(t, row, "util_pct", sp.util);
        table_set_num(t, row, "user_pct", sp.user);
        table_set_num(t, row, "system_pct", sp.system);
        table_set_num(t, row, "iowait_pct", sp.iowait);
        table_set_num(t, row, "irq_pct", sp.irq);
        table_set_num(t, row, "softirq_pct", sp.softirq);
        table_set_num(t, row, "steal_pct", sp.steal);
        table_set_num(t, row, "idle_pct", sp.idle);
        max_util = isnan(max_util) ? sp.util : fmax(max_util, sp.util);
    }
    if (partial.len) {
        char *note = xasprintf("Offline during part of the window: %s; their figures cover "
                               "only the time they were online.",
                               sb_str(&partial));
        table_set_note(t, note);
        free(note);
    }
    sb_free(&partial);
    metric_if(r, NM_CPU_UTIL_MAX_CPU_PCT, "Busiest CPU utilisation", "%", max_util);
}

static int cpu_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    struct cpu_state *s = state;
    struct report *r = ctx->r;
    struct proc_stat fin;
    unsigned self_running = 1;
    int rc = read_stat(&fin, &self_running);
    double t_last = collect_clock_s(ctx);
    if (rc) {
        if (s->nreadings < 2) {
            snprintf(err, n, "cannot read /proc/stat at the end of the window: %s",
                     strerror(-rc));
            return rc;
        }
        /* Fall back to the last tick's reading as the window's end. */
        fin = s->prev;
        memset(&s->prev, 0, sizeof s->prev);
        t_last = s->t_prev;
    } else {
        track_cpus(s, &fin);
    }
    const struct proc_stat *a = &s->first, *b = &fin;

    struct cpu_split sp;
    cpu_split(&a->total, &b->total, &sp);
    if (sp.valid) {
        report_metric(r, NM_CPU_UTIL_PCT, "CPU utilisation", "%", "cpu", sp.util);
        report_metric(r, NM_CPU_USER_PCT, "CPU user", "%", "cpu", sp.user);
        report_metric(r, NM_CPU_NICE_PCT, "CPU nice", "%", "cpu", sp.nice);
        report_metric(r, NM_CPU_SYSTEM_PCT, "CPU system", "%", "cpu", sp.system);
        report_metric(r, NM_CPU_IOWAIT_PCT, "CPU iowait", "%", "cpu", sp.iowait);
        report_metric(r, NM_CPU_IRQ_PCT, "CPU irq", "%", "cpu", sp.irq);
        report_metric(r, NM_CPU_SOFTIRQ_PCT, "CPU softirq", "%", "cpu", sp.softirq);
        report_metric(r, NM_CPU_STEAL_PCT, "CPU steal", "%", "cpu", sp.steal);
        report_metric(r, NM_CPU_IDLE_PCT, "CPU idle", "%", "cpu", sp.idle);
    }
    size_t count = b->ncpus ? b->ncpus : a->ncpus;
    if (count)
        report_metric(r, NM_CPU_COUNT, "CPUs online", "", "cpu", (double)count);

    /* Gauges average over the ticks; a window without ticks uses the end. */
    if (s->runq_n == 0) {
        double rq = runq_per_cpu(b, self_running);
        if (!isnan(rq)) {
            s->runq_sum = s->runq_max = rq;
            s->runq_n = 1;
        }
    }
    if (s->runq_n) {
        report_metric(r, NM_CPU_RUNQ_PER_CPU, "Run queue per CPU", "", "cpu",
                      s->runq_sum / (double)s->runq_n);
        report_metric(r, NM_CPU_RUNQ_PER_CPU_MAX, "Run queue per CPU (max)", "", "cpu",
                      s->runq_max);
    }
    if (s->blocked_n == 0 && !isnan(blocked(b))) {
        s->blocked_sum = blocked(b);
        s->blocked_n = 1;
    }
    if (s->blocked_n)
        report_metric(r, NM_CPU_PROCS_BLOCKED, "Blocked tasks", "", "cpu",
                      s->blocked_sum / (double)s->blocked_n);

    double dt = t_last - s->t_first;
    metric_if(r, NM_CPU_CTXSW_PER_S, "Context switches", "/s",
              rate(a, b, STAT_HAVE_CTXT, a->ctxt, b->ctxt, dt));
    metric_if(r, NM_CPU_INTR_PER_S, "Interrupts", "/s",
              rate(a, b, STAT_HAVE_INTR, a->intr, b->intr, dt));
    metric_if(r, NM_CPU_FORKS_PER_S, "Forks", "/s",
              rate(a, b, STAT_HAVE_PROCESSES, a->processes, b->processes, dt));

    struct loadavg l;
    if (read_loadavg(&l) == 0) {
        s->load = l;
        s->have_load = true;
    }
    if (s->have_load) {
        report_metric(r, NM_LOAD_LOAD1, "Load average (1 min)", "", "cpu", s->load.load1);
        report_metric(r, NM_LOAD_LOAD5, "Load average (5 min)", "", "cpu", s->load.load5);
        report_metric(r, NM_LOAD_LOAD15, "Load average (15 min)", "", "cpu", s->load.load15);
    }

    write_per_cpu(r, s);
    proc_stat_free(&fin);
    return 0;
}

const struct collector collector_cpu = {
    .name = "cpu",
    .title = "CPU",
    .needs_bpf = false,
    .tick_alone = true,
    .can_run = NULL,
    .start = cpu_start,
    .tick = cpu_tick,
    .stop = cpu_stop,
    .destroy = cpu_destroy,
};
