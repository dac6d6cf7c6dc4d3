/* src/run/: the capture run.  options.h (the command line, read-only for
 * every stage), probe.c (what the host allows), priority.c (the window's
 * and the stages' priorities), runner.c (the collectors through the
 * window, each on a worker with deadlines), command.c and pty_relay.c (the
 * command under --), and here the stages' order.  What the default command
 * does beyond the bundle is cmd/run.c's, through struct delivery. */
#ifndef PERFREPORT_PIPELINE_H
#define PERFREPORT_PIPELINE_H
#include <stddef.h>
struct options;
struct report;
struct bundle_target;

/* What a caller of the pipeline does with a run besides capturing and
 * publishing it (cmd/run.c: --metrics, --archive, --keep, --oneline and
 * the terminal summary).  Every hook may be NULL. */
struct delivery {
    void *ctx;
    /* Before the window, with the caller's rights, once the bundle's place
     * is open: opens the files it will write.  0, or -1 with err (the run
     * then stops with status 3, nothing written). */
    int (*open)(void *ctx, const struct options *opt, char *err, size_t n);
    /* Once the bundle is published in `target` (and its obfuscation map
     * beside it), with the caller's rights when they could be taken. */
    void (*published)(void *ctx, const struct report *r, const struct options *opt,
                      struct bundle_target *target);
    /* At the end, whatever happened: `where` is the published bundle, NULL
     * when the run failed before that (status 3, `why` the reason, may be
     * ""). */
    void (*finish)(void *ctx, const struct report *r, const struct options *opt,
                   const struct bundle_target *target, const char *where, int status,
                   const char *why);
    /* After analysis, before anything is named or written: perfreport
     * watch puts the minutes before the trigger in front of the window
     * here (the verdict stays the window's).  window_t0_ms is the window's
     * t = 0 on the monotonic clock (util/clock.h mono_ms). */
    void (*analysed)(void *ctx, struct report *r, double window_t0_ms);
};

/* probe -> plan -> capture window -> drain -> analyze -> render -> publish,
 * then d's hooks (d may be NULL).  Returns the process exit status (0/1/2
 * by worst severity, 4/5/6 partial, 3 on failure). */
int pipeline_run(const struct options *opt, const struct delivery *d);
#endif
