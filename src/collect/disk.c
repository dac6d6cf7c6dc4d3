/* Disk collector: iostat's figures per whole disk, from /proc/diskstats.
 *
 * Every reading is diffed against the previous one of the same device; the
 * per-interval deltas feed the per-tick series and are summed into a window
 * total per device.  Summing clamped deltas (rather than last - first) keeps a
 * counter reset in the middle of the window from wiping out the whole window,
 * and a device that vanishes and comes back simply starts a fresh baseline. */
#include "disk.h"
#include "collector.h"
#include "procfs/blockdev.h"
#include "model/model.h"
#include "model/names.h"
#include "util/hostfs.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsers ---------------------------------------------------------- */

#define DISK_MAX_TOKENS 24

static bool parse_u64(const char *s, size_t len, uint64_t *v)
{
    if (len == 0 || len > 20)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        uint64_t digit = (uint64_t)(s[i] - '0');
        if (x > (UINT64_MAX - digit) / 10)
            return false;
        x = x * 10 + digit;
    }
    *v = x;
    return true;
}

const struct diskstat *diskstats_find(const struct diskstats *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->v[i].name, name) == 0)
            return &d->v[i];
    return NULL;
}

/* One line [s, s+len); false when it is not a well-formed diskstats line. */
static bool parse_line(const char *s, size_t len, struct diskstat *out)
{
    const char *tok[DISK_MAX_TOKENS];
    size_t tlen[DISK_MAX_TOKENS];
    size_t nt = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
            i++;
        if (i >= len)
            break;
        size_t b = i;
        while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            i++;
        if (nt < DISK_MAX_TOKENS) {
            tok[nt] = s + b;
            tlen[nt] = i - b;
        }
        nt++;
    }
    /* 3 + 11 counters minimum; newer kernels may add more than we know. */
    if (nt < 14)
        return false;
    if (nt > DISK_MAX_TOKENS)
        nt = DISK_MAX_TOKENS;
    uint64_t v[DISK_MAX_TOKENS] = {0};
    for (size_t k = 0; k < nt; k++) {
        if (k == 2)
            continue;
        if (!parse_u64(tok[k], tlen[k], &v[k]))
            return false;
    }
    if (v[0] > 0xffffffffu || v[1] > 0xffffffffu)
        return false;
    memset(out, 0, sizeof *out);
    out->major = (unsigned)v[0];
    out->minor = (unsigned)v[1];
    size_t ns = nt - 3;
    out->nstats = (int)ns;
    const uint64_t *c = v + 3;
    out->rd_ios = c[0];
    out->rd_merges = c[1];
    out->rd_sectors = c[2];
    out->rd_ticks = c[3];
    out->wr_ios = c[4];
    out->wr_merges = c[5];
    out->wr_sectors = c[6];
    out->wr_ticks = c[7];
    out->in_flight = c[8];
    out->io_ticks = c[9];
    out->time_in_queue = c[10];
    if (ns >= 15) {
        out->dc_ios = c[11];
        out->dc_merges = c[12];
        out->dc_sectors = c[13];
        out->dc_ticks = c[14];
    }
    if (ns >= 17) {
        out->fl_ios = c[15];
        out->fl_ticks = c[16];
    }
    out->name = xstrndup(tok[2], tlen[2]);
    return true;
}

size_t diskstats_parse(const char *text, struct diskstats *out)
{
    size_t skipped = 0;
    const char *p = text ? text : "";
    while (*p) {
        size_t len = strcspn(p, "\n");
        struct diskstat ds;
        bool blank = true;
        for (size_t i = 0; i < len; i++)
            if (!isspace((unsigned char)p[i]))
                blank = false;
        if (!blank) {
            if (!parse_line(p, len, &ds)) {
                skipped++;
            } else if (diskstats_find(out, ds.name)) {
                free(ds.name);
                skipped++;
            } else {
                xgrow(&out->v, &out->cap, out->n + 1, sizeof *out->v);
                out->v[out->n++] = ds;
            }
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    return skipped;
}

void diskstats_free(struct diskstats *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->v[i].name);
    free(d->v);
    d->v = NULL;
    d->n = d->cap = 0;
}

static uint64_t dlt(uint64_t cur, uint64_t prev) { return cur >= prev ? cur - prev : 0; }

void diskstat_delta(const struct diskstat *cur, const struct diskstat *prev, struct diskstat *d)
{
    memset(d, 0, sizeof *d);
    d->major = cur->major;
    d->minor = cur->minor;
    d->nstats = cur->nstats;
    d->rd_ios = dlt(cur->rd_ios, prev->rd_ios);
    d->rd_merges = dlt(cur->rd_merges, prev->rd_merges);
    d->rd_sectors = dlt(cur->rd_sectors, prev->rd_sectors);
    d->rd_ticks = dlt(cur->rd_ticks, prev->rd_ticks);
    d->wr_ios = dlt(cur->wr_ios, prev->wr_ios);
    d->wr_merges = dlt(cur->wr_merges, prev->wr_merges);
    d->wr_sectors = dlt(cur->wr_sectors, prev->wr_sectors);
    d->wr_ticks = dlt(cur->wr_ticks, prev->wr_ticks);
    d->in_flight = cur->in_flight; /* a gauge, not a counter */
    d->io_ticks = dlt(cur->io_ticks, prev->io_ticks);
    d->time_in_queue = dlt(cur->time_in_queue, prev->time_in_queue);
    d->dc_ios = dlt(cur->dc_ios, prev->dc_ios);
    d->dc_merges = dlt(cur->dc_merges, prev->dc_merges);
    d->dc_sectors = dlt(cur->dc_sectors, prev->dc_sectors);
    d->dc_ticks = dlt(cur->dc_ticks, prev->dc_ticks);
    d->fl_ios = dlt(cur->fl_ios, prev->fl_ios);
    d->fl_ticks = dlt(cur->fl_ticks, prev->fl_ticks);
}

void diskstat_accumulate(struct diskstat *acc, const struct diskstat *d)
{
    acc->rd_ios += d->rd_ios;
    acc->rd_merges += d->rd_merges;
    acc->rd_sectors += d->rd_sectors;
    acc->rd_ticks += d->rd_ticks;
    acc->wr_ios += d->wr_ios;
    acc->wr_merges += d->wr_merges;
    acc->wr_sectors += d->wr_sectors;
    acc->wr_ticks += d->wr_ticks;
    acc->in_flight = d->in_flight;
    acc->io_ticks += d->io_ticks;
    acc->time_in_queue += d->time_in_queue;
    acc->dc_ios += d->dc_ios;
    acc->dc_merges += d->dc_merges;
    acc->dc_sectors += d->dc_sectors;
    acc->dc_ticks += d->dc_ticks;
    acc->fl_ios += d->fl_ios;
    acc->fl_ticks += d->fl_ticks;
}

void disk_rates_compute(const struct diskstat *d, double elapsed_ms, struct disk_rates *o)
{
    double s = elapsed_ms / 1000.0;
    /* iostat counts discards in await, tps and request size, flushes nowhere. */
    uint64_t n = d->rd_ios + d->wr_ios + d->dc_ios;
    o->ios = n + d->fl_ios;
    o->r_per_s = (double)d->rd_ios / s;
    o->w_per_s = (double)d->wr_ios / s;
    o->rkb_per_s = (double)d->rd_sectors * 512.0 / 1024.0 / s;
    o->wkb_per_s = (double)d->wr_sectors * 512.0 / 1024.0 / s;
    o->r_await_ms = d->rd_ios ? (double)d->rd_ticks / (double)d->rd_ios : NAN;
    o->w_await_ms = d->wr_ios ? (double)d->wr_ticks / (double)d->wr_ios : NAN;
    o->await_ms = n ? (double)(d->rd_ticks + d->wr_ticks + d->dc_ticks) / (double)n : NAN;
    o->avg_rq_kib =
        n ? (double)(d->rd_sectors + d->wr_sectors + d->dc_sectors) * 512.0 / 1024.0 / (double)n
          : NAN;
    o->aqu_sz = (double)d->time_in_queue / elapsed_ms;
    o->util_pct = (double)d->io_ticks / elapsed_ms * 100.0;
    if (o->util_pct > 100.0)
        o->util_pct = 100.0;
    o->iops = (double)n / s;
}

/* ---- collector -------------------------------------------------------- */

struct disk_dev {
    char *name;        /* owned */
    const char *cls;   /* static string */
    bool whole;        /* has a /sys/block entry */
    bool virt;         /* loop/dm/...: shown only after doing I/O */
    bool did_io;
    bool has_prev;     /* prev is a baseline from the latest reading */
    struct diskstat prev; /* counters only; name is NULL */
    double prev_s;
    struct diskstat acc; /* summed deltas; name is NULL */
    double acc_ms;
};

struct disk_state {
    struct disk_dev *v;
    size_t n, cap;
    double last_s;       /* time of the latest successful reading */
    size_t bad_lines;    /* malformed lines seen, for the ledger note */
    struct strbuf buf;
};

static void disk_destroy(void *p)
{
    struct disk_state *st = p;
    if (!st)
        return;
    for (size_t i = 0; i < st->n; i++)
        free(st->v[i].name);
    free(st->v);
    sb_free(&st->buf);
    free(st);
}

static struct disk_dev *dev_get(struct disk_state *st, const char *name)
{
    for (size_t i = 0; i < st->n; i++)
        if (strcmp(st->v[i].name, name) == 0)
            return &st->v[i];
    xgrow(&st->v, &st->cap, st->n + 1, sizeof *st->v);
    struct disk_dev *d = &st->v[st->n++];
    memset(d, 0, sizeof *d);
    d->name = xstrdup(name);
    d->cls = "unknown";
    char sys[256], path[512];
    if (disk_sysfs_name(name, sys, sizeof sys)) {
        snprintf(path, sizeof path, "/sys/block/%s", sys);
        d->whole = hostfs_is_dir(path);
        if (d->whole)
            d->cls = disk_class_of(name);
    }
    d->virt = disk_is_virtual_name(name);
    return d;
}

static void set_series(struct report *r, const struct disk_dev *d, const char *what,
                       const char *title, const char *unit, double v)
{
    char name[512], t[512];
    snprintf(name, sizeof name, NMF_DISK_SERIES, d->name, what);
    snprintf(t, sizeof t, "%s %s", d->name, title);
    struct series *s = report_series(r, name, t, unit, "disk");
    if (strcmp(what, "util_pct") == 0)
        s->chart = true; /* threshold lines: analysis */
    series_set(r, s, v);
}

/* Takes a reading, timed on the collector's clock; with_series sets the
 * current tick's values. */
static int disk_sample(struct collect_ctx *ctx, struct disk_state *st, bool with_series)
{
    int rc = hostfs_read("/proc/diskstats", &st->buf, 0);
    if (rc)
        return rc;
    struct diskstats cur = {0};
    st->bad_lines += diskstats_parse(sb_str(&st->buf), &cur);
    double now = collect_clock_s(ctx);
    bool *seen = xcalloc(st->n + cur.n + 1, sizeof *seen);
    for (size_t i = 0; i < cur.n; i++) {
        struct disk_dev *d = dev_get(st, cur.v[i].name);
        size_t idx = (size_t)(d - st->v);
        seen[idx] = true;
        if (!d->whole)
            continue;
        if (d->has_prev && now > d->prev_s) {
            struct diskstat delta;
            double ms = (now - d->prev_s) * 1000.0;
            diskstat_delta(&cur.v[i], &d->prev, &delta);
            diskstat_accumulate(&d->acc, &delta);
            d->acc_ms += ms;
            struct disk_rates rt;
            disk_rates_compute(&delta, ms, &rt);
            if (rt.ios > 0)
                d->did_io = true;
            if (with_series && (!d->virt || d->did_io)) {
                set_series(ctx->r, d, "util_pct", "utilisation", "%", rt.util_pct);
                set_series(ctx->r, d, "await_ms", "await", "ms", rt.await_ms);
                set_series(ctx->r, d, "aqu_sz", "queue size", "", rt.aqu_sz);
                set_series(ctx->r, d, "iops", "IOPS", "/s", rt.iops);
            }
        }
        d->prev = cur.v[i];
        d->prev.name = NULL;
        d->prev_s = now;
        d->has_prev = true;
    }
    /* A device missing from this reading loses its baseline: if it comes
     * back, the time in between is not charged to it. */
    for (size_t i = 0; i < st->n; i++)
        if (!seen[i])
            st->v[i].has_prev = false;
    free(seen);
    diskstats_free(&cur);
    st->last_s = now;
    return 0;
}

static bool disk_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    if (hostfs_exists("/proc/diskstats"))
        return true;
    snprintf(reason, n, "/proc/diskstats is not available");
    return false;
}

static int disk_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct disk_state *st = xcalloc(1, sizeof *st);
    *state = st;
    int rc = disk_sample(ctx, st, false);
    if (rc) {
        snprintf(err, n, "cannot read /proc/diskstats: %s", strerror(-rc));
        return rc;
    }
    return 0;
}

static int disk_tick(struct collect_ctx *ctx, void *state)
{
    return disk_sample(ctx, state, true);
}

static int disk_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    (void)err;
    (void)n;
    struct disk_state *st = state;
    struct report *r = ctx->r;
    /* A final reading only when time has passed since the last tick; a
     * failure here just leaves the window ending at the last tick. */
    if (collect_clock_s(ctx) - st->last_s > 0.001)
        (void)disk_sample(ctx, st, false);

    struct table *t = NULL;
    double util_max = NAN, await_max = NAN;
    for (size_t i = 0; i < st->n; i++) {
        const struct disk_dev *d = &st->v[i];
        if (!d->whole || d->acc_ms <= 0 || (d->virt && !d->did_io))
            continue;
        if (!t) {
            t = report_table(r, NM_DISK, "Disks", "disk");
            static const struct col_spec disk_cols[] = {
                {"device", "Device", "", 0},
                {"class", "Class", "", 0},
                {"r_per_s", "r/s", "/s", 1},
                {"w_per_s", "w/s", "/s", 1},
                {"rkb_per_s", "rKiB/s", "KiB/s", 1},
                {"wkb_per_s", "wKiB/s", "KiB/s", 1},
                {"r_await_ms", "r_await", "ms", 2},
                {"w_await_ms", "w_await", "ms", 2},
                {"await_ms", "await", "ms", 2},
                {"aqu_sz", "aqu-sz", "", 2},
                {"util_pct", "Util %", "%", 1},
                {"avg_rq_kib", "Avg req", "KiB", 1},
            };
            table_add_cols(t, disk_cols, ARRAY_LEN(disk_cols));
        }
        struct disk_rates rt;
        disk_rates_compute(&d->acc, d->acc_ms, &rt);
        size_t row = table_add_row(t);
        table_set_str(t, row, "device", d->name);
        table_set_str(t, row, "class", d->cls);
        table_set_num_opt(t, row, "r_per_s", rt.r_per_s);
        table_set_num_opt(t, row, "w_per_s", rt.w_per_s);
        table_set_num_opt(t, row, "rkb_per_s", rt.rkb_per_s);
        table_set_num_opt(t, row, "wkb_per_s", rt.wkb_per_s);
        table_set_num_opt(t, row, "r_await_ms", rt.r_await_ms);
        table_set_num_opt(t, row, "w_await_ms", rt.w_await_ms);
        table_set_num_opt(t, row, "await_ms", rt.await_ms);
        table_set_num_opt(t, row, "aqu_sz", rt.aqu_sz);
        table_set_num_opt(t, row, "util_pct", rt.util_pct);
        table_set_num_opt(t, row, "avg_rq_kib", rt.avg_rq_kib);
        if (isnan(util_max) || rt.util_pct > util_max)
            util_max = rt.util_pct;
        if (!isnan(rt.await_ms) && (isnan(await_max) || rt.await_ms > await_max))
            await_max = rt.await_ms;
    }
    if (t)
        table_set_note(t, "Whole disks; await and request size cover reads, writes and "
                          "discards, as iostat does. Empty await: no I/O of that kind.");
    if (!isnan(util_max))
        report_metric(r, NM_DISK_UTIL_PCT_MAX, "Busiest disk utilisation", "%", "disk",
                      util_max);
    if (!isnan(await_max))
        report_metric(r, NM_DISK_AWAIT_MS_MAX, "Worst disk await", "ms", "disk", await_max);
    if (st->bad_lines) {
        struct ledger_entry *e = report_ledger(r, "disk", "Disks");
        ledger_note(e, "%zu malformed /proc/diskstats lines skipped", st->bad_lines);
    }
    return 0;
}

const struct collector collector_disk = {
    .name = "disk",
    .title = "Disks",
    .needs_bpf = false,
    .can_run = disk_can_run,
    .start = disk_start,
    .tick = disk_tick,
    .stop = disk_stop,
    .destroy = disk_destroy,
};
