/* Block I/O latency per device and direction: queue time (insert -> issue),
 * device time (issue -> complete) and request size, as log2 histograms.
 * tp_btf programs key requests by their struct request pointer and find the
 * disk through rq->q->disk; the classic fallback keys them by (dev, sector)
 * and reads the direction from rwbs. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "khist.bpf.h"
#include "biolat.h"

#define MAX_INFLIGHT 16384
#define REQ_OP_MASK_ 0xff
#define MINORBITS 20


/* Completions count only inside the window (set by user space at begin and
 * end); requests are tracked from the attach so one issued just before the
 * window still has its times. */
volatile bool recording = false;

struct rq_key {
    __u64 id;  /* request pointer (tp_btf) or sector (classic) */
    __u32 dev; /* 0 (tp_btf) or the kernel dev_t (classic) */
    __u32 pad;
};

struct rq_val {
    __u64 insert_ns;
    __u64 issue_ns;
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, MAX_INFLIGHT);
    __type(key, struct rq_key);
    __type(value, struct rq_val);
} inflight SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 1024);
    __type(key, struct bio_hist_key);
    __type(value, struct khist);
} hists SEC(".maps");

/* 0: inflight map full, 1: hist map full, 2: completions without an issue */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 3);
    __type(key, __u32);
    __type(value, __u64);
} drops SEC(".maps");

static __always_inline void hist_add(__u32 dev, __u32 kind, __u64 v)
{
    struct bio_hist_key k = {.dev = dev, .kind = kind};
    struct khist *h = bpf_map_lookup_elem(&hists, &k);
    if (!h) {
        static const struct khist zero;
        if (bpf_map_update_elem(&hists, &k, &zero, BPF_NOEXIST) != 0 &&
            !bpf_map_lookup_elem(&hists, &k)) {
            kcount(&drops, 1);
            return;
        }
        h = bpf_map_lookup_elem(&hists, &k);
        if (!h)
            return;
    }
    khist_add(h, v);
}

static __always_inline void on_insert(struct rq_key *k)
{
    struct rq_val v = {.insert_ns = bpf_ktime_get_ns()};
    if (bpf_map_update_elem(&inflight, k, &v, BPF_ANY) != 0)
        kcount(&drops, 0);
}

static __always_inline void on_issue(struct rq_key *k)
{
    __u64 now = bpf_ktime_get_ns();
    struct rq_val *v = bpf_map_lookup_elem(&inflight, k);
    if (v) {
        v->issue_ns = now;
        return;
    }
    struct rq_val nv = {.issue_ns = now};
    if (bpf_map_update_elem(&inflight, k, &nv, BPF_ANY) != 0)
        kcount(&drops, 0);
}

static __always_inline void on_complete(struct rq_key *k, __u32 dev, __u32 kind, __u64 bytes)
{
    struct rq_val *v = bpf_map_lookup_elem(&inflight, k);
    if (!v) {
        kcount(&drops, 2);
        return;
    }
    __u64 now = bpf_ktime_get_ns(), ins = v->insert_ns, iss = v->issue_ns;
    bpf_map_delete_elem(&inflight, k);
    if (!iss || !recording)
        return;
    hist_add(dev, kind, (now - iss) / 1000);
    if (ins && iss >= ins)
        hist_add(dev, BIO_QUEUE, (iss - ins) / 1000);
    if (bytes)
        hist_add(dev, BIO_SIZE, bytes / 1024);
}

static __always_inline __u32 op_kind(__u32 op)
{
    switch (op) {
    case 0: return BIO_READ;   /* REQ_OP_READ */
    case 1: return BIO_WRITE;  /* REQ_OP_WRITE */
    case 2: return BIO_FLUSH;  /* REQ_OP_FLUSH */
    case 3: return BIO_DISCARD; /* REQ_OP_DISCARD */
    default: return BIO_OTHER;
    }
}

static __always_inline __u32 rq_dev(struct request *rq)
{
    struct gendisk *disk = BPF_CORE_READ(rq, q, disk);
    if (!disk)
        return 0;
    __u32 major = BPF_CORE_READ(disk, major), minor = BPF_CORE_READ(disk, first_minor);
    return major << MINORBITS | minor;
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(bio_insert_btf, struct request *rq)
{
    struct rq_key k = {.id = (__u64)rq};
    on_insert(&k);
    return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(bio_issue_btf, struct request *rq)
{
    struct rq_key k = {.id = (__u64)rq};
    on_issue(&k);
    return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(bio_complete_btf, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
    struct rq_key k = {.id = (__u64)rq};
    __u32 op = BPF_CORE_READ(rq, cmd_flags) & REQ_OP_MASK_;
    on_complete(&k, rq_dev(rq), op_kind(op), nr_bytes);
    return 0;
}

/* rwbs: optional 'F' (preflush), then one of R W D E(secure erase) N(none),
 * then modifiers.  A lone 'F' is a flush. */
static __always_inline __u32 rwbs_kind(const char *rwbs)
{
    char c[3] = {};
    bpf_probe_read_kernel(c, sizeof c, rwbs);
    char op = c[0] == 'F' ? c[1] : c[0];
    if (op == 'R')
        return BIO_READ;
    if (op == 'W')
        return BIO_WRITE;
    if (op == 'D')
        return BIO_DISCARD;
    if (c[0] == 'F')
        return BIO_FLUSH;
    return BIO_OTHER;
}

SEC("tp/block/block_rq_insert")
int bio_insert_tp(struct trace_event_raw_block_rq *ctx)
{
    struct rq_key k = {.id = ctx->sector, .dev = ctx->dev};
    on_insert(&k);
    return 0;
}

SEC("tp/block/block_rq_issue")
int bio_issue_tp(struct trace_event_raw_block_rq *ctx)
{
    struct rq_key k = {.id = ctx->sector, .dev = ctx->dev};
    on_issue(&k);
    return 0;
}

SEC("tp/block/block_rq_complete")
int bio_complete_tp(struct trace_event_raw_block_rq_completion *ctx)
{
    struct rq_key k = {.id = ctx->sector, .dev = ctx->dev};
    on_complete(&k, ctx->dev, rwbs_kind(ctx->rwbs), (__u64)ctx->nr_sector * 512);
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
