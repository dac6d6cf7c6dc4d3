#include "render.h"
#include "../bundle/bundle.h"
#include "../replay/judge.h"
#include "../model/model.h"
#include "../render/escape.h"
#include "subcmd.h"
#include "../util/clock.h"
#include "../util/signals.h"
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "perfreport render"
/* BUNDLE.render, then BUNDLE.render.1 ... when taken */
#define MAX_DEFAULT_SUFFIX 99

static void usage(FILE *f)
{
    fputs("Usage: perfreport render BUNDLE [-o DIR] [--thresholds FILE] [-q] [-v]\n"
          "Rebuilds every view of a bundle (index.html, report.md, summary.md, charts,\n"
          "flame graphs, report.json, manifest.json) from its report.json and .folded\n"
          "files, running the analysis again: tune thresholds after the fact, or\n"
          "re-render an old bundle with this version. BUNDLE itself is not changed.\n"
          "Every file it reads must match its size and SHA-256 in BUNDLE/manifest.json.\n"
          "\n"
          "  -o, --output DIR        the new bundle; must not exist\n"
          "                          (default BUNDLE.render, or BUNDLE.render.N if taken)\n"
          "      --thresholds FILE   override thresholds (lines: <id> <warn> <crit>);\n"
          "                          default the built-in table, not the one the run used\n"
          "  -q, --quiet             no summary on the terminal\n"
          "  -v, --verbose           say how long loading and rendering took\n"
          "  -h, --help              this help\n"
          "\n"
          "Exit status as for a run: 0 nothing at warning or above, 1 warning,\n"
          "2 critical, 4/5/6 the bundle is partial; 3 nothing was written (not a\n"
          "bundle, a file missing or changed, a schema newer than this perfreport\n"
          "reads, a bad thresholds file, an output that exists or is not writable).\n",
          f);
}

struct render_args {
    struct subcmd_common common;
    const char *bundle, *thresholds;
};

enum { OPT_THRESHOLDS = 256 };

/* render's own options, after the common ones (subcmd.h). */
static int on_option(int val, const char *arg, void *ctx)
{
    struct render_args *a = ctx;
    switch (val) {
    case OPT_THRESHOLDS: a->thresholds = arg; return 0;
    default: subcmd_try_help(PROG); return 3;
    }
}

/* 0, 1 after --help, 3 after a message. */
static int parse_args(int argc, char **argv, struct render_args *a)
{
    static const struct option own[] = {
        {"thresholds", required_argument, NULL, OPT_THRESHOLDS},
    };
    const struct subcmd_extra extra = {own, sizeof own / sizeof own[0], on_option, a};
    int rc = subcmd_parse(PROG, argc, argv, &a->common, &extra, usage);
    if (rc)
        return rc;
    if (optind >= argc) {
        fprintf(stderr, PROG ": which bundle? (perfreport render BUNDLE)\n");
        subcmd_try_help(PROG);
        return 3;
    }
    if (optind + 1 < argc) {
        term_printf(stderr, PROG ": unexpected argument '%s' (one bundle at a time)",
                    argv[optind + 1]);
        return 3;
    }
    a->bundle = argv[optind];
    if (!*a->bundle) {
        fprintf(stderr, PROG ": empty bundle name\n");
        return 3;
    }
    return 0;
}

/* The target of -o DIR; or BUNDLE.render beside BUNDLE (.1, .2 ... when
 * taken: re-rendering twice is normal, and a taken name would otherwise
 * make bundle_publish call the bundle partial). */
static int open_target(const struct render_args *a, struct bundle_target *t, char *err, size_t n)
{
    if (a->common.outdir)
        return bundle_target_open(t, a->common.outdir, err, n);
    char base[PATH_MAX];
    size_t len = strlen(a->bundle);
    while (len > 1 && a->bundle[len - 1] == '/')
        len--;
    const char *slash = memrchr(a->bundle, '/', len);
    const char *last = slash ? slash + 1 : a->bundle;
    size_t llen = len - (size_t)(last - a->bundle);
    bool relative_dot = (llen == 1 && last[0] == '.') || (llen == 2 && !memcmp(last, "..", 2)) ||
                        (len == 1 && a->bundle[0] == '/');
    if (relative_dot) { /* "." or ".." or "/": name it by where it really is */
        if (!realpath(a->bundle, base)) {
            int e = errno;
            snprintf(err, n, "%s: %s", a->bundle, strerror(e));
            return -e;
        }
        len = strlen(base);
    } else {
        if (len >= sizeof base) {
            snprintf(err, n, "%s: name too long", a->bundle);
            return -ENAMETOOLONG;
        }
        memcpy(base, a->bundle, len);
        base[len] = '\0';
    }
    int rc = -EEXIST;
    for (int k = 0; k <= MAX_DEFAULT_SUFFIX && rc == -EEXIST; k++) {
        char dir[PATH_MAX + 32];
        if (k == 0)
            snprintf(dir, sizeof dir, "%s.render", base);
        else
            snprintf(dir, sizeof dir, "%s.render.%d", base, k);
        rc = bundle_target_open(t, dir, err, n);
    }
    return rc;
}

int render_main(int argc, char **argv)
{
    struct render_args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;
    char err[PATH_MAX * 2 + 512] = "";
    struct report *r = NULL;
    struct bundle_target target = {.parent_fd = -1};
    int status = 3;
    double t0 = mono_ms();

    if (!(r = bundle_load_judged(a.bundle, a.thresholds, err, sizeof err))) {
        term_printf(stderr, PROG ": %s", err);
        return 3;
    }
    double t_loaded = mono_ms();
    if (open_target(&a, &target, err, sizeof err) != 0) {
        term_printf(stderr, PROG ": %s", err);
        goto out;
    }
    /* As after a capture window: an interrupt must not leave the temp
     * directory behind half written. */
    ignore_fatal_signals();
    char where[PATH_MAX + 32];
    if (bundle_publish(r, &target, where, sizeof where, err, sizeof err) != 0) {
        term_printf(stderr, PROG ": %s", err);
        goto out;
    }
    status = report_exit_status(r);
    if (a.common.verbose)
        fprintf(stderr, PROG ": loaded and analysed in %.1f ms, published in %.1f ms\n",
                t_loaded - t0, mono_ms() - t_loaded);
    if (r->publish_note)
        term_printf(stderr, PROG ": %s", r->publish_note);
    if (!a.common.quiet) {
        enum severity worst = report_worst_severity(r);
        term_printf(stdout, "%s%s%s", worst >= SEV_WARNING ? severity_name(worst) : "",
                    worst >= SEV_WARNING ? ": " : "", r->headline ? r->headline : "");
        if (report_is_partial(r))
            printf("PARTIAL: the bundle's data is incomplete (see its manifest.json).\n");
        term_printf(stdout, "Bundle: %s/index.html", where);
        (void)fflush(stdout);
    }
out:
    bundle_target_close(&target);
    report_free(r);
    return status;
}
