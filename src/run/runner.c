#include "runner.h"
#include "../util/test_pause.h"
#include "../collect/collector.h"
#include "../kbpf/kbpf.h"
#include "../kbpf/kbtf.h"
#include "../collect/procs/procs.h"
#include "../kbpf/selfcost.h"
#include "../stacks/stacks.h"
#include "../model/model.h"
#include "../model/names.h"
#include "options.h"
#include "probe.h"
#include "priority.h"
#include "../util/clock.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* Deadlines per call.  Generous: they exist to survive a hang, not to
 * police slow hosts (a tick scanning 20,000 threads may take a while). */
#define START_DEADLINE_S 15.0
#define TICK_DEADLINE_MIN_S 5.0
#define STOP_DEADLINE_S 30.0
#define FLIP_DEADLINE_S 5.0 /* begin and end only flip switches */
/* A call past its deadline that is still runnable is starved, not hung
 * (see wait_while_starved); it may run this long in all. */
#define STARVED_MAX_S 60.0

enum phase { PH_NONE = 0, PH_START, PH_BEGIN, PH_TICK, PH_END, PH_STOP, PH_QUIT };

static const char *phase_name(enum phase p)
{
    return p == PH_START   ? "start"
           : p == PH_BEGIN ? "begin"
           : p == PH_TICK  ? "tick"
           : p == PH_END   ? "end"
           : p == PH_STOP  ? "stop"
                           : "?";
}

struct worker {
    const struct collector *c;
    struct runner *rn;
    pthread_t th;
    bool thread_ok;
    atomic_int tid;  /* the worker thread's id, 0 until it runs */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    enum phase cmd;  /* posted by main, cleared by the worker when done */
    bool busy;
    int rc;
    char err[512];
    struct collect_ctx ctx; /* ctx.r is the staging report */
    struct report *staging; /* owned, unless abandoned */
    void *state;            /* collector state, owned by the collector */
    bool active;            /* started and not finished/abandoned */
    bool abandoned;         /* missed a deadline: never touched again */
    double spent_ms;
    enum phase fault_phase; /* injected fault, PH_NONE for none */
    bool fault_hang;
    int nice;               /* this thread's nice value, as last set */
    bool io_window;         /* this thread's I/O priority is the window's */
};

struct runner {
    struct report *r;
    struct collect_config cfg; /* what the collectors are told; strings borrowed */
    const struct host_caps *caps;
    struct worker *w;
    size_t n;
    double interval_s;
    struct worker *only; /* when set, run_phase drives this worker alone */
    struct worker *also; /* ... or with this one */
    bool skip_alone;     /* run_phase leaves out tick_alone collectors */
    atomic_int want_nice; /* workers adopt it before their next phase */
    atomic_bool want_io_window; /* the same for the window's I/O priority */
    bool ended;           /* the END phase ran (runner_end) */
    double boost_at_ms;   /* monotonic ms: a tick still running then is raised */
    int boost_nice;       /* ... to this nice */
};

/* PERFREPORT_FAULT=NAME:PHASE:ACTION[,NAME:PHASE:ACTION...] (tests, bench). */
static void parse_fault(struct worker *w)
{
    const char *f = getenv("PERFREPORT_FAULT");
    size_t nl = strlen(w->c->name);
    for (; f && *f; f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL) {
        if (strncmp(f, w->c->name, nl) != 0 || f[nl] != ':')
            continue;
        const char *ph = f + nl + 1;
        enum phase p = !strncmp(ph, "start:", 6)   ? PH_START
                       : !strncmp(ph, "begin:", 6) ? PH_BEGIN
                       : !strncmp(ph, "tick:", 5) ? PH_TICK
                       : !strncmp(ph, "end:", 4)  ? PH_END
                       : !strncmp(ph, "stop:", 5) ? PH_STOP
                                                   : PH_NONE;
        const char *act = strchr(ph, ':');
        if (p == PH_NONE || !act)
            continue;
        w->fault_phase = p;
        w->fault_hang = strncmp(act + 1, "hang", 4) == 0 && (act[5] == '\0' || act[5] == ',');
        return;
    }
}

/* Whether c has a callback for phase p (start and stop are required). */
static bool implements(const struct collector *c, enum phase p)
{
    switch (p) {
    case PH_BEGIN: return c->begin != NULL;
    case PH_TICK: return c->tick != NULL;
    case PH_END: return c->end != NULL;
    default: return true;
    }
}

static int call(struct worker *w, enum phase p)
{
    if (w->fault_phase == p) {
        if (w->fault_hang)
            for (;;)
                pause();
        snprintf(w->err, sizeof w->err, "injected failure (PERFREPORT_FAULT)");
        return -EIO;
    }
    switch (p) {
    case PH_START: return w->c->start(&w->ctx, &w->state, w->err, sizeof w->err);
    case PH_BEGIN: return w->c->begin(&w->ctx, w->state);
    case PH_TICK: return w->c->tick(&w->ctx, w->state);
    case PH_END: return w->c->end(&w->ctx, w->state);
    case PH_STOP: return w->c->stop(&w->ctx, w->state, w->err, sizeof w->err);
    default: return 0;
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    atomic_store(&w->tid, (int)gettid());
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->cmd == PH_NONE)
            pthread_cond_wait(&w->cv, &w->mu);
        enum phase p = w->cmd;
        if (p == PH_QUIT)
            break;
        pthread_mutex_unlock(&w->mu);
        /* nice is per thread on Linux: each worker sets its own */
        int want = atomic_load(&w->rn->want_nice);
        if (want != w->nice && setpriority(PRIO_PROCESS, 0, want) == 0)
            w->nice = want; /* a refused change (no CAP_SYS_NICE) keeps the old one */
        bool io_window = atomic_load(&w->rn->want_io_window);
        if (io_window != w->io_window) {
            if (io_window)
                prio_io_window();
            else
                prio_io_stage();
            w->io_window = io_window;
        }
        w->err[0] = '\0';
        double t0 = mono_ms();
        int rc = call(w, p);
        double spent = mono_ms() - t0;
        pthread_mutex_lock(&w->mu);
        w->rc = rc;
        w->spent_ms += spent;
        w->cmd = PH_NONE;
        w->busy = false;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

struct runner *runner_new(struct report *r, const struct options *opt,
                          const struct host_caps *caps)
{
    return runner_new_with(r, opt, caps, collector_registry);
}

struct runner *runner_new_with(struct report *r, const struct options *opt,
                               const struct host_caps *caps,
                               const struct collector *const *registry)
{
    struct runner *rn = xcalloc(1, sizeof *rn);
    errno = 0;
    int nice_now = getpriority(PRIO_PROCESS, 0);
    if (errno)
        nice_now = 0;
    atomic_init(&rn->want_nice, nice_now);
    atomic_init(&rn->want_io_window, false);
    rn->r = r;
    rn->cfg = (struct collect_config){
        .pid = opt->pid,
        .cgroup = opt->cgroup,
        .target = opt->pid > 0 || opt->cgroup ? r->window.target : NULL,
        .hz = opt->hz,
        .window_s = opt->duration_s,
        .interval_s = opt->interval_s,
        .min_block_us = opt->min_block_us,
        .keep_secrets = opt->no_redact,
        .follow_children = opt->command != NULL,
    };
    rn->caps = caps;
    rn->interval_s = opt->interval_s;
    while (registry[rn->n])
        rn->n++;
    rn->w = xcalloc(rn->n, sizeof *rn->w);

    struct collect_ctx plan_ctx = {.r = r, .cfg = &rn->cfg, .caps = caps};
    for (size_t i = 0; i < rn->n; i++) {
        struct worker *w = &rn->w[i];
        const struct collector *c = registry[i];
        w->c = c;
        w->rn = rn;
        w->nice = nice_now;
        char reason[512] = "";
        struct ledger_entry *led = report_ledger(r, c->name, c->title);
        if (c->needs_bpf && opt->no_bpf)
            ledger_set(led, CS_SKIPPED, "BPF disabled by --no-bpf");
        else if (c->needs_bpf && !caps->bpf_ok)
            ledger_set(led, CS_SKIPPED, caps->bpf_reason);
        else if (c->can_run && !c->can_run(&plan_ctx, reason, sizeof reason))
            ledger_set(led, CS_SKIPPED, reason[0] ? reason : "not available on this host");
        else
            w->active = true;
        if (!w->active)
            continue;
        parse_fault(w);
        w->staging = report_new();
        w->ctx = (struct collect_ctx){.r = w->staging, .cfg = &rn->cfg, .caps = caps};
        pthread_mutex_init(&w->mu, NULL);
        /* Deadlines are monotonic: a clock step must not fire or hide them. */
        pthread_condattr_t ca;
        pthread_condattr_init(&ca);
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&w->cv, &ca);
        pthread_condattr_destroy(&ca);
    }

    kbpf_release_vmlinux_btf(); /* the plan's questions are answered */
    /* Workers never take the stop signals: Ctrl-C must wake the main
     * thread's sleep, whatever a collector is doing. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (size_t i = 0; i < rn->n; i++) {
        struct worker *w = &rn->w[i];
        if (!w->active)
            continue;
        int e = pthread_create(&w->th, NULL, worker_main, w);
        if (e) {
            ledger_set(report_ledger(r, w->c->name, NULL), CS_FAILED, strerror(e));
            w->active = false;
            continue;
        }
        w->thread_ok = true;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rn;
}

static void post(struct worker *w, enum phase p, double now_s)
{
    pthread_mutex_lock(&w->mu);
    w->ctx.now_s = now_s;
    w->cmd = p;
    w->busy = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Waits until the worker is idle or the absolute monotonic deadline passes.
 * Returns false when the deadline passed (the worker is then abandoned). */
static bool wait_done(struct worker *w, const struct timespec *deadline)
{
    bool done = true;
    pthread_mutex_lock(&w->mu);
    while (w->busy) {
        if (pthread_cond_timedwait(&w->cv, &w->mu, deadline) == ETIMEDOUT) {
            done = !w->busy;
            break;
        }
    }
    pthread_mutex_unlock(&w->mu);
    return done;
}

static struct timespec deadline_in(double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double ns = (double)ts.tv_nsec + seconds * 1e9;
    ts.tv_sec += (time_t)(ns / 1e9);
    ts.tv_nsec = (long)(ns - (double)(time_t)(ns / 1e9) * 1e9);
    return ts;
}

/* Whether worker w's thread is runnable (state R): on the CPU or waiting
 * for one.  Our own task's state, so the real /proc, never --root's. */
static bool worker_runnable(const struct worker *w)
{
    int tid = atomic_load(&w->tid);
    char path[64], buf[1024]; /* a stat line up to field 22 */
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    FILE *f = tid > 0 ? fopen(path, "re") : NULL;
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    struct pid_stat ps;
    return proc_parse_stat(buf, n, &ps) == 0 && ps.state == 'R';
}

/* Past its deadline, a call whose thread is runnable is starved, not hung:
 * the window runs niced, and a saturated host (the hosts perfreport is run
 * on) gives a niced thread a few percent of a CPU, so a 100 ms /proc scan
 * can take seconds.  Abandoning it would drop its data exactly there.  It
 * gets another second at a time while it stays runnable, up to
 * STARVED_MAX_S in all; a call blocked in the kernel or on a lock is
 * abandoned at the deadline.  *waited_s: the time given in all. */
static bool wait_while_starved(struct worker *w, double limit_s, double *waited_s)
{
    *waited_s = limit_s;
    while (*waited_s < STARVED_MAX_S && worker_runnable(w)) {
        struct timespec dl = deadline_in(1.0);
        *waited_s += 1.0;
        if (wait_done(w, &dl))
            return true;
    }
    return false;
}

static void abandon(struct runner *rn, struct worker *w, enum phase p, double limit_s)
{
    w->abandoned = true;
    w->active = false;
    char why[160];
    snprintf(why, sizeof why, "its %s did not finish within %.0f s; its data was dropped",
             phase_name(p), limit_s);
    struct ledger_entry *led = report_ledger(rn->r, w->c->name, NULL);
    ledger_set(led, CS_TIMED_OUT, why);
    led->duration_ms = w->spent_ms + limit_s * 1000.0;
    pthread_detach(w->th);
}

static bool takes_part(const struct runner *rn, const struct worker *w, enum phase p)
{
    if (!w->active || !implements(w->c, p))
        return false;
    if (rn->only)
        return rn->only == w || rn->also == w;
    return !(rn->skip_alone && w->c->tick_alone);
}

/* Posts phase p to every active worker, then waits for all of them (they
 * run in parallel) under one deadline. */
static void run_phase(struct runner *rn, enum phase p, double now_s, double limit_s)
{
    for (size_t i = 0; i < rn->n; i++)
        if (takes_part(rn, &rn->w[i], p))
            post(&rn->w[i], p, now_s);
    struct timespec dl = deadline_in(limit_s);
    /* The window's end must not wait for a niced tick starved on a busy
     * host: one still running at the end is raised then. */
    double boost_in_s = (rn->boost_at_ms - mono_ms()) / 1000.0;
    bool boost = p == PH_TICK && rn->boost_at_ms > 0 && boost_in_s < limit_s;
    struct timespec bt = deadline_in(boost_in_s > 0 ? boost_in_s : 0);
    for (size_t i = 0; i < rn->n; i++) {
        struct worker *w = &rn->w[i];
        if (!takes_part(rn, w, p))
            continue;
        if (boost && !wait_done(w, &bt)) {
            runner_set_nice(rn, rn->boost_nice);
            boost = false;
        }
        double waited;
        if (!wait_done(w, &dl) && !wait_while_starved(w, limit_s, &waited)) {
            abandon(rn, w, p, waited);
            continue;
        }
        if (w->rc == 0)
            continue;
        const char *msg = w->err[0] ? w->err : strerror(w->rc < 0 ? -w->rc : w->rc);
        struct ledger_entry *led = report_ledger(rn->r, w->c->name, NULL);
        if (p == PH_TICK || p == PH_BEGIN || p == PH_END) { /* stop still drains */
            ledger_note(led, "%s at %.1f s failed: %s", phase_name(p), now_s, msg);
        } else {
            ledger_set(led, CS_FAILED, msg);
            w->active = false; /* failed start/stop: no more calls but destroy */
            if (w->c->destroy)
                w->c->destroy(w->state);
            w->state = NULL;
        }
    }
}

/* BPF starts run two at a time: when each load parsed the kernel's BTF
 * (about 11 MB while it lasted) all at once multiplied peak RSS past the 64
 * MiB budget, and now that they share one parse (kbtf.h) two still keep both
 * CPUs of a small host busy (and on a saturated one take two threads'
 * shares) without every load's verifier and maps at once.  The slow BPF attaches go first and the
 * /proc baselines last, one at a time, so every baseline is taken within
 * milliseconds of the window's t = 0, which the caller sets afterwards. */
void runner_start(struct runner *rn)
{
    struct worker *pending = NULL;
    for (size_t i = 0; i < rn->n; i++) {
        if (!rn->w[i].active || !rn->w[i].c->needs_bpf)
            continue;
        if (!pending) {
            pending = &rn->w[i];
            continue;
        }
        rn->only = pending;
        rn->also = &rn->w[i];
        run_phase(rn, PH_START, 0, START_DEADLINE_S);
        pending = NULL;
    }
    rn->also = NULL;
    if (pending) {
        rn->only = pending;
        run_phase(rn, PH_START, 0, START_DEADLINE_S);
    }
    /* Tests make events here: the event collectors have attached, the /proc
     * baselines and the window are still to come (a slow start's gap). */
    test_pause("PERFREPORT_TEST_PAUSE_BEFORE_WINDOW");
    for (size_t i = 0; i < rn->n; i++) {
        if (!rn->w[i].active || rn->w[i].c->needs_bpf)
            continue;
        rn->only = &rn->w[i];
        run_phase(rn, PH_START, 0, START_DEADLINE_S);
    }
    rn->only = NULL;
    kbpf_release_vmlinux_btf(); /* only starts and plans ask it */
    kbtf_release();
    struct kbtf_stats bs;
    kbtf_get_stats(&bs);
    if (bs.reads || bs.passed)
        kv_addf(&rn->r->caps, "kernel_btf", "Kernel BTF for the BPF loads",
                "%s %u time(s), %.1f MiB; parsed %u time(s) for %u load(s), %u read it "
                "themselves",
                bs.mapped ? "mapped" : "read", bs.reads, (double)bs.bytes / (1 << 20), bs.parses,
                bs.served, bs.passed);
    if (bs.unfreed)
        kv_addf(&rn->r->caps, "kernel_btf_unfreed", "Kernel BTF memory",
                "%u BTF object(s) not freed: libbpf's btf__free was not found", bs.unfreed);
    /* Kernel-side recording opens together, after every load: the
     * verifier and BTF work of later starts is not the host's latency. */
    run_phase(rn, PH_BEGIN, 0, FLIP_DEADLINE_S);
    /* kallsyms (~40 ms of CPU) loads now, at the stage priority, while the
     * window runs: during the start it slowed the loads on 2 CPUs */
    stacks_sym_prewarm();
}

void runner_tick(struct runner *rn, double now_s)
{
    report_add_tick(rn->r, now_s);
    for (size_t i = 0; i < rn->n; i++)
        if (rn->w[i].active)
            report_add_tick(rn->w[i].staging, now_s);
    double limit = 2 * rn->interval_s > TICK_DEADLINE_MIN_S ? 2 * rn->interval_s
                                                             : TICK_DEADLINE_MIN_S;
    for (size_t i = 0; i < rn->n; i++) {
        if (rn->w[i].active && rn->w[i].c->tick_alone) {
            rn->only = &rn->w[i];
            run_phase(rn, PH_TICK, now_s, limit);
        }
    }
    rn->only = NULL;
    rn->skip_alone = true;
    run_phase(rn, PH_TICK, now_s, limit);
    rn->skip_alone = false;
}

/* Our BPF programs' run time so far (selfcost.h), before any is detached:
 * CPU the traced tasks spent in them, which our rusage does not hold. */
static void record_bpf_cost(struct report *r)
{
    struct bpf_cost c;
    if (selfcost_bpf(&c) != 0 || !c.progs)
        return;
    if (!c.stats_on) {
        kv_addf(&r->caps, "self_bpf_ms", "perfreport's BPF programs' run time",
                "not measured (kernel.bpf_stats_enabled is 0)");
        return;
    }
    double ms = (double)c.run_ns / 1e6;
    kv_addf(&r->caps, "self_bpf_ms", "perfreport's BPF programs' run time",
            "%.1f ms in %u programs (%" PRIu64 " runs)", ms, c.progs, c.runs);
    report_metric(r, NM_SELF_BPF_MS, "perfreport's BPF programs' run time", "ms", "host", ms);
}

void runner_end(struct runner *rn, double now_s)
{
    if (rn->ended)
        return;
    rn->ended = true;
    record_bpf_cost(rn->r);
    /* Every kernel-side recorder stops at the same instant, before any
     * drain: otherwise one collector's drain (CPU, wakeups) would be
     * recorded by another that has not stopped yet. */
    run_phase(rn, PH_END, now_s, FLIP_DEADLINE_S);
}

void runner_stop(struct runner *rn, double now_s)
{
    bool *was_active = xcalloc(rn->n, sizeof *was_active);
    for (size_t i = 0; i < rn->n; i++)
        was_active[i] = rn->w[i].active;
    runner_end(rn, now_s);
    run_phase(rn, PH_STOP, now_s, STOP_DEADLINE_S);
    for (size_t i = 0; i < rn->n; i++) {
        struct worker *w = &rn->w[i];
        if (w->abandoned)
            continue;
        struct ledger_entry *led = report_ledger(rn->r, w->c->name, NULL);
        if (was_active[i] && w->active) {
            ledger_set(led, CS_RAN, NULL);
            if (w->c->destroy)
                w->c->destroy(w->state);
            w->state = NULL;
            w->active = false;
        }
        if (w->staging) {
            /* A failed collector's partial data still helps (e.g. notes). */
            report_merge(rn->r, w->staging);
            led = report_ledger(rn->r, w->c->name, NULL);
        }
        led->duration_ms = w->spent_ms;
    }
    free(was_active);
}

void runner_set_nice(struct runner *rn, int nice)
{
    atomic_store(&rn->want_nice, nice);
    /* Also now, by thread id: a call in progress (a starved tick) takes
     * the new nice at once instead of at its next phase.  Refused without
     * CAP_SYS_NICE when raising; the worker then keeps its own. */
    for (size_t i = 0; i < rn->n; i++) {
        const struct worker *w = &rn->w[i];
        int tid = atomic_load(&w->tid);
        if (w->thread_ok && !w->abandoned && tid > 0)
            (void)setpriority(PRIO_PROCESS, (id_t)tid, nice);
    }
}

void runner_boost_ticks_at(struct runner *rn, double at_mono_ms, int nice)
{
    rn->boost_at_ms = at_mono_ms;
    rn->boost_nice = nice;
}

void runner_set_ioprio_window(struct runner *rn, bool window)
{
    atomic_store(&rn->want_io_window, window);
}

void runner_free(struct runner *rn)
{
    if (!rn)
        return;
    for (size_t i = 0; i < rn->n; i++) {
        struct worker *w = &rn->w[i];
        if (w->abandoned)
            continue; /* its thread may still run: leave it all alone */
        if (w->thread_ok) {
            post(w, PH_QUIT, 0);
            pthread_join(w->th, NULL);
        }
        if (w->staging) {
            pthread_mutex_destroy(&w->mu);
            pthread_cond_destroy(&w->cv);
        }
        if (w->active && w->c->destroy)
            w->c->destroy(w->state);
        report_free(w->staging);
    }
    /* Abandoned workers point into rn->w: keep the array alive (and
     * reachable, so leak checkers do not flag the deliberate leak). */
    static struct runner *abandoned_runners[8];
    static size_t nabandoned;
    bool any_abandoned = false;
    for (size_t i = 0; i < rn->n; i++)
        any_abandoned |= rn->w[i].abandoned;
    if (!any_abandoned) {
        free(rn->w);
        free(rn);
    } else if (nabandoned < sizeof abandoned_runners / sizeof abandoned_runners[0]) {
        abandoned_runners[nabandoned++] = rn;
    }
}
