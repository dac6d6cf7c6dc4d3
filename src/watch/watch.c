#include "watch.h"
#include "gov.h"
#include "../analyze/analyze.h"
#include "psi_trigger.h"
#include "../collect/cpu.h"
#include "../collect/memory.h"
#include "../render/escape.h"
#include "../run/options.h"
#include "../bundle/retain.h"
#include "../run/pipeline.h"
#include "../util/clock.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "../model/model.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TICK_MS 1000.0 /* the polled conditions' rate: 1 Hz */

static volatile sig_atomic_t g_quit; /* the signal that ends the watcher */
/* The stop signals are blocked in the watcher except inside ppoll(), which
 * takes g_wait_mask atomically: one that came between the test of g_quit
 * and the wait would otherwise wait with it, forever with only PSI
 * triggers to wake up on. */
static sigset_t g_wait_mask;

static void on_quit(int sig)
{
    g_quit = sig;
}

static void stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

/* No SA_RESTART: a wait must return on the signal.  SIGINT and SIGHUP
 * ignored when we started (nohup, a background job of a script) stay
 * ignored. */
static void install_signals(void (*handler)(int))
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        if (sigs[i] != SIGTERM && sigaction(sigs[i], NULL, &old) == 0 &&
            old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

/* ---- the 1 Hz readings ------------------------------------------------ */

struct sampler {
    bool cpu, oom;          /* which readings a condition needs */
    struct strbuf text;     /* the file read, reused */
    struct cpu_times cpu_prev;
    uint64_t oom_prev;
    double t_prev;          /* seconds, monotonic */
    double util, oom_kills; /* over (t_prev, t] after sampler_read; NAN unknown */
};

static int read_cpu(struct sampler *s, struct cpu_times *out)
{
    struct proc_stat st;
    if (hostfs_read("/proc/stat", &s->text, 1 << 20) != 0 ||
        parse_proc_stat(sb_str(&s->text), &st) != 0)
        return -1;
    *out = st.total;
    proc_stat_free(&st);
    return 0;
}

static int read_oom(struct sampler *s, uint64_t *out)
{
    struct vmstat vm;
    if (hostfs_read("/proc/vmstat", &s->text, 1 << 20) != 0 ||
        parse_vmstat(sb_str(&s->text), &vm) != 0 || !(vm.have & VM_OOM_KILL))
        return -1;
    *out = vm.oom_kill;
    return 0;
}

/* The first readings, the base of the next.  0, or -1 with err when a
 * condition's file cannot be read at all. */
static int sampler_start(struct sampler *s, double t, char *err, size_t n)
{
    s->t_prev = t;
    if (s->cpu && read_cpu(s, &s->cpu_prev) != 0) {
        snprintf(err, n, "cpu.util_pct: /proc/stat cannot be read or parsed");
        return -1;
    }
    if (s->oom && read_oom(s, &s->oom_prev) != 0) {
        snprintf(err, n, "memory.oom: /proc/vmstat has no oom_kill counter (Linux 4.13 "
                         "and later count OOM kills there)");
        return -1;
    }
    return 0;
}

/* The readings over (t_prev, t]; a file that fails this time gives NAN
 * and keeps the previous base. */
static void sampler_read(struct sampler *s, double t)
{
    s->util = s->oom_kills = NAN;
    struct cpu_times c = {{0}};
    if (s->cpu && read_cpu(s, &c) == 0) {
        struct cpu_split sp;
        cpu_split(&s->cpu_prev, &c, &sp);
        if (sp.valid)
            s->util = sp.util;
        s->cpu_prev = c;
    }
    uint64_t o = 0;
    if (s->oom && read_oom(s, &o) == 0) {
        s->oom_kills = o >= s->oom_prev ? (double)(o - s->oom_prev) : 0;
        s->oom_prev = o;
    }
    s->t_prev = t;
}

/* ---- a capture -------------------------------------------------------- */

struct capture_ctx {
    const char *out_shown;
    const struct watch_ring *ring; /* the minutes before; the watcher's, copied by fork */
    double trigger_mono;           /* seconds */
    const char *headline;          /* "psi.memory.some 34 % at 03:12:07 UTC" */
};

/* In the child, once the bundle is out: --keep, as the default command's. */
static void capture_published(void *ctx, const struct report *r, const struct options *opt,
                              struct bundle_target *target)
{
    (void)ctx;
    struct retain_result kept = {0};
    if (opt->keep)
        bundle_keep_published(r, target, opt->keep, opt->verbose, &kept);
}

/* In the child, after analysis: the ring's samples before the trigger go
 * in front of the window, the trigger is marked, and the headline, made
 * again, says what triggered the capture and what the charts cover (from
 * the model, as a render of the bundle says it: rank_headline). */
static void capture_analysed(void *ctx, struct report *r, double window_t0_ms)
{
    const struct capture_ctx *c = ctx;
    double t0 = window_t0_ms / 1000.0;
    r->window.triggered = true;
    r->window.trigger_s = c->trigger_mono - t0;
    free(r->window.trigger_what);
    r->window.trigger_what = xstrdup(c->headline);
    (void)watch_ring_prepend(c->ring, r, t0, c->trigger_mono - (double)c->ring->cap - 0.5);
    rank_headline(r);
}

/* In the child, at the end of the capture: where the bundle went. */
static void capture_finish(void *ctx, const struct report *r, const struct options *opt,
                           const struct bundle_target *target, const char *where, int status,
                           const char *why)
{
    const struct capture_ctx *c = ctx;
    (void)r, (void)target;
    if (!where)
        term_printf(stderr, "perfreport watch: the capture failed (status %d): %s", status,
                    why && *why ? why : "see above");
    else if (!opt->quiet)
        term_printf(stderr, "perfreport watch: bundle %s%s%s/index.html (status %d)",
                    where[0] == '/' ? "" : c->out_shown, where[0] == '/' ? "" : "/", where,
                    status);
}

/* Runs the capture for `reason` in a child with the bundles' directory as
 * its current directory, and waits for it; a stop signal meanwhile is
 * passed on once (the capture then publishes what it has).  The child's
 * exit status, or -1 when it could not run or was killed. */
static int capture(const struct watch_config *cfg, const char *reason, const char *headline,
                   double trigger_mono, const struct watch_ring *ring, const struct pollfd *pfd,
                   size_t npfd)
{
    (void)fflush(stdout);
    (void)fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        term_printf(stderr, "perfreport watch: cannot start a capture: fork: %s",
                    strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* The triggers are the watcher's: the child must not hold them. */
        for (size_t i = 0; i < npfd; i++)
            close(pfd[i].fd);
        /* Until the capture installs its own handlers, a stop signal ends
         * the child (nothing is captured yet); after, it ends the window. */
        install_signals(SIG_DFL);
        if (g_quit)
            _exit(3);
        sigprocmask(SIG_SETMASK, &g_wait_mask, NULL);
        if (fchdir(cfg->out_fd) != 0) {
            term_printf(stderr, "perfreport watch: %s: %s", cfg->out_shown, strerror(errno));
            _exit(3);
        }
        close(cfg->out_fd); /* the current directory holds it now */
        struct options o = *cfg->run;
        o.outdir = NULL; /* the default name, in the bundles' directory */
        o.trigger = reason;
        struct capture_ctx cc = {cfg->out_shown, ring, trigger_mono, headline};
        const struct delivery d = {&cc, NULL, capture_published, capture_finish,
                                   capture_analysed};
        int st = pipeline_run(&o, &d);
        (void)fflush(NULL);
        _exit(st); /* not exit(): the watcher's atexit handlers are not the child's */
    }
    /* Waits on a pidfd in ppoll() for the same reason as the loop does;
     * before Linux 5.3 on waitpid() with the signals let through, where a
     * stop signal just before it waits for the capture's end. */
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    int ws;
    bool passed_on = false;
    for (;;) {
        if (g_quit && !passed_on) {
            (void)kill(pid, SIGTERM);
            passed_on = true;
        }
        if (pidfd >= 0) {
            struct pollfd p = {.fd = pidfd, .events = POLLIN};
            if (ppoll(&p, 1, NULL, &g_wait_mask) < 0 && errno == EINTR)
                continue;
        }
        sigset_t blocked;
        if (pidfd < 0)
            sigprocmask(SIG_SETMASK, &g_wait_mask, &blocked);
        pid_t got = waitpid(pid, &ws, 0);
        int e = errno;
        if (pidfd < 0)
            sigprocmask(SIG_SETMASK, &blocked, NULL);
        if (got == pid)
            break;
        if (e == EINTR)
            continue;
        term_printf(stderr, "perfreport watch: waiting for capture %d: %s", (int)pid,
                    strerror(e));
        if (pidfd >= 0)
            close(pidfd);
        return -1;
    }
    if (pidfd >= 0)
        close(pidfd);
    if (WIFEXITED(ws))
        return WEXITSTATUS(ws);
    term_printf(stderr, "perfreport watch: capture %d killed by signal %d", (int)pid,
                WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
    return -1;
}

/* ---- the loop --------------------------------------------------------- */

struct watcher {
    const struct watch_config *cfg;
    struct pollfd pfd[WATCH_MAX_CONDS];
    size_t pcond[WATCH_MAX_CONDS]; /* pfd[i] is the trigger of conds[pcond[i]] */
    size_t npfd;
    struct watch_cond_state st[WATCH_MAX_CONDS];
    /* A polled condition whose excursion fired and was held back by the
     * cooldown: it fires again in the same excursion if it grows past the
     * high-water mark (gov.h), not each second it lasts. */
    bool held[WATCH_MAX_CONDS];
    struct sampler smp;
    struct watch_ring ring;          /* the minutes before (--before) */
    struct watch_sampler *charted;   /* fills it; NULL without --before */
    double charted_since;            /* seconds, monotonic: its last (re)start */
    struct watch_gov gov;
    unsigned long captures, suppressed;
};

/* The condition's name alone: "psi.memory.some" of "psi.memory.some>25". */
static void cond_name(char *out, size_t n, const struct watch_cond *c)
{
    snprintf(out, n, "%.*s", (int)strcspn(c->text, "> "), c->text);
}

/* The headline's words: "psi.memory.some 34 % at 03:12:07 UTC", the time
 * in UTC as the charts' axes are. */
static void make_headline(char *out, size_t n, const struct watch_cond *c, double value)
{
    char when[16] = "", name[96];
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%H:%M:%S", &tm);
    cond_name(name, sizeof name, c);
    if (isnan(value))
        snprintf(out, n, "%s at %s UTC", name, when);
    else if (c->src == WSRC_OOM)
        snprintf(out, n, "%s (%.0f OOM kill%s) at %s UTC", name, value, value == 1 ? "" : "s",
                 when);
    else
        snprintf(out, n, "%s %.0f %% at %s UTC", name, value, when);
}

/* "cpu.util_pct>90 for 10s: 97.2 % at 2026-11-27 12:03:04 +0000" */
static void make_reason(char *out, size_t n, const struct watch_cond *c, double value)
{
    char when[40] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %z", &tm);
    switch (c->src) {
    case WSRC_CPU_UTIL:
        snprintf(out, n, "%s: %.1f %% at %s", c->text, value, when);
        break;
    case WSRC_PSI:
        if (isnan(value))
            snprintf(out, n, "%s at %s", c->text, when);
        else
            snprintf(out, n, "%s: avg10 %.1f %% at %s", c->text, value, when);
        break;
    case WSRC_OOM:
        snprintf(out, n, "%s: %.0f OOM kill%s at %s", c->text, value, value == 1 ? "" : "s",
                 when);
        break;
    }
}

/* The PSI events pending on our triggers, dropped: after a capture they
 * are the capture's own start-up or the incident just captured. */
static void drain_triggers(struct watcher *w)
{
    if (w->npfd && poll(w->pfd, w->npfd, 0) > 0)
        for (size_t i = 0; i < w->npfd; i++)
            w->pfd[i].revents = 0;
}

/* The charted collectors started afresh (watch_sampler_refresh: what they
 * keep of devices gone goes); a sample now, the base of the rates after. */
static void refresh_charted(struct watcher *w)
{
    char err[256];
    if (!w->charted)
        return;
    if (watch_sampler_refresh(w->charted, err, sizeof err) != 0)
        term_printf(stderr, "perfreport watch: --before: %s", err);
    w->charted_since = mono_ms() / 1000.0;
    watch_sampler_tick(w->charted, &w->ring);
}

/* Condition ci fired with `value`: a capture, or a line saying why not.
 * Whether a capture ran (the readings taken before it are then stale). */
static bool fire(struct watcher *w, size_t ci, double value)
{
    const struct watch_config *cfg = w->cfg;
    double now_s = mono_ms() / 1000.0, until;
    char reason[256], headline[160];
    make_reason(reason, sizeof reason, &cfg->conds[ci], value);
    make_headline(headline, sizeof headline, &cfg->conds[ci], value);
    bool cooling = watch_gov_decide(&w->gov, now_s, NULL) == WATCH_COOLDOWN;
    enum watch_verdict v = watch_gov_decide_kind(&w->gov, now_s, ci, value, &until);
    if (v != WATCH_CAPTURE) {
        w->suppressed++;
        w->held[ci] = v == WATCH_COOLDOWN;
        if (!cfg->run->quiet)
            term_printf(stderr, "perfreport watch: %s: not captured (%s, %.0f s left)", reason,
                        watch_verdict_name(v), until - now_s);
        return false;
    }
    if (!cfg->run->quiet)
        term_printf(stderr, "perfreport watch: %s: capturing %.0f s into %s%s", reason,
                    cfg->run->duration_s, cfg->out_shown,
                    cooling ? " (within the cooldown: worse than the last capture of it)" : "");
    watch_gov_started_kind(&w->gov, now_s, ci, value);
    w->captures++;
    /* A capture that fails says why itself (status 3); one that could not
     * run or was killed cannot. */
    if (capture(cfg, reason, headline, now_s, &w->ring, w->pfd, w->npfd) < 0)
        term_printf(stderr, "perfreport watch: the capture for %s did not complete",
                    cfg->conds[ci].text);
    double end = mono_ms();
    watch_gov_ended(&w->gov, end / 1000.0);
    /* What happened during the capture is the capture's: the polled
     * conditions start again from now. */
    drain_triggers(w);
    /* The ring's samples are from before this capture, not the next one's;
     * a sample now is the base of the rates after it. */
    refresh_charted(w);
    watch_ring_clear(&w->ring);
    char err[256];
    if (sampler_start(&w->smp, end / 1000.0, err, sizeof err) != 0)
        term_printf(stderr, "perfreport watch: %s", err);
    for (size_t i = 0; i < cfg->nconds; i++) {
        watch_cond_state_init(&w->st[i]);
        w->held[i] = false;
    }
    return true;
}

static void close_triggers(struct watcher *w)
{
    for (size_t i = 0; i < w->npfd; i++)
        close(w->pfd[i].fd);
    w->npfd = 0;
}

int watch_run(const struct watch_config *cfg)
{
    struct watcher w = {.cfg = cfg};
    char err[512];
    int status = 3;
    bool masked = false;
    watch_gov_init(&w.gov, cfg->cooldown_s, cfg->max_per_hour);
    for (size_t i = 0; i < cfg->nconds && i < WATCH_MAX_CONDS; i++) {
        const struct watch_cond *c = &cfg->conds[i];
        watch_cond_state_init(&w.st[i]);
        if (c->src == WSRC_CPU_UTIL)
            w.smp.cpu = true;
        else if (c->src == WSRC_OOM)
            w.smp.oom = true;
        else {
            int fd = psi_trigger_open(c, err, sizeof err);
            if (fd < 0) {
                term_printf(stderr, "perfreport watch: %s", err);
                goto out;
            }
            w.pfd[w.npfd] = (struct pollfd){.fd = fd, .events = POLLPRI};
            w.pcond[w.npfd++] = i;
        }
    }
    if (watch_ring_init(&w.ring, cfg->before_s) != 0) {
        term_printf(stderr, "perfreport watch: --before %u: out of memory", cfg->before_s);
        goto out;
    }
    if (cfg->before_s) {
        w.charted = watch_sampler_start(err, sizeof err);
        w.charted_since = mono_ms() / 1000.0;
        if (!w.charted) {
            term_printf(stderr, "perfreport watch: --before: %s", err);
            goto out;
        }
        if (err[0] && cfg->run->verbose)
            term_printf(stderr, "perfreport watch: --before: not sampled: %s", err);
    }
    bool polled = w.smp.cpu || w.smp.oom || w.charted;
    double next = mono_ms() + TICK_MS;
    if (polled && sampler_start(&w.smp, mono_ms() / 1000.0, err, sizeof err) != 0) {
        term_printf(stderr, "perfreport watch: %s", err);
        goto out;
    }
    sigset_t stop;
    stop_signals(&stop);
    sigprocmask(SIG_BLOCK, &stop, &g_wait_mask);
    masked = true;
    sigdelset(&g_wait_mask, SIGINT);
    sigdelset(&g_wait_mask, SIGTERM);
    sigdelset(&g_wait_mask, SIGHUP);
    install_signals(on_quit);
    if (!cfg->run->quiet) {
        term_printf(stderr, "perfreport watch: waiting (bundles in %s):", cfg->out_shown);
        for (size_t i = 0; i < cfg->nconds; i++)
            term_printf(stderr, "  when %s", cfg->conds[i].text);
    }

    while (!g_quit) {
        struct timespec ts, *tsp = NULL;
        if (polled) {
            double left = fmax(0, next - mono_ms());
            ts.tv_sec = (time_t)(left / 1000);
            ts.tv_nsec = (long)(fmod(left, 1000) * 1e6);
            tsp = &ts;
        }
        int n = ppoll(w.pfd, w.npfd, tsp, &g_wait_mask);
        if (n < 0 && errno != EINTR) {
            term_printf(stderr, "perfreport watch: ppoll: %s", strerror(errno));
            goto out;
        }
        if (g_quit)
            break;
        for (size_t i = 0; n > 0 && i < w.npfd && !g_quit; i++) {
            short re = w.pfd[i].revents;
            const struct watch_cond *c = &cfg->conds[w.pcond[i]];
            if (re & (POLLERR | POLLNVAL | POLLHUP)) {
                term_printf(stderr, "perfreport watch: %s: the kernel dropped the PSI trigger",
                            c->text);
                goto out;
            }
            if (re & POLLPRI)
                fire(&w, w.pcond[i], psi_trigger_avg10(c));
        }
        if (!polled || g_quit || mono_ms() < next)
            continue;
        if (w.charted && mono_ms() / 1000.0 - w.charted_since >= WATCH_SAMPLER_REFRESH_S)
            refresh_charted(&w); /* its sample is this second's, without rates */
        else if (w.charted)
            watch_sampler_tick(w.charted, &w.ring);
        double t = mono_ms() / 1000.0, t_prev = w.smp.t_prev;
        sampler_read(&w.smp, t);
        for (size_t i = 0; i < cfg->nconds && !g_quit; i++) {
            const struct watch_cond *c = &cfg->conds[i];
            double v = c->src == WSRC_CPU_UTIL ? w.smp.util
                       : c->src == WSRC_OOM    ? w.smp.oom_kills
                                               : NAN;
            if (c->src == WSRC_PSI)
                continue;
            bool fires = watch_cond_feed(c, &w.st[i], t_prev, t, v);
            if (!w.st[i].fired)
                w.held[i] = false; /* the excursion is over */
            else if (!fires && w.held[i] && c->src == WSRC_CPU_UTIL &&
                     watch_gov_decide_kind(&w.gov, t, i, v, NULL) == WATCH_CAPTURE)
                fires = true; /* held back, and now worse than the last capture */
            if (fires && fire(&w, i, v))
                break; /* the other readings are from before the capture */
        }
        /* The next reading a second after this one (or after the capture
         * that just ran): missed ticks are skipped, not caught up. */
        next += TICK_MS;
        if (next <= mono_ms())
            next = mono_ms() + TICK_MS;
    }
    status = 0;
    if (!cfg->run->quiet)
        term_printf(stderr, "perfreport watch: stopped by signal %d after %lu capture%s, %lu "
                    "suppressed", (int)g_quit, w.captures, w.captures == 1 ? "" : "s",
                    w.suppressed);
out:
    /* A stop signal still pending goes to on_quit, not to its default. */
    if (masked)
        sigprocmask(SIG_SETMASK, &g_wait_mask, NULL);
    close_triggers(&w);
    sb_free(&w.smp.text);
    watch_sampler_free(w.charted);
    watch_ring_free(&w.ring);
    return status;
}
