#include "diff.h"
#include "../bundle/bundle.h"
#include "../replay/judge.h"
#include "../bundle/outdir.h"
#include "../replay/diff_compare.h"
#include "../replay/diff_render.h"
#include "../model/model.h"
#include "../render/escape.h"
#include "subcmd.h"
#include "../util/clock.h"
#include "../util/signals.h"
#include "../util/fdio.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG "perfreport diff"

static void usage(FILE *f)
{
    fputs("Usage: perfreport diff OLD NEW [-o DIR] [-q] [-v]\n"
          "Compares two bundles (of one host or of two): findings new, resolved, worse\n"
          "and better; key metrics side by side with whether each change is beyond the\n"
          "variation within each window; host facts that differ; differential flame\n"
          "graphs (red: grew in NEW, blue: shrank).  Writes DIR/index.html, diff.md,\n"
          "diff.json, cpu-diff.svg and offcpu-diff.svg.  Both bundles are verified\n"
          "against their manifest.json and analysed again with the built-in thresholds.\n"
          "\n"
          "  -o, --output DIR   the comparison; must not exist\n"
          "                     (default NEW.diff, or NEW.diff.N if taken)\n"
          "  -q, --quiet        no headline on the terminal\n"
          "  -v, --verbose      say how long it took\n"
          "  -h, --help         this help\n"
          "\n"
          "Exit status: 0 written; 3 nothing was written (not a bundle, a file missing\n"
          "or changed, different schema versions, an output that exists).\n",
          f);
}

struct diff_args {
    struct subcmd_common common;
    const char *old, *neu;
};

static int parse_args(int argc, char **argv, struct diff_args *a)
{
    int rc = subcmd_parse(PROG, argc, argv, &a->common, NULL, usage);
    if (rc)
        return rc;
    if (argc - optind != 2) {
        fprintf(stderr, PROG ": two bundles, please (perfreport diff OLD NEW)\n");
        subcmd_try_help(PROG);
        return 3;
    }
    a->old = argv[optind];
    a->neu = argv[optind + 1];
    if (!*a->old || !*a->neu) {
        fprintf(stderr, PROG ": empty bundle name\n");
        return 3;
    }
    return 0;
}

int diff_main(int argc, char **argv)
{
    struct diff_args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;
    char err[PATH_MAX * 2 + 512] = "";
    double t0 = mono_ms();
    struct report *old = NULL, *neu = NULL;
    struct diff *d = NULL;
    struct bundle_target target = {.parent_fd = -1};
    struct diff_file files[DIFF_MAX_FILES];
    size_t nfiles = 0;
    int status = 3;

    if (!(old = bundle_load_judged(a.old, NULL, err, sizeof err))) {
        term_printf(stderr, PROG ": OLD: %s", err);
        goto out;
    }
    if (!(neu = bundle_load_judged(a.neu, NULL, err, sizeof err))) {
        term_printf(stderr, PROG ": NEW: %s", err);
        goto out;
    }
    if (old->schema != neu->schema) {
        fprintf(stderr, PROG ": the bundles have different schema versions (%d and %d)\n",
                old->schema, neu->schema);
        goto out;
    }
    d = diff_compare(old, neu);
    nfiles = diff_render(d, files);

    /* As render does: an interrupt must not leave a half-written
     * comparison behind. */
    ignore_fatal_signals();
    char made[PATH_MAX];
    /* mode 0700, never an existing one, through the parent's fd */
    int dfd = outdir_make(a.common.outdir, a.neu, ".diff", &target, made, sizeof made, err, sizeof err);
    if (dfd < 0) {
        term_printf(stderr, PROG ": %s", err);
        goto out;
    }
    size_t written = 0;
    for (; written < nfiles; written++)
        if (outdir_write(dfd, files[written].name, sb_str(&files[written].body),
                         files[written].body.len, err, sizeof err) != 0)
            break;
    if (written < nfiles) {
        term_printf(stderr, PROG ": %s/%s", made, err);
        /* nothing half written stays behind */
        const char *names[DIFF_MAX_FILES];
        for (size_t i = 0; i < nfiles; i++)
            names[i] = files[i].name;
        outdir_remove(dfd, &target, names, written + 1);
        goto out;
    }
    if (fsync(dfd) != 0 || close(dfd) != 0) {
        term_printf(stderr, PROG ": %s: %s", made, strerror(errno));
        goto out;
    }
    status = 0;
    if (a.common.verbose)
        fprintf(stderr, PROG ": %.1f ms\n", mono_ms() - t0);
    if (!a.common.quiet) {
        term_printf(stdout, "%s", d->headline);
        term_printf(stdout, "Comparison: %s/index.html", made);
        (void)fflush(stdout);
    }
out:
    bundle_target_close(&target);
    for (size_t i = 0; i < nfiles; i++)
        sb_free(&files[i].body);
    diff_free(d);
    report_free(old);
    report_free(neu);
    return status;
}
