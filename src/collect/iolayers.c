/* Collector "iolayers": how reads and writes flow through the layers
 * (VFS syscalls -> page cache -> block requests) and how much time
 * processes spend in fsync-like calls (the I/O part of bpf/systap.bpf.c). */
#include "iolayers.h"
#include "collector.h"
#include "../kbpf/kbpf.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../util/clock.h"
#include "../util/xalloc.h"
#include <linux/types.h>
#include "../../bpf/systap.h"
#include "../kbpf/systap.h"
#include "systap.skel.h"
#include "../kbpf/tapslice.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

double io_hit_pct(uint64_t lookups, uint64_t added)
{
    if (!lookups)
        return NAN;
    if (added >= lookups)
        return 0;
    return 100.0 * (1.0 - (double)added / (double)lookups);
}

double io_coalesce_pct(uint64_t vfs_writes, uint64_t blk_writes)
{
    if (!vfs_writes)
        return NAN;
    if (blk_writes >= vfs_writes)
        return 0;
    return 100.0 * (1.0 - (double)blk_writes / (double)vfs_writes);
}

static int by_sync_total(const void *a, const void *b)
{
    const struct io_sync_proc *x = a, *y = b;
    if (x->h.sum != y->h.sum)
        return x->h.sum < y->h.sum ? 1 : -1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void layer_row(struct table *t, const char *layer, double reads, double writes,
                      double rkib, double wkib)
{
    size_t row = table_add_row(t);
    table_set_str(t, row, "layer", layer);
    table_set_num(t, row, "reads", reads);
    table_set_num(t, row, "writes", writes);
    table_set_num(t, row, "read_kib", rkib);
    table_set_num(t, row, "write_kib", wkib);
}

void iolayers_fill(struct report *r, const uint64_t *cnt, const struct khist *fsync_all,
                   struct io_sync_proc *procs, size_t n, double window_s, const char *note)
{
    if (!(window_s > 0))
        window_s = 1;
    const char *res = "io";
    report_metric(r, NM_IO_VFS_READS, "VFS reads", "", res, (double)cnt[IO_C_VFS_READS]);
    report_metric(r, NM_IO_VFS_WRITES, "VFS writes", "", res, (double)cnt[IO_C_VFS_WRITES]);
    report_metric(r, NM_IO_VFS_READS_PER_S, "VFS reads", "/s", res,
                  (double)cnt[IO_C_VFS_READS] / window_s);
    report_metric(r, NM_IO_VFS_WRITES_PER_S, "VFS writes", "/s", res,
                  (double)cnt[IO_C_VFS_WRITES] / window_s);
    report_metric(r, NM_IO_VFS_READ_KIB, "VFS bytes read", "KiB", res,
                  (double)cnt[IO_C_READ_BYTES] / 1024.0);
    report_metric(r, NM_IO_VFS_WRITE_KIB, "VFS bytes written", "KiB", res,
                  (double)cnt[IO_C_WRITE_BYTES] / 1024.0);
    report_metric(r, NM_IO_PAGE_LOOKUPS, "Page-cache lookups by reads", "", res,
                  (double)cnt[IO_C_PAGE_LOOKUPS]);
    report_metric(r, NM_IO_PAGES_ADDED, "Pages added to the cache by reads", "", res,
                  (double)cnt[IO_C_PAGES_ADDED]);
    report_metric(r, NM_IO_BLOCK_READS, "Block read requests", "", res, (double)cnt[IO_C_BLK_READS]);
    report_metric(r, NM_IO_BLOCK_WRITES, "Block write requests", "", res,
                  (double)cnt[IO_C_BLK_WRITES]);
    double hit = io_hit_pct(cnt[IO_C_PAGE_LOOKUPS], cnt[IO_C_PAGES_ADDED]);
    double coal = io_coalesce_pct(cnt[IO_C_VFS_WRITES], cnt[IO_C_BLK_WRITES]);
    if (isfinite(hit))
        report_metric(r, NM_IO_CACHE_HIT_PCT, "Read cache hit rate", "%", res, hit);
    if (isfinite(coal))
        report_metric(r, NM_IO_WRITE_COALESCE_PCT, "Write coalescing", "%", res, coal);

    struct table *t = report_table(r, NM_IO_LAYERS, "I/O by layer", res);
    static const struct col_spec io_layers_cols[] = {
        {"layer", "Layer", "", 0},
        {"reads", "Reads", "", 0},
        {"writes", "Writes", "", 0},
        {"read_kib", "Read", "KiB", 0},
        {"write_kib", "Written", "KiB", 0},
    };
    table_add_cols(t, io_layers_cols, ARRAY_LEN(io_layers_cols));
    layer_row(t, "VFS (read/write syscalls)", (double)cnt[IO_C_VFS_READS],
              (double)cnt[IO_C_VFS_WRITES], (double)cnt[IO_C_READ_BYTES] / 1024.0,
              (double)cnt[IO_C_WRITE_BYTES] / 1024.0);
    layer_row(t, "page cache (pages looked up / added by reads)",
              (double)cnt[IO_C_PAGE_LOOKUPS], NAN, NAN, NAN);
    size_t row = t->nrows - 1;
    table_set_num(t, row, "writes", NAN);
    layer_row(t, "block (requests issued)", (double)cnt[IO_C_BLK_READS],
              (double)cnt[IO_C_BLK_WRITES], NAN, NAN);
    char text[1600];
    char hs[32] = "n/a", cs[32] = "n/a";
    if (isfinite(hit))
        snprintf(hs, sizeof hs, "%.1f %%", hit);
    if (isfinite(coal))
        snprintf(cs, sizeof cs, "%.1f %%", coal);
    /* what the two ratios measure; whether they are good is analysis's */
    snprintf(text, sizeof text,
             "Read hit rate %s: 1 - pages added to the cache while a read() ran / pages those "
             "reads looked up (readahead counts as a miss when added).  Write coalescing %s: "
             "1 - block write requests / VFS writes (block writes include others' "
             "writeback).%s%s",
             hs, cs, note ? " " : "", note ? note : "");
    table_set_note(t, text);

    /* Synchronous I/O: the fsync family, msync(MS_SYNC) and writes to
     * O_SYNC/O_DSYNC files all wait for the device (the ids keep the
     * fsync name they had before writes were counted). */
    uint64_t calls = 0;
    for (size_t i = 0; i < KHIST_SLOTS; i++)
        calls += fsync_all->slots[i];
    report_metric(r, NM_IO_FSYNC_CALLS, "Synchronous I/O calls", "", res, (double)calls);
    report_metric(r, NM_IO_FSYNC_PER_S, "Synchronous I/O calls", "/s", res,
                  (double)calls / window_s);
    report_metric(r, NM_IO_FSYNC_MS, "Time in synchronous I/O calls", "ms", res,
                  (double)fsync_all->sum / 1000.0);
    report_metric(r, NM_IO_SYNC_WRITES, "Writes to O_SYNC/O_DSYNC files", "", res,
                  (double)cnt[IO_C_SYNC_WRITES]);
    if (calls) {
        struct hist *h = report_hist(r, NM_FSYNC, "Synchronous I/O latency (fsync family, "
                                                  "O_SYNC/O_DSYNC writes)", "us", res);
        kbpf_khist_add(h, fsync_all);
    }

    struct table *f = report_table(r, NM_IO_FSYNC, "Synchronous I/O calls by process", res);
    static const struct col_spec io_fsync_cols[] = {
        {"pid", "PID", "", 0},
        {"comm", "Command", "", 0},
        {"calls", "Calls", "", 0},
        {"sync_writes", "Of them O_SYNC/O_DSYNC writes", "", 0},
        {"calls_per_s", "Calls", "/s", 1},
        {"total_ms", "Total", "ms", 1},
        {"window_pct", "Share of window", "%", 1},
        {"p99_us", "p99", "us", 0},
        {"max_us", "Max", "us", 0},
    };
    table_add_cols(f, io_fsync_cols, ARRAY_LEN(io_fsync_cols));
    if (n)
        qsort(procs, n, sizeof *procs, by_sync_total);
    for (size_t i = 0; i < n && i < IO_FSYNC_TOP; i++) {
        struct hist ph = {.sum = NAN, .max = NAN};
        kbpf_khist_add(&ph, &procs[i].h);
        if (!ph.count)
            continue;
        char comm[17];
        memcpy(comm, procs[i].comm, 16);
        comm[16] = '\0';
        row = table_add_row(f);
        table_set_num(f, row, "pid", procs[i].pid);
        table_set_str(f, row, "comm", comm);
        table_set_num(f, row, "calls", (double)ph.count);
        table_set_num(f, row, "sync_writes", (double)procs[i].writes);
        table_set_num(f, row, "calls_per_s", (double)ph.count / window_s);
        table_set_num(f, row, "total_ms", ph.sum / 1000.0);
        table_set_num(f, row, "window_pct", ph.sum / 1e6 / window_s * 100.0);
        table_set_num(f, row, "p99_us", hist_percentile(&ph, 0.99));
        table_set_num(f, row, "max_us", ph.max);
    }
    if (note)
        table_set_note(f, note);
}

struct io_state {
    struct systap_bpf *tap; /* borrowed from systap.c between acquire and release */
    bool filtered;
    double t_start;
};

static const char *const hooks_needed[] = {"sys_enter", "sys_exit", "mm_filemap_get_pages",
                                           "mm_filemap_add_to_page_cache", "block_rq_issue"};

static bool io_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    if (kbpf_force_classic()) {
        snprintf(reason, n, "needs tp_btf hooks (PERFREPORT_FORCE_CLASSIC is set)");
        return false;
    }
    const char *missing = kbpf_missing_tp_btf(hooks_needed, sizeof hooks_needed / sizeof hooks_needed[0]);
    if (missing)
        snprintf(reason, n, "tp_btf %s is not in the kernel BTF (filemap hooks need 6.1+)",
                 missing);
    return missing == NULL;
}

static void io_destroy(void *state)
{
    struct io_state *st = state;
    if (!st)
        return;
    if (st->tap)
        systap_release(SYSTAP_IOLAYERS);
    free(st);
}

static int io_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct io_state *st = xcalloc(1, sizeof *st);
    *state = st;
    st->filtered = ctx->cfg && (ctx->cfg->pid > 0 || ctx->cfg->cgroup);
    bool classic;
    st->tap = systap_acquire(ctx, SYSTAP_IOLAYERS, &classic, err, n);
    if (!st->tap)
        return -EIO;
    st->t_start = ctx->now_s;
    return 0;
}

/* A latency histogram recorded in time slices -> its estimate for the
 * window (the longest stays as seen). */
static void scale_khist(const struct tapslice_result *samp, struct khist *h)
{
    for (size_t i = 0; i < KHIST_SLOTS; i++)
        h->slots[i] = tapslice_scaled(samp, h->slots[i]);
    h->sum = tapslice_scaled(samp, h->sum);
}

static int io_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    (void)err;
    (void)n;
    struct io_state *st = state;
    struct systap_bpf *s = st->tap;
    double t0 = mono_ms();

    uint64_t cnt[IO_C_N];
    int cfd = bpf_map__fd(s->maps.io_counters);
    for (uint32_t i = 0; i < IO_C_N; i++)
        cnt[i] = kbpf_percpu_sum(cfd, i);
    struct khist all;
    uint32_t zero = 0;
    if (bpf_map_lookup_elem(bpf_map__fd(s->maps.sync_hist), &zero, &all) != 0)
        memset(&all, 0, sizeof all);

    struct io_sync_proc *procs = NULL;
    size_t np = 0, cap = 0;
    int fd = bpf_map__fd(s->maps.sync_procs);
    uint32_t key;
    struct io_sync_val val;
    struct kbpf_walk w = KBPF_WALK_INIT(fd);
    while (kbpf_walk_next(&w, &key, sizeof key, &val)) {
        xgrow(&procs, &cap, np + 1, sizeof *procs);
        procs[np].pid = key;
        memcpy(procs[np].comm, val.comm, sizeof procs[np].comm);
        procs[np].h = val.h;
        procs[np].writes = val.writes;
        np++;
    }
    /* Sliced (see systap.c): what the syscall side recorded stands for the
     * window, scaled like the syscall counts; the block hooks stay
     * attached and count throughout. */
    struct tapslice_result samp;
    int attach_errno;
    if (!systap_sampling(&samp, &attach_errno))
        memset(&samp, 0, sizeof samp);
    for (int i = IO_C_VFS_READS; i <= IO_C_PAGES_ADDED; i++)
        cnt[i] = tapslice_scaled(&samp, cnt[i]);
    scale_khist(&samp, &all);
    cnt[IO_C_SYNC_WRITES] = tapslice_scaled(&samp, cnt[IO_C_SYNC_WRITES]);
    for (size_t i = 0; i < np; i++) {
        scale_khist(&samp, &procs[i].h);
        procs[i].writes = tapslice_scaled(&samp, procs[i].writes);
    }
    char note[900], sampled[600];
    const char *nt = NULL;
    tapslice_describe(&samp, sampled, sizeof sampled);
    if (st->filtered) {
        snprintf(note, sizeof note,
                 "Only the target's syscalls (%s) are counted; block requests are "
                 "device-wide.%s%s",
                 ctx->cfg->target ? ctx->cfg->target : "-p/-c", *sampled ? "  " : "",
                 sampled);
        nt = note;
    } else if (*sampled) {
        snprintf(note, sizeof note, "%s  Block requests are counted throughout.", sampled);
        nt = note;
    }
    double window = ctx->now_s - st->t_start;
    iolayers_fill(ctx->r, cnt, &all, procs, np, window > 0 ? window : ctx->r->window.actual_s,
                  nt);
    free(procs);

    struct ledger_entry *e = report_ledger(ctx->r, "iolayers", NULL);
    if (cnt[IO_C_DROP_THREADS])
        ledger_note(e, "%llu syscalls not tracked (no task storage)",
                    (unsigned long long)cnt[IO_C_DROP_THREADS]);
    if (cnt[IO_C_DROP_PROCS])
        ledger_note(e, "%llu synchronous I/O calls not attributed (process map full)",
                    (unsigned long long)cnt[IO_C_DROP_PROCS]);
    if (samp.sampled)
        ledger_note(e, "sampled with the syscall tap: syscall-side counts scaled by %.2f",
                    samp.scale);
    ledger_note(e, "drained in %.1f ms", mono_ms() - t0);
    systap_release(SYSTAP_IOLAYERS);
    st->tap = NULL;
    return 0;
}

const struct collector collector_iolayers = {
    .name = "iolayers",
    .title = "I/O layers and synchronous I/O (BPF syscall, filemap and block tracepoints)",
    .needs_bpf = true,
    .can_run = io_can_run,
    .start = io_start,
    .tick = NULL,
    .begin = systap_begin,
    .end = systap_end,
    .stop = io_stop,
    .destroy = io_destroy,
};
