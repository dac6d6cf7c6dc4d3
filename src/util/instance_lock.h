/* Single-instance lock so overlapping cron runs do not stack. */
#ifndef PERFREPORT_INSTANCE_LOCK_H
#define PERFREPORT_INSTANCE_LOCK_H
#include <stddef.h>

/* Takes an exclusive flock on `path` (created 0600, never followed if it is
 * a symlink).  Returns the fd to keep open for the run's lifetime, or -1
 * with a message in err (naming the holder's pid when another run holds it). */
int instance_lock(const char *path, char *err, size_t n);
/* Default path: /run/perfreport.lock as root, else /tmp/perfreport-<uid>.lock. */
void instance_lock_default_path(char *out, size_t n);
#endif
