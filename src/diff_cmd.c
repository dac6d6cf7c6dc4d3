#include "diff_cmd.h"
#include "bundle/bundle.h"
#include "bundle/judge.h"
#include "diff/compare.h"
#include "diff/diff_render.h"
#include "model/model.h"
#include "render/escape.h"
#include "util/clock.h"
#include "util/signals.h"
#include "util/fdio.h"
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
#define MAX_DEFAULT_SUFFIX 99

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
    const char *old, *neu, *outdir;
    bool quiet;
    int verbose;
};

static int parse_args(int argc, char **argv, struct diff_args *a)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    optind = 0; /* GNU: full re-initialisation */
    while ((ch = getopt_long(argc, argv, "o:qvh", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o':
            if (!*optarg) {
                fprintf(stderr, PROG ": -o: empty directory name\n");
                return 3;
            }
            a->outdir = optarg;
            break;
        case 'q': a->quiet = true; break;
        case 'v': a->verbose++; break;
        case 'h': usage(stdout); return 1;
        default: usage(stderr); return 3;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, PROG ": two bundles, please (perfreport diff OLD NEW)\n");
        usage(stderr);
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

/* Makes the output directory (mode 0700, never an existing one) through
 * its parent's fd, opened and checked as a bundle's (bundle_target_open:
 * no pseudo or read-only filesystem); `made` gets its path, t stays open
 * for the cleanup.  Returns the directory's fd or -1 with a message. */
static int make_outdir(const struct diff_args *a, struct bundle_target *t, char *made, size_t mn,
                       char *err, size_t n)
{
    /* NEW without trailing slashes, so NEW/ gives NEW.diff */
    size_t blen = strlen(a->neu);
    while (blen > 1 && a->neu[blen - 1] == '/')
        blen--;
    int bl = blen > INT_MAX ? INT_MAX : (int)blen;
    for (int k = 0; k <= MAX_DEFAULT_SUFFIX; k++) {
        int len;
        if (a->outdir)
            len = snprintf(made, mn, "%s", a->outdir);
        else if (k == 0)
            len = snprintf(made, mn, "%.*s.diff", bl, a->neu);
        else
            len = snprintf(made, mn, "%.*s.diff.%d", bl, a->neu, k);
        if (len < 0 || (size_t)len >= mn) {
            snprintf(err, n, "%s: name too long", a->outdir ? a->outdir : a->neu);
            return -1;
        }
        int rc = bundle_target_open(t, made, err, n);
        if (rc == -EEXIST && !a->outdir)
            continue;
        if (rc == -EEXIST) /* as the command has always said it */
            snprintf(err, n, "%s: %s", made, strerror(EEXIST));
        if (rc != 0)
            return -1;
        if (mkdirat(t->parent_fd, t->name, 0700) != 0) {
            snprintf(err, n, "%s: %s", made, strerror(errno));
            bundle_target_close(t);
            if (errno == EEXIST && !a->outdir)
                continue;
            return -1;
        }
        int fd = openat(t->parent_fd, t->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            snprintf(err, n, "%s: %s", made, strerror(errno));
            (void)unlinkat(t->parent_fd, t->name, AT_REMOVEDIR);
            bundle_target_close(t);
        }
        return fd;
    }
    snprintf(err, n, "%s.diff ... .diff.%d: all taken (use -o DIR)", a->neu, MAX_DEFAULT_SUFFIX);
    return -1;
}

static int write_file(int dfd, const struct diff_file *f, char *err, size_t n)
{
    int fd = openat(dfd, f->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, n, "%s: %s", f->name, strerror(errno));
        return -1;
    }
    int rc = fd_write_all(fd, sb_str(&f->body), f->body.len);
    if (rc != 0) {
        snprintf(err, n, "%s: %s", f->name, strerror(-rc));
        close(fd);
        return -1;
    }
    if (close(fd) != 0) {
        snprintf(err, n, "%s: %s", f->name, strerror(errno));
        return -1;
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
    int dfd = make_outdir(&a, &target, made, sizeof made, err, sizeof err);
    if (dfd < 0) {
        term_printf(stderr, PROG ": %s", err);
        goto out;
    }
    size_t written = 0;
    for (; written < nfiles; written++)
        if (write_file(dfd, &files[written], err, sizeof err) != 0)
            break;
    if (written < nfiles) {
        term_printf(stderr, PROG ": %s/%s", made, err);
        /* nothing half written stays behind */
        for (size_t i = 0; i <= written && i < nfiles; i++)
            unlinkat(dfd, files[i].name, 0);
        close(dfd);
        (void)unlinkat(target.parent_fd, target.name, AT_REMOVEDIR);
        goto out;
    }
    if (fsync(dfd) != 0 || close(dfd) != 0) {
        term_printf(stderr, PROG ": %s: %s", made, strerror(errno));
        goto out;
    }
    status = 0;
    if (a.verbose)
        fprintf(stderr, PROG ": %.1f ms\n", mono_ms() - t0);
    if (!a.quiet) {
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
