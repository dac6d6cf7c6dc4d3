/* Replacing one file atomically in a directory that hostile users may write
 * to (--metrics FILE, for node_exporter's textfile collector).
 *
 * The parent is opened once, at textfile_open (before the window), with
 * O_DIRECTORY|O_NOFOLLOW after resolving its path; later writes go through
 * that fd only.  A write makes a fresh temp file ".NAME.tmp-XXXXXXXXXX"
 * (O_CREAT|O_EXCL|O_NOFOLLOW: nothing planted is opened or followed), mode
 * 0644, writes and fsyncs it, and renameat()s it over NAME: a reader sees the
 * old file or the new one, never a part, and a symlink (or anything else
 * that is not a directory) at NAME is replaced, never followed.  The temp
 * name does not end in ".prom", so the textfile collector never reads it. */
#ifndef PERFREPORT_TEXTFILE_H
#define PERFREPORT_TEXTFILE_H
#include <limits.h>
#include <stddef.h>

struct textfile {
    int dir_fd;               /* the parent directory; owned, -1 when closed */
    char name[NAME_MAX + 1];  /* the final name inside it */
    char shown[PATH_MAX];     /* the path as given, for messages */
};

/* Opens the parent of `path` and checks that a file can be made in it (a
 * temp file is created and removed) and that `path` is not a directory.
 * Returns 0, or -errno with a message in err. */
int textfile_open(struct textfile *t, const char *path, char *err, size_t n);
/* Replaces the file with data[0..len).  Returns 0, or -errno with a message
 * in err (the temp file is removed; the old file stays). */
int textfile_replace(struct textfile *t, const char *data, size_t len, char *err, size_t n);
void textfile_close(struct textfile *t);
#endif
