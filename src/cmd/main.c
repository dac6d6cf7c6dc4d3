/* perfreport's entry: the commands table and the dispatch on argv[1].
 * Every subcommand is a file of this folder with an entry
 * `int NAME_main(int argc, char **argv)` (argv[0] is NAME) declared in its
 * NAME.h, included below, and a row of COMMANDS; the usage text lists the
 * rows.  Anything else is the
 * default command, the capture run (run.c). */
#include "cmd.h"
#include "collapse.h"
#include "diff.h"
#include "flamegraph.h"
#include "history.h"
#include "render.h"
#include "watch.h"
#include "../run/command.h"
#include "../util/caller.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* X(NAME, operands, one-line help, captures): NAME_main is the entry;
 * `captures` marks a command that runs captures and keeps root's rights
 * (as the default command does), the others become the caller of sudo. */
#define COMMANDS(X)                                                                    \
    X(flamegraph, "[opts] [FILE|-]", "folded stacks -> SVG", false)                    \
    X(collapse, "[opts] [FILE...|-]", "perf script text -> folded stacks", false)      \
    X(render, "BUNDLE [-o DIR] [--thresholds FILE]", "re-render a bundle", false)      \
    X(diff, "OLD NEW [-o DIR]", "compare two bundles", false)                          \
    X(history, "DIR... [-o DIR]", "one page over many bundles", false)                 \
    X(watch, "[-o DIR] [--when COND]...", "capture when a condition holds", true)

struct subcommand {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *operands;
    const char *help;
    bool captures;
};

static const struct subcommand commands[] = {
#define ROW(name, operands, help, captures) {#name, name##_main, operands, help, captures},
    COMMANDS(ROW)
#undef ROW
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

void commands_usage(FILE *f)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(f, "%s perfreport %s %s   %s\n", i ? "     " : "Also:", commands[i].name,
                commands[i].operands, commands[i].help);
}

/* fds 0-2 closed by the caller (`>&-`) would be the next files we open, and
 * the summary would land in the lock file or a bundle file: open /dev/null
 * onto any that is closed.  Returns -1 if that is impossible. */
static int ensure_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int nfd = open("/dev/null", O_RDWR);
        if (nfd != fd) {
            if (nfd >= 0)
                close(nfd);
            return -1;
        }
    }
    return 0;
}


int main(int argc, char **argv)
{
    if (ensure_std_fds() != 0)
        return 3;
    /* A reader of our output that goes away (| head) must not kill the run:
     * writes then fail with EPIPE, which the printing code shrugs off. */
    command_note_sigpipe(signal(SIGPIPE, SIG_IGN) == SIG_IGN);
    caller_init();
    for (size_t i = 0; argc > 1 && i < NCOMMANDS; i++) {
        if (strcmp(argv[1], commands[i].name) != 0)
            continue;
        /* The subcommands read and write files the caller names and need
         * no privilege: under sudo they run as the caller, start to end.
         * One that captures acts for the caller as the default command
         * does (util/caller.h). */
        if (commands[i].captures)
            return commands[i].main(argc - 1, argv + 1);
        int e = caller_become();
        if (e != 0) {
            fprintf(stderr, "perfreport %s: cannot become the user who ran sudo (uid %u): %s\n",
                    commands[i].name, (unsigned)caller_get()->uid, strerror(-e));
            return 3;
        }
        return commands[i].main(argc - 1, argv + 1);
    }
    return run_main(argc, argv);
}
