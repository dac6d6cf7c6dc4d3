#include "pipeline.h"
#include "../analyze/analyze.h"
#include "../bundle/bundle.h"
#include "../util/signals.h"
#include "../replay/judge.h"
#include "../replay/load.h"
#include "../replay/diff_baseline.h"
#include "command.h"
#include "../model/run_command.h"
#include "runner.h"
#include "../util/instance_lock.h"
#include "../util/strbuf.h"
#include "../util/test_pause.h"
#include "../privacy/obfuscate.h"
#include "../model/model.h"
#include "../model/names.h"
#include "options.h"
#include "probe.h"
#include "priority.h"
#include "../render/escape.h"
#include "../symbolize/sym_guard.h"
#include "../util/caller.h"
#include "../util/clock.h"
#include "../util/xalloc.h"
#include "../version.h"
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t g_stop_signal;
static volatile sig_atomic_t g_stop_count; /* stop signals so far */

/* With a command, a stop signal is passed on to it first (command.h). */
static void on_stop_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    command_forward(sig, si);
    g_stop_signal = sig;
    if (g_stop_count < 100)
        g_stop_count++;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_stop_signal;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: the window's sleep must wake up on Ctrl-C. */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

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

/* With a command, a stop signal ends the window once the command has
 * ended (it got the signal too), at a second signal, or this long after
 * the first: the window sees the command's own way out. */
#define COMMAND_STOP_GRACE_MS 5000.0
static double g_stop_seen_ms; /* monotonic; when the first was noticed */

/* Whether the window ends now: a stop signal, or (with a command) its end
 * or a stop signal as above. */
static bool window_over(struct command *cmd)
{
    if (!cmd)
        return g_stop_signal != 0;
    if (command_ended(cmd))
        return true;
    if (!g_stop_signal)
        return false;
    if (g_stop_seen_ms == 0)
        g_stop_seen_ms = mono_ms();
    return g_stop_count >= 2 || mono_ms() - g_stop_seen_ms >= COMMAND_STOP_GRACE_MS;
}

/* Sleeps until `deadline_ms` (monotonic) or the window's end (window_over). */
static void sleep_until(double deadline_ms, struct command *cmd)
{
    while (!window_over(cmd)) {
        if (cmd && g_stop_signal && deadline_ms > g_stop_seen_ms + COMMAND_STOP_GRACE_MS)
            deadline_ms = g_stop_seen_ms + COMMAND_STOP_GRACE_MS;
        double left = deadline_ms - mono_ms();
        if (left <= 0)
            return;
        if (cmd) { /* wakes at its end, a signal or the deadline */
            command_wait(cmd, left);
            continue;
        }
        struct timespec ts = {(time_t)(left / 1000), (long)(fmod(left, 1000) * 1e6)};
        if (nanosleep(&ts, NULL) == 0)
            return;
        if (errno != EINTR)
            return;
    }
}

/* Priority for the window (src/priority.h has the rule): the collector
 * threads that sample during it run niced and at the lowest best-effort I/O
 * level, so sampling /proc every interval does not compete with the
 * workload being diagnosed.  The main thread stays at the stage priority:
 * it only sleeps and hands out ticks, and niced on a saturated host it woke
 * up late and stretched the window (-d 4 took 5.3 s under 11 spinners). */
static void lower_priority(struct runner *rn)
{
    runner_set_nice(rn, prio_window_nice());
    runner_set_ioprio_window(rn, true);
}

/* Back to the stage priority for the window's last sample and the
 * finalisation after it, so the bundle is not starved (budget: 1 s under
 * 10 spinners on 2 CPUs). */
static void restore_priority(struct runner *rn)
{
    runner_set_nice(rn, prio_stage_nice());
    runner_set_ioprio_window(rn, false);
}

static double rusage_cpu_ms(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec * 1e3 + ru->ru_utime.tv_usec / 1e3 +
           (double)ru->ru_stime.tv_sec * 1e3 + ru->ru_stime.tv_usec / 1e3;
}

/* Returns the monotonic time (ms) at which the window ended, before the
 * collectors drained: the finalisation budget is measured from there. */
static double capture_window(struct runner *rn, struct report *r, const struct options *opt,
                             bool tty, struct command *cmd, double *t0_out)
{
    progress(opt, tty, "attaching", 0, 0);
    double t_attach = mono_ms();
    runner_start(rn); /* at the stage priority: the window opens when all are attached */
    lower_priority(rn);
    clock_gettime(CLOCK_REALTIME, &r->window.start_wall);
    double t0 = mono_ms();
    *t0_out = t0;
    if (cmd) {
        char err[512];
        if (g_stop_signal) /* interrupted while attaching: it never runs */
            command_cancel(cmd, "perfreport was interrupted before the command started");
        else if (command_go(cmd, err, sizeof err) != 0)
            term_printf(stderr, "perfreport: %s", err);
    }
    if (opt->verbose) { /* also what tests wait for before starting a workload */
        /* CPU time so far: the start's cost, which a loaded host does not blur */
        struct rusage ru;
        double cpu_ms = getrusage(RUSAGE_SELF, &ru) == 0 ? rusage_cpu_ms(&ru) : NAN;
        fprintf(stderr,
                "%sperfreport: window open (collectors started in %.0f ms; %.0f ms CPU "
                "since exec)\n",
                tty && !opt->quiet ? "\r\033[K" : "", t0 - t_attach, cpu_ms);
    }

    double interval_ms = opt->interval_s * 1000.0;
    double end_ms = t0 + opt->duration_s * 1000.0;
    double t_end = end_ms; /* set where the window closes */
    runner_boost_ticks_at(rn, end_ms, prio_stage_nice());
    bool over = false;
    for (long k = 1; !(over = window_over(cmd)); k++) {
        double next = t0 + (double)k * interval_ms;
        if (next > end_ms)
            next = end_ms;
        progress(opt, tty, "capturing", (mono_ms() - t0) / 1000.0, opt->duration_s);
        sleep_until(next, cmd);
        if ((over = window_over(cmd)))
            break;
        if (next >= end_ms) {
            /* The window closes here: the kernel-side recording ends now,
             * and the last sample runs at the stage priority (niced, a
             * starved one made the window longer than asked). */
            restore_priority(rn);
            t_end = mono_ms();
            double now_s = (t_end - t0) / 1000.0;
            runner_end(rn, now_s);
            /* A last sample a sliver after a late tick (resumed after SIGSTOP)
             * would be a wild rate; the window totals still cover the sliver. */
            if (!r->nticks || now_s - r->ticks[r->nticks - 1] >= opt->interval_s / 4)
                runner_tick(rn, now_s);
            break;
        }
        runner_tick(rn, (mono_ms() - t0) / 1000.0);
        /* A tick that overran its interval (our niced threads starve on a
         * saturated host) skips the slots it missed: ticks run back to back
         * would stretch the window (4 s became 6 s under 8 burners). */
        long due = (long)((mono_ms() - t0) / interval_ms);
        if (due > k)
            k = due;
    }
    if (over) {
        r->window.interrupted = g_stop_signal != 0;
        restore_priority(rn);
        /* One last sample so a short interrupted window still has data. */
        t_end = mono_ms();
        double now = (t_end - t0) / 1000.0;
        runner_end(rn, now);
        if (r->nticks == 0 || now - r->ticks[r->nticks - 1] > 0.05)
            runner_tick(rn, now);
    }
    ignore_fatal_signals();
    if (cmd)
        command_forward_only(); /* a command left running still gets them */
    r->window.actual_s = (t_end - t0) / 1000.0;
    if (opt->verbose)
        fprintf(stderr, "%sperfreport: window closed after %.2f s\n",
                tty && !opt->quiet ? "\r\033[K" : "", r->window.actual_s);
    runner_stop(rn, r->window.actual_s);
    return t_end;
}

/* Our threads and the symbolizer's server, ended now (its work is done
 * with the drain) so that its time is counted -- not RUSAGE_CHILDREN, which
 * would hold a command run under `--` once it is reaped. */
static void record_self_usage(struct report *r, double wall_ms)
{
    sym_bounded_stop();
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return;
    double cpu_ms = rusage_cpu_ms(&ru) + sym_bounded_cpu_ms();
    kv_addf(&r->caps, "self_cpu_ms", "perfreport's own CPU time", "%.0f ms", cpu_ms);
    kv_addf(&r->caps, "self_max_rss_kib", "perfreport's peak RSS", "%ld KiB", ru.ru_maxrss);
    kv_addf(&r->caps, "self_wall_ms", "perfreport wall time to analysis", "%.0f ms", wall_ms);
    report_metric(r, NM_SELF_CPU_MS, "perfreport's own CPU time", "ms", "host", cpu_ms);
    report_metric(r, NM_SELF_MAX_RSS_KIB, "perfreport's peak RSS", "KiB", "host",
                  (double)ru.ru_maxrss);
}

/* The lock: a non-root run whose default lock file belongs to someone else
 * runs without it (instance_lock returns INSTANCE_LOCK_NONE and says why). */
static int take_lock(char *err, size_t n)
{
    char lock_path[256];
    instance_lock_default_path(lock_path, sizeof lock_path);
    return instance_lock(lock_path, err, n);
}

/* On a VM a page faulted in for the first time costs ~20 us of CPU (10 us
 * even when populated in bulk; bench/RESULTS.md, 2026-11-26), so the memory
 * a run touches is a large part of its own CPU.  Much of it is transient
 * and comes one after another: the kernel BTF's parse during the loads
 * (5.5 MB, freed once they are done), kallsyms while the window runs (9 MB),
 * sort buffers and symbol tables after it.  With glibc's defaults each big
 * block is mmapped fresh and unmapped when freed, and every one of them
 * pays the faults again.  For the whole run big blocks come from the heap
 * and freed ones stay there, so later ones reuse pages already faulted in:
 * ~1,700 fewer page faults and ~50 ms less CPU for an idle `-d 10` run.
 * Peak RSS rises from ~22 to ~26 MiB.  One arena: the collectors' worker
 * threads share those pages instead of faulting in arenas of their own. */
#define RUN_MMAP_THRESHOLD (32 << 20)
static void keep_freed_memory(void)
{
    mallopt(M_ARENA_MAX, 1);
    mallopt(M_MMAP_THRESHOLD, RUN_MMAP_THRESHOLD);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
}

/* The bundle, its obfuscation map and the delivery's own files (d->published),
 * in the directory chosen before the window.  0 once the bundle is published (the rest only
 * says on stderr what failed), or -errno with err when it could not be. */
static int publish_all(struct report *r, const struct options *opt, bool tty, struct obf *obf,
                       double t_window_end, struct bundle_target *target, char *where, size_t wn,
                       const struct delivery *d, char *err, size_t n)
{
    if (!opt->outdir) {
        char name[PATH_MAX];
        bundle_default_name(r, name, sizeof name);
        /* If it is taken, the publish step picks the next free name. */
        bundle_target_name(target, name);
    }
    progress(opt, tty, "writing bundle", 0, 0);
    int rc = bundle_publish(r, target, where, wn, err, n);
    if (tty && !opt->quiet)
        fputs("\r\033[K", stderr); /* the progress line goes away */
    if (rc != 0)
        return rc;
    if (r->publish_note)
        term_printf(stderr, "perfreport: %s", r->publish_note);
    /* Test hook: holds here until a byte is read from the FIFO (util/test_pause.h). */
    test_pause("PERFREPORT_TEST_PAUSE_AFTER_PUBLISH");
    if (obf) {
        char map[PATH_MAX + 64];
        /* The bundle is complete and published: a missing map costs only the
         * way back from placeholders to names, not the bundle's status.  It
         * goes beside the bundle through the directory held since then. */
        int mrc = -EBADF;
        if (target->placed[0])
            mrc = obf_write_map(obf, target->placed_fd, target->placed, where, map, sizeof map,
                                err, n);
        else
            snprintf(err, n, "the bundle's directory is not held open");
        if (mrc != 0)
            term_printf(stderr, "perfreport: the obfuscation map was NOT written (%s); the "
                        "bundle %s is complete, but its placeholders cannot be mapped back",
                        err, where);
        else
            term_printf(stderr, "perfreport: obfuscation map (keep private): %s", map);
    }
    if (opt->verbose)
        fprintf(stderr, "perfreport: window end to bundle published: %.1f ms\n",
                mono_ms() - t_window_end);
    if (d && d->published)
        d->published(d->ctx, r, opt, target);
    err[0] = '\0';
    return 0;
}

/* Before the window, with the caller's rights under sudo: the thresholds
 * file and the baseline's manifest read, the instance lock taken
 * (*lock_fd), the bundle's place and d's files opened.  0, or -1 with err
 * set and printed: the run stops there, nothing written. */
static int before_window(const struct options *opt, const struct delivery *d, struct report *r,
                         int *lock_fd, struct bundle_target *target, char *err, size_t n)
{
    /* The files the caller names are read, and the output's place checked,
     * with the caller's rights under sudo (caller_enter_msg). */
    int lrc = -1;
    if (caller_enter_msg(err, n)) {
        lrc = thresholds_load(r, opt->thresholds_file, err, n);
        caller_leave();
    }
    if (lrc != 0) {
        term_printf(stderr, "perfreport: %s", err);
        return -1;
    }

    /* A baseline that is no bundle is known now, before the window, from its
     * manifest alone; the rest of it (report.json, up to the loader's caps)
     * is read after the window, at the stages' priority, so a large or
     * forged one costs the window nothing. */
    if (opt->baseline) {
        lrc = -1;
        if (caller_enter_msg(err, n)) {
            lrc = bundle_probe(opt->baseline, err, n);
            caller_leave();
        }
        if (lrc != 0) {
            term_printf(stderr, "perfreport: --baseline: %s", err);
            return -1;
        }
    }

    *lock_fd = take_lock(err, n);
    if (*lock_fd == INSTANCE_LOCK_NONE)
        term_printf(stderr, "perfreport: %s", err);
    else if (*lock_fd < 0) {
        term_printf(stderr, "perfreport: %s", err);
        return -1;
    }

    /* The target is checked and its directory opened now, before the window,
     * so a bad -o loses nothing and a later swap of the path changes nothing.
     * The default name needs the host name, known only after the window. */
    if (!caller_enter_msg(err, n)) {
        term_printf(stderr, "perfreport: %s", err);
        return -1;
    }
    lrc = bundle_target_open(target, opt->outdir, err, n);
    if (lrc == 0 && d && d->open)
        lrc = d->open(d->ctx, opt, err, n);
    caller_leave();
    if (lrc != 0) {
        term_printf(stderr, "perfreport: %s", err);
        return -1;
    }
    return 0;
}

/* Starts the command under --; *opt becomes cmd_opt, the options with
 * its pid as the focus, and r's target names it.  0, or -1 with err set
 * and printed. */
static int spawn_command(const struct options **opt, struct command **cmd,
                         struct options *cmd_opt, struct report *r, char *err, size_t n)
{
    if (command_spawn(cmd, (*opt)->command, (*opt)->user, err, n) != 0) {
        term_printf(stderr, "perfreport: %s", err);
        return -1;
    }
    *cmd_opt = **opt;
    cmd_opt->pid = command_pid(*cmd);
    *opt = cmd_opt;
    free(r->window.target);
    describe_target(r, cmd_opt);
    if (cmd_opt->verbose)
        fprintf(stderr, "perfreport: command pid %d waits for the window\n", (int)cmd_opt->pid);
    return 0;
}

/* The whole --baseline, read after the window at the stages' priority, or
 * NULL; owned by the caller. */
static struct report *load_baseline(const struct options *opt, struct report *r, char *err,
                                    size_t n)
{
    /* A baseline that cannot be read now (changed since the check, past
     * a cap) costs the comparison, never the capture: the bundle is
     * written without it, and says why.  Its large blocks (the text,
     * the tree's arrays) go in mappings of their own, given back when
     * freed, not kept in the heap as the run's own are
     * (keep_freed_memory): the run's peak grows by what reading it takes
     * at most, not by fragments of it. */
    struct report *base = NULL;
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    if (caller_enter_msg(err, n)) { /* the caller's file, read with its rights */
        base = bundle_load_judged(opt->baseline, opt->thresholds_file, err, n);
        caller_leave();
    }
    mallopt(M_MMAP_THRESHOLD, RUN_MMAP_THRESHOLD);
    if (base)
        baseline_note(r, base); /* what the rules compare with */
    else {
        term_printf(stderr, "perfreport: --baseline: not compared: %s", err);
        kv_addf(&r->host, "baseline", "Compared with", "nothing: the baseline could not "
                "be read (%s)", err);
    }
    return base;
}

/* publish_all with the caller's rights: everything from here to retention
 * writes in the caller's directory.  Should that identity not be taken,
 * root's rights are not used there either: the capture goes to /var/tmp,
 * and the note says so. */
static int publish_as_caller(struct report *r, const struct options *opt, bool tty,
                             struct obf *obf, double t_window_end, struct bundle_target *target,
                             char *where, size_t wn, const struct delivery *d, char *err,
                             size_t n)
{
    bool as_caller = caller_enter_msg(err, n);
    if (!as_caller) {
        term_printf(stderr, "perfreport: %s; the bundle is not written in %s", err,
                    target->parent_shown);
        bundle_target_close(target);
    }
    int rc = publish_all(r, opt, tty, obf, t_window_end, target, where, wn, d, err, n);
    if (as_caller)
        caller_leave();
    return rc;
}

/* One way out: everything the run holds is released at `out`, whatever
 * step failed (status 3 until the bundle is published). */
int pipeline_run(const struct options *opt, const struct delivery *d)
{
    /* With a command the terminal is the command's: no progress line and
     * no escape sequences from us while it may be writing. */
    bool tty = isatty(STDERR_FILENO) && !opt->command;
    struct command *cmd = NULL;
    struct options cmd_opt; /* opt with the command's pid as the focus */
    double t_begin = mono_ms();
    int status = 3, lock_fd = -1;
    struct obf *obf = NULL;
    struct bundle_target target = {.parent_fd = -1};
    char err[PATH_MAX + 1024] = "";
    struct report *base = NULL; /* --baseline, owned */
    char where[PATH_MAX + 32];
    const char *published = NULL; /* where, once the bundle is out */
    struct report *r = report_new();
    r->tool_version = xstrdup(PERFREPORT_VERSION);
    r->window.planned_s = opt->duration_s;
    r->window.interval_s = opt->interval_s;
    describe_target(r, opt);
    if (opt->trigger)
        kv_addf(&r->host, "trigger", "Triggered by", "%s", opt->trigger);
    if (opt->case_id)
        kv_add(&r->host, "case_id", "Case ID", opt->case_id);
    if (opt->label)
        kv_add(&r->host, "label", "Label", opt->label);
    keep_freed_memory();
    /* The symbolizer reads other users' files in a server child; forked now,
     * while we are small, it costs a fraction of what a fork from the full
     * image does (a failure only moves the fork to the first job). */
    (void)sym_bounded_start();

    if (before_window(opt, d, r, &lock_fd, &target, err, sizeof err) != 0)
        goto out;

    /* The command now, before the probe raises our priority and before any
     * collector thread exists: a command that cannot start stops the run
     * here, before the window, with nothing written. */
    if (opt->command) {
        if (spawn_command(&opt, &cmd, &cmd_opt, r, err, sizeof err) != 0)
            goto out;
    }

    struct host_caps caps;
    probe_host(&caps, opt, r);
    struct runner *rn = runner_new(r, opt, &caps);

    install_signals();
    double t_window_t0 = 0;
    double t_window_end = capture_window(rn, r, opt, tty, cmd, &t_window_t0);
    runner_free(rn);
    if (cmd) {
        r->command = command_describe(cmd, opt->no_redact, t_window_end);
        r->command->ended_window = command_ended(cmd) && !r->window.interrupted &&
                                   r->command->end != CMD_NOT_STARTED;
        /* The plan was the command's life when no -d was given. */
        if (!opt->duration_given)
            r->window.planned_s = r->window.actual_s;
    }

    progress(opt, tty, "analysing", 0, 0);
    if (opt->baseline)
        base = load_baseline(opt, r, err, sizeof err);
    analyze_run(r);
    if (base)
        baseline_apply(r, base);
    record_self_usage(r, mono_ms() - t_begin);
    if (d && d->analysed)
        d->analysed(d->ctx, r, t_window_t0);
    /* After analysis (rules see real names), before anything is named or written. */
    if (opt->obfuscate) {
        obf = obf_new();
        obf_load_host(obf, r);
        obfuscate_report(obf, r);
    }

    int rc = publish_as_caller(r, opt, tty, obf, t_window_end, &target, where, sizeof where, d,
                               err, sizeof err);
    if (rc != 0) {
        term_printf(stderr, "perfreport: %s", err);
        goto out;
    }
    status = report_exit_status(r);
    published = where;
out:
    if (d && d->finish)
        d->finish(d->ctx, r, opt, &target, published, status, err);
    bundle_target_close(&target);
    obf_free(obf);
    report_free(r);
    if (base)
        report_free(base);
    if (lock_fd >= 0)
        close(lock_fd);
    /* Last, with the lock released: a command left running is waited for. */
    command_finish(cmd, opt->quiet);
    return status;
}
