/* Off-CPU findings for a -p target: which kind of wait took most of its
 * threads' time.  Read from offcpu.target.<class>_pct (per-thread share of
 * the window) and the offcpu.top_stacks table.  Without -p the off-CPU
 * tables are informative only: on an idle host every thread sleeps. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

struct offcpu_rule {
    const char *cls, *id, *what, *advice;
    bool cap_warning; /* the program chose to wait: never critical */
};

static const struct offcpu_rule classes[] = {
    {"io", "offcpu.io_wait", "disk I/O",
     "The process waits for the disk: check disk latency (disk.latency, the I/O section), "
     "reduce synchronous reads/fsyncs on the request path, add caching or read-ahead, or move "
     "the data to faster storage.", false},
    {"lock", "offcpu.lock_wait", "locks",
     "Its threads wait for each other: find the lock in the blocking stack (see also "
     "lock.futex_waits), shorten the critical section, split the lock or use per-thread "
     "data. If the stack is a thread pool waiting for work, the pool is just oversized.",
     false},
    {"net", "offcpu.net_wait", "network sockets",
     "The process waits for a peer over the network: check the peer's latency and the "
     "network section (retransmits, drops); add timeouts, pipelining or concurrency.", false},
    {"ipc", "offcpu.ipc_wait", "pipe/IPC",
     "The process waits for another local process (pipe, FIFO, unix socket, child): the "
     "latency is in the process on the other end; profile that one.", false},
    {"sleep", "offcpu.sleep", "sleep calls",
     "The time goes to the program's own sleeps (nanosleep): review polling loops, retry "
     "back-off and rate limits in the blocking stack.", true},
};

void rule_offcpu_wait(struct report *r, const struct rule *self)
{
    double th = report_metric_value(r, NM_OFFCPU_TARGET_THREADS);
    if (isnan(th))
        return; /* no -p target */
    const struct table *ts = report_find_table(r, NM_OFFCPU_TOP_STACKS);
    for (size_t c = 0; c < sizeof classes / sizeof classes[0]; c++) {
        const struct offcpu_rule *cr = &classes[c];
        char m[64];
        snprintf(m, sizeof m, NMF_OFFCPU_TARGET_PCT, cr->cls);
        struct sig s = sig_metric(r, "offcpu.target_wait_pct", m, NULL);
        if (s.sev < SEV_WARNING)
            continue;
        if (cr->cap_warning && s.sev > SEV_WARNING)
            s.sev = SEV_WARNING;
        /* top stack of this class: rows are sorted by blocked time */
        long row = -1;
        for (size_t i = 0; ts && i < ts->nrows && row < 0; i++) {
            const char *cl = table_str(ts, i, "class");
            if (cl && strcmp(cl, cr->cls) == 0)
                row = (long)i;
        }
        const char *comm = row >= 0 ? table_str(ts, (size_t)row, "process") : NULL;
        const char *stack = row >= 0 ? table_str(ts, (size_t)row, "stack") : NULL;
        double pid = row >= 0 ? table_num(ts, (size_t)row, "pid") : NAN;
        struct strbuf t = STRBUF_INIT;
        if (!isnan(pid))
            sb_addf(&t, "pid %.0f (%s) ", pid, comm ? comm : "?");
        else
            sb_addf(&t, "The target ");
        sb_addf(&t, "spent %.0f%% of the window blocked on %s", s.v, cr->what);
        if (stack && *stack)
            sb_addf(&t, " in %s", stack);
        struct finding *f = rule_finding(r, self, cr->id, s.sev, sb_str(&t));
        sb_free(&t);
        char lab[160];
        snprintf(lab, sizeof lab, "Blocked on %s (average over its %.0f thread%s)", cr->what, th,
                 th == 1 ? "" : "s");
        sig_evidence(f, lab, &s);
        if (row >= 0)
            finding_evidence(f, "Top blocking stack: %.0f ms in %.0f waits: %s",
                             table_num(ts, (size_t)row, "total_ms"),
                             table_num(ts, (size_t)row, "count"), stack ? stack : "?");
        if (cr->cap_warning)
            finding_evidence(f, "Sleeps are chosen by the program: reported at most as a warning");
        finding_set_recommendation(f, cr->advice);
        if (comm)
            finding_set_culprit(f, comm);
        f->score = rank_score(s.sev, s.excess, NAN, 0);
    }
}
