#include "memory.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing ---------------------------------------------------------- */

/* Splits one line "key<sep>value[ unit]" into key and an unsigned value.
 * key is copied into kbuf (truncated lines are rejected).  The unit, if any,
 * must be "kB" (meminfo) for unit_kb, and absent otherwise. */
static bool split_line(const char *line, size_t len, char sep, char *kbuf, size_t kn,
                       uint64_t *v, bool allow_kb)
{
    char l[256];
    if (len >= sizeof l)
        return false;
    memcpy(l, line, len);
    l[len] = '\0';
    char *s = strchr(l, sep);
    if (!s || s == l || (size_t)(s - l) >= kn)
        return false;
    memcpy(kbuf, l, (size_t)(s - l));
    kbuf[s - l] = '\0';
    s++;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno)
        return false;
    while (*end == ' ' || *end == '\t')
        end++;
    if (allow_kb && strncmp(end, "kB", 2) == 0)
        end += 2;
    while (*end == ' ' || *end == '\t' || *end == '\r')
        end++;
    if (*end)
        return false;
    *v = x;
    return true;
}

/* Calls fn(key, value, arg) for every well-formed line. */
static void each_line(const char *text, char sep, bool allow_kb,
                      void (*fn)(const char *key, uint64_t v, void *arg), void *arg)
{
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char key[64];
        uint64_t v;
        if (split_line(line, len, sep, key, sizeof key, &v, allow_kb))
            fn(key, v, arg);
        line = nl ? nl + 1 : NULL;
    }
}

static void meminfo_field(const char *key, uint64_t v, void *arg)
{
    static const struct {
        const char *key;
        size_t off;
        unsigned bit;
    } fields[] = {
        {"MemTotal", offsetof(struct meminfo, total), MI_TOTAL},
        {"MemFree", offsetof(struct meminfo, free), MI_FREE},
        {"MemAvailable", offsetof(struct meminfo, available), MI_AVAILABLE},
        {"Buffers", offsetof(struct meminfo, buffers), MI_BUFFERS},
        {"Cached", offsetof(struct meminfo, cached), MI_CACHED},
        {"SwapTotal", offsetof(struct meminfo, swap_total), MI_SWAP_TOTAL},
        {"SwapFree", offsetof(struct meminfo, swap_free), MI_SWAP_FREE},
        {"Dirty", offsetof(struct meminfo, dirty), MI_DIRTY},
        {"Writeback", offsetof(struct meminfo, writeback), MI_WRITEBACK},
        {"AnonPages", offsetof(struct meminfo, anon), MI_ANON},
        {"Slab", offsetof(struct meminfo, slab), MI_SLAB},
    };
    struct meminfo *m = arg;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (strcmp(key, fields[i].key) == 0 && !(m->have & fields[i].bit)) {
            *(uint64_t *)((char *)m + fields[i].off) = v;
            m->have |= fields[i].bit;
            return;
        }
    }
}

int parse_meminfo(const char *text, struct meminfo *out)
{
    memset(out, 0, sizeof *out);
    each_line(text, ':', true, meminfo_field, out);
    if (!(out->have & MI_TOTAL) || out->total == 0) {
        memset(out, 0, sizeof *out);
        return -EINVAL;
    }
    /* Pre-3.14 kernels: the classic estimate (overstates, since not all
     * cache is reclaimable, but it is what free(1) showed then). */
    if (!(out->have & MI_AVAILABLE) && (out->have & MI_FREE)) {
        out->available = out->free + out->buffers + out->cached;
        out->have |= MI_AVAILABLE;
        out->available_estimated = true;
    }
    return 0;
}

struct vm_acc {
    struct vmstat *vm;
    unsigned seen; /* which source counters were present (dup lines ignored) */
};

static void vmstat_field(const char *key, uint64_t v, void *arg)
{
    static const struct {
        const char *key;
        unsigned bit;
    } srcs[] = {
        {"pgfault", 1u << 0},        {"pgmajfault", 1u << 1},
        {"pswpin", 1u << 2},         {"pswpout", 1u << 3},
        {"pgscan_kswapd", 1u << 4},  {"pgscan_direct", 1u << 5},
        {"pgscan_khugepaged", 1u << 6}, {"pgsteal_kswapd", 1u << 7},
        {"pgsteal_direct", 1u << 8}, {"pgsteal_khugepaged", 1u << 9},
        {"oom_kill", 1u << 10},
    };
    struct vm_acc *a = arg;
    struct vmstat *vm = a->vm;
    size_t i;
    for (i = 0; i < sizeof srcs / sizeof srcs[0]; i++)
        if (strcmp(key, srcs[i].key) == 0)
            break;
    if (i == sizeof srcs / sizeof srcs[0] || (a->seen & srcs[i].bit))
        return;
    a->seen |= srcs[i].bit;
    switch (i) {
    case 0: vm->pgfault = v; vm->have |= VM_PGFAULT; break;
    case 1: vm->pgmajfault = v; vm->have |= VM_PGMAJFAULT; break;
    case 2: vm->pswpin = v; vm->have |= VM_PSWPIN; break;
    case 3: vm->pswpout = v; vm->have |= VM_PSWPOUT; break;
    case 5:
        vm->pgscan_direct = v;
        vm->have |= VM_PGSCAN_DIRECT;
        /* fall through */
    case 4:
    case 6:
        vm->pgscan += v;
        vm->have |= VM_PGSCAN;
        break;
    case 7:
    case 8:
    case 9:
        vm->pgsteal += v;
        vm->have |= VM_PGSTEAL;
        break;
    case 10: vm->oom_kill = v; vm->have |= VM_OOM_KILL; break;
    }
}

int parse_vmstat(const char *text, struct vmstat *out)
{
    memset(out, 0, sizeof *out);
    struct vm_acc a = {out, 0};
    each_line(text, ' ', false, vmstat_field, &a);
    return out->have ? 0 : -EINVAL;
}

/* ---- collector -------------------------------------------------------- */

struct gauge {
    double sum, min;
    size_t n;
};

static void gauge_add(struct gauge *g, double v)
{
    if (isnan(v))
        return;
    g->min = g->n ? fmin(g->min, v) : v;
    g->sum += v;
    g->n++;
}

static double gauge_avg(const struct gauge *g) { return g->n ? g->sum / (double)g->n : NAN; }

struct mem_state {
    bool have_vm_first, have_vm_prev;
    struct vmstat vm_first, vm_prev;
    double t_first, t_prev;
    struct gauge avail_kib, avail_pct, swap_used_kib, swap_used_pct;
    bool have_mi_last;
    struct meminfo mi_last;
};

static int read_meminfo(struct meminfo *m)
{
    struct strbuf sb = STRBUF_INIT;
    int rc = hostfs_read("/proc/meminfo", &sb, 0);
    if (rc == 0)
        rc = parse_meminfo(sb_str(&sb), m);
    sb_free(&sb);
    return rc;
}

static int read_vmstat(struct vmstat *vm)
{
    struct strbuf sb = STRBUF_INIT;
    int rc = hostfs_read("/proc/vmstat", &sb, 0);
    if (rc == 0)
        rc = parse_vmstat(sb_str(&sb), vm);
    sb_free(&sb);
    return rc;
}

static double avail_pct(const struct meminfo *m)
{
    return (m->have & MI_AVAILABLE) ? (double)m->available * 100.0 / (double)m->total : NAN;
}

/* Swap gauges; NAN (absent) when the host has no swap. */
static double swap_used_kib(const struct meminfo *m)
{
    if (!(m->have & MI_SWAP_TOTAL) || !(m->have & MI_SWAP_FREE) || m->swap_total == 0)
        return NAN;
    return m->swap_free < m->swap_total ? (double)(m->swap_total - m->swap_free) : 0.0;
}

static double swap_used_pct(const struct meminfo *m)
{
    double used = swap_used_kib(m);
    return isnan(used) ? NAN : used * 100.0 / (double)m->swap_total;
}

static double vm_rate(const struct vmstat *a, const struct vmstat *b, unsigned bit,
                      uint64_t va, uint64_t vb, double dt)
{
    if (!(a->have & bit) || !(b->have & bit) || !(dt > 0))
        return NAN;
    return vb > va ? (double)(vb - va) / dt : 0.0;
}

static void mem_destroy(void *state) { free(state); }

static int mem_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct mem_state *s = xcalloc(1, sizeof *s);
    *state = s;
    struct meminfo m;
    int rc = read_meminfo(&m);
    if (rc) {
        snprintf(err, n, "cannot read /proc/meminfo: %s", strerror(-rc));
        return rc;
    }
    s->mi_last = m;
    s->have_mi_last = true;
    /* Rates divide by the time between our own vmstat reads. */
    s->t_first = s->t_prev = collect_clock_s(ctx);
    if (read_vmstat(&s->vm_first) == 0) {
        s->have_vm_first = s->have_vm_prev = true;
        s->vm_prev = s->vm_first;
    }
    return 0;
}

static void sample_meminfo(struct report *r, struct mem_state *s, const struct meminfo *m,
                           bool set_series)
{
    double pct = avail_pct(m);
    gauge_add(&s->avail_pct, pct);
    if (m->have & MI_AVAILABLE)
        gauge_add(&s->avail_kib, (double)m->available);
    double su = swap_used_kib(m), sp = swap_used_pct(m);
    gauge_add(&s->swap_used_kib, su);
    gauge_add(&s->swap_used_pct, sp);
    if (!set_series)
        return;
    struct series *se = report_series(r, NM_MEM_AVAILABLE_PCT, "Memory available", "%", "memory");
    se->chart = true; /* threshold lines: analysis */
    series_set(r, se, pct);
    if (!isnan(sp))
        series_set(r, report_series(r, NM_SWAP_USED_PCT, "Swap used", "%", "memory"), sp);
    if (m->have & MI_DIRTY)
        series_set(r, report_series(r, NM_MEM_DIRTY_KIB, "Dirty memory", "KiB", "memory"),
                   (double)m->dirty);
}

static int mem_tick(struct collect_ctx *ctx, void *state)
{
    struct mem_state *s = state;
    struct report *r = ctx->r;
    struct meminfo m;
    int rc = read_meminfo(&m);
    if (rc == 0) {
        sample_meminfo(r, s, &m, true);
        s->mi_last = m;
        s->have_mi_last = true;
    }
    struct vmstat vm;
    int rc2 = read_vmstat(&vm);
    double t_now = collect_clock_s(ctx);
    if (rc2 == 0) {
        if (s->have_vm_prev) {
            double dt = t_now - s->t_prev;
            series_set(r,
                       report_series(r, NM_MEM_PGMAJFAULT_PER_S, "Major page faults", "/s",
                                     "memory"),
                       vm_rate(&s->vm_prev, &vm, VM_PGMAJFAULT, s->vm_prev.pgmajfault,
                               vm.pgmajfault, dt));
            series_set(r,
                       report_series(r, NM_MEM_PGSCAN_PER_S, "Pages scanned for reclaim", "/s",
                                     "memory"),
                       vm_rate(&s->vm_prev, &vm, VM_PGSCAN, s->vm_prev.pgscan, vm.pgscan, dt));
        }
        if (!s->have_vm_first) {
            /* vmstat was unreadable at start: begin the window here. */
            s->vm_first = vm;
            s->have_vm_first = true;
            s->t_first = t_now;
        }
        s->vm_prev = vm;
        s->have_vm_prev = true;
        s->t_prev = t_now;
    }
    return rc ? rc : rc2;
}

static void metric_if(struct report *r, const char *name, const char *title, const char *unit,
                      double v)
{
    if (!isnan(v))
        report_metric(r, name, title, unit, "memory", v);
}

static int mem_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    struct mem_state *s = state;
    struct report *r = ctx->r;
    struct meminfo m;
    if (read_meminfo(&m) == 0) {
        s->mi_last = m;
        s->have_mi_last = true;
    }
    if (!s->have_mi_last) {
        snprintf(err, n, "cannot read /proc/meminfo");
        return -EIO;
    }
    const struct meminfo *e = &s->mi_last;
    /* Gauges average over the ticks; a window without ticks uses the end. */
    if (s->avail_pct.n == 0)
        sample_meminfo(r, s, e, false);

    report_metric(r, NM_MEM_TOTAL_KIB, "Memory total", "KiB", "memory", (double)e->total);
    metric_if(r, NM_MEM_AVAILABLE_KIB, "Memory available", "KiB", gauge_avg(&s->avail_kib));
    metric_if(r, NM_MEM_AVAILABLE_PCT, "Memory available", "%", gauge_avg(&s->avail_pct));
    if (s->avail_pct.n)
        report_metric(r, NM_MEM_AVAILABLE_PCT_MIN, "Memory available (min)", "%", "memory",
                      s->avail_pct.min);
    static const struct {
        const char *name, *title;
        unsigned bit;
        size_t off;
    } ends[] = {
        {NM_MEM_DIRTY_KIB, "Dirty memory", MI_DIRTY, offsetof(struct meminfo, dirty)},
        {NM_MEM_WRITEBACK_KIB, "Writeback memory", MI_WRITEBACK,
         offsetof(struct meminfo, writeback)},
        {NM_MEM_CACHED_KIB, "Page cache", MI_CACHED, offsetof(struct meminfo, cached)},
        {NM_MEM_ANON_KIB, "Anonymous memory", MI_ANON, offsetof(struct meminfo, anon)},
        {NM_MEM_SLAB_KIB, "Slab", MI_SLAB, offsetof(struct meminfo, slab)},
    };
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
        if (e->have & ends[i].bit)
            report_metric(r, ends[i].name, ends[i].title, "KiB", "memory",
                          (double)*(const uint64_t *)((const char *)e + ends[i].off));

    if (s->swap_used_pct.n) {
        report_metric(r, NM_SWAP_TOTAL_KIB, "Swap total", "KiB", "memory",
                      (double)e->swap_total);
        metric_if(r, NM_SWAP_USED_KIB, "Swap used", "KiB", gauge_avg(&s->swap_used_kib));
        metric_if(r, NM_SWAP_USED_PCT, "Swap used", "%", gauge_avg(&s->swap_used_pct));
    }

    struct vmstat vm;
    double t_last = collect_clock_s(ctx);
    if (read_vmstat(&vm) != 0) {
        vm = s->vm_prev; /* the last tick's reading ends the window */
        t_last = s->t_prev;
        if (!s->have_vm_prev)
            return 0; /* no vmstat at all: the rates stay absent */
    }
    if (!s->have_vm_first)
        return 0; /* only one reading: no interval */
    const struct vmstat *a = &s->vm_first;
    double dt = t_last - s->t_first;
    metric_if(r, NM_MEM_PGFAULT_PER_S, "Page faults", "/s",
              vm_rate(a, &vm, VM_PGFAULT, a->pgfault, vm.pgfault, dt));
    metric_if(r, NM_MEM_PGMAJFAULT_PER_S, "Major page faults", "/s",
              vm_rate(a, &vm, VM_PGMAJFAULT, a->pgmajfault, vm.pgmajfault, dt));
    metric_if(r, NM_MEM_PSWPIN_PER_S, "Pages swapped in", "/s",
              vm_rate(a, &vm, VM_PSWPIN, a->pswpin, vm.pswpin, dt));
    metric_if(r, NM_MEM_PSWPOUT_PER_S, "Pages swapped out", "/s",
              vm_rate(a, &vm, VM_PSWPOUT, a->pswpout, vm.pswpout, dt));
    metric_if(r, NM_MEM_PGSCAN_PER_S, "Pages scanned for reclaim", "/s",
              vm_rate(a, &vm, VM_PGSCAN, a->pgscan, vm.pgscan, dt));
    metric_if(r, NM_MEM_PGSCAN_DIRECT_PER_S, "Pages scanned by direct reclaim", "/s",
              vm_rate(a, &vm, VM_PGSCAN_DIRECT, a->pgscan_direct, vm.pgscan_direct, dt));
    metric_if(r, NM_MEM_PGSTEAL_PER_S, "Pages reclaimed", "/s",
              vm_rate(a, &vm, VM_PGSTEAL, a->pgsteal, vm.pgsteal, dt));
    if ((a->have & VM_OOM_KILL) && (vm.have & VM_OOM_KILL))
        report_metric(r, NM_MEM_OOM_KILL, "OOM kills", "", "memory",
                      vm.oom_kill > a->oom_kill ? (double)(vm.oom_kill - a->oom_kill) : 0.0);
    return 0;
}

const struct collector collector_memory = {
    .name = "memory",
    .title = "Memory",
    .needs_bpf = false,
    .can_run = NULL,
    .start = mem_start,
    .tick = mem_tick,
    .stop = mem_stop,
    .destroy = mem_destroy,
};
