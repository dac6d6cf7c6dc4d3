/* `perfreport [options] -- CMD [ARGS...]`: the command whose life is the
 * capture window.
 *
 * The command is forked before the collectors attach (and before any
 * thread exists), prepares itself (signals, file descriptors, the user it
 * runs as, its executable found on PATH) and then waits on a pipe; a
 * command that cannot be started is known then, before the window, and
 * nothing is written.  When the window opens, command_go lets it exec, so
 * its first instruction is inside the window.
 *
 * Run as root, it stays in perfreport's process group, as under perf, time
 * or strace: Ctrl-C and Ctrl-Z in a terminal reach both once, and job
 * control keeps working.  A stop signal sent to perfreport alone (kill,
 * systemd) is passed on to the command (command_forward).
 *
 * Run as root through sudo (SUDO_UID set), the command runs as the user
 * who invoked sudo, with that user's groups, HOME, USER and LOGNAME;
 * --user picks another user (--user root keeps root).  As another user
 * than root it gets a session and, for those of descriptors 0-2 that are a
 * terminal, a pty of its own, relayed while perfreport runs (pty_relay.h):
 * nothing it leaves behind keeps root's terminal. */
#ifndef PERFREPORT_COMMAND_H
#define PERFREPORT_COMMAND_H
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct command;
struct run_command;

/* main(): whether SIGPIPE was ignored when perfreport started; the command
 * gets that disposition back (perfreport ignores it for itself). */
void command_note_sigpipe(bool ignored);

/* Forks the command (argv NULL-terminated, borrowed until command_free).
 * user: --user (a name or a uid), NULL for the default above.  Returns 0
 * with *out set and the child waiting, or -1 with a message in err ("cannot
 * run 'x': No such file or directory") and the child gone. */
int command_spawn(struct command **out, char *const *argv, const char *user, char *err,
                  size_t n);
pid_t command_pid(const struct command *c);
/* The user it runs as (owned by c), NULL when unknown. */
const char *command_user(const struct command *c);

/* Lets the command exec; returns 0 once it has, or -1 with err when the
 * exec failed (the command then counts as ended, never started). */
int command_go(struct command *c, char *err, size_t n);
/* Before command_go: the command exits without running (a stop signal
 * came during the attach). */
void command_cancel(struct command *c, const char *why);

/* Waits up to timeout_ms for the command's end; returns true once it has
 * ended (it is not reaped: its /proc entry stays for the last sample).
 * Returns early, false, when a signal arrives. */
bool command_wait(struct command *c, double timeout_ms);
bool command_ended(const struct command *c);

/* The signal handler's part (async-signal-safe): a stop signal sent to
 * perfreport by a process other than the command is passed on to it; one
 * from the terminal (si_code SI_KERNEL) already reached it. */
void command_forward(int sig, const siginfo_t *si);
/* After the window: SIGINT, SIGTERM and SIGHUP are only passed on (they no
 * longer end the window or perfreport) while the command runs. */
void command_forward_only(void);

/* The command line (shell-quoted, redacted unless keep_secrets), pid, user
 * and how it ended so far, into a new model entry (caller owns).
 * window_end_ms: the monotonic time the window closed. */
struct run_command *command_describe(const struct command *c, bool keep_secrets,
                                     double window_end_ms);

/* After the bundle: waits for a command still running (perfreport never
 * kills or orphans it), reaps it and says how it ended on stderr unless
 * quiet.  Then frees c.  NULL is fine. */
void command_finish(struct command *c, bool quiet);
#endif
