/* The command a run profiled (`perfreport -- CMD ARGS...`): its command
 * line, how it ended and how long it ran.  Part of the model so that
 * report.json carries it and `perfreport render` shows it again. */
#ifndef PERFREPORT_RUN_COMMAND_H
#define PERFREPORT_RUN_COMMAND_H
#include <stdbool.h>

enum cmd_end {
    CMD_RUNNING = 0, /* still running when the window ended (left running) */
    CMD_EXITED,      /* exited: exit_status */
    CMD_KILLED,      /* ended by a signal: term_signal */
    CMD_NOT_STARTED, /* exec failed after the window opened: error */
};

struct run_command {
    char *line;        /* owned; redacted unless --no-redact, shell-quoted */
    char *user;        /* owned; the user it ran as, NULL = unknown */
    int pid;
    enum cmd_end end;
    int exit_status;   /* CMD_EXITED */
    int term_signal;   /* CMD_KILLED */
    bool core_dumped;  /* CMD_KILLED */
    double wall_s;     /* exec to exit, or to the window's end while running */
    bool ended_window; /* its exit ended the window (not -d or a signal) */
    char *error;       /* owned; CMD_NOT_STARTED: why, else NULL */
};

struct run_command *run_command_new(void);
void run_command_free(struct run_command *c);
/* "exited", "killed", "running", "not_started" (report.json's "end"). */
const char *cmd_end_name(enum cmd_end e);
/* The reverse; -1 for an unknown name. */
int cmd_end_parse(const char *name);
/* "SIGINT" for 2, "signal 77" for one without a name: out (n >= 16). */
void cmd_signal_name(int sig, char *out, unsigned n);
/* The reverse: "SIGINT" -> 2, "signal 77" -> 77; -1 when neither. */
int cmd_signal_parse(const char *s);
#endif
