/* Per-tick readings of a few cgroups: I/O against each limit, and memory
 * (anonymous vs page cache).  See cgroup_watch.h. */
#include "cgroup_watch.h"
#include "../../procfs/blockdev.h"
#include "../../procfs/cgroup_name.h"
#include "model/model.h"
#include "model/names.h"
#include "util/growth.h"
#include "util/hostfs.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WATCH_FILE_MAX 65536 /* io.stat, blkio stats, memory.stat: a few KiB each */

/* ------------------------------------------------------------------ I/O */

void cg_io_watch_init(struct cg_io_watch *w, const char *path, const char *dir, bool v2,
                      const struct cg_io_limit *lim, size_t row)
{
    memset(w, 0, sizeof *w);
    w->path = xstrdup(path);
    w->dir = xstrdup(dir);
    w->v2 = v2;
    w->lim = *lim;
    w->row = row;
    w->peak = NAN;
    w->psi_io_pct = NAN;
    bio_dev_name(lim->major, lim->minor, w->dev, sizeof w->dev);
}

void cg_io_watch_free(struct cg_io_watch *w)
{
    free(w->path);
    free(w->dir);
    w->path = w->dir = NULL;
}

static bool is_bytes(enum cg_io_kind k) { return k == CG_IO_RBPS || k == CG_IO_WBPS; }

/* The counter the limit applies to.  A device the cgroup has done no I/O
 * to has no line in a file that was read: 0. */
static bool io_counter(struct strbuf *sb, const struct cg_io_watch *w, uint64_t *v)
{
    const struct cg_io_limit *l = &w->lim;
    *v = 0;
    if (w->v2) {
        if (hostfs_readf(sb, WATCH_FILE_MAX, "%s/io.stat", w->dir) != 0)
            return false;
        cg_parse_io_stat(sb_str(sb), l->major, l->minor, l->kind, v);
        return true;
    }
    /* v1: the _recursive form counts the descendants too, which the limit
     * also holds (older kernels have only the cgroup's own). */
    const char *file = is_bytes(l->kind) ? "blkio.throttle.io_service_bytes"
                                         : "blkio.throttle.io_serviced";
    if (hostfs_readf(sb, WATCH_FILE_MAX, "%s/%s_recursive", w->dir, file) != 0 &&
        hostfs_readf(sb, WATCH_FILE_MAX, "%s/%s", w->dir, file) != 0)
        return false;
    cg_parse_blkio_stat(sb_str(sb), l->major, l->minor, l->kind, v);
    return true;
}

void cg_io_watch_read(struct cg_io_watch *w, struct collect_ctx *ctx, struct strbuf *sb,
                      bool tick)
{
    uint64_t v;
    double now = collect_clock_s(ctx);
    if (!io_counter(sb, w, &v)) {
        w->have_prev = false; /* removed, or unreadable: a gap, not a zero */
        return;
    }
    if (w->have_prev && now > w->prev_s) {
        /* backwards: the cgroup was made anew under the same name */
        uint64_t d = v >= w->prev ? v - w->prev : v;
        double rate = (double)d / (now - w->prev_s);
        w->sum += d;
        w->sum_s += now - w->prev_s;
        if (isnan(w->peak) || rate > w->peak)
            w->peak = rate;
        if (tick) {
            if (!w->use) {
                char name[64], title[256];
                snprintf(name, sizeof name, NMF_CGROUP_IO_USE, w->row);
                snprintf(title, sizeof title, "I/O of cgroup %s against its %s limit on %s",
                         w->path, cg_io_kind_name(w->lim.kind), w->dev);
                w->use = report_series(ctx->r, name, title, "%", "cgroup");
            }
            series_set(ctx->r, w->use, rate / (double)w->lim.limit * 100.0);
        }
    }
    w->prev = v;
    w->prev_s = now;
    w->have_prev = true;
}

static void set_workload(struct table *t, size_t row, const char *path)
{
    struct cgroup_workload wl;
    if (cgroup_workload_of(path, &wl)) {
        char name[192];
        cgroup_workload_name(&wl, name, sizeof name);
        table_set_str(t, row, "name", name);
    }
}

void cg_io_watch_emit(struct report *r, const struct cg_io_watch *w, size_t n,
                      size_t unwatched)
{
    if (!n && !unwatched)
        return;
    struct table *t = report_table(r, NM_CGROUP_IO, "Cgroup I/O limits", "cgroup");
    static const struct col_spec cols[] = {
        {"path", "Cgroup", "", 0},
        {"name", "Workload", "", 0},
        {"device", "Device", "", 0},
        {"devno", "Dev", "", 0},
        {"limit", "Limit", "", 0},
        {"limit_kib_per_s", "Limit", "KiB/s", 0},
        {"rate_kib_per_s", "Rate", "KiB/s", 0},
        {"limit_iops", "Limit", "IO/s", 0},
        {"rate_iops", "Rate", "IO/s", 1},
        {"use_pct", "Of limit", "%", 1},
        {"peak_use_pct", "Peak of limit", "%", 1},
        {"psi_io_some_pct", "IO pressure", "%", 1},
    };
    if (t->ncols == 0)
        table_add_cols(t, cols, ARRAY_LEN(cols));
    for (size_t i = 0; i < n; i++) {
        const struct cg_io_watch *x = &w[i];
        size_t row = table_add_row(t); /* == x->row: rows are made in watch order */
        char devno[32];
        snprintf(devno, sizeof devno, "%u:%u", x->lim.major, x->lim.minor);
        table_set_str(t, row, "path", x->path);
        set_workload(t, row, x->path);
        table_set_str(t, row, "device", x->dev);
        table_set_str(t, row, "devno", devno);
        table_set_str(t, row, "limit", cg_io_kind_name(x->lim.kind));
        double lim = (double)x->lim.limit;
        double rate = x->sum_s > 0 ? (double)x->sum / x->sum_s : NAN;
        bool bytes = is_bytes(x->lim.kind);
        double unit = bytes ? 1024.0 : 1.0;
        table_set_num_opt(t, row, bytes ? "limit_kib_per_s" : "limit_iops", lim / unit);
        table_set_num_opt(t, row, bytes ? "rate_kib_per_s" : "rate_iops", rate / unit);
        table_set_num_opt(t, row, "use_pct", rate / lim * 100.0);
        table_set_num_opt(t, row, "peak_use_pct", x->peak / lim * 100.0);
        table_set_num_opt(t, row, "psi_io_some_pct", x->psi_io_pct);
    }
    struct strbuf note = STRBUF_INIT;
    sb_addf(&note, "Each I/O limit (v2 io.max, v1 blkio.throttle.*_device), read at every "
                   "tick: the rate is the cgroup's I/O to that device over the window (its "
                   "descendants included), the peak its fastest interval; IO pressure is the "
                   "cgroup's own PSI io some (v2, same path).");
    if (unwatched)
        sb_addf(&note, " %zu more limit%s not followed (at most %d are).", unwatched,
                unwatched == 1 ? "" : "s", CG_IO_WATCH_MAX);
    table_set_note(t, sb_str(&note));
    sb_free(&note);
}

/* --------------------------------------------------------------- memory */

void cg_mem_watch_init(struct cg_mem_watch *w, const char *path, const char *dir)
{
    memset(w, 0, sizeof *w);
    w->path = xstrdup(path);
    w->dir = xstrdup(dir);
    w->stride = 1;
    w->mem_kib = w->limit_kib = NAN;
}

void cg_mem_watch_free(struct cg_mem_watch *w)
{
    free(w->path);
    free(w->dir);
    free(w->t);
    free(w->anon_kib);
    free(w->file_kib);
    memset(w, 0, sizeof *w);
}

/* Keeps every other reading and halves the rate of keeping: a long window
 * costs CG_MEM_WATCH_SAMPLES readings at most, spread over all of it. */
static void decimate(struct cg_mem_watch *w)
{
    size_t k = 0;
    for (size_t i = 0; i < w->n; i += 2, k++) {
        w->t[k] = w->t[i];
        w->anon_kib[k] = w->anon_kib[i];
        w->file_kib[k] = w->file_kib[i];
    }
    w->n = k;
    w->stride *= 2;
}

void cg_mem_watch_read(struct cg_mem_watch *w, const struct collect_ctx *ctx,
                       struct strbuf *sb, bool last, double self_anon_kib)
{
    size_t idx = w->reads++;
    if (!last && idx % w->stride != 0)
        return;
    uint64_t anon, file;
    double now = collect_clock_s(ctx);
    if (hostfs_readf(sb, WATCH_FILE_MAX, "%s/memory.stat", w->dir) != 0 ||
        !cg_parse_mem_stat(sb_str(sb), &anon, &file))
        return;
    /* The stop soon after the last tick: a step too short to rise in
     * would count as a flat interval; it replaces that tick's reading. */
    if (last && w->n >= 2 &&
        now - w->t[w->n - 1] < 0.5 * (w->t[w->n - 1] - w->t[0]) / (double)(w->n - 1))
        w->n--;
    if (w->n == CG_MEM_WATCH_SAMPLES)
        decimate(w);
    if (w->n == w->cap) { /* three arrays of one length */
        w->cap = w->cap ? 2 * w->cap : 64;
        w->t = xrealloc(w->t, w->cap * sizeof *w->t);
        w->anon_kib = xrealloc(w->anon_kib, w->cap * sizeof *w->anon_kib);
        w->file_kib = xrealloc(w->file_kib, w->cap * sizeof *w->file_kib);
    }
    double a = (double)anon / 1024.0;
    if (w->self && !isnan(self_anon_kib))
        a = a > self_anon_kib ? a - self_anon_kib : 0;
    w->t[w->n] = now;
    w->anon_kib[w->n] = a;
    w->file_kib[w->n] = (double)file / 1024.0;
    w->n++;
}

void cg_mem_watch_emit(struct report *r, const struct cg_mem_watch *w, size_t n)
{
    struct table *t = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct cg_mem_watch *x = &w[i];
        if (x->n < 3)
            continue;
        if (!t) {
            t = report_table(r, NM_CGROUP_MEMORY_GROWTH, "Cgroup memory growth", "cgroup");
            static const struct col_spec cols[] = {
                {"path", "Cgroup", "", 0},
                {"name", "Workload", "", 0},
                {"anon_first_kib", "Anon at start", "KiB", 0},
                {"anon_kib", "Anonymous", "KiB", 0},
                {"anon_growth_kib_per_s", "Anon growth", "KiB/s", 1},
                {"anon_rise_pct", "Anon rose in", "% of intervals", 0},
                {"file_kib", "Page cache", "KiB", 0},
                {"file_growth_kib_per_s", "Cache growth", "KiB/s", 1},
                {"mem_kib", "Memory", "KiB", 0},
                {"mem_limit_kib", "Mem limit", "KiB", 0},
                {"samples", "Readings", "", 0},
                {"seconds", "Over", "s", 1},
            };
            table_add_cols(t, cols, ARRAY_LEN(cols));
        }
        double slope, rise, fslope;
        growth_fit(x->t, x->anon_kib, x->n, &slope, &rise);
        growth_fit(x->t, x->file_kib, x->n, &fslope, NULL);
        size_t row = table_add_row(t);
        table_set_str(t, row, "path", x->path);
        set_workload(t, row, x->path);
        table_set_num(t, row, "anon_first_kib", x->anon_kib[0]);
        table_set_num(t, row, "anon_kib", x->anon_kib[x->n - 1]);
        table_set_num_opt(t, row, "anon_growth_kib_per_s", slope);
        table_set_num_opt(t, row, "anon_rise_pct", rise);
        table_set_num(t, row, "file_kib", x->file_kib[x->n - 1]);
        table_set_num_opt(t, row, "file_growth_kib_per_s", fslope);
        table_set_num_opt(t, row, "mem_kib", x->mem_kib);
        table_set_num_opt(t, row, "mem_limit_kib", x->limit_kib);
        table_set_num(t, row, "samples", (double)x->n);
        table_set_num(t, row, "seconds", x->t[x->n - 1] - x->t[0]);
    }
    if (!t)
        return;
    char note[512];
    snprintf(note, sizeof note,
             "Memory of the cgroups with a memory limit (up to %d, largest first) and the "
             "largest others (%d in all), read at every tick from memory.stat: anonymous "
             "memory (v2 anon, v1 total_rss) apart from page cache (file, total_cache), which "
             "the kernel reclaims; growth is the least-squares slope over the window.  "
             "perfreport's own anonymous memory is left out of the cgroups it runs in.",
             CG_MEM_WATCH_MAX / 2, CG_MEM_WATCH_MAX);
    table_set_note(t, note);
}
