#include "pipeline.h"
#include "analyze/analyze.h"
#include "bundle/bundle.h"
#include "collect/collector.h"
#include "model/model.h"
#include "options.h"
#include "probe.h"
#include "util/clock.h"
#include "util/xalloc.h"
#include "version.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static volatile sig_atomic_t g_stop_signal;

static void on_stop_signal(int sig) { g_stop_signal = sig; }

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: the window's sleep must wake up on Ctrl-C. */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* After the window a second Ctrl-C must not lose the bundle. */
static void ignore_signals(void)
{
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
}

struct running {
    const struct collector *c;
    struct ledger_entry *led;
    void *state;
    bool started;
    double spent_ms;
};

static void progress(const struct options *opt, bool tty, const char *phase, double done,
                     double total)
{
    if (opt->quiet || !tty)
        return;
    if (total > 0)
        fprintf(stderr, "\r\033[Kperfreport: %s %.0f / %.0f s", phase, done, total);
    else
        fprintf(stderr, "\r\033[Kperfreport: %s", phase);
    fflush(stderr);
}

static void describe_target(struct report *r, const struct options *opt)
{
    if (opt->pid > 0)
        r->window.target = xasprintf("pid %d", (int)opt->pid);
    else if (opt->cgroup)
        r->window.target = xasprintf("cgroup %s", opt->cgroup);
    else
        r->window.target = xstrdup("system-wide");
}

static void plan(struct running *run, size_t n, struct collect_ctx *ctx)
{
    const struct options *opt = ctx->opt;
    /* All entries first: report_ledger() may move the array as it grows, so
     * pointers are taken only once it is complete. */
    for (size_t i = 0; i < n; i++)
        report_ledger(ctx->r, run[i].c->name, run[i].c->title);
    for (size_t i = 0; i < n; i++) {
        const struct collector *c = run[i].c;
        char reason[512] = "";
        run[i].led = report_ledger(ctx->r, c->name, c->title);
        if (c->needs_bpf && opt->no_bpf) {
            ledger_set(run[i].led, CS_SKIPPED, "BPF disabled by --no-bpf");
        } else if (c->needs_bpf && !ctx->caps->bpf_ok) {
            ledger_set(run[i].led, CS_SKIPPED, ctx->caps->bpf_reason);
        } else if (c->can_run && !c->can_run(ctx, reason, sizeof reason)) {
            ledger_set(run[i].led, CS_SKIPPED, reason[0] ? reason : "not available on this host");
        }
    }
}

static void start_all(struct running *run, size_t n, struct collect_ctx *ctx)
{
    for (size_t i = 0; i < n; i++) {
        if (run[i].led->status != CS_PENDING)
            continue;
        char err[512] = "";
        double t0 = mono_ms();
        int rc = run[i].c->start(ctx, &run[i].state, err, sizeof err);
        run[i].spent_ms += mono_ms() - t0;
        if (rc) {
            ledger_set(run[i].led, CS_FAILED, err[0] ? err : strerror(rc < 0 ? -rc : rc));
            if (run[i].c->destroy)
                run[i].c->destroy(run[i].state);
            run[i].state = NULL;
            continue;
        }
        run[i].started = true;
    }
}

static void tick_all(struct running *run, size_t n, struct collect_ctx *ctx)
{
    for (size_t i = 0; i < n; i++) {
        if (!run[i].started || !run[i].c->tick)
            continue;
        double t0 = mono_ms();
        int rc = run[i].c->tick(ctx, run[i].state);
        run[i].spent_ms += mono_ms() - t0;
        if (rc)
            ledger_note(run[i].led, "tick at %.1f s failed: %s", ctx->now_s,
                        strerror(rc < 0 ? -rc : rc));
    }
}

static void stop_all(struct running *run, size_t n, struct collect_ctx *ctx)
{
    for (size_t i = 0; i < n; i++) {
        if (!run[i].started)
            continue;
        char err[512] = "";
        double t0 = mono_ms();
        int rc = run[i].c->stop(ctx, run[i].state, err, sizeof err);
        run[i].spent_ms += mono_ms() - t0;
        if (rc)
            ledger_set(run[i].led, CS_FAILED, err[0] ? err : strerror(rc < 0 ? -rc : rc));
        else
            ledger_set(run[i].led, CS_RAN, NULL);
        if (run[i].c->destroy)
            run[i].c->destroy(run[i].state);
        run[i].state = NULL;
        run[i].started = false;
    }
    for (size_t i = 0; i < n; i++)
        run[i].led->duration_ms = run[i].spent_ms;
}

/* Sleeps until `deadline_ms` (monotonic) or a stop signal. */
static void sleep_until(double deadline_ms)
{
    while (!g_stop_signal) {
        double left = deadline_ms - mono_ms();
        if (left <= 0)
            return;
        struct timespec ts = {(time_t)(left / 1000), (long)(fmod(left, 1000) * 1e6)};
        if (nanosleep(&ts, NULL) == 0)
            return;
        if (errno != EINTR)
            return;
    }
}

/* Returns the monotonic time (ms) at which the window ended, before the
 * collectors drained: the start of the window-end-to-bundle budget. */
static double capture_window(struct running *run, size_t n, struct collect_ctx *ctx, bool tty)
{
    const struct options *opt = ctx->opt;
    struct report *r = ctx->r;
    clock_gettime(CLOCK_REALTIME, &r->window.start_wall);
    double t0 = mono_ms();
    ctx->now_s = 0;
    start_all(run, n, ctx);

    double interval_ms = opt->interval_s * 1000.0;
    double end_ms = t0 + opt->duration_s * 1000.0;
    for (long k = 1; !g_stop_signal; k++) {
        double next = t0 + (double)k * interval_ms;
        if (next > end_ms)
            next = end_ms;
        progress(opt, tty, "capturing", (mono_ms() - t0) / 1000.0, opt->duration_s);
        sleep_until(next);
        if (g_stop_signal)
            break;
        ctx->now_s = (mono_ms() - t0) / 1000.0;
        report_add_tick(r, ctx->now_s);
        tick_all(run, n, ctx);
        if (next >= end_ms)
            break;
    }
    if (g_stop_signal) {
        r->window.interrupted = true;
        /* One last sample so a short interrupted window still has data. */
        ctx->now_s = (mono_ms() - t0) / 1000.0;
        if (r->nticks == 0 || ctx->now_s - r->ticks[r->nticks - 1] > 0.05) {
            report_add_tick(r, ctx->now_s);
            tick_all(run, n, ctx);
        }
    }
    ignore_signals();
    ctx->now_s = (mono_ms() - t0) / 1000.0;
    r->window.actual_s = ctx->now_s;
    double end = mono_ms();
    stop_all(run, n, ctx);
    return end;
}

static int exit_status(const struct report *r)
{
    if (r->failed)
        return 3;
    switch (report_worst_severity(r)) {
    case SEV_CRITICAL: return 2;
    case SEV_WARNING: return 1;
    default: return 0;
    }
}

static void record_self_usage(struct report *r, double wall_ms)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return;
    double cpu_ms = (double)ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 +
                    (double)ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
    kv_addf(&r->caps, "self_cpu_ms", "perfreport's own CPU time", "%.0f ms", cpu_ms);
    kv_addf(&r->caps, "self_max_rss_kib", "perfreport's peak RSS", "%ld KiB", ru.ru_maxrss);
    kv_addf(&r->caps, "self_wall_ms", "perfreport wall time to analysis", "%.0f ms", wall_ms);
}

int pipeline_run(const struct options *opt)
{
    bool tty = isatty(STDERR_FILENO);
    double t_begin = mono_ms();
    struct report *r = report_new();
    r->tool_version = xstrdup(PERFREPORT_VERSION);
    r->window.planned_s = opt->duration_s;
    r->window.interval_s = opt->interval_s;
    describe_target(r, opt);

    char err[1024] = "";
    if (thresholds_load(r, opt->thresholds_file, err, sizeof err) != 0) {
        fprintf(stderr, "perfreport: %s\n", err);
        report_free(r);
        return 3;
    }

    struct host_caps caps;
    probe_host(&caps, opt, r);

    size_t n = 0;
    while (collector_registry[n])
        n++;
    struct running *run = xcalloc(n, sizeof *run);
    for (size_t i = 0; i < n; i++)
        run[i].c = collector_registry[i];
    struct collect_ctx ctx = {.r = r, .opt = opt, .caps = &caps};
    plan(run, n, &ctx);

    /* The bundle name needs the host name, which the host collector only knows
     * after start; the target is checked now so a bad -o loses nothing. */
    char outdir[PATH_MAX];
    if (opt->outdir) {
        snprintf(outdir, sizeof outdir, "%s", opt->outdir);
        if (bundle_check_target(outdir, err, sizeof err) != 0) {
            fprintf(stderr, "perfreport: %s\n", err);
            free(run);
            report_free(r);
            return 3;
        }
    }

    install_signals();
    double t_window_end = capture_window(run, n, &ctx, tty);
    free(run);

    progress(opt, tty, "analysing", 0, 0);
    analyze_run(r);
    record_self_usage(r, mono_ms() - t_begin);

    if (!opt->outdir) {
        bundle_default_name(r, outdir, sizeof outdir);
        if (bundle_check_target(outdir, err, sizeof err) != 0) {
            fprintf(stderr, "%sperfreport: %s\n", tty && !opt->quiet ? "\r\033[K" : "", err);
            report_free(r);
            return 3;
        }
    }
    progress(opt, tty, "writing bundle", 0, 0);
    int rc = bundle_publish(r, outdir, err, sizeof err);
    if (tty && !opt->quiet)
        fputs("\r\033[K", stderr); /* the progress line goes away */
    if (rc != 0) {
        fprintf(stderr, "perfreport: %s\n", err);
        report_free(r);
        return 3;
    }
    int status = exit_status(r);
    if (opt->verbose)
        fprintf(stderr, "perfreport: window end to bundle published: %.1f ms\n",
                mono_ms() - t_window_end);
    if (!opt->quiet) {
        enum severity worst = report_worst_severity(r);
        printf("%s%s%s\n", worst >= SEV_WARNING ? severity_name(worst) : "",
               worst >= SEV_WARNING ? ": " : "", r->headline ? r->headline : "");
        if (r->window.interrupted)
            printf("INCOMPLETE: the window was interrupted after %.1f of %.0f s.\n",
                   r->window.actual_s, r->window.planned_s);
        printf("Bundle: %s/index.html\n", outdir);
    }
    report_free(r);
    return status;
}
