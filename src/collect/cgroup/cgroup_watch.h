/* The few cgroups the cgroup collector reads at every tick, between its
 * two walks of the hierarchies: each I/O limit (is the cgroup's I/O held
 * at it, and for how much of the window?) and the memory of the cgroups
 * with a limit or the largest use (does it grow, anonymous or page cache?).
 * cgroup.c picks them from its first walk; this file reads and sums them
 * and writes the tables "cgroup.io" and "cgroup.memory_growth". */
#ifndef PERFREPORT_CGROUP_WATCH_H
#define PERFREPORT_CGROUP_WATCH_H
#include "../../procfs/cgroup_parse.h"
#include "../collector.h"
#include "util/strbuf.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CG_IO_WATCH_MAX 16  /* limits followed per tick */
#define CG_MEM_WATCH_MAX 16 /* cgroups whose memory is read per tick */
#define CG_MEM_WATCH_SAMPLES 2048 /* readings kept per cgroup; then every other one */

/* One limit of one cgroup on one device. */
struct cg_io_watch {
    char *path;  /* owned; the cgroup below its hierarchy's root */
    char *dir;   /* owned; its directory on the host (hostfs path) */
    bool v2;     /* io.max/io.stat, else v1 blkio.throttle.* */
    struct cg_io_limit lim;
    char dev[64]; /* device name, host text */
    uint64_t prev;
    double prev_s;
    bool have_prev;
    uint64_t sum;     /* counted I/O (bytes or IOs) over the intervals read */
    double sum_s;     /* the time those intervals cover */
    double peak;      /* fastest interval, per second; NAN before two readings */
    size_t row;       /* its row of cgroup.io, and series cgroup.io.N.use_pct */
    double psi_io_pct; /* set by the caller before emitting; NAN = not measured */
    struct series *use; /* the report's series of it, made at its first rate; not owned */
};

/* One cgroup's memory over the window. */
struct cg_mem_watch {
    char *path, *dir; /* owned, as above */
    double *t, *anon_kib, *file_kib; /* owned readings */
    size_t n, cap;
    size_t reads, stride; /* every stride-th reading is kept (decimation) */
    bool self; /* perfreport runs in it (or below): its own anon is taken out */
    double mem_kib, limit_kib; /* at the end, set by the caller; NAN = unknown/none */
};

void cg_io_watch_init(struct cg_io_watch *w, const char *path, const char *dir, bool v2,
                      const struct cg_io_limit *lim, size_t row);
/* Reads w's counter; with `tick`, the interval's rate against the limit
 * goes into its series (the readings at start and stop set none). */
void cg_io_watch_read(struct cg_io_watch *w, struct collect_ctx *ctx, struct strbuf *sb,
                      bool tick);
void cg_io_watch_free(struct cg_io_watch *w);
/* Table "cgroup.io", one row per watch (row = w[i].row); its note says how
 * many limits were not followed (past CG_IO_WATCH_MAX). */
void cg_io_watch_emit(struct report *r, const struct cg_io_watch *w, size_t n,
                      size_t unwatched);

void cg_mem_watch_init(struct cg_mem_watch *w, const char *path, const char *dir);
/* Reads memory.stat; `last` keeps the reading whatever the decimation.
 * self_anon_kib: perfreport's own anonymous memory now, taken out of a
 * watch with `self` (its growth during the window is not the workload's);
 * NAN when unknown. */
void cg_mem_watch_read(struct cg_mem_watch *w, const struct collect_ctx *ctx,
                       struct strbuf *sb, bool last, double self_anon_kib);
void cg_mem_watch_free(struct cg_mem_watch *w);
/* Table "cgroup.memory_growth": the watches with at least 3 readings. */
void cg_mem_watch_emit(struct report *r, const struct cg_mem_watch *w, size_t n);
#endif
