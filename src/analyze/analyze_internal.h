/* Shared between the analysis files (thresholds, rules, USE, ranking).
 * Everything here reads the model only; nothing knows where a number came from. */
#ifndef PERFREPORT_ANALYZE_INTERNAL_H
#define PERFREPORT_ANALYZE_INTERNAL_H
#include "../model/model.h"
#include "../model/names.h"
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

/* ---- rules.c / use.c ------------------------------------------------------ */

/* One row of rules[] (rules.c): the finding id the rule adds (a family such
 * as "offcpu.*" names the one it found), the resource it is filed under,
 * what to do (NULL: the rule's advice depends on the case and it sets its
 * own), and the function in rules_<resource>.c that judges the model. */
struct rule {
    const char *id, *resource, *recommendation;
    void (*judge)(struct report *r, const struct rule *self);
};
void rules_run(struct report *r);
/* threads.c: joins a -p run's per-thread tables into "threads" (once). */
void threads_join(struct report *r);
void use_fill(struct report *r);

/* Small helpers over model tables used by rules and the USE table (sig.c). */
/* Row with the largest numeric `col`, or -1 (rows with no value ignored). */
long table_argmax(const struct table *t, const char *col);
/* "comm (pid N)" of a process table row into buf. */
void proc_label(const struct table *t, size_t row, char *buf, size_t n);
/* Is cgroup path p the cgroup anc or below it ("/a/b" is within "/a", not
 * within "/ab")? */
bool cgroup_path_within(const char *p, const char *anc);
/* Whether growing cgroup `path` (a row of cgroup.memory_growth) meets a
 * memory limit, its own or an ancestor's, before the host's available
 * memory runs out: the choice rule cgroup.memory_growth's title makes. */
bool cgroup_memory_limit_first(const struct report *r, const char *path);

/* ---- rule_util.c: what the rules share ----------------------------------- */
struct strbuf;
/* Adds the rule's finding (id: a family's member, NULL for the row's id)
 * with its row's resource and recommendation. */
struct finding *rule_finding(struct report *r, const struct rule *self, const char *id,
                             enum severity sev, const char *title);
/* rule_finding with the row's id and a title it frees. */
struct finding *rule_add(struct report *r, const struct rule *self, enum severity sev,
                         struct strbuf *title);
enum severity sev_max(enum severity a, enum severity b);
double num0(double v); /* 0 for NAN */
const char *plural(double n); /* "" or "s" */
/* Indices of up to k rows with the largest `col`, largest first; rows
 * without a value are skipped. */
size_t top_rows(const struct table *t, const char *col, size_t *idx, size_t k);
/* In a loop over rows: makes s (of row i) the worst so far when it is
 * (*row < 0: none yet). */
void sig_keep_worst(struct sig *best, long *row, const struct sig *s, size_t i);
/* Row of process table t with the largest `col` (-1: none) and its
 * "comm (pid N)" in label ("" when none). */
long top_proc(const struct table *t, const char *col, char *label, size_t n);
/* Signals at warning or above among s[0..n). */
int count_past(int n, const struct sig *const *s);
/* "Top processes by WHAT: a (pid 1) 99%, b (pid 2) 40%" from column col
 * (KiB values when kib). */
void evidence_top_procs(struct finding *f, const struct table *t, const char *what,
                        const char *col, bool kib);
/* Events that kernel-side collectors record from their attach on carry
 * at_s, seconds from the window's start (negative: during start-up).
 * when_text: "1.2 s before the window opened", "0.8 s into the window",
 * "0.3 s after the window closed"; outside_window: before or after it. */
void when_text(const struct report *r, double at_s, char *buf, size_t n);
bool outside_window(const struct report *r, double at_s);
/* Row of proc.dstate: a task a cgroup v1 freezer holds (docker pause; the
 * collector's column frozen).  State D, but stopped on purpose: neither
 * hung nor doing I/O. */
bool dstate_frozen(const struct table *t, size_t row);
/* The host's memory available at the window's low point (KiB), else at
 * its end; NAN when unknown.  What a growth runs out of. */
double host_available_kib(const struct report *r);
/* Whether the host's memory is short already: available memory (at the
 * window's low point) past mem.available_pct, or PSI memory some past
 * psi.some_pct.  A growth that would exhaust it is critical only then: a
 * build's compiler or a warming cache projects minutes too. */
bool memory_short(const struct report *r);

/* ---- the rules, one file per resource (rows in rules.c) ------------------ */
#define RULE(fn) void fn(struct report *r, const struct rule *self)
RULE(rule_cpu_saturation);
RULE(rule_cpu_steal);
RULE(rule_cpu_softirq);
RULE(rule_cpu_hotspot);
RULE(rule_cpu_ipc_memory_bound);
RULE(rule_cpu_branch_misses);
RULE(rule_memory_pressure);
RULE(rule_memory_swap);
RULE(rule_memory_oom);
RULE(rule_cgroup_memory_limit);
RULE(rule_cgroup_cpu_throttled);
RULE(rule_cgroup_io_throttled);
RULE(rule_cgroup_memory_growth);
RULE(rule_disk_saturation);
RULE(rule_disk_latency);
RULE(rule_net_drops);
RULE(rule_net_tcp_retransmits);
RULE(rule_net_listen_overflow);
RULE(rule_net_tcp_resets);
RULE(rule_net_rcvbuf_drops);
RULE(rule_alloc_leak);
RULE(rule_alloc_rate);
RULE(rule_fd_exhaustion);
RULE(rule_fd_growth);
RULE(rule_sched_runqueue_latency);
RULE(rule_io_cache_misses);
RULE(rule_io_fsync);
RULE(rule_cpu_thread_bottleneck);
RULE(rule_syscall_rate);
RULE(rule_syscall_errors);
RULE(rule_process_churn);
RULE(rule_offcpu_wait);
RULE(rule_lock_contention);
RULE(rule_dns_latency);
RULE(rule_proc_uninterruptible);
RULE(rule_memory_growth);
#undef RULE

#endif
