/* Writing the bundle: a private temp directory next to the final one, every
 * renderer writes into it, and only a complete bundle is renamed into place. */
#ifndef PERFREPORT_BUNDLE_H
#define PERFREPORT_BUNDLE_H
#include <stddef.h>

struct report;

/* Default "./perfreport-<host>-<YYYYmmdd-HHMMSS>" from the host name and the
 * window start (host name reduced to [A-Za-z0-9._-]). */
void bundle_default_name(const struct report *r, char *out, size_t n);

/* Fails early (before the window) if `dir` exists or its parent is not a
 * writable directory.  Returns 0 or -errno with a message in err. */
int bundle_check_target(const char *dir, char *err, size_t n);

/* Renders every renderer into a temp dir and renames it to `dir`.
 * Returns 0, or -errno with a message in err; on failure nothing is left
 * under `dir` and the temp dir is removed. */
int bundle_publish(const struct report *r, const char *dir, char *err, size_t n);
#endif
