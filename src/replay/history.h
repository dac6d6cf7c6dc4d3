/* perfreport history: many bundles (an hourly timer's output, or bundles
 * collected from a fleet) summarised on one page -- the runs of each host
 * worst first, severity and the key metrics over time, the findings that
 * recur, and the directories that could not be used and why.
 *
 * This file is the model: each bundle's analysed report is boiled down to a
 * struct history_run as soon as it is loaded (the report is freed at once,
 * so memory grows with the number of runs, not with their reports), then
 * history_finish() groups and orders everything.  Scanning directories is
 * history_scan.c, drawing it history_render.c.
 *
 * Ownership: a struct history owns every string and array in it;
 * history_free() releases them. */
#ifndef PERFREPORT_HISTORY_H
#define PERFREPORT_HISTORY_H
#include "../model/model.h"
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Bounds (documented in the usage text and docs/usage.md). */
#define HISTORY_MAX_BUNDLES 5000        /* runs on one page; more are skipped */
#define HISTORY_MAX_REPORT (16u << 20)  /* bytes of one report.json */
#define HISTORY_MAX_DIR_ENTRIES 100000  /* entries read from one directory */
#define HISTORY_MAX_SKIPPED 1000        /* skipped rows kept (the rest counted) */
#define HISTORY_MAX_FINDINGS 64         /* finding ids kept per run */
#define HISTORY_MAX_METRICS 16          /* key metrics charted (first seen first) */
#define HISTORY_MAX_CHART_HOSTS 50      /* hosts that get charts (worst first) */
#define HISTORY_MAX_TEXT 300            /* characters of a headline kept */

struct history_finding {
    char *id; /* owned */
    enum severity sev;
};

struct history_run {
    char *host;     /* owned: the report's hostname (host-controlled), or "-" */
    char *path;     /* owned: the bundle directory as found, for people */
    char *abs;      /* owned: its absolute path, for links; NULL if unknown */
    bool has_index; /* its index.html is a regular file */
    time_t start;   /* window start, UTC seconds; 0 when unknown */
    double window_s;
    enum severity sev; /* the worst finding's */
    double score;      /* the top finding's rank score; 0 without findings */
    char *headline;    /* owned, cut to HISTORY_MAX_TEXT */
    char *case_id;     /* owned: --case-id (host-controlled), NULL when none */
    char *label;       /* owned: --label (host-controlled), NULL when none */
    bool failed;       /* the run itself failed */
    struct history_finding *findings; /* owned, ranked as the report ranks them */
    size_t nfindings;
    double *values; /* owned: value of h->metrics[i] (NAN: not in this run) */
    size_t nvalues; /* how many of h->metrics existed when the run was added */
};

struct history_metric {
    char *name, *title, *unit; /* owned */
};

struct history_host {
    char *name;          /* owned (== the runs' host) */
    size_t *runs;        /* owned: indexes into h->runs, worst first */
    size_t nruns;
    size_t *by_time;     /* owned: the same, oldest first */
    enum severity worst, latest; /* over all its runs; of its newest run */
};

struct history_recurring {
    char *id;            /* owned */
    size_t runs, hosts;  /* runs it was found in; hosts it was found on */
    time_t first, last;  /* window starts of the first and last of those runs */
    enum severity worst;
    size_t hosts_seen_last; /* internal: 1 + the index of the host last counted */
};

struct history_skip {
    char *path;   /* owned, as found */
    char *reason; /* owned: the loader's or the scan's message */
};

struct history {
    struct history_run *runs;
    size_t nruns, cap_runs;
    struct history_metric *metrics; /* the key metrics, first seen first */
    size_t nmetrics;
    struct history_skip *skipped;
    size_t nskipped, cap_skipped;
    size_t skipped_more; /* skips past HISTORY_MAX_SKIPPED, counted only */
    size_t over_cap;     /* bundles past HISTORY_MAX_BUNDLES tried, not loaded */
    size_t tried;        /* bundles loaded or refused: the cap counts both */
    struct history_seen { unsigned long long dev, ino; size_t run; } *seen; /* owned: each
                          * run's directory, so one given twice is listed once */
    /* set by history_finish */
    struct history_host *hosts; /* worst latest severity first, then by name */
    size_t nhosts;
    struct history_recurring *recurring; /* most runs first */
    size_t nrecurring;
};

struct history *history_new(void);
void history_free(struct history *h);

/* Whether metric m of the analysed report r is a key metric: one that
 * `perfreport diff` compares with a known spread (a per-tick series of the
 * same name) and that the report charts. */
bool history_key_metric(const struct report *r, const struct metric *m);

/* Adds the run of analysed report r found at `path` (absolute path `abs`,
 * may be NULL; has_index: its index.html may be linked).  r is not kept. */
void history_add_run(struct history *h, const struct report *r, const char *path,
                     const char *abs, bool has_index);
/* Records a directory that was not used; reason is copied. */
void history_skip(struct history *h, const char *path, const char *reason);

/* Orders runs worst first: severity, then score, then the newer, then path. */
int history_run_cmp(const struct history_run *a, const struct history_run *b);
/* Groups runs by host and computes the recurring findings (call once, after
 * the last run). */
void history_finish(struct history *h);

/* The relative path from directory `from` to `to` (both absolute, without
 * "." or ".." components): "../b/c", or "." when they are the same.  A new
 * string the caller frees; NULL when either is not absolute. */
char *history_relpath(const char *from, const char *to);
#endif
