/* Disk collector (/proc/diskstats + /sys/block) and its pure parsers. */
#ifndef PERFREPORT_DISK_H
#define PERFREPORT_DISK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct collector;
extern const struct collector collector_disk;

/* One /proc/diskstats line.  Fields a kernel does not print stay 0. */
struct diskstat {
    char *name; /* owned; host-controlled text, stored as-is */
    unsigned major, minor;
    int nstats; /* counters after the name: 11 (<4.18), 15 (4.18+), 17 (5.5+) */
    uint64_t rd_ios, rd_merges, rd_sectors, rd_ticks;
    uint64_t wr_ios, wr_merges, wr_sectors, wr_ticks;
    uint64_t in_flight, io_ticks, time_in_queue; /* fields 9-11 */
    uint64_t dc_ios, dc_merges, dc_sectors, dc_ticks; /* discards, 4.18+ */
    uint64_t fl_ios, fl_ticks;                        /* flushes, 5.5+ */
};

struct diskstats {
    struct diskstat *v;
    size_t n, cap;
};

/* Parses the whole text of /proc/diskstats into out (appends).  Lines with
 * fewer than 14 fields, non-numeric counters or a duplicate name are skipped;
 * returns how many lines were skipped. */
size_t diskstats_parse(const char *text, struct diskstats *out);
void diskstats_free(struct diskstats *d);
const struct diskstat *diskstats_find(const struct diskstats *d, const char *name);

/* iostat-style figures for one device over an interval. */
struct disk_rates {
    double r_per_s, w_per_s, rkb_per_s, wkb_per_s;
    double r_await_ms, w_await_ms, await_ms; /* NAN when no such I/O */
    double aqu_sz, util_pct, avg_rq_kib;     /* avg_rq_kib NAN when no I/O */
    double iops;                              /* reads+writes+discards per s */
    uint64_t ios;                             /* reads+writes+discards+flushes */
};

/* Counter differences cur - prev, a backwards counter (wrap, reset) giving 0. */
void diskstat_delta(const struct diskstat *cur, const struct diskstat *prev,
                    struct diskstat *d);
/* Adds d's counters into acc (name untouched). */
void diskstat_accumulate(struct diskstat *acc, const struct diskstat *d);
/* Rates from counter deltas d over elapsed_ms (> 0). */
void disk_rates_compute(const struct diskstat *d, double elapsed_ms, struct disk_rates *out);
#endif
