/* lock.contention: a process whose threads spend a large share of their
 * time waiting in futex calls that look like lock contention.
 *
 * What counts (rows of lock.futex_waits):
 *  - kinds "park" and "join" never count: a thread pool parked on a
 *    condition variable or a semaphore is idle, a thread in pthread_join
 *    waits for another to finish, neither is contended;
 *  - kind "mutex" (the stack passes a mutex/rwlock slow path) counts;
 *  - kind "unknown" (no recognised frame) counts only with contention
 *    evidence: many short waits (>= LOCK_MIN_WAITS waits of mean <=
 *    LOCK_MAX_MEAN_MS), the signature of threads taking turns on a lock
 *    rather than one long park.
 * Timed-out waits are not in the table (the collector drops them).
 * Share = wait time / (window x threads of the process), summed over the
 * counted rows, judged against lock.wait_pct. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#define LOCK_MIN_WAITS 50
#define LOCK_MAX_MEAN_MS 10.0

static bool row_counts(const struct table *t, size_t i)
{
    const char *kind = table_str(t, i, "kind");
    if (kind && (strcmp(kind, "park") == 0 || strcmp(kind, "join") == 0))
        return false;
    if (kind && strcmp(kind, "mutex") == 0)
        return true;
    double n = table_num(t, i, "count"), mean = table_num(t, i, "mean_ms");
    return !isnan(n) && !isnan(mean) && n >= LOCK_MIN_WAITS && mean <= LOCK_MAX_MEAN_MS;
}

void rule_lock_contention(struct report *r, const struct rule *self)
{
    const struct table *t = report_find_table(r, NM_LOCK_FUTEX_WAITS);
    if (!t || !t->nrows)
        return;
    struct sig best = {0};
    long best_row = -1;
    double best_count = 0;
    /* per process: sum the counted rows; the first counted row of a pid
     * (largest wait, rows are sorted) names the stack */
    for (size_t i = 0; i < t->nrows; i++) {
        double pid = table_num(t, i, "pid");
        if (isnan(pid) || !row_counts(t, i))
            continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = table_num(t, j, "pid") == pid && row_counts(t, j);
        if (seen)
            continue;
        double pct = 0, count = 0;
        for (size_t j = i; j < t->nrows; j++)
            if (table_num(t, j, "pid") == pid && row_counts(t, j)) {
                double v = table_num(t, j, "wait_pct");
                pct += isnan(v) ? 0 : v;
                count += table_num(t, j, "count");
            }
        struct sig s = sig_value(r, "lock.wait_pct", pct, NULL);
        if (s.sev >= SEV_WARNING && (best_row < 0 || sig_worse(&s, &best))) {
            best = s;
            best_row = (long)i;
            best_count = count;
        }
    }
    if (best_row < 0)
        return;
    size_t i = (size_t)best_row;
    const char *comm = table_str(t, i, "process");
    const char *stack = table_str(t, i, "stack");
    struct strbuf title = STRBUF_INIT;
    sb_addf(&title, "Lock contention in %s (pid %.0f): threads wait %.0f%% of their time for a "
                    "lock",
            comm ? comm : "?", table_num(t, i, "pid"), best.v);
    if (stack && *stack)
        sb_addf(&title, " in %s", stack);
    struct finding *f = rule_add(r, self, best.sev, &title);
    sig_evidence(f, "Futex wait time / (window x threads)", &best);
    finding_evidence(f, "%.0f contended waits; top stack %.0f waits, mean %.2f ms, longest %.1f ms "
                        "(contention needs a mutex slow path in the stack, or >= %d waits of "
                        "mean <= %.0f ms)",
                     best_count, table_num(t, i, "count"), table_num(t, i, "mean_ms"),
                     table_num(t, i, "max_ms"), LOCK_MIN_WAITS, LOCK_MAX_MEAN_MS);
    finding_evidence(f, "Waiting user stack: %s", stack && *stack ? stack : "(not resolved)");
    if (comm)
        finding_set_culprit(f, comm);
    f->score = rank_score(best.sev, best.excess, NAN, 0);
}
