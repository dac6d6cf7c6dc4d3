/* See run_command.h. */
#include "run_command.h"
#include "../util/xalloc.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct run_command *run_command_new(void)
{
    struct run_command *c = xcalloc(1, sizeof *c);
    c->exit_status = -1;
    return c;
}

void run_command_free(struct run_command *c)
{
    if (!c)
        return;
    free(c->line);
    free(c->user);
    free(c->error);
    free(c);
}

static const char *const end_names[] = {
    [CMD_RUNNING] = "running",
    [CMD_EXITED] = "exited",
    [CMD_KILLED] = "killed",
    [CMD_NOT_STARTED] = "not_started",
};

const char *cmd_end_name(enum cmd_end e)
{
    return (unsigned)e < sizeof end_names / sizeof end_names[0] ? end_names[e] : "running";
}

int cmd_end_parse(const char *name)
{
    for (size_t i = 0; name && i < sizeof end_names / sizeof end_names[0]; i++)
        if (strcmp(name, end_names[i]) == 0)
            return (int)i;
    return -1;
}

/* The names are spelled out: sigabbrev_np is glibc 2.32 and later only. */
static const char *const sig_names[] = {
    [SIGHUP] = "SIGHUP",   [SIGINT] = "SIGINT",       [SIGQUIT] = "SIGQUIT",
    [SIGILL] = "SIGILL",   [SIGTRAP] = "SIGTRAP",     [SIGABRT] = "SIGABRT",
    [SIGBUS] = "SIGBUS",   [SIGFPE] = "SIGFPE",       [SIGKILL] = "SIGKILL",
    [SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV",     [SIGUSR2] = "SIGUSR2",
    [SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM",     [SIGTERM] = "SIGTERM",
    [SIGCHLD] = "SIGCHLD", [SIGCONT] = "SIGCONT",     [SIGSTOP] = "SIGSTOP",
    [SIGTSTP] = "SIGTSTP", [SIGTTIN] = "SIGTTIN",     [SIGTTOU] = "SIGTTOU",
    [SIGURG] = "SIGURG",   [SIGXCPU] = "SIGXCPU",     [SIGXFSZ] = "SIGXFSZ",
    [SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF", [SIGWINCH] = "SIGWINCH",
    [SIGIO] = "SIGIO",     [SIGPWR] = "SIGPWR",       [SIGSYS] = "SIGSYS",
};
#define NSIG_NAMES (sizeof sig_names / sizeof sig_names[0])

void cmd_signal_name(int sig, char *out, unsigned n)
{
    if (sig > 0 && (unsigned)sig < NSIG_NAMES && sig_names[sig])
        snprintf(out, n, "%s", sig_names[sig]);
    else
        snprintf(out, n, "signal %d", sig);
}

int cmd_signal_parse(const char *s)
{
    if (!s)
        return -1;
    for (unsigned i = 1; i < NSIG_NAMES; i++)
        if (sig_names[i] && strcmp(s, sig_names[i]) == 0)
            return (int)i;
    int v, k = 0;
    if (sscanf(s, "signal %d%n", &v, &k) == 1 && s[k] == '\0' && v > 0 && v < 1024)
        return v;
    return -1;
}
