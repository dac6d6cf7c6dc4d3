/* A terminal of its own for a command that runs as another user (`--user`,
 * or the caller under sudo), as sudo's use_pty and `su --pty` give one.
 *
 * Handing such a command root's terminal as descriptors 0-2 lets whatever
 * it leaves behind (a process in a session of its own, which perfreport does
 * not wait for) read the line root types after perfreport has returned, a
 * password included, print fake prompts and change the terminal's modes.
 * So each of descriptors 0-2 that is a terminal becomes, in the command, the
 * slave of a new pty, which is also its controlling terminal (in a session
 * of its own).  While the command runs a thread copies root's keystrokes to
 * the pty and the pty's output to root's terminal; it stops reading root's
 * terminal the moment the command ends and passes on what the command
 * wrote, but nothing written after (by a process it left behind, while
 * perfreport still works); once the command is reaped it closes the pty and
 * gives root's terminal its modes back.  Output root's terminal does not
 * take within a second (output suspended with Ctrl-S) is dropped rather
 * than waited for, and perfreport says so at the end (if the terminal takes
 * that line then: it is not waited for either).  Anything still holding the
 * pty then holds a hung-up terminal: reads give EOF, writes and mode changes
 * fail.  Descriptors that are not terminals (a file, a pipe) stay as they
 * are, byte for byte.
 *
 * Root's terminal, while the relay reads it, takes the command's keystrokes
 * raw (no echo, no line editing: the pty does both, with the modes the
 * command sets), except the interrupt key: Ctrl-C reaches perfreport, which
 * ends the window and passes it on (command.h).  Ctrl-Z and Ctrl-\ are the
 * command's, as on any terminal of its own.  A perfreport in the background
 * of its terminal neither reads it nor changes its modes. */
#ifndef PERFREPORT_PTY_RELAY_H
#define PERFREPORT_PTY_RELAY_H
#include <sys/types.h>

struct pty_relay;

/* In the parent, before the fork: a new pty whose slave belongs to uid,
 * with the modes and size of the terminal among descriptors 0-2.  Returns 0
 * with *out NULL when none of them is a terminal (nothing to relay), 0 with
 * *out set, or -errno (nothing left open). */
int pty_relay_open(struct pty_relay **out, uid_t uid);
/* In the child, after setsid(): the slave becomes the controlling terminal
 * and replaces each of descriptors 0-2 that was a terminal.  Only system
 * calls: safe between fork and exec.  0 or -errno. */
int pty_relay_child(const struct pty_relay *p);
/* In the parent, after the fork: its copy of the slave is closed. */
void pty_relay_forked(struct pty_relay *p);
/* When the command may exec: starts the relay.  pidfd (or -1) ends the
 * reading of root's terminal when the command exits.  0 or -errno. */
int pty_relay_start(struct pty_relay *p, int pidfd);
/* The command has ended: root's terminal is no longer read, and of the
 * pty's output only what is buffered now is passed on.  Safe to call more
 * than once, and before pty_relay_start. */
void pty_relay_input_off(struct pty_relay *p);
/* After the command is reaped: the relay stops, root's terminal gets its
 * modes back and the pty is closed.  Frees p; NULL is fine. */
void pty_relay_finish(struct pty_relay *p);
#endif
