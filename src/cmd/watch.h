/* `perfreport watch [-o DIR] [--when COND]...`: waits for its conditions
 * and runs the ordinary capture into DIR when one holds (src/watch/).
 * argv[0] is "watch".  Returns 3 on bad options or an -o that cannot be
 * used, else what watch_run returns (0 after SIGTERM, SIGINT or SIGHUP). */
#ifndef PERFREPORT_WATCH_CMD_H
#define PERFREPORT_WATCH_CMD_H
int watch_main(int argc, char **argv);
#endif
