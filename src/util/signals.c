/* See signals.h. */
#include "signals.h"
#include <signal.h>
#include <stddef.h>

/* After the window a second Ctrl-C must not lose the bundle, and no signal
 * whose default is to end the process may end it while the bundle is being
 * written: that would leave a root-owned temp directory behind.  Ignored, not
 * blocked: a collector thread abandoned at its deadline does not block them. */
void ignore_fatal_signals(void)
{
    static const int sigs[] = {SIGINT,  SIGTERM,   SIGHUP,  SIGQUIT, SIGUSR1,   SIGUSR2,
                               SIGALRM, SIGVTALRM, SIGPROF, SIGIO,   SIGPWR,    SIGSTKFLT,
                               SIGXCPU, SIGXFSZ,   SIGPIPE};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_IGN);
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
        signal(sig, SIG_IGN);
}
