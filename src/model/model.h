/* The report model: the only thing stages share.
 *
 * Ownership: a struct report owns every string, array and sub-object reachable
 * from it; report_free() releases all of it.  Every setter below copies its
 * string arguments, so callers keep ownership of what they pass in.
 * Collectors write into it, analyze reads it and appends findings, renderers
 * only read it.  Nothing here knows about /proc or about output formats.
 */
#ifndef PERFREPORT_MODEL_H
#define PERFREPORT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define REPORT_SCHEMA 1
/* Snapshots in one window at most (-d / -i), so ticks a report may have. */
#define REPORT_MAX_TICKS 100000

enum severity { SEV_NONE = 0, SEV_INFO = 1, SEV_WARNING = 2, SEV_CRITICAL = 3 };
const char *severity_name(enum severity s); /* "none" "info" "warning" "critical" */

enum coll_status { CS_PENDING = 0, CS_RAN, CS_SKIPPED, CS_FAILED, CS_TIMED_OUT };
const char *coll_status_name(enum coll_status s); /* "ran" "skipped" ... */

struct profile;

/* A fact: text, or a number with its unit that the renderers format
 * (report.json keeps the number). */
struct kv {
    char *key;   /* stable machine key, e.g. "kernel" */
    char *title; /* human label, e.g. "Kernel" */
    char *value; /* the text; NULL for a number */
    double num;  /* the number, when unit is set */
    char *unit;  /* a number's unit: "KiB", "s", "" (a count); NULL for text */
};

struct kvlist {
    struct kv *v;
    size_t n, cap;
};

/* What a series, a histogram and a table are called and where they belong:
 * the first member of each, so the report finds, creates and frees all three
 * the same way.  Never NULL once created. */
struct model_entry {
    char *name;     /* stable id: "cpu.util_pct", "runqlat", "proc.top_cpu" */
    char *title;    /* "CPU utilisation"; the name when none was given */
    char *unit;     /* "%", "/s", "ms", "KiB" ...; "" for a count and for a table */
    char *resource; /* section it belongs to: "cpu" "memory" "disk" ...; "other" */
};

/* A metric sampled at every tick of the window.  v[i] belongs to
 * report.ticks[i]; NAN marks a tick with no value. */
struct series {
    struct model_entry hdr; /* first: see struct model_entry */
    double *v;
    size_t n, cap;
    double warn, crit; /* threshold lines to draw; NAN when none */
    bool chart;        /* draw it as a chart in the report */
};

enum cell_kind { CELL_EMPTY = 0, CELL_NUM, CELL_STR };
struct cell {
    enum cell_kind kind;
    double num;
    char *str; /* owned; host-controlled text is allowed here (escaped by renderers) */
};

struct column {
    char *name;  /* stable key used by rules and JSON: "util_pct" */
    char *title; /* "Util %" */
    char *unit;  /* may be "" */
    int decimals; /* digits to show for numbers; -1 in a column of text */
};

/* A table of rows about entities (per CPU, per disk, per process...). */
struct table {
    struct model_entry hdr; /* first: see struct model_entry */
    char *note;     /* optional sentence shown under the table; may be NULL */
    struct column *cols;
    size_t ncols;
    struct cell *cells; /* row-major, nrows * ncols */
    size_t nrows, cap_rows;
};

/* A scalar summarising the whole window ("cpu.util_pct" = window average). */
struct metric {
    char *name;
    char *title;
    char *unit;
    char *resource;
    double value;
};

#define FINDING_MAX_RELATED 4
struct finding {
    char *id;       /* stable id from design section 6 */
    enum severity sev;
    char *resource;
    char *title;    /* one sentence: names the resource, culprit and key number */
    char **evidence; /* each a sentence with the number and the threshold that fired */
    size_t nevidence;
    char *recommendation;
    char *culprit;  /* process/cgroup/device/...; may be NULL */
    double score;   /* ranking key, higher first */
    /* Other resources whose figures past their thresholds are part of this
     * finding's story ("psi" for a saturated CPU that PSI cpu confirms), so
     * their overview rows point here instead of saying nothing was found. */
    char *related[FINDING_MAX_RELATED];
    size_t nrelated;
};

/* Threshold row: what analyze used; rendered in the appendix. */
struct threshold {
    char *id;     /* "cpu.util_pct" */
    char *title;
    char *unit;
    double warn, crit;
    bool lower_is_worse; /* e.g. memory available % */
};

struct use_cell {
    char *text; /* e.g. "92% busy"; "-" when not measured */
    enum severity sev;
};
struct use_row {
    char *resource;
    struct use_cell util, sat, err;
};

/* A log2 latency/size histogram aggregated in the kernel: bucket i counts
 * values v with 2^i <= v < 2^(i+1); bucket 0 also holds 0. */
#define HIST_BUCKETS 64
struct hist {
    struct model_entry hdr; /* first; its unit is the bucketed value's: "us", "KiB" */
    uint64_t buckets[HIST_BUCKETS];
    uint64_t count;  /* sum of buckets */
    double sum;      /* sum of values when known, else NAN */
    double max;      /* largest value when known, else NAN */
};

struct ledger_entry {
    char *name;
    char *title;
    enum coll_status status;
    char *reason;      /* why skipped/failed; may be NULL when ran */
    double duration_ms; /* time spent inside the collector's callbacks */
    char *notes;       /* losses, caps hit...; may be NULL */
};

/* A stretch between two samples longer than TICK_GAP_FACTOR intervals
 * (perfreport was stopped or starved): the sample after it averages over
 * the whole stretch, the report says so and charts break there. */
#define TICK_GAP_FACTOR 2.0
struct tick_gap {
    double start_s, len_s; /* from the previous sample (or window start) */
};

/* --label TEXT and --case-id ID: what the user calls a run (a ticket's
 * number, "after the kernel update"), in bytes. */
#define RUN_LABEL_MAX 128
#define WINDOW_TRIGGER_MAX 256 /* window.trigger_what, in bytes */
#define RUN_CASE_ID_MAX 64
#define RUN_CASE_ID_CHARS                                                                   \
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-:/#"

struct report {
    int schema;
    struct kvlist host; /* system facts, in display order; "label" and "case_id"
                         * the run's --label and --case-id (text_plain_why-checked,
                         * at most RUN_LABEL_MAX / RUN_CASE_ID_MAX bytes) */
    struct kvlist caps; /* capability probe results */

    struct {
        struct timespec start_wall; /* CLOCK_REALTIME at window start */
        double planned_s;
        double actual_s;
        double interval_s;
        bool interrupted;  /* Ctrl-C/SIGTERM ended it early */
        /* perfreport watch: the trigger's moment, in seconds since the
         * window start (negative: before it), marked on every chart; the
         * ticks before 0 are the watcher's, from before the trigger. */
        bool triggered;
        double trigger_s;
        /* What triggered it, as the headline says it ("psi.memory.some 34 %
         * at 03:12:07 UTC"), at most WINDOW_TRIGGER_MAX bytes; owned; NULL
         * unless triggered. */
        char *trigger_what;
        char *target;      /* "system-wide", "pid 123 (comm)", "cgroup /x" */
    } window;

    double *ticks; /* seconds since window start of each sample */
    size_t nticks, cap_ticks;
    struct tick_gap *gaps; /* recorded by report_add_tick, in time order */
    size_t ngaps, cap_gaps;

    struct series **series;
    size_t nseries, cap_series;
    struct table **tables;
    size_t ntables, cap_tables;
    struct metric *metrics;
    size_t nmetrics, cap_metrics;
    struct finding *findings;
    size_t nfindings, cap_findings;
    struct threshold *thresholds;
    size_t nthresholds, cap_thresholds;
    struct use_row *use;
    size_t nuse, cap_use;
    struct ledger_entry *ledger;
    size_t nledger, cap_ledger;
    struct hist **hists;
    size_t nhists, cap_hists;
    struct profile **profiles; /* stack profiles (model/profile.h), owned */
    size_t nprofiles, cap_profiles;

    char *headline; /* one-sentence verdict set by analyze */
    char *headline_note; /* owned; said after the first finding's title in the
                          * headline ("new since the baseline, ..."), or NULL */
    bool failed;    /* the run itself failed (exit 3) */
    char *tool_version;
    /* Set by the publish step when the bundle could not go where it was asked
     * to (name taken, directory gone or tampered with): where it went and why.
     * Makes the bundle partial.  Owned; NULL normally. */
    char *publish_note;
    /* `perfreport -- CMD`: the command profiled (model/run_command.h);
     * owned; NULL for a run without one. */
    struct run_command *command;
};

struct report *report_new(void);
void report_free(struct report *r);

void kv_add(struct kvlist *l, const char *key, const char *title, const char *value);
void kv_addf(struct kvlist *l, const char *key, const char *title, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A number with its unit (see struct kv); replaces a fact of the same key. */
void kv_add_num(struct kvlist *l, const char *key, const char *title, double num,
                const char *unit);
const char *kv_get(const struct kvlist *l, const char *key); /* NULL: absent or a number */
double kv_num(const struct kvlist *l, const char *key);      /* NAN: absent or text */

/* Ticks: the pipeline appends one per sample; series values align to it.
 * With window.interval_s set, a tick more than TICK_GAP_FACTOR intervals
 * after the previous one records a gap; the window's first tick (at or
 * after 0) is measured from the window's start, also after ticks before 0. */
size_t report_add_tick(struct report *r, double t);
/* The index of the window's first tick.  The ticks before it (before 0:
 * perfreport watch's samples from before its trigger, report_prepend_ticks)
 * are charted but are not the window's: whatever judges or summarises the
 * window reads the series from here.  0 for a report without them. */
size_t report_window_first_tick(const struct report *r);
/* True when a gap ends at tick i (the sample i covers a gap). */
bool report_gap_before(const struct report *r, size_t i);
/* Puts n ticks t[0..n) (ascending, all before 0 and the first tick) in front of
 * the report's: every series is shifted by n, its first n values NAN for
 * the caller to fill; the gaps are found again over all the ticks. */
void report_prepend_ticks(struct report *r, const double *t, size_t n);
/* Forgets every tick, gap and series value, keeping the series and their
 * memory: a staging report reused one tick at a time (perfreport watch). */
void report_clear_ticks(struct report *r);

/* Finds or creates a series; later calls with the same name return it. */
struct series *report_series(struct report *r, const char *name, const char *title,
                             const char *unit, const char *resource);
/* Sets the value of the current (last) tick; pads missing ticks with NAN. */
void series_set(struct report *r, struct series *s, double v);
struct series *report_find_series(const struct report *r, const char *name);

struct table *report_table(struct report *r, const char *name, const char *title,
                           const char *resource);
void table_add_col(struct table *t, const char *name, const char *title, const char *unit,
                   int decimals);
/* One column of a table's layout, as collectors write it down (see struct column). */
struct col_spec {
    const char *name, *title, *unit;
    int decimals;
};
/* table_add_col for each of cols[0..n), in order. */
void table_add_cols(struct table *t, const struct col_spec *cols, size_t n);
/* The element count of an array (not of a pointer), e.g. for table_add_cols. */
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* Appends an empty row and returns its index. */
size_t table_add_row(struct table *t);
void table_set_num(struct table *t, size_t row, const char *col, double v);
/* table_set_num unless v is NaN (unknown): the cell stays empty. */
void table_set_num_opt(struct table *t, size_t row, const char *col, double v);
void table_set_str(struct table *t, size_t row, const char *col, const char *s);
void table_set_note(struct table *t, const char *note);
struct table *report_find_table(const struct report *r, const char *name);
int table_col(const struct table *t, const char *col); /* index or -1 */
const struct cell *table_cell(const struct table *t, size_t row, const char *col);
double table_num(const struct table *t, size_t row, const char *col); /* NAN if absent */
const char *table_str(const struct table *t, size_t row, const char *col); /* NULL if absent */

void report_metric(struct report *r, const char *name, const char *title, const char *unit,
                   const char *resource, double v);
const struct metric *report_find_metric(const struct report *r, const char *name);
double report_metric_value(const struct report *r, const char *name); /* NAN if absent */
/* The window's length in seconds: as measured, else as planned (0 when
 * neither is known). */
double report_window_s(const struct report *r);

struct finding *report_add_finding(struct report *r, const char *id, enum severity sev,
                                   const char *resource, const char *title);
void finding_evidence(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void finding_set_recommendation(struct finding *f, const char *text);
void finding_set_culprit(struct finding *f, const char *culprit);
/* Adds resource to f->related (once; not f's own; at most FINDING_MAX_RELATED). */
void finding_add_related(struct finding *f, const char *resource);
/* Whether resource is f's own or among its related ones. */
bool finding_concerns(const struct finding *f, const char *resource);
void finding_set_title(struct finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Frees f's fields and closes the gap: pointers to findings after it then
 * point one further; re-find them. */
void report_remove_finding(struct report *r, struct finding *f);
const struct finding *report_find_finding(const struct report *r, const char *id);
enum severity report_worst_severity(const struct report *r);

struct threshold *report_add_threshold(struct report *r, const char *id, const char *title,
                                       const char *unit, double warn, double crit,
                                       bool lower_is_worse);
const struct threshold *report_find_threshold(const struct report *r, const char *id);

struct use_row *report_add_use(struct report *r, const char *resource);
void use_cell_set(struct use_cell *c, enum severity sev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

struct ledger_entry *report_ledger(struct report *r, const char *name, const char *title);
void ledger_set(struct ledger_entry *e, enum coll_status st, const char *reason);
/* A collector skipped for want of root begins its reason with this. */
#define LEDGER_NOT_ROOT "not root"
bool ledger_not_root(const struct ledger_entry *e);
void ledger_note(struct ledger_entry *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void report_set_headline(struct report *r, const char *text);

/* Moves everything a collector wrote into `src` (a staging report with the
 * same ticks) into `dst`: host/caps facts, series, tables, metrics,
 * histograms, profiles and ledger notes.  src is left empty but valid;
 * the caller still frees it. */
void report_merge(struct report *dst, struct report *src);
/* True when the bundle lacks data it should have: the window was
 * interrupted, or a collector failed or timed out; or when it is not where
 * it was asked to be (publish_note). */
bool report_is_partial(const struct report *r);
/* The process exit status this report stands for: 0/1/2 complete bundle with
 * worst finding none/warning/critical; 3 the run failed; 4/5/6 partial
 * bundle (report_is_partial) with worst finding none/warning/critical. */
int report_exit_status(const struct report *r);

/* Finds or creates a histogram (all buckets 0, sum/max NAN). */
struct hist *report_hist(struct report *r, const char *name, const char *title, const char *unit,
                         const char *resource);
struct hist *report_find_hist(const struct report *r, const char *name);
/* Adds n observations to bucket b and keeps count consistent. */
void hist_add_bucket(struct hist *h, unsigned b, uint64_t n);
/* Value below which a fraction p (0..1) of observations fall, interpolated
 * linearly inside the log2 bucket; NAN when the histogram is empty. */
double hist_percentile(const struct hist *h, double p);
/* Observations at or above v: the bucket holding v counted in proportion
 * (values spread evenly over it, as in hist_percentile); 0 above a known
 * max, and at least 1 (the max itself) up to it. */
double hist_count_above(const struct hist *h, double v);
/* Takes ownership of p (a struct profile from model/profile.h); returns it. */
struct profile *report_add_profile(struct report *r, struct profile *p);
struct profile *report_find_profile(const struct report *r, const char *name);

#endif
