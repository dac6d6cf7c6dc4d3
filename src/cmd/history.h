#ifndef PERFREPORT_HISTORY_CMD_H
#define PERFREPORT_HISTORY_CMD_H
/* perfreport history DIR... [-o DIR]: argv[0] is "history". */
int history_main(int argc, char **argv);
#endif
