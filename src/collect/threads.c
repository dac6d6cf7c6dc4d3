/* Collector "threads": see threads.h. */
#include "threads.h"
#include "collector.h"
#include "../procfs/procs_parse.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The value of "key:\t<digits>" at the start of a line of text[0..len). */
static int line_u64(const char *text, size_t len, const char *key, uint64_t *v)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i + kl <= len;) {
        const char *line = text + i;
        const char *nl = memchr(line, '\n', len - i);
        size_t ll = nl ? (size_t)(nl - line) : len - i;
        if (ll > kl && memcmp(line, key, kl) == 0 && line[kl] == ':') {
            size_t p = kl + 1;
            while (p < ll && (line[p] == ' ' || line[p] == '\t'))
                p++;
            if (p == ll || line[p] < '0' || line[p] > '9')
                return -ENOENT;
            uint64_t x = 0;
            for (; p < ll && line[p] >= '0' && line[p] <= '9'; p++) {
                if (x > (UINT64_MAX - 9) / 10)
                    return -ENOENT;
                x = x * 10 + (uint64_t)(line[p] - '0');
            }
            if (p < ll && line[p] != '\r' && line[p] != ' ')
                return -ENOENT;
            *v = x;
            return 0;
        }
        i += ll + 1;
    }
    return -ENOENT;
}

int threads_parse_switches(const char *text, size_t len, uint64_t *vol, uint64_t *invol)
{
    if (line_u64(text, len, "voluntary_ctxt_switches", vol) != 0 ||
        line_u64(text, len, "nonvoluntary_ctxt_switches", invol) != 0)
        return -ENOENT;
    return 0;
}

struct treading {
    uint32_t tid;
    uint64_t starttime, utime, stime, vol, invol;
    char state;
    char comm[PROC_COMM_MAX + 1];
};

struct snap {
    struct treading *t; /* sorted by tid */
    size_t n, cap;
    size_t total; /* entries of /proc/PID/task, read or not */
    size_t over;  /* of them, past THREADS_SCAN_CAP: not read */
};

_Static_assert(sizeof(((struct thread_delta *)0)->comm) == PROC_COMM_MAX + 1,
               "a thread's name is copied whole into its delta");

struct threads_state {
    int pid;
    long clk_tck;
    double t_start;
    struct snap start;
    struct strbuf buf;
};

static int by_tid(const void *a, const void *b)
{
    const struct treading *x = a, *y = b;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int parse_tid(const char *s)
{
    long v = 0;
    if (!*s)
        return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        v = v * 10 + (*s - '0');
        if (v > INT_MAX)
            return 0;
    }
    return (int)v;
}

/* Reads the threads of st->pid; -errno when the process cannot be listed. */
static int scan(struct threads_state *st, struct snap *s)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", st->pid);
    DIR *d = hostfs_opendir(path);
    if (!d)
        return -errno;
    s->n = s->total = s->over = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int tid = parse_tid(de->d_name);
        if (tid <= 0)
            continue;
        s->total++;
        if (s->n >= THREADS_SCAN_CAP) {
            s->over++; /* counted, not read: the bound on time and memory */
            continue;
        }
        struct pid_stat ps;
        if (hostfs_readf(&st->buf, 4096, "/proc/%d/task/%d/stat", st->pid, tid) != 0 ||
            proc_parse_stat(st->buf.buf, st->buf.len, &ps) != 0)
            continue; /* exited while we read */
        xgrow(&s->t, &s->cap, s->n + 1, sizeof *s->t);
        struct treading *t = &s->t[s->n];
        memset(t, 0, sizeof *t);
        t->tid = (uint32_t)tid;
        t->starttime = ps.starttime;
        t->utime = ps.utime;
        t->stime = ps.stime;
        t->state = ps.state;
        memcpy(t->comm, ps.comm, sizeof t->comm);
        if (hostfs_readf(&st->buf, 8192, "/proc/%d/task/%d/status", st->pid, tid) != 0 ||
            threads_parse_switches(st->buf.buf, st->buf.len, &t->vol, &t->invol) != 0)
            t->vol = t->invol = 0;
        s->n++;
    }
    closedir(d);
    if (s->n)
        qsort(s->t, s->n, sizeof *s->t, by_tid);
    return 0;
}

static bool th_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    if (!ctx->cfg || ctx->cfg->pid <= 0) {
        snprintf(reason, n, "a thread profile needs one target process (-p PID)");
        return false;
    }
    return true;
}

static int th_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct threads_state *st = xcalloc(1, sizeof *st);
    *state = st;
    st->pid = ctx->cfg->pid;
    st->clk_tck = sysconf(_SC_CLK_TCK);
    if (st->clk_tck <= 0)
        st->clk_tck = 100;
    st->t_start = collect_clock_s(ctx);
    int rc = scan(st, &st->start);
    if (rc)
        snprintf(err, n, "cannot list the threads of pid %d: %s", st->pid, strerror(-rc));
    return rc;
}

static int by_cpu(const void *a, const void *b)
{
    const struct thread_delta *x = a, *y = b;
    double cx = x->user_s + x->sys_s, cy = y->user_s + y->sys_s;
    if (cx != cy)
        return cx < cy ? 1 : -1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void threads_fill(struct report *r, int pid, struct thread_delta *d, size_t n, double dt_s,
                  size_t total, size_t not_read, size_t gone)
{
    report_metric(r, NM_THREADS_PID, "Target process", "", "threads", pid);
    report_metric(r, NM_THREADS_COUNT, "Threads of the target", "", "threads", (double)total);
    struct table *t = report_table(r, NM_THREADS_CPU, "CPU per thread", "threads");
    static const struct col_spec cols[] = {
        {"tid", "TID", "", 0},
        {"comm", "Thread", "", 0},
        {"state", "State", "", 0},
        {"cpu_pct", "CPU", "% of one CPU", 1},
        {"user_pct", "User", "%", 1},
        {"sys_pct", "System", "%", 1},
        {"vol_per_s", "Voluntary switches", "/s", 1},
        {"invol_per_s", "Involuntary switches", "/s", 1},
    };
    table_add_cols(t, cols, ARRAY_LEN(cols));
    if (n)
        qsort(d, n, sizeof *d, by_cpu);
    double rest = 0;
    for (size_t i = 0; i < n; i++) {
        double cpu = (d[i].user_s + d[i].sys_s) / dt_s * 100.0;
        if (i >= THREADS_TOP) {
            rest += cpu;
            continue;
        }
        size_t row = table_add_row(t);
        char state[2] = {d[i].state ? d[i].state : '?', '\0'};
        table_set_num(t, row, "tid", d[i].tid);
        table_set_str(t, row, "comm", d[i].comm);
        table_set_str(t, row, "state", state);
        table_set_num(t, row, "cpu_pct", cpu);
        table_set_num(t, row, "user_pct", d[i].user_s / dt_s * 100.0);
        table_set_num(t, row, "sys_pct", d[i].sys_s / dt_s * 100.0);
        table_set_num(t, row, "vol_per_s", (double)d[i].vol / dt_s);
        table_set_num(t, row, "invol_per_s", (double)d[i].invol / dt_s);
    }
    struct strbuf note = STRBUF_INIT;
    if (n > THREADS_TOP)
        sb_addf(&note, "%zu more threads used %.1f%% of one CPU together. ", n - THREADS_TOP,
                rest);
    if (not_read)
        sb_addf(&note, "%zu threads were not read (at most %d are). ", not_read,
                THREADS_SCAN_CAP);
    if (gone)
        sb_addf(&note, "%zu threads ended during the window (not listed). ", gone);
    if (note.len) {
        while (note.len && note.buf[note.len - 1] == ' ')
            note.buf[--note.len] = '\0';
        table_set_note(t, sb_str(&note));
    }
    sb_free(&note);
}

static uint64_t since(uint64_t end, uint64_t start) { return end > start ? end - start : 0; }

static int th_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    struct threads_state *st = state;
    struct snap end = {0};
    double t_end = collect_clock_s(ctx);
    int rc = scan(st, &end);
    if (rc) {
        snprintf(err, n, "the target (pid %d) ended before the window did: %s", st->pid,
                 strerror(-rc));
        free(end.t);
        return rc;
    }
    double dt = t_end - st->t_start;
    if (!(dt > 0))
        dt = 1e-3;
    struct thread_delta *d = xcalloc(end.n ? end.n : 1, sizeof *d);
    size_t gone = 0;
    for (size_t i = 0; i < st->start.n; i++) {
        struct treading key = {.tid = st->start.t[i].tid};
        const struct treading *e = end.n ? bsearch(&key, end.t, end.n, sizeof *end.t, by_tid) : NULL;
        if (!e || e->starttime != st->start.t[i].starttime)
            gone++;
    }
    for (size_t i = 0; i < end.n; i++) {
        const struct treading *e = &end.t[i];
        struct treading key = {.tid = e->tid};
        const struct treading *s0 =
            st->start.n ? bsearch(&key, st->start.t, st->start.n, sizeof *st->start.t, by_tid) : NULL;
        if (s0 && s0->starttime != e->starttime)
            s0 = NULL; /* a reused tid: a new thread, all of it in the window */
        d[i].tid = e->tid;
        memcpy(d[i].comm, e->comm, sizeof d[i].comm);
        d[i].state = e->state;
        d[i].user_s = (double)since(e->utime, s0 ? s0->utime : 0) / (double)st->clk_tck;
        d[i].sys_s = (double)since(e->stime, s0 ? s0->stime : 0) / (double)st->clk_tck;
        d[i].vol = since(e->vol, s0 ? s0->vol : 0);
        d[i].invol = since(e->invol, s0 ? s0->invol : 0);
    }
    threads_fill(ctx->r, st->pid, d, end.n, dt, end.total, end.over, gone);
    free(d);
    free(end.t);
    return 0;
}

static void th_destroy(void *state)
{
    struct threads_state *st = state;
    if (!st)
        return;
    free(st->start.t);
    sb_free(&st->buf);
    free(st);
}

const struct collector collector_threads = {
    .name = "threads",
    .title = "Threads of the target (/proc/PID/task)",
    .needs_bpf = false,
    .can_run = th_can_run,
    .start = th_start,
    .tick = NULL,
    .stop = th_stop,
    .destroy = th_destroy,
};
