/* Collector "biolat": block request latency per device and direction,
 * queue time and request size, aggregated in the kernel
 * (bpf/biolat.bpf.c) and drained once at the end of the window. */
#include "biolat.h"
#include "collector.h"
#include "../procfs/blockdev.h"
#include "../kbpf/kbpf.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../util/clock.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "biolat.skel.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[BIO_NKINDS] = {"read",  "write", "flush", "discard",
                                                   "other", "queue", "size"};

const char *bio_kind_name(enum bio_kind k)
{
    return (unsigned)k < BIO_NKINDS ? kind_names[k] : "other";
}

static double ms(double us) { return isfinite(us) ? us / 1000.0 : NAN; }

void biolat_fill(struct report *r, const struct bio_dev *devs, size_t n)
{
    struct table *t = report_table(r, NM_DISK_LATENCY, "Block I/O latency (BPF)", "disk");
    static const struct col_spec disk_latency_cols[] = {
        {"device", "Device", "", 0},
        {"class", "Class", "", 0},
        {"read_p50_ms", "Read p50", "ms", 3},
        {"read_p99_ms", "Read p99", "ms", 3},
        {"write_p50_ms", "Write p50", "ms", 3},
        {"write_p99_ms", "Write p99", "ms", 3},
        {"p99_ms", "p99 (all)", "ms", 3},
        {"max_ms", "Max", "ms", 3},
        {"ios", "I/Os", "", 0},
    };
    table_add_cols(t, disk_latency_cols, ARRAY_LEN(disk_latency_cols));
    double worst = NAN;
    for (size_t i = 0; i < n; i++) {
        const struct bio_dev *d = &devs[i];
        if (!d->seen)
            continue;
        /* every direction together, for the device's p99 */
        struct hist all = {.sum = NAN, .max = NAN};
        struct hist *dir[BIO_NKINDS] = {0};
        for (int k = 0; k < BIO_NKINDS; k++) {
            if (!(d->seen & (1u << k)))
                continue;
            char name[128], title[160];
            const char *unit = k == BIO_SIZE ? "KiB" : "us";
            if (k == BIO_SIZE) {
                snprintf(name, sizeof name, NMF_BIOSIZE, d->name);
                snprintf(title, sizeof title, "%s request size", d->name);
            } else if (k == BIO_QUEUE) {
                snprintf(name, sizeof name, NMF_BIOLAT, d->name, "queue");
                snprintf(title, sizeof title, "%s queue time (insert to issue)", d->name);
            } else {
                snprintf(name, sizeof name, NMF_BIOLAT, d->name, kind_names[k]);
                snprintf(title, sizeof title, "%s %s latency (issue to completion)", d->name,
                         kind_names[k]);
            }
            struct hist *h = report_hist(r, name, title, unit, "disk");
            kbpf_khist_add(h, &d->h[k]);
            dir[k] = h;
            if (k <= BIO_OTHER)
                kbpf_khist_add(&all, &d->h[k]);
        }
        if (!all.count)
            continue;
        size_t row = table_add_row(t);
        table_set_str(t, row, "device", d->name);
        table_set_str(t, row, "class", d->cls ? d->cls : "unknown");
        if (dir[BIO_READ]) {
            table_set_num(t, row, "read_p50_ms", ms(hist_percentile(dir[BIO_READ], 0.5)));
            table_set_num(t, row, "read_p99_ms", ms(hist_percentile(dir[BIO_READ], 0.99)));
        }
        if (dir[BIO_WRITE]) {
            table_set_num(t, row, "write_p50_ms", ms(hist_percentile(dir[BIO_WRITE], 0.5)));
            table_set_num(t, row, "write_p99_ms", ms(hist_percentile(dir[BIO_WRITE], 0.99)));
        }
        double p99 = ms(hist_percentile(&all, 0.99));
        table_set_num(t, row, "p99_ms", p99);
        table_set_num(t, row, "max_ms", ms(all.max));
        table_set_num(t, row, "ios", (double)all.count);
        if (isfinite(p99) && (isnan(worst) || p99 > worst))
            worst = p99;
    }
    table_set_note(t, "Device time from issue to completion, from log2 histograms "
                      "(percentiles interpolated inside a power-of-two bucket); p99 (all) "
                      "covers every direction.");
    if (isfinite(worst))
        report_metric(r, NM_DISK_P99_MS_MAX, "Worst device p99 latency", "ms", "disk", worst);
}

struct bio_state {
    struct biolat_bpf *skel;
    bool classic;
};

static bool btf_hooks(void)
{
    static const char *const tps[] = {"block_rq_issue", "block_rq_complete", "block_rq_insert"};
    return kbpf_missing_tp_btf(tps, sizeof tps / sizeof tps[0]) == NULL;
}

static bool bio_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    if (btf_hooks() || kbpf_has_tracepoint("block", "block_rq_complete"))
        return true;
    snprintf(reason, n, "neither tp_btf block_rq_* (kernel BTF) nor the block tracepoints "
                        "(tracefs) are available");
    return false;
}

static void bio_destroy(void *state)
{
    struct bio_state *st = state;
    if (!st)
        return;
    biolat_bpf__destroy(st->skel);
    free(st);
}

static int bio_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    (void)ctx;
    struct bio_state *st = xcalloc(1, sizeof *st);
    *state = st;
    st->classic = kbpf_force_classic() || !btf_hooks();
    st->skel = biolat_bpf__open();
    if (!st->skel) {
        snprintf(err, n, "open biolat BPF object: %s", strerror(errno));
        return -errno;
    }
    struct biolat_bpf *s = st->skel;
    kbpf_alloc_on_insert(s->maps.hists); /* a histogram per (device, kind): few */
    bpf_program__set_autoload(s->progs.bio_insert_btf, !st->classic);
    bpf_program__set_autoload(s->progs.bio_issue_btf, !st->classic);
    bpf_program__set_autoload(s->progs.bio_complete_btf, !st->classic);
    bpf_program__set_autoload(s->progs.bio_insert_tp, st->classic);
    bpf_program__set_autoload(s->progs.bio_issue_tp, st->classic);
    bpf_program__set_autoload(s->progs.bio_complete_tp, st->classic);
    /* Initial value: without mmapable maps (bss NULL after load) the switch
     * cannot be flipped, and it records from the attach to the detach. */
    s->bss->recording = true;
    int rc = biolat_bpf__load(s);
    if (!rc && s->bss)
        s->bss->recording = false;
    if (!rc)
        rc = biolat_bpf__attach(s);
    if (rc) {
        char e[128];
        libbpf_strerror(rc, e, sizeof e);
        snprintf(err, n, "load/attach biolat BPF (%s): %s",
                 st->classic ? "classic tracepoints" : "tp_btf", e);
        return rc < 0 ? rc : -rc;
    }
    return 0;
}

static int bio_begin(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct bio_state *st = state;
    if (st->skel->bss)
        st->skel->bss->recording = true;
    return 0;
}

static int bio_end(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct bio_state *st = state;
    if (st->skel->bss)
        st->skel->bss->recording = false;
    else
        biolat_bpf__detach(st->skel);
    return 0;
}

static int bio_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    (void)err;
    (void)n;
    struct bio_state *st = state;
    struct biolat_bpf *s = st->skel;
    double t0 = mono_ms();
    biolat_bpf__detach(s);

    struct bio_dev *devs = NULL;
    size_t nd = 0, cap = 0;
    int fd = bpf_map__fd(s->maps.hists);
    struct bio_hist_key key;
    struct khist val;
    struct kbpf_walk w = KBPF_WALK_INIT(fd);
    while (kbpf_walk_next(&w, &key, sizeof key, &val)) {
        if (key.kind >= BIO_NKINDS)
            continue;
        unsigned major = key.dev >> 20, minor = key.dev & ((1u << 20) - 1);
        struct bio_dev *d = NULL;
        for (size_t i = 0; i < nd; i++)
            if (devs[i].major == major && devs[i].minor == minor)
                d = &devs[i];
        if (!d) {
            xgrow(&devs, &cap, nd + 1, sizeof *devs);
            d = &devs[nd++];
            memset(d, 0, sizeof *d);
            d->major = major;
            d->minor = minor;
            bio_dev_name(major, minor, d->name, sizeof d->name);
            d->cls = disk_class_of(d->name);
        }
        d->h[key.kind] = val;
        d->seen |= 1u << key.kind;
    }
    /* map iteration order is arbitrary: sort devices by name for stable output */
    for (size_t i = 1; i < nd; i++)
        for (size_t j = i; j > 0 && strcmp(devs[j - 1].name, devs[j].name) > 0; j--) {
            struct bio_dev tmp = devs[j];
            devs[j] = devs[j - 1];
            devs[j - 1] = tmp;
        }
    biolat_fill(ctx->r, devs, nd);
    free(devs);

    struct ledger_entry *e = report_ledger(ctx->r, "biolat", NULL);
    int dfd = bpf_map__fd(s->maps.drops);
    uint64_t full = kbpf_percpu_sum(dfd, 0), hfull = kbpf_percpu_sum(dfd, 1),
             orphan = kbpf_percpu_sum(dfd, 2);
    if (full)
        ledger_note(e, "%llu requests not timed (in-flight map full)", (unsigned long long)full);
    if (hfull)
        ledger_note(e, "%llu samples lost (histogram map full)", (unsigned long long)hfull);
    if (orphan)
        ledger_note(e, "%llu completions of requests issued before the window",
                    (unsigned long long)orphan);
    ledger_note(e, "%s; drained in %.1f ms", st->classic ? "classic tracepoints" : "tp_btf",
                mono_ms() - t0);
    return 0;
}

const struct collector collector_biolat = {
    .name = "biolat",
    .title = "Block I/O latency (BPF block tracepoints)",
    .needs_bpf = true,
    .can_run = bio_can_run,
    .start = bio_start,
    .tick = NULL,
    .begin = bio_begin,
    .end = bio_end,
    .stop = bio_stop,
    .destroy = bio_destroy,
};
