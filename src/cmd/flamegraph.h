/* `perfreport flamegraph [opts] [FILE|-]`: folded stacks or `perf script`
 * text in, a standalone interactive flamegraph SVG on stdout.  Needs nothing
 * of the capture pipeline.  argv[0] is "flamegraph". */
#ifndef PERFREPORT_FLAMEGRAPH_CMD_H
#define PERFREPORT_FLAMEGRAPH_CMD_H
#include "../render/svg_flame.h"
#include <stdbool.h>
#include <stddef.h>

int flamegraph_main(int argc, char **argv);

/* The command line, parsed (strings point into argv). */
enum flamegraph_fmt { FLAMEGRAPH_AUTO, FLAMEGRAPH_FOLDED, FLAMEGRAPH_PERF };
struct flamegraph_args {
    struct flame_opts o;
    enum flamegraph_fmt fmt;
    bool flamechart; /* --flamechart */
    bool cp;         /* --cp: ./palette.map */
    const char *nameattr; /* --nameattr FILE, or NULL */
    double total;    /* --total as given (o.total is it rounded up), 0 when not */
    const char *const *files; /* the input files ("-": stdin); none: stdin */
    size_t nfiles;
};
/* Returns 0, 1 when --help was printed, 3 after a message on stderr. */
int flamegraph_parse_args(int argc, char **argv, struct flamegraph_args *a);
#endif
