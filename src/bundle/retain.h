/* Retention (--keep N): after a bundle is published, the older bundles of
 * the same host in the same directory beyond the N newest are removed, so a
 * timer never fills the disk.
 *
 * The directory may be writable by hostile users, and perfreport runs as
 * root: everything works by fd from the parent directory the bundle was
 * published in.  A name is a candidate only if it is exactly
 * "perfreport-<host>-<YYYYmmdd-HHMMSS>" or that with ".1" ... ".99" (the
 * publisher's suffixes); candidates are ordered by the time in the name,
 * never by mtime (anyone who owns a file can set it).  A candidate counts
 * and may be removed only if it is a real directory (not a symlink) owned
 * by the user running perfreport, whose manifest.json is perfreport's, and
 * which holds nothing but regular files its manifest lists; anything else
 * is left alone and, when it is old enough to have been removed, named on
 * stderr.  Removal is unlinkat of those files through the directory's own fd
 * (never a recursion, never a symlink followed), then rmdir of the name if
 * it still is that directory.  The bundle just published is never removed. */
#ifndef PERFREPORT_BUNDLE_RETAIN_H
#define PERFREPORT_BUNDLE_RETAIN_H
#include <stdbool.h>
#include <stddef.h>

#define RETAIN_MAX_KEEP 1000000

/* Whether `name` is prefix + "YYYYmmdd-HHMMSS" + optionally ".N" (N in
 * 1..99, no leading zero).  On true, *stamp points at the 15-character time
 * in `name` and *suffix is N (0 without a suffix). */
bool retain_name_match(const char *prefix, const char *name, const char **stamp, int *suffix);
/* Orders two matching names of the same prefix: < 0 when a is older than b
 * (earlier time; at the same time, the lower suffix, the name without one
 * first). */
int retain_name_cmp(const char *prefix, const char *a, const char *b);

struct retain_result {
    unsigned removed;  /* bundles removed */
    unsigned failed;   /* bundles a removal failed for (named on stderr) */
    unsigned skipped;  /* old names left alone: not a bundle we may remove */
};

/* In directory `pfd` (shown as `pshown` in messages), keeps `keep` bundles
 * named prefix<time>[.N] counting `just_written` (its name in pfd, always
 * kept), and removes the older ones.  Problems go to stderr, escaped. */
void bundle_retain(int pfd, const char *pshown, const char *prefix, const char *just_written,
                   unsigned keep, struct retain_result *res);
#endif
