/* --archive: the published bundle as one BUNDLE.tar.gz beside it, for a
 * ticket that takes one attachment.  Written with libarchive (pax, gzip)
 * from the directory perfreport published, by the fd it made it with (never
 * reopened by name: a name swapped since is not followed), holding exactly
 * the files the publisher wrote (what its manifest lists, and the manifest)
 * with the sizes they were written with: a file that is no longer that
 * size fails the archive.  It goes into a temp file made O_EXCL in the
 * parent fd and renamed onto a name nobody holds (NAME.tar.gz, else
 * NAME.1.tar.gz, ...): a name someone planted is never opened or followed. */
#ifndef PERFREPORT_ARCHIVE_H
#define PERFREPORT_ARCHIVE_H
#include <stddef.h>

struct sink_file;
/* Archives the bundle directory dfd, published as parent_fd/name, holding
 * files[0..nfiles), as parent_fd/name[.N].tar.gz.  On success 0 and the
 * file's name in out; -1 with err filled (nothing left behind). */
int bundle_archive(int parent_fd, const char *name, int dfd, const struct sink_file *files,
                   size_t nfiles, char *out, size_t outn, char *err, size_t errn);
#endif
