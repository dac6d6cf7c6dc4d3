/* Shared between the analysis files (thresholds, rules, USE, ranking).
 * Everything here reads the model only; nothing knows where a number came from. */
#ifndef PERFREPORT_ANALYZE_INTERNAL_H
#define PERFREPORT_ANALYZE_INTERNAL_H
#include "../model/model.h"
#include <stdbool.h>
#include <stddef.h>

/* ---- thresholds.c ------------------------------------------------------- */

/* Level of v against t: SEV_NONE when v or t is missing or v is on the good
 * side of warn.  Boundaries fire: v == warn is a warning, v == crit critical. */
enum severity thr_level(const struct threshold *t, double v);
/* How far past warn v is, in units of the warn..crit span, clamped to 0..2
 * (1 = exactly at crit).  0 when not past warn. */
double thr_excess(const struct threshold *t, double v);
/* Threshold row for disk latency of a device class ("nvme", "virtio"...);
 * falls back to the generic "disk.await_ms" row for unknown classes. */
const struct threshold *thr_disk_await(const struct report *r, const char *cls);

/* ---- signals: one number judged against one threshold ------------------ */

struct sig {
    const struct threshold *t; /* NULL when the row is missing */
    double v;                  /* NAN when not measured */
    enum severity sev;
    double excess;             /* thr_excess() */
    double cov;                /* share of samples past warn; NAN without a series */
    size_t over, total;        /* samples past warn / samples with a value */
};

/* Judges v against threshold `thr_id`; `series` (may be NULL) gives coverage. */
struct sig sig_value(const struct report *r, const char *thr_id, double v, const char *series);
struct sig sig_with(const struct report *r, const struct threshold *t, double v,
                    const char *series);
/* sig_value() of metric `metric`. */
struct sig sig_metric(const struct report *r, const char *thr_id, const char *metric,
                      const char *series);
/* True when a is worse than b (severity first, then excess). */
bool sig_worse(const struct sig *a, const struct sig *b);

/* Appends "LABEL 97.1% ≥ 90% (critical)" (or "... (warning at 70%)" when
 * below), plus "; past 70% in 28 of 30 samples" when a series was found.
 * Nothing when the value was not measured. */
void sig_evidence(struct finding *f, const char *label, const struct sig *s);

/* "97.1%", "3.1 per CPU", "25 ms", "12/s": value then unit. */
void fmt_val(char *buf, size_t n, double v, const char *unit);
/* "1.2 GiB", "512 MiB", "900 KiB". */
void fmt_kib(char *buf, size_t n, double kib);

/* ---- rank.c ------------------------------------------------------------- */

/* Score for a finding; see the rule at the top of rank.c.  cov may be NAN
 * (no series: the window value counts as covering the whole window). */
double rank_score(enum severity sev, double excess, double cov, int corroborations);
/* Folds explained symptoms into their cause, sorts, sets the headline. */
void rank_findings(struct report *r);
void rank_headline(struct report *r);

/* ---- rules.c / use.c ------------------------------------------------------ */

void rules_run(struct report *r);
void use_fill(struct report *r);

/* Small helpers over model tables used by rules and the USE table. */
/* Row with the largest numeric `col`, or -1 (rows with no value ignored). */
long table_argmax(const struct table *t, const char *col);
/* "comm (pid N)" of a process table row into buf. */
void proc_label(const struct table *t, size_t row, char *buf, size_t n);
/* Events that kernel-side collectors record from their attach on carry
 * at_s, seconds from the window's start (negative: during start-up).
 * when_text: "1.2 s before the window opened", "0.8 s into the window",
 * "0.3 s after the window closed"; outside_window: before or after it. */
void when_text(const struct report *r, double at_s, char *buf, size_t n);
bool outside_window(const struct report *r, double at_s);

/* ---- rules_sched.c, rules_io.c, rules_disk_bio.c (BPF collectors) ------- */
void rule_sched_runqueue_latency(struct report *r);
void rule_io_cache_misses(struct report *r);
void rule_io_fsync(struct report *r);
/* disk.latency from the biolat p99 table; false when that table is absent
 * (the caller then judges iostat's await). */
bool rule_disk_latency_bio(struct report *r);

/* ---- rules_syscall.c ------------------------------------------------------- */
void rule_syscall_rate(struct report *r);
void rule_syscall_errors(struct report *r);
void rule_process_churn(struct report *r);

/* ---- rules.c: TCP tables from the tcpevents collector ------------------------ */
/* Row of `table` with the largest numeric `col` plus its "src -> dst" into
 * buf; -1 when the table is absent or empty. */
long tcp_worst_conn(const struct report *r, const char *table, const char *col, char *buf,
                    size_t n);

/* ---- rules_profile.c ----------------------------------------------------- */
#define HOTSPOT_MIN_SAMPLES 50 /* fewer samples say nothing about a share */
#define HOTSPOT_MIN_CPU 0.1    /* and the function must use >= 10 % of one CPU */
void rule_cpu_hotspot(struct report *r);
/* "burn_leaf in burner (62% of 1200 on-CPU samples)" from profile.top_self
 * into buf; false when there is no profile or too few samples. */
bool profile_top_function(const struct report *r, char *buf, size_t n);

/* ---- rules_offcpu.c / rules_lock.c ------------------------------------- */
void rule_offcpu_wait(struct report *r);
void rule_lock_contention(struct report *r);
#endif
