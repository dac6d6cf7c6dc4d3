/* Per-thread tables of a -p run: see threads_tables.h. */
#include "threads_tables.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The order of every per-thread table: the biggest value first, ties by
 * thread id (a stable, reproducible order). */
static int biggest_first(uint64_t xv, uint32_t xtid, uint64_t yv, uint32_t ytid)
{
    if (xv != yv)
        return xv < yv ? 1 : -1;
    return xtid < ytid ? -1 : xtid > ytid;
}

static int by_count(const void *a, const void *b)
{
    const struct thread_val *x = a, *y = b;
    return biggest_first(x->count, x->tid, y->count, y->tid);
}

static int by_total(const void *a, const void *b)
{
    const struct thread_val *x = a, *y = b;
    return biggest_first(x->total_ns, x->tid, y->total_ns, y->tid);
}

static void set_comm(struct table *t, size_t row, const char comm[16])
{
    char c[17];
    memcpy(c, comm, 16);
    c[16] = '\0';
    table_set_str(t, row, "comm", c);
}

/* "N more threads not listed; M not kept (map full)." or NULL */
static void rest_note(struct table *t, size_t n, uint64_t dropped, const char *what)
{
    char note[200];
    int len = 0;
    note[0] = '\0';
    if (n > THREADS_TOP_ROWS)
        len = snprintf(note, sizeof note, "%zu more threads with less %s are not listed.",
                       n - THREADS_TOP_ROWS, what);
    if (dropped && len >= 0 && (size_t)len < sizeof note)
        snprintf(note + len, sizeof note - (size_t)len,
                 "%s%llu events not kept per thread (per-thread map full).", len ? " " : "",
                 (unsigned long long)dropped);
    if (note[0])
        table_set_note(t, note);
}

void threads_fill_oncpu(struct report *r, struct thread_val *v, size_t n, uint64_t dropped)
{
    struct table *t = report_table(r, NM_THREADS_ONCPU, "On-CPU samples per thread", "threads");
    static const struct col_spec cols[] = {
        {"tid", "TID", "", 0}, {"comm", "Thread", "", 0}, {"samples", "Samples", "", 0}};
    table_add_cols(t, cols, ARRAY_LEN(cols));
    if (n)
        qsort(v, n, sizeof *v, by_count);
    for (size_t i = 0; i < n && i < THREADS_TOP_ROWS; i++) {
        size_t row = table_add_row(t);
        table_set_num(t, row, "tid", v[i].tid);
        set_comm(t, row, v[i].comm);
        table_set_num(t, row, "samples", (double)v[i].count);
    }
    rest_note(t, n, dropped, "CPU");
}

void threads_fill_runq(struct report *r, struct thread_val *v, size_t n, uint64_t dropped)
{
    struct table *t = report_table(r, NM_THREADS_RUNQ, "Run-queue waits per thread", "threads");
    static const struct col_spec cols[] = {
        {"tid", "TID", "", 0},           {"comm", "Thread", "", 0},
        {"waits", "Waits", "", 0},       {"total_ms", "Total", "ms", 1},
        {"max_ms", "Longest", "ms", 2},
    };
    table_add_cols(t, cols, ARRAY_LEN(cols));
    if (n)
        qsort(v, n, sizeof *v, by_total);
    for (size_t i = 0; i < n && i < THREADS_TOP_ROWS; i++) {
        size_t row = table_add_row(t);
        table_set_num(t, row, "tid", v[i].tid);
        set_comm(t, row, v[i].comm);
        table_set_num(t, row, "waits", (double)v[i].count);
        table_set_num(t, row, "total_ms", (double)v[i].total_ns / 1e6);
        table_set_num(t, row, "max_ms", (double)v[i].max_ns / 1e6);
    }
    rest_note(t, n, dropped, "run-queue time");
}

/* One thread's blocked time by class. */
struct off_sum {
    uint32_t tid;
    uint64_t total, futex, cls[WC_COUNT];
};

static int off_by_tid(const void *a, const void *b)
{
    const struct thread_off *x = a, *y = b;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int sum_by_total(const void *a, const void *b)
{
    const struct off_sum *x = a, *y = b;
    return biggest_first(x->total, x->tid, y->total, y->tid);
}

void threads_fill_offcpu(struct report *r, struct thread_off *v, size_t n, double window_s,
                         uint64_t dropped)
{
    struct table *t = report_table(r, NM_THREADS_OFFCPU, "Off-CPU time per thread by wait class",
                                   "threads");
    table_add_col(t, "tid", "TID", "", 0);
    table_add_col(t, "total_ms", "Blocked", "ms", 0);
    table_add_col(t, "window_pct", "Share of window", "%", 0);
    table_add_col(t, "futex_ms", "In futex calls", "ms", 0);
    for (int c = 0; c < WC_COUNT; c++) {
        char name[32];
        snprintf(name, sizeof name, "%s_ms", wait_class_name((enum wait_class)c));
        table_add_col(t, name, wait_class_title((enum wait_class)c), "ms", 0);
    }
    if (n)
        qsort(v, n, sizeof *v, off_by_tid);
    struct off_sum *s = xcalloc(n ? n : 1, sizeof *s);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!m || s[m - 1].tid != v[i].tid)
            s[m++].tid = v[i].tid;
        struct off_sum *o = &s[m - 1];
        o->total += v[i].ns;
        if (v[i].futex)
            o->futex += v[i].ns;
        if ((unsigned)v[i].cls < WC_COUNT)
            o->cls[v[i].cls] += v[i].ns;
    }
    if (m)
        qsort(s, m, sizeof *s, sum_by_total);
    for (size_t i = 0; i < m && i < THREADS_TOP_ROWS; i++) {
        size_t row = table_add_row(t);
        table_set_num(t, row, "tid", s[i].tid);
        table_set_num(t, row, "total_ms", (double)s[i].total / 1e6);
        if (window_s > 0)
            table_set_num(t, row, "window_pct", (double)s[i].total / 1e9 / window_s * 100.0);
        table_set_num(t, row, "futex_ms", (double)s[i].futex / 1e6);
        for (int c = 0; c < WC_COUNT; c++) {
            char name[32];
            snprintf(name, sizeof name, "%s_ms", wait_class_name((enum wait_class)c));
            table_set_num(t, row, name, (double)s[i].cls[c] / 1e6);
        }
    }
    rest_note(t, m, dropped, "blocked time");
    free(s);
}
