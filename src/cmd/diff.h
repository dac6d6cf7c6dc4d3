#ifndef PERFREPORT_DIFF_CMD_H
#define PERFREPORT_DIFF_CMD_H
/* perfreport diff OLD NEW [-o DIR]: argv[0] is "diff". */
int diff_main(int argc, char **argv);
#endif
