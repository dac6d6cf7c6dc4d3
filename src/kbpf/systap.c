/* The shared syscall tap: see systap.h and bpf/systap.bpf.c. */
#include "systap.h"
#include "../collect/collector.h"
#include "kbpf.h"
#include <linux/types.h>
#include "../../bpf/systap.h"
#include "systap.skel.h"
#include "tapslice.h"
#include "util/clock.h"
#include "util/xalloc.h"
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* One tap per process: the module owns it, the collectors borrow it
 * between acquire and release.  All fields under tap_mu. */
static pthread_mutex_t tap_mu = PTHREAD_MUTEX_INITIALIZER;
static struct systap_bpf *tap_skel;
static unsigned tap_users; /* enum systap_part bits */
static bool tap_classic;
static bool tap_io_attached;
static int tap_io_errno; /* why the I/O programs did not load, 0 if they did or were not tried */
static double tap_cost_ns; /* calibrated when the window opened */
static bool tap_calibrated;

static const char *const io_hooks[] = {"mm_filemap_get_pages", "mm_filemap_add_to_page_cache",
                                       "block_rq_issue"};

static bool io_hooks_present(void)
{
    return kbpf_missing_tp_btf(io_hooks, sizeof io_hooks / sizeof io_hooks[0]) == NULL;
}

enum tap_mode { TAP_BTF_IO, TAP_BTF, TAP_CLASSIC };

/* Attaches (on) or detaches the sys_enter/sys_exit pair: the exit first on
 * the way in and last on the way out, so that every recorded entry meets
 * its exit program.  Returns 0 or -errno (a failed attach leaves the
 * programs detached). */
static int tap_links(struct systap_bpf *s, bool classic, bool on)
{
    struct bpf_program *enter = classic ? s->progs.tap_enter_tp : s->progs.tap_enter_btf;
    struct bpf_program *leave = classic ? s->progs.tap_exit_tp : s->progs.tap_exit_btf;
    struct bpf_link **le = classic ? &s->links.tap_enter_tp : &s->links.tap_enter_btf;
    struct bpf_link **lx = classic ? &s->links.tap_exit_tp : &s->links.tap_exit_btf;
    int rc = 0;
    if (on) {
        if (!*lx && !(*lx = bpf_program__attach(leave)))
            rc = -errno;
        else if (!*le && !(*le = bpf_program__attach(enter)))
            rc = -errno;
        if (rc == 0)
            return 0;
    }
    bpf_link__destroy(*le);
    *le = NULL;
    bpf_link__destroy(*lx);
    *lx = NULL;
    return rc;
}

/* CPU nanoseconds per getppid() of this thread: the least of 8 rounds of
 * 200.  CPU time, not wall time: on a loaded host a burst is preempted, and
 * the time others run is not the tap's; the least, because whatever else
 * happens during a round (an interrupt, a cold cache) only adds.  16 rounds
 * of 500 (until 2026-11-26) made the four bursts 32,000 system calls, 5 %
 * of an idle run's own CPU on the test VM, where a call costs ~1 us. */
#define BURST_ROUNDS 8
#define BURST_CALLS 200
static double burst_ns(void)
{
    double best = INFINITY;
    for (int r = 0; r < BURST_ROUNDS; r++) {
        struct timespec a, b;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
        for (int i = 0; i < BURST_CALLS; i++)
            syscall(SYS_getppid);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
        best = fmin(best, ns / BURST_CALLS);
    }
    return best;
}

/* The tap's cost per syscall of another process, measured when the window
 * opens (systap_begin), after every collector has loaded and attached:
 * bursts of getppid() with the pair attached and detached, and 1.3 times
 * the difference.  Our own calls stop at the self check; a recorded call
 * also counts itself in a cache slot and now and then times itself
 * (bench/RESULTS.md: 57 ns against 44-51 for an empty pair), hence the 1.3.
 * Measured at start (until 2026-11-26) the bursts ran beside the other
 * collectors' loads, whose kernel-text patches slow a burst: two pairs and
 * the larger difference kept a caught "before" burst from making the tap
 * look free, yet the estimates ranged 180-620 ns from run to run; with the
 * loads done one pair answers.  The floor covers a host so loaded that the
 * tap looks free anyway.  0, or -errno when the pair could not be attached
 * again (then it stays detached). */
static int calibrate(struct systap_bpf *skel, bool classic)
{
    double on = burst_ns();
    int rc = tap_links(skel, classic, false);
    if (rc)
        return rc;
    double off = burst_ns();
    rc = tap_links(skel, classic, true);
    tap_cost_ns = fmax(40.0, 1.3 * (on - off));
    return rc;
}

/* Opens, loads and attaches the sys_enter/sys_exit pair; in TAP_BTF_IO the
 * I/O programs are loaded too (attached on demand).  NULL with errno set. */
static struct systap_bpf *tap_open(enum tap_mode mode, uint32_t tgid, uint64_t cgid)
{
    struct systap_bpf *skel = systap_bpf__open();
    if (!skel)
        return NULL;
    bool classic = mode == TAP_CLASSIC, io = mode == TAP_BTF_IO;
    skel->rodata->targ_tgid = tgid;
    skel->rodata->targ_cgid = cgid;
    skel->rodata->self_tgid = (uint32_t)getpid();
    bpf_program__set_autoload(skel->progs.tap_enter_btf, !classic);
    bpf_program__set_autoload(skel->progs.tap_exit_btf, !classic);
    bpf_program__set_autoload(skel->progs.tap_enter_tp, classic);
    bpf_program__set_autoload(skel->progs.tap_exit_tp, classic);
    bpf_program__set_autoload(skel->progs.io_get_pages, io);
    bpf_program__set_autoload(skel->progs.io_add_page, io);
    bpf_program__set_autoload(skel->progs.io_blk_issue, io);
    /* aggregates gain a key per new (process, syscall), error or waiter */
    kbpf_alloc_on_insert(skel->maps.per_proc);
    kbpf_alloc_on_insert(skel->maps.errs);
    kbpf_alloc_on_insert(skel->maps.comms);
    kbpf_alloc_on_insert(skel->maps.sync_procs);
    kbpf_alloc_on_insert(skel->maps.fwaits);
    kbpf_alloc_on_insert(skel->maps.fstacks);
    if (!classic)
        bpf_map__set_max_entries(skel->maps.calls_tid, 1);
    else /* kernels without tp_btf may lack task storage too */
        bpf_map__set_autocreate(skel->maps.calls, false);
    int rc = systap_bpf__load(skel);
    if (rc == 0 && !skel->bss)
        rc = -EOPNOTSUPP; /* no mmapable maps: the part switches need them */
    if (rc == 0)
        kbpf_warm_alloc(skel->maps.fstacks);
    if (rc == 0)
        rc = tap_links(skel, classic, true);
    if (rc) {
        systap_bpf__destroy(skel);
        errno = rc < 0 ? -rc : EINVAL;
        return NULL;
    }
    return skel;
}

static int attach_io(struct systap_bpf *s)
{
    struct {
        struct bpf_program *p;
        struct bpf_link **l;
    } progs[] = {{s->progs.io_get_pages, &s->links.io_get_pages},
                 {s->progs.io_add_page, &s->links.io_add_page},
                 {s->progs.io_blk_issue, &s->links.io_blk_issue}};
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++) {
        if (*progs[i].l)
            continue;
        *progs[i].l = bpf_program__attach(progs[i].p);
        if (!*progs[i].l)
            return -errno;
    }
    return 0;
}

static void set_part(enum systap_part part, bool on)
{
    if (!tap_skel)
        return;
    switch (part) {
    case SYSTAP_SYSCALLS: tap_skel->bss->sc_on = on; break;
    case SYSTAP_IOLAYERS: tap_skel->bss->io_on = on; break;
    case SYSTAP_FUTEX: tap_skel->bss->futex_on = on; break;
    }
}

struct systap_bpf *systap_acquire(const struct collect_ctx *ctx, enum systap_part part,
                                  bool *classic, char *err, size_t n)
{
    uint32_t tgid;
    uint64_t cgid;
    if (kbpf_target(ctx, &tgid, &cgid, err, n) != 0)
        return NULL;
    pthread_mutex_lock(&tap_mu);
    struct systap_bpf *out = NULL;
    if (!tap_skel) {
        tap_classic = false;
        tap_calibrated = false;
        tap_io_attached = false;
        tap_io_errno = 0;
        int btf_errno = 0;
        bool try_btf = !kbpf_force_classic();
        if (try_btf && io_hooks_present()) {
            tap_skel = tap_open(TAP_BTF_IO, tgid, cgid);
            if (!tap_skel)
                tap_io_errno = errno; /* the pair without them may still load */
        }
        if (try_btf && !tap_skel) {
            tap_skel = tap_open(TAP_BTF, tgid, cgid);
            btf_errno = tap_skel ? 0 : errno;
        }
        if (!tap_skel) {
            tap_classic = true;
            tap_skel = tap_open(TAP_CLASSIC, tgid, cgid);
        }
        if (!tap_skel) {
            char m1[96], m2[96];
            libbpf_strerror(errno ? errno : EINVAL, m2, sizeof m2);
            if (btf_errno) {
                libbpf_strerror(btf_errno, m1, sizeof m1);
                snprintf(err, n, "loading/attaching the sys_enter/sys_exit programs failed: "
                         "tp_btf: %s; raw_syscalls: %s", m1, m2);
            } else {
                snprintf(err, n, "loading/attaching the sys_enter/sys_exit programs failed: %s",
                         m2);
            }
            goto out;
        }
    }
    if (part == SYSTAP_IOLAYERS && !tap_io_attached) {
        if (tap_classic || !bpf_program__autoload(tap_skel->progs.io_get_pages)) {
            if (tap_io_errno) {
                char msg[96];
                libbpf_strerror(tap_io_errno, msg, sizeof msg);
                snprintf(err, n, "the filemap/block programs did not load: %s", msg);
            } else {
                snprintf(err, n, "needs tp_btf sys_enter and the filemap/block tp_btf hooks");
            }
            goto out_unused;
        }
        int rc = attach_io(tap_skel);
        if (rc) {
            char msg[128];
            libbpf_strerror(-rc, msg, sizeof msg);
            snprintf(err, n, "attaching the filemap/block programs failed: %s", msg);
            goto out_unused;
        }
        tap_io_attached = true;
    }
    tap_users |= part;
    *classic = tap_classic;
    out = tap_skel;
    goto out;
out_unused:
    if (!tap_users) {
        systap_bpf__destroy(tap_skel);
        tap_skel = NULL;
    }
out:
    pthread_mutex_unlock(&tap_mu);
    return out;
}

static void set_acquired_parts(bool on)
{
    pthread_mutex_lock(&tap_mu);
    for (unsigned part = SYSTAP_SYSCALLS; part <= SYSTAP_FUTEX; part <<= 1)
        if (tap_users & part)
            set_part((enum systap_part)part, on);
    pthread_mutex_unlock(&tap_mu);
}

/* ---- time slicing ------------------------------------------------------------
 *
 * Every syscall of the host pays for the pair while it is attached, most of
 * it in the kernel's dispatch (see bpf/systap.bpf.c), so past a rate the
 * only bound is to be attached part of the time.  The slicer thread
 * measures the busiest CPU's syscall rate while attached; when rate x cost
 * exceeds TAPSLICE_BUDGET of a CPU it records in periods of
 * TAPSLICE_PERIOD_S, attached for a duty that keeps the share within the
 * budget, at a random offset in each period, and the counts are scaled by
 * the estimate of src/collect/tapslice.c.  Detached, a syscall pays
 * nothing; programs left attached but returning at once would still pay
 * the dispatch (~2/3 of the cost).  All fields under sl_mu, except those
 * the thread alone uses while it runs. */
static pthread_mutex_t sl_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sl_cv;
static bool sl_running, sl_stop, sl_have_result;
static pthread_t sl_thread;
static struct tapslice_result sl_result;
static int sl_attach_errno;
/* Read by the thread only while it runs (set before it starts). */
static struct systap_bpf *sl_skel;
static bool sl_classic;
static double sl_forced; /* PERFREPORT_SYSTAP_DUTY, 0 = decide */
static struct tap_calls *sl_vals; /* ncpu values of tap_calls */
static uint64_t *sl_prev_all;
static uint64_t sl_prev_wanted;
static int sl_ncpu;
static double sl_t0;
static int sl_init_err; /* the calibration left the pair detached: -errno */

static double now_s(void) { return (double)mono_ns() / 1e9; }

/* Attaches the pair for a sliced period of `duty` (see slice_gen in
 * bpf/systap.bpf.c), or for good (duty 1), or detaches it (duty 0). */
static int sl_link(double duty)
{
    struct systap_bpf__bss *b = sl_skel->bss;
    if (duty <= 0) {
        __atomic_store_n(&b->slice_open, false, __ATOMIC_SEQ_CST);
        b->tap_down = true;
        return tap_links(sl_skel, sl_classic, false);
    }
    if (duty < 1) { /* the caller opens the slice once attached */
        __atomic_store_n(&b->slice_open, false, __ATOMIC_SEQ_CST);
        b->slice_mult = (uint32_t)lround(256.0 / duty);
        b->slice_gen = (uint8_t)(b->slice_gen == 255 ? 1 : b->slice_gen + 1);
    } else {
        __atomic_store_n(&b->slice_open, true, __ATOMIC_SEQ_CST);
    }
    int rc = tap_links(sl_skel, sl_classic, true);
    b->tap_down = rc != 0;
    return rc;
}

/* Waits until `until` (CLOCK_MONOTONIC seconds); true when told to stop. */
static bool sl_wait(double until)
{
    struct timespec ts = {.tv_sec = (time_t)until,
                          .tv_nsec = (long)((until - floor(until)) * 1e9)};
    pthread_mutex_lock(&sl_mu);
    while (!sl_stop && pthread_cond_timedwait(&sl_cv, &sl_mu, &ts) != ETIMEDOUT)
        ;
    bool stop = sl_stop;
    pthread_mutex_unlock(&sl_mu);
    return stop;
}

/* Reads the per-CPU call counters: *wanted = recorded calls since the
 * last read; returns the tap's share of the busiest CPU's time over `secs`
 * attached (its calls of other processes x cost per call). */
static double sl_read(double secs, uint64_t *wanted)
{
    uint32_t zero = 0;
    *wanted = 0;
    if (bpf_map__lookup_elem(sl_skel->maps.tap_calls, &zero, sizeof zero, sl_vals,
                             (size_t)sl_ncpu * sizeof *sl_vals, 0) != 0)
        return 0;
    uint64_t w = 0, most = 0;
    for (int c = 0; c < sl_ncpu; c++) {
        w += sl_vals[c].wanted;
        uint64_t d = sl_vals[c].all - sl_prev_all[c];
        sl_prev_all[c] = sl_vals[c].all;
        most = d > most ? d : most;
    }
    *wanted = w - sl_prev_wanted;
    sl_prev_wanted = w;
    return secs > 0 ? (double)most / secs * tap_cost_ns * 1e-9 : 0;
}

static void *sl_main(void *arg)
{
    (void)arg;
    struct tapslice ts;
    tapslice_init(&ts);
    uint64_t rng = mono_ns() | 1;
    double duty = sl_forced > 0 ? sl_forced : 1, peak = 0, p = sl_t0;
    bool stop = false;
    int err = 0;
    if (sl_init_err && duty >= 1 && sl_link(1) != 0) {
        /* detached by a failed calibration and still refused: nothing is
         * recorded, and the result says why */
        err = sl_init_err;
        stop = sl_wait(now_s() + 1e6); /* until the window ends */
        tapslice_period(&ts, now_s() - p, 0, 0, 0);
    } else if (duty < 1) {
        sl_link(0);
    }
    while (!stop) {
        uint64_t w;
        double share;
        if (duty >= 1) { /* attached throughout: measure the rate */
            stop = sl_wait(p + TAPSLICE_CHECK_S);
            double e = now_s(), next = 1;
            share = sl_read(e - p, &w);
            peak = fmax(peak, share);
            if (!stop && sl_forced == 0)
                next = tapslice_duty(share, 1);
            if (next < 1) {
                sl_link(0);
                uint64_t late;
                sl_read(0, &late); /* until the detach took effect */
                w += late;
            }
            tapslice_period(&ts, e - p, e - p, w, 0);
            p = e;
            duty = next;
            continue;
        }
        /* Sliced: detached, attached `duty` of the period at a random
         * offset, detached. */
        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        double on_len = duty * TAPSLICE_PERIOD_S;
        double before = (double)(rng >> 11) / 9007199254740992.0 * (TAPSLICE_PERIOD_S - on_len);
        double t_on = 0, t_off = 0;
        stop = sl_wait(p + before);
        if (!stop) {
            err = sl_link(duty);
            if (err) {
                tapslice_period(&ts, now_s() - p, 0, 0, 0);
                break;
            }
            /* the recorded span is the open gate's (see slice_open) */
            __atomic_store_n(&sl_skel->bss->slice_open, true, __ATOMIC_SEQ_CST);
            t_on = now_s();
            stop = sl_wait(t_on + on_len);
            __atomic_store_n(&sl_skel->bss->slice_open, false, __ATOMIC_SEQ_CST);
            t_off = now_s();
            sl_link(0);
        }
        share = sl_read(t_off - t_on, &w);
        double next = duty;
        if (t_off > t_on) {
            peak = fmax(peak, share);
            if (sl_forced == 0)
                next = tapslice_duty(share, duty);
        }
        if (!stop)
            stop = sl_wait(p + TAPSLICE_PERIOD_S);
        if (!stop && next >= 1)
            err = sl_link(1);
        double e = now_s();
        /* the busiest CPU's share bounds how much the tap slowed a process
         * that does little but syscalls (see tapslice_period) */
        tapslice_period(&ts, e - p, t_off - t_on, w, share);
        p = e;
        duty = next;
        if (err)
            break;
    }
    double window = p - sl_t0;
    if (err) { /* detached for the rest of the window: extrapolated */
        while (!sl_wait(now_s() + 1))
            ;
        window = now_s() - sl_t0;
    }
    struct tapslice_result res;
    /* otherwise the window as the periods saw it: a late wake-up of this
     * thread after the last one is not time the tap missed */
    tapslice_result(&ts, window, &res);
    res.period_s = TAPSLICE_PERIOD_S;
    res.cost_ns = tap_cost_ns;
    res.peak_share = peak;
    res.forced = sl_forced > 0;
    pthread_mutex_lock(&sl_mu);
    sl_result = res;
    sl_attach_errno = -err;
    sl_have_result = true;
    pthread_mutex_unlock(&sl_mu);
    return NULL;
}

/* PERFREPORT_SYSTAP_DUTY=D (0 < D <= 1): a fixed duty from the window's
 * start, without measuring (tests; 1 keeps the pair attached).  0 when
 * unset or not a number in that range. */
static double forced_duty(void)
{
    const char *v = getenv("PERFREPORT_SYSTAP_DUTY");
    if (!v || !*v)
        return 0;
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    return errno || *end || !(d > 0 && d <= 1) ? 0 : d;
}

/* Under tap_mu, with tap_skel loaded: takes the baseline reading and starts
 * the thread.  Without a thread the pair stays attached (exact counts). */
static void sl_start(void)
{
    pthread_mutex_lock(&sl_mu);
    bool running = sl_running;
    pthread_mutex_unlock(&sl_mu);
    if (running)
        return;
    sl_skel = tap_skel;
    sl_classic = tap_classic;
    sl_forced = forced_duty();
    sl_ncpu = kbpf_ncpus();
    free(sl_vals);
    free(sl_prev_all);
    sl_vals = xcalloc((size_t)sl_ncpu, sizeof *sl_vals);
    sl_prev_all = xcalloc((size_t)sl_ncpu, sizeof *sl_prev_all);
    sl_prev_wanted = 0;
    uint64_t w;
    sl_read(0, &w);
    sl_t0 = now_s();
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&sl_cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_lock(&sl_mu);
    sl_stop = false;
    sl_have_result = false;
    sl_attach_errno = 0;
    sl_running = pthread_create(&sl_thread, NULL, sl_main, NULL) == 0;
    if (!sl_running)
        pthread_cond_destroy(&sl_cv);
    pthread_mutex_unlock(&sl_mu);
}

/* Stops and joins the thread, if one runs; not under tap_mu (the thread
 * does not take it, but a join under a lock is a trap for later edits). */
static void sl_end(void)
{
    /* every tap user's end calls this, on its own thread: one joins, the
     * others wait for it here */
    static pthread_mutex_t join_mu = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&join_mu);
    pthread_mutex_lock(&sl_mu);
    bool running = sl_running;
    sl_stop = true;
    pthread_cond_broadcast(&sl_cv);
    pthread_mutex_unlock(&sl_mu);
    if (!running) {
        pthread_mutex_unlock(&join_mu);
        return;
    }
    pthread_join(sl_thread, NULL);
    pthread_mutex_lock(&sl_mu);
    sl_running = false;
    pthread_cond_destroy(&sl_cv);
    pthread_mutex_unlock(&sl_mu);
    free(sl_vals);
    free(sl_prev_all);
    sl_vals = NULL;
    sl_prev_all = NULL;
    pthread_mutex_unlock(&join_mu);
}

bool systap_sampling(struct tapslice_result *out, int *attach_errno)
{
    pthread_mutex_lock(&sl_mu);
    bool have = sl_have_result;
    if (have) {
        *out = sl_result;
        *attach_errno = sl_attach_errno;
    }
    pthread_mutex_unlock(&sl_mu);
    return have;
}

int systap_begin(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    (void)state;
    pthread_mutex_lock(&tap_mu);
    int calib_err = 0;
    if (tap_skel && tap_users && !tap_calibrated) {
        tap_calibrated = true;
        calib_err = calibrate(tap_skel, tap_classic);
        if (calib_err)
            tap_skel->bss->tap_down = true;
    }
    sl_init_err = calib_err; /* read by the slicer thread, started below */
    if (tap_skel && tap_users)
        sl_start();
    for (unsigned part = SYSTAP_SYSCALLS; part <= SYSTAP_FUTEX; part <<= 1)
        if (tap_users & part)
            set_part((enum systap_part)part, true);
    pthread_mutex_unlock(&tap_mu);
    return 0;
}

int systap_end(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    (void)state;
    set_acquired_parts(false);
    sl_end();
    return 0;
}

void systap_release(enum systap_part part)
{
    sl_end(); /* a user that stops without an end (a failed run) */
    pthread_mutex_lock(&tap_mu);
    if (tap_users & part) {
        set_part(part, false);
        tap_users &= ~(unsigned)part;
        if (!tap_users) {
            systap_bpf__destroy(tap_skel);
            tap_skel = NULL;
        }
    }
    pthread_mutex_unlock(&tap_mu);
}
