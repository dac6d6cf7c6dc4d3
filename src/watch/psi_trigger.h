/* The kernel's PSI triggers (Documentation/accounting/psi.rst): a pressure
 * file opened for writing takes one "some|full STALL_US WINDOW_US" line,
 * and from then on poll() reports POLLPRI on that descriptor whenever the
 * stall time within a window passes STALL_US, at most once per window.
 * Waiting on it costs nothing: the kernel watches the stall only while
 * there is one.  The trigger lives as long as the descriptor. */
#ifndef PERFREPORT_WATCH_PSI_TRIGGER_H
#define PERFREPORT_WATCH_PSI_TRIGGER_H
#include "cond.h"
#include <stddef.h>

/* Opens the host's /proc/pressure/RES (never below --root: a trigger is a
 * kernel object, not a file to read) and arms c's trigger in it.  Returns
 * the descriptor (close-on-exec, to poll for POLLPRI), or -errno with err. */
int psi_trigger_open(const struct watch_cond *c, char *err, size_t n);

/* The "some" or "full" avg10 of c's resource now, in percent; NAN when it
 * cannot be read.  For the reason a trigger gives. */
double psi_trigger_avg10(const struct watch_cond *c);
#endif
