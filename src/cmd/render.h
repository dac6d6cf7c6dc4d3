/* `perfreport render BUNDLE [-o DIR] [--thresholds FILE]`: loads a bundle
 * (src/replay/load.h), runs the analysis again with the thresholds given
 * (or the built-in ones) and publishes every view as a new bundle, as a
 * capture run would.  The source bundle is never written to.  argv[0] is
 * "render".  Returns the exit status of a run: 0/1/2 by the worst finding,
 * 4/5/6 for a partial bundle, 3 with nothing written on bad input. */
#ifndef PERFREPORT_RENDER_CMD_H
#define PERFREPORT_RENDER_CMD_H
int render_main(int argc, char **argv);
#endif
