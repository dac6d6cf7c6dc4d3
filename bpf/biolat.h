/* Shared between bpf/biolat.bpf.c and src/collect/biolat.c. */
#ifndef PERFREPORT_BPF_BIOLAT_H
#define PERFREPORT_BPF_BIOLAT_H

/* Histogram kinds per device. */
enum bio_kind { BIO_READ = 0, BIO_WRITE, BIO_FLUSH, BIO_DISCARD, BIO_OTHER, BIO_QUEUE,
                BIO_SIZE, BIO_NKINDS };

/* Key of the per-device histograms (value: struct khist). */
struct bio_hist_key {
    __u32 dev; /* major << 20 | minor */
    __u32 kind; /* enum bio_kind */
};
#endif
