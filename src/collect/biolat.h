/* Block I/O latency collector (BPF) and its pure helpers. */
#ifndef PERFREPORT_BIOLAT_H
#define PERFREPORT_BIOLAT_H
#include <linux/types.h>
#include <stddef.h>
#include <stdint.h>
#include "../../bpf/biolat.h"
#include "../../bpf/khist.h"

struct collector;
struct report;
extern const struct collector collector_biolat;

/* enum bio_kind (bpf/biolat.h): "read" "write" "flush" "discard" "other" "queue" "size" */
const char *bio_kind_name(enum bio_kind k);

struct bio_dev {
    uint32_t major, minor;
    char name[64];        /* device name; host text */
    const char *cls;      /* disk_class() word (static) */
    struct khist h[BIO_NKINDS]; /* latency us; size KiB */
    unsigned seen;        /* bit k set when h[k] has data */
};

/* Histograms "biolat.<dev>.<kind>" (latency us, "queue" us) and
 * "biosize.<dev>" (KiB), table "disk.latency" and metric
 * "disk.p99_ms_max". */
void biolat_fill(struct report *r, const struct bio_dev *devs, size_t n);
#endif
