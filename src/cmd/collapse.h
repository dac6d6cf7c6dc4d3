/* `perfreport collapse [opts] [FILE...|-]`: `perf script` text in, folded
 * stacks ("a;b;c COUNT", sorted) on stdout, as stackcollapse-perf.pl writes
 * them.  argv[0] is "collapse". */
#ifndef PERFREPORT_COLLAPSE_CMD_H
#define PERFREPORT_COLLAPSE_CMD_H
int collapse_main(int argc, char **argv);
#endif
