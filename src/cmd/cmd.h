/* perfreport's commands (src/cmd/): main.c dispatches on argv[1] through
 * its commands[] table; the default command, the capture run, is run.c. */
#ifndef PERFREPORT_CMD_H
#define PERFREPORT_CMD_H
#include <stdio.h>

/* The capture run, `perfreport [options] [-- CMD [ARGS...]]` (argv[0] is
 * the program's name).  Returns the process exit status. */
int run_main(int argc, char **argv);

/* The subcommands' lines of the usage text, one per row of commands[]. */
void commands_usage(FILE *f);
#endif
