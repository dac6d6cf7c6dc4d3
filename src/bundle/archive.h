/* --archive: the published bundle as one BUNDLE.tar.gz beside it, for a
 * ticket that takes one attachment.  Written with libarchive (pax, gzip)
 * from the bundle's own directory fd, into a temp file made O_EXCL in the
 * parent fd and renamed onto a name nobody holds (NAME.tar.gz, else
 * NAME.1.tar.gz, ...): a name someone planted is never opened or followed. */
#ifndef PERFREPORT_ARCHIVE_H
#define PERFREPORT_ARCHIVE_H
#include <stddef.h>

/* Archives parent_fd/name (a bundle directory) as parent_fd/name[.N].tar.gz.
 * On success 0 and the file's name in out; -1 with err filled (nothing left
 * behind). */
int bundle_archive(int parent_fd, const char *name, char *out, size_t outn, char *err,
                   size_t errn);
#endif
