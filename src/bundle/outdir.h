/* The output directory of a command that writes a few files of its own
 * (perfreport diff, perfreport history): made new (mode 0700, never an
 * existing one) through its parent's fd, the parent checked as a bundle's
 * (bundle_target_open), and the files written into it by fd with O_EXCL and
 * O_NOFOLLOW, so no link planted there is ever followed. */
#ifndef PERFREPORT_BUNDLE_OUTDIR_H
#define PERFREPORT_BUNDLE_OUTDIR_H
#include "bundle.h"
#include <stddef.h>

#define OUTDIR_MAX_SUFFIX 99

/* Makes `explicit_dir` or, when it is NULL, BASE + suffix, or BASE + suffix
 * + ".N" (N up to OUTDIR_MAX_SUFFIX) when taken (BASE without trailing
 * slashes).  `made` gets its path; t stays open for outdir_remove.  Returns
 * the directory's fd, or -1 with a message in err. */
int outdir_make(const char *explicit_dir, const char *base, const char *suffix,
                struct bundle_target *t, char *made, size_t mn, char *err, size_t n);
/* Writes name (a bare name of ours) in dfd, 0600, refusing to replace
 * anything.  0, or -1 with a message naming the file. */
int outdir_write(int dfd, const char *name, const char *data, size_t len, char *err, size_t n);
/* Undoes a failed write: unlinks names[0..k) and removes the directory. */
void outdir_remove(int dfd, struct bundle_target *t, const char *const *names, size_t k);
#endif
