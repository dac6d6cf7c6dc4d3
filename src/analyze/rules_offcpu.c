/* Where a target's time went (-p PID, or -- CMD with its tree), and the
 * off-CPU findings.
 *
 * A thread is on a CPU, waiting for one, or blocked in a wait class
 * (collector offcpu: offcpu.target.<class>_ms, all the target's threads).
 * Some waits hold the work up (disk, a lock, a peer over the network,
 * another local process); the others are the program waiting by design:
 * for its children, a thread it joins, work for a parked pool, input on an
 * event loop, a timer.  Only the first kind is judged, as a share of the
 * target's working time (on CPU, waiting for a CPU, or blocked on work), so
 * that a shell waiting for its children or a pool of idle workers never
 * reads as blocked.  Without -p the off-CPU tables are informative only: on
 * an idle host every thread sleeps. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

enum wait_kind {
    WK_HOLDS,     /* holds the work up: judged */
    WK_BY_DESIGN, /* the program chose to wait: never more than info */
    WK_UNKNOWN,   /* unclassified: shown, not judged */
    WK_TRACER,    /* a tracer's breakpoints (perfreport's own probes): its cost, shown */
};

struct offcpu_rule {
    const char *cls, *id, *what;
    enum wait_kind kind;
    /* the most it may be: waiting on a local process or (under -p, where a
     * server's threads wait for their next request the same way) a peer */
    enum severity cap, cap_under_p;
    const char *advice;
};

static const struct offcpu_rule classes[] = {
    {"io", "offcpu.io_wait", "disk I/O", WK_HOLDS, SEV_CRITICAL, SEV_CRITICAL,
     "The process waits for the disk: check disk latency (disk.latency, the I/O section), "
     "reduce synchronous reads/fsyncs on the request path, add caching or read-ahead, or move "
     "the data to faster storage."},
    {"lock", "offcpu.lock_wait", "locks", WK_HOLDS, SEV_CRITICAL, SEV_CRITICAL,
     "Its threads wait for each other: find the lock in the blocking stack (see also "
     "lock.futex_waits), shorten the critical section, split the lock or use per-thread "
     "data."},
    {"net", "offcpu.net_wait", "network sockets", WK_HOLDS, SEV_CRITICAL, SEV_WARNING,
     "The process waits for a peer over the network: check the peer's latency and the "
     "network section (retransmits, drops); add timeouts, pipelining or concurrency. A "
     "server's threads also wait here for their next request: then nothing is wrong."},
    {"ipc", "offcpu.ipc_wait", "IPC with a local process (unix socket, message queue)",
     WK_HOLDS, SEV_WARNING, SEV_WARNING,
     "The process waits for another local process (a unix socket, a message queue): the "
     "latency is in the process on the other end; profile that one."},
    /* a pipeline's stages wait on each other: the work is the slowest stage's */
    {"pipe", "offcpu.ipc_wait", "a pipe (the process at its other end)", WK_BY_DESIGN, SEV_INFO,
     SEV_INFO,
     "The process waits on a pipe for the process at its other end, as a pipeline's stages "
     "do: if the whole is slow, profile the stage that does the work."},
    {"sleep", "offcpu.sleep", "its own sleep calls", WK_BY_DESIGN, SEV_INFO, SEV_INFO,
     "The time goes to the program's own sleeps (nanosleep): review polling loops, retry "
     "back-off and rate limits in the blocking stack if it should be doing work instead."},
    {"child", NULL, "waiting for its child processes", WK_BY_DESIGN, SEV_NONE, SEV_NONE, NULL},
    {"join", NULL, "joining threads", WK_BY_DESIGN, SEV_NONE, SEV_NONE, NULL},
    {"park", NULL, "parked workers waiting for work", WK_BY_DESIGN, SEV_NONE, SEV_NONE, NULL},
    {"idle", NULL, "waiting for input (event loop, accept, terminal)", WK_BY_DESIGN, SEV_NONE,
     SEV_NONE, NULL},
    {"other", NULL, "other waits", WK_UNKNOWN, SEV_NONE, SEV_NONE, NULL},
    /* the kernel handling a breakpoint: with -p, perfreport's allocation and
     * DNS uprobes; a thread that faults on one while another maps memory
     * waits for the process's mmap lock (a threaded HTTP server: 3.3 s of
     * 3.8 s, whose waits would otherwise read as lock contention) */
    {"probe", NULL, "handling uprobes (tracers' breakpoints, perfreport's own)", WK_TRACER,
     SEV_NONE, SEV_NONE, NULL},
};
#define NCLASSES (sizeof classes / sizeof classes[0])

/* A wait class must hold at least this share of one thread's window before
 * it is judged: a process that barely runs and read one file is not "90 %
 * blocked on disk". */
#define OFFCPU_MIN_WINDOW_SHARE 0.1

/* Seconds of CPU the target used in the window: its on-CPU samples (the
 * profile follows the target, and a command's tree), else its threads'
 * CPU from /proc; NAN when neither was measured. */
static double target_cpu_s(const struct report *r, double window_s)
{
    double n = report_metric_value(r, NM_PROFILE_SAMPLES), hz = report_metric_value(r, NM_PROFILE_HZ);
    if (isfinite(n) && isfinite(hz) && hz > 0)
        return n / hz;
    const struct table *t = report_find_table(r, NM_THREADS_CPU);
    if (!t)
        return NAN;
    double pct = 0;
    for (size_t i = 0; i < t->nrows; i++)
        pct += num0(table_num(t, i, "cpu_pct"));
    return pct / 100.0 * window_s;
}

/* Seconds the target's threads waited for a CPU (-p, runqlat), else 0. */
static double target_runq_s(const struct report *r)
{
    const struct table *t = report_find_table(r, NM_THREADS_RUNQ);
    double ms = 0;
    for (size_t i = 0; t && i < t->nrows; i++)
        ms += num0(table_num(t, i, "total_ms"));
    return ms / 1000.0;
}

static double class_s(const struct report *r, const char *cls)
{
    char m[64];
    snprintf(m, sizeof m, NMF_OFFCPU_TARGET_MS, cls);
    return report_metric_value(r, m) / 1000.0;
}

static const char *kind_words(enum wait_kind k)
{
    return k == WK_HOLDS       ? "holds the work up"
           : k == WK_BY_DESIGN ? "by design"
           : k == WK_TRACER    ? "a tracer's cost (perfreport's probes)"
                               : "unclassified";
}

/* Table target.time: the target's thread time by state. */
static void time_table(struct report *r, double cpu_s, double runq_s, double total_s)
{
    struct table *t = report_table(r, NM_TARGET_TIME, "Where the target's time went", "offcpu");
    static const struct col_spec cols[] = {
        {"state", "State", "", 0},
        {"what", "What", "", 0},
        {"thread_s", "Thread time", "s", 2},
        {"share_pct", "Share", "%", 1},
        {"kind", "Kind", "", 0},
    };
    table_add_cols(t, cols, ARRAY_LEN(cols));
    struct trow {
        const char *state, *what, *kind;
        double s;
    } rows[NCLASSES + 2];
    size_t n = 0;
    rows[n++] = (struct trow){"cpu", "running on a CPU", "work", cpu_s};
    if (runq_s > 0)
        rows[n++] = (struct trow){"runq", "waiting for a CPU", "holds the work up", runq_s};
    for (size_t c = 0; c < NCLASSES; c++) {
        double s = class_s(r, classes[c].cls);
        if (s > 0)
            rows[n++] = (struct trow){classes[c].cls, classes[c].what,
                                          kind_words(classes[c].kind), s};
    }
    for (size_t i = 0; i < n; i++) { /* largest first */
        size_t best = i;
        for (size_t j = i + 1; j < n; j++)
            if (rows[j].s > rows[best].s)
                best = j;
        struct trow tmp = rows[i];
        rows[i] = rows[best];
        rows[best] = tmp;
        size_t row = table_add_row(t);
        table_set_str(t, row, "state", rows[i].state);
        table_set_str(t, row, "what", rows[i].what);
        table_set_num(t, row, "thread_s", rows[i].s);
        table_set_num(t, row, "share_pct", total_s > 0 ? rows[i].s / total_s * 100 : NAN);
        table_set_str(t, row, "kind", rows[i].kind);
    }
    table_set_note(t, "Summed over the target's threads (and, for a command, the processes of "
                      "its tree): time on a CPU from the CPU profile, blocked time by wait class "
                      "from the off-CPU collector. Waits by design (children, joins, parked "
                      "workers, input, timers) are never judged as a problem, nor are waits in the "
                      "kernel's handling of uprobes (a tracer's breakpoints: under -p, "
                      "perfreport's own allocation and DNS probes).");
}

/* The top stack of class cls in offcpu.top_stacks (rows sorted by time). */
static long top_stack_row(const struct table *ts, const char *cls)
{
    for (size_t i = 0; ts && i < ts->nrows; i++) {
        const char *cl = table_str(ts, i, "class");
        if (cl && strcmp(cl, cls) == 0)
            return (long)i;
    }
    return -1;
}

static void judge_class(struct report *r, const struct rule *self, const struct offcpu_rule *cr,
                        double cls_s, double active_s, double total_s, double window_s,
                        bool command)
{
    struct sig s;
    const char *share_of;
    if (cr->kind == WK_BY_DESIGN) {
        /* shown as where the time went, never as harm */
        s = sig_value(r, "offcpu.target_wait_pct", total_s > 0 ? cls_s / total_s * 100 : NAN,
                      NULL);
        share_of = "of its threads' time";
    } else if (isfinite(active_s)) {
        s = sig_value(r, "offcpu.target_wait_pct", active_s > 0 ? cls_s / active_s * 100 : NAN,
                      NULL);
        share_of = "of its working time (on a CPU, waiting for one, or blocked on work)";
    } else { /* no CPU figure: the per-thread share of the window, as measured */
        char m[64];
        snprintf(m, sizeof m, NMF_OFFCPU_TARGET_PCT, cr->cls);
        s = sig_metric(r, "offcpu.target_wait_pct", m, NULL);
        share_of = "of the window (per thread)";
    }
    if (s.sev < SEV_WARNING || !(cls_s >= OFFCPU_MIN_WINDOW_SHARE * window_s))
        return;
    enum severity cap = command ? cr->cap : cr->cap_under_p;
    if (s.sev > cap)
        s.sev = cap;
    const struct table *ts = report_find_table(r, NM_OFFCPU_TOP_STACKS);
    long row = top_stack_row(ts, cr->cls);
    const char *comm = row >= 0 ? table_str(ts, (size_t)row, "process") : NULL;
    const char *stack = row >= 0 ? table_str(ts, (size_t)row, "stack") : NULL;
    double pid = row >= 0 ? table_num(ts, (size_t)row, "pid") : NAN;
    struct strbuf t = STRBUF_INIT;
    if (!isnan(pid))
        sb_addf(&t, "pid %.0f (%s) ", pid, comm ? comm : "?");
    else
        sb_add(&t, "The target ");
    if (cr->kind == WK_BY_DESIGN)
        sb_addf(&t, "spent %.0f%% of its time in %s", s.v, cr->what);
    else
        sb_addf(&t, "waited on %s for %.0f%% of its working time (%.1f of %.1f s)", cr->what,
                s.v, cls_s, active_s);
    if (stack && *stack)
        sb_addf(&t, " in %s", stack);
    struct finding *f = rule_finding(r, self, cr->id, s.sev, sb_str(&t));
    sb_free(&t);
    char lab[200];
    snprintf(lab, sizeof lab, "Blocked on %s, %s", cr->what, share_of);
    sig_evidence(f, lab, &s);
    if (row >= 0)
        finding_evidence(f, "Top blocking stack: %.0f ms in %.0f waits: %s",
                         table_num(ts, (size_t)row, "total_ms"),
                         table_num(ts, (size_t)row, "count"), stack ? stack : "?");
    if (cr->kind == WK_BY_DESIGN)
        finding_evidence(f, "The program chose to wait: informational");
    else if (s.sev == cap && cap < SEV_CRITICAL)
        finding_evidence(f, cr->cap == SEV_WARNING
                                ? "Kept at warning: the cause is in the process at the other end"
                                : "Kept at warning: a server's threads wait here for their next "
                                  "request too");
    finding_set_recommendation(f, cr->advice);
    if (comm)
        finding_set_culprit(f, comm);
    f->score = rank_score(s.sev, s.excess, NAN, 0);
}

void rule_offcpu_wait(struct report *r, const struct rule *self)
{
    double window_s = report_window_s(r);
    /* a target's blocked time (collector offcpu with -p or -- CMD) */
    if (!(window_s > 0) || isnan(class_s(r, "io")))
        return;
    double cpu_s = target_cpu_s(r, window_s), runq_s = target_runq_s(r);
    double holds_s = 0, total_s = num0(cpu_s) + runq_s;
    for (size_t c = 0; c < NCLASSES; c++) {
        double s = num0(class_s(r, classes[c].cls));
        total_s += s;
        holds_s += classes[c].kind == WK_HOLDS ? s : 0;
    }
    double active_s = isfinite(cpu_s) ? cpu_s + runq_s + holds_s : NAN;
    if (!report_find_table(r, NM_TARGET_TIME))
        time_table(r, num0(cpu_s), runq_s, total_s);
    bool command = r->command != NULL;
    /* one finding per id: a class judged first (ipc before pipe) keeps it */
    for (size_t c = 0; c < NCLASSES; c++)
        if (classes[c].id && !report_find_finding(r, classes[c].id))
            judge_class(r, self, &classes[c], num0(class_s(r, classes[c].cls)), active_s,
                        total_s, window_s, command);
}
