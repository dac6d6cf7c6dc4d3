/* Single-instance lock so overlapping cron runs do not stack. */
#ifndef PERFREPORT_INSTANCE_LOCK_H
#define PERFREPORT_INSTANCE_LOCK_H
#include <stddef.h>

/* instance_lock's answer when a non-root run goes on without a lock. */
#define INSTANCE_LOCK_NONE (-2)

/* Takes an exclusive flock on `path`: created 0600 if missing, never
 * followed if it is a symlink, refused unless it is a regular file owned by
 * us.  An existing file is never truncated: our pid is written into it only
 * when it is empty or holds nothing but a pid (a previous run's).  Returns
 * the fd to keep open for the run's lifetime, or -1 with a message in err
 * (naming the holder's pid when another run holds it).  For a non-root run
 * on the default path, a file that another user planted there cannot block
 * the run: INSTANCE_LOCK_NONE with the reason in err. */
int instance_lock(const char *path, char *err, size_t n);
/* $PERFREPORT_LOCK when set (tests, or two deliberate instances), else
 * /run/perfreport.lock as root, else $XDG_RUNTIME_DIR/perfreport.lock when
 * that is a private directory of ours, else /tmp/perfreport-<uid>.lock. */
void instance_lock_default_path(char *out, size_t n);
#endif
