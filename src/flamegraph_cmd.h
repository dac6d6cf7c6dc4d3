/* `perfreport flamegraph [opts] [FILE|-]`: folded stacks or `perf script`
 * text in, a standalone interactive flamegraph SVG on stdout.  Needs nothing
 * of the capture pipeline.  argv[0] is "flamegraph". */
#ifndef PERFREPORT_FLAMEGRAPH_CMD_H
#define PERFREPORT_FLAMEGRAPH_CMD_H
int flamegraph_main(int argc, char **argv);
#endif
