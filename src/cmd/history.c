#include "history.h"
#include "../bundle/outdir.h"
#include "../replay/history.h"
#include "../replay/history_render.h"
#include "../replay/history_scan.h"
#include "../render/escape.h"
#include "subcmd.h"
#include "../util/clock.h"
#include "../util/signals.h"
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "perfreport history"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: perfreport history DIR... [-o DIR] [-q] [-v]\n"
            "One page over many bundles: each DIR is a bundle, a directory of bundles\n"
            "(a --keep timer's output) or a directory of per-host directories of them.\n"
            "Lists each host's runs worst first with links to their pages, charts\n"
            "severity and the key metrics over time per host, counts the findings that\n"
            "recur, and names every directory it skipped and why (not a bundle, a\n"
            "symbolic link, report.json changed since the manifest).  Writes\n"
            "DIR/index.html, history.md, history.json and the charts' SVG files.\n"
            "Each run's report.json is verified against its manifest.json (size and\n"
            "SHA-256) and analysed again with the built-in thresholds; no other file of\n"
            "a bundle is read.  At most %d bundles (the rest are counted as skipped),\n"
            "report.json files of at most %u MiB.\n"
            "\n"
            "  -o, --output DIR   the page; must not exist\n"
            "                     (default FIRST_DIR.history, or .history.N if taken)\n"
            "  -q, --quiet        no headline on the terminal\n"
            "  -v, --verbose      say how long it took, and each skipped directory\n"
            "  -h, --help         this help\n"
            "\n"
            "Exit status: 0 written; 3 nothing was written (no bundle could be read,\n"
            "an output that exists, a write that failed).\n",
            HISTORY_MAX_BUNDLES, HISTORY_MAX_REPORT >> 20);
}

struct history_args {
    struct subcmd_common common;
    char **dirs;
    size_t ndirs;
};

static int parse_args(int argc, char **argv, struct history_args *a)
{
    int rc = subcmd_parse(PROG, argc, argv, &a->common, NULL, usage);
    if (rc)
        return rc;
    if (argc - optind < 1) {
        fprintf(stderr, PROG ": a directory of bundles, please (perfreport history DIR...)\n");
        subcmd_try_help(PROG);
        return 3;
    }
    a->dirs = argv + optind;
    a->ndirs = (size_t)(argc - optind);
    for (size_t i = 0; i < a->ndirs; i++)
        if (!*a->dirs[i]) {
            fprintf(stderr, PROG ": empty directory name\n");
            return 3;
        }
    return 0;
}

static void say_skipped(const struct history *h, int verbose)
{
    size_t total = h->nskipped + h->skipped_more + h->over_cap;
    if (!total)
        return;
    if (verbose || h->nruns == 0)
        for (size_t i = 0; i < h->nskipped; i++)
            term_printf(stderr, PROG ": skipped %s: %s", h->skipped[i].path,
                        h->skipped[i].reason);
    if (h->over_cap)
        fprintf(stderr, PROG ": %zu bundles over the cap of %d were not read\n", h->over_cap,
                HISTORY_MAX_BUNDLES);
    if (!verbose && h->nruns)
        fprintf(stderr, PROG ": %zu director%s skipped (see the page, or -v)\n", total,
                total == 1 ? "y" : "ies");
}

int history_main(int argc, char **argv)
{
    struct history_args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc == 1 ? 0 : rc;
    char err[PATH_MAX * 2 + 512] = "";
    double t0 = mono_ms();
    struct history *h = history_new();
    struct bundle_target target = {.parent_fd = -1};
    struct history_file *files = NULL;
    size_t nfiles = 0;
    char *outabs = NULL;
    const char **names = NULL;
    int status = 3;

    history_scan(h, a.dirs, a.ndirs);
    say_skipped(h, a.common.verbose);
    if (h->nruns == 0) {
        fprintf(stderr, PROG ": no bundle could be read; nothing written\n");
        goto out;
    }
    history_finish(h);

    /* As diff does: an interrupt must not leave a half-written page. */
    ignore_fatal_signals();
    char made[PATH_MAX];
    int dfd = outdir_make(a.common.outdir, a.dirs[0], ".history", &target, made, sizeof made, err,
                          sizeof err);
    if (dfd < 0) {
        term_printf(stderr, PROG ": %s", err);
        goto out;
    }
    /* links are relative to where the page is; without it, none */
    outabs = realpath(made, NULL);
    files = history_render(h, outabs, &nfiles);
    names = calloc(nfiles + 1, sizeof *names);
    size_t written = 0;
    for (; names && written < nfiles; written++)
        if (outdir_write(dfd, files[written].name, sb_str(&files[written].body),
                         files[written].body.len, err, sizeof err) != 0)
            break;
    if (!names || written < nfiles) {
        term_printf(stderr, PROG ": %s/%s", made, names ? err : "out of memory");
        /* nothing half written stays behind */
        for (size_t i = 0; names && i < nfiles; i++)
            names[i] = files[i].name;
        outdir_remove(dfd, &target, names, names ? written + 1 : 0);
        goto out;
    }
    if (fsync(dfd) != 0 || close(dfd) != 0) {
        term_printf(stderr, PROG ": %s: %m", made);
        goto out;
    }
    status = 0;
    if (a.common.verbose)
        fprintf(stderr, PROG ": %zu runs of %zu hosts in %.1f ms\n", h->nruns, h->nhosts,
                mono_ms() - t0);
    if (!a.common.quiet) {
        char *headline = history_headline(h);
        term_printf(stdout, "%s", headline);
        term_printf(stdout, "History: %s/index.html", made);
        free(headline);
        (void)fflush(stdout);
    }
out:
    bundle_target_close(&target);
    free(names);
    history_files_free(files, nfiles);
    free(outabs);
    history_free(h);
    return status;
}
