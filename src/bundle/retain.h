/* Retention (--keep N): after a bundle is published, the older bundles of
 * the same host in the same directory beyond the N newest are removed, so a
 * timer never fills the disk.
 *
 * perfreport runs as root, and nothing it removes may be chosen by another
 * user.  Everything works by fd from the parent directory the bundle was
 * published in, and retention runs only where nobody else can write (that
 * directory owned by the user running perfreport, or by root, and not
 * group- or world-writable): elsewhere a user could rename our bundles or
 * slip in directories of theirs, so nothing is removed and stderr says so.
 * A name is a candidate only if it is exactly
 * "perfreport-<host>-<YYYYmmdd-HHMMSS>" or that with ".1" ... ".99" (the
 * publisher's suffixes).  A candidate counts and may be removed only if it
 * is a directory as the publisher makes it: real (not a symlink), owned by
 * the user running perfreport, mode 0700, with perfreport's manifest.json
 * recording its window start, holding nothing but regular files of that
 * user with one link each that its manifest lists; anything else is left
 * alone and named on stderr (at most MAX_NOTES lines, the rest counted).
 * Bundles are ordered by the window start their manifests record, never by
 * name or mtime.  The whole directory is read before anything goes; one
 * larger than a bound is left as it is.  Removal is unlinkat of those
 * files through the directory's own fd (never a recursion, never a symlink
 * followed), then rmdir of the name if it still is that directory.  The
 * bundle just published is never removed. */
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
    unsigned skipped;  /* names left alone: not a bundle we may remove */
    bool refused;      /* nothing was considered (said on stderr): others may
                        * write the directory, or it is too large to read whole */
};

/* In directory `pfd` (shown as `pshown` in messages), keeps `keep` bundles
 * named prefix<time>[.N] counting `just_written` (its name in pfd, always
 * kept), and removes the older ones.  Problems go to stderr, escaped. */
void bundle_retain(int pfd, const char *pshown, const char *prefix, const char *just_written,
                   unsigned keep, struct retain_result *res);
/* --keep after a publish (the default command's and perfreport watch's
 * captures): retention of r's host's bundles beside the one just
 * published in target, or a line on stderr when it was published
 * elsewhere; with verbose, what it did and in how long. */
struct report;
struct bundle_target;
void bundle_keep_published(const struct report *r, const struct bundle_target *target,
                           unsigned keep, bool verbose, struct retain_result *res);
/* The same, reading at most max_scan entries of the directory (tests). */
#define RETAIN_MAX_SCAN 1000000
void retain_bounded(int pfd, const char *pshown, const char *prefix, const char *just_written,
                    unsigned keep, size_t max_scan, struct retain_result *res);
#endif
