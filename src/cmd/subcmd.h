#ifndef PERFREPORT_SUBCMD_H
#define PERFREPORT_SUBCMD_H
/* The options every bundle subcommand (diff, history, render) shares:
 * -o/--output DIR, -q/--quiet, -v/--verbose, -h/--help.  A subcommand adds
 * its own long options and handles them in a callback. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

struct subcmd_common {
    const char *outdir; /* -o DIR (points into argv), NULL: the subcommand's default */
    bool quiet;
    int verbose;
};

/* A subcommand's own options: `longopts` (nlongopts entries, no terminator;
 * their vals must not be 'o', 'q', 'v' or 'h') go to `on_option`, which
 * returns 0 or 3 after printing a message. */
struct subcmd_extra {
    const struct option *longopts;
    size_t nlongopts;
    int (*on_option)(int val, const char *arg, void *ctx);
    void *ctx;
};

#define SUBCMD_MAX_EXTRA 8

/* Parses the options of argv (argv[0] is the subcommand's name) into *c and
 * through `extra` (NULL: none); on 0, optind is the first operand.  Returns
 * 0, 1 after printing the usage for --help, 3 after a message on stderr.
 * `prog` prefixes messages ("perfreport diff"). */
int subcmd_parse(const char *prog, int argc, char **argv, struct subcmd_common *c,
                 const struct subcmd_extra *extra, void (*usage)(FILE *));

/* After a bad option or operand (getopt has said which, or the caller has):
 * one line that says where the help is, as GNU tools do, instead of the
 * whole usage, whose first lines would scroll the message away.  `prog`:
 * "perfreport" or "perfreport diff". */
void subcmd_try_help(const char *prog);
#endif
