/* Writing the bundle: a private temp directory next to the final one, every
 * renderer writes into it, and only a complete bundle is renamed into place.
 *
 * The parent directory may be writable by hostile users (a home directory, a
 * 0777 drop directory), so everything works by file descriptor: the parent
 * is opened once, before the window, with O_DIRECTORY|O_NOFOLLOW; the temp
 * directory is made with mkdirat and then used only through its own fd; a
 * name is renamed only after checking (st_dev, st_ino) that it still is the
 * directory we made, and never onto an existing name (RENAME_NOREPLACE).  No
 * path is ever opened again, so a swapped name or a symlink is never followed. */
#ifndef PERFREPORT_BUNDLE_H
#define PERFREPORT_BUNDLE_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct report;
struct sink_file;

/* Where the bundle goes, fixed before the window. */
struct bundle_target {
    int parent_fd;            /* the parent directory; owned, -1 when closed */
    char shown[PATH_MAX];     /* the path as asked for (-o, or the default name) */
    char parent_shown[PATH_MAX]; /* its parent, as asked for, for messages */
    char name[NAME_MAX + 1];  /* the final name inside the parent; "" until known */
    char published[NAME_MAX + 1]; /* the name published under in parent_fd; "" if
                                   * not published there (failed, or /var/tmp) */
    /* While published[0]: the published directory, the one perfreport made
     * (owned; never reopened by name), and the files it wrote there with
     * their sizes, manifest.json included (owned). */
    int published_fd;
    struct sink_file *files;
    size_t nfiles;
    /* While placed[0]: the name the bundle was published under wherever it
     * went (parent_fd, or the fallback in /var/tmp) and that directory
     * (owned), for what is written beside it (the obfuscation map). */
    char placed[NAME_MAX + 1];
    int placed_fd;
};

/* Default "perfreport-<host>-<YYYYmmdd-HHMMSS>" from the host name and the
 * window start (host name reduced to [A-Za-z0-9._-]). */
void bundle_default_name(const struct report *r, char *out, size_t n);
/* Its host part: "perfreport-<host>-" (at most 77 bytes with the NUL). */
void bundle_name_prefix(const struct report *r, char *out, size_t n);

/* Opens the target before the window: `dir` is the -o argument, or NULL for
 * the default name in the current directory (set later with
 * bundle_target_name).  Fails if `dir` exists, or the parent is not a
 * directory, lies on a pseudo filesystem (/proc, /sys, cgroupfs, tracefs,
 * debugfs, ...) or a read-only one, or a real probe (make and remove a
 * private entry) cannot write in it.  Returns 0 or -errno with a message. */
int bundle_target_open(struct bundle_target *t, const char *dir, char *err, size_t n);
/* Sets the final name (a bare name, as bundle_default_name makes) of a
 * target opened with dir NULL; a taken name is handled by bundle_publish. */
void bundle_target_name(struct bundle_target *t, const char *name);
/* Closes what t holds (the parent, the published directory) and frees its
 * file list. */
void bundle_target_close(struct bundle_target *t);

/* Renders every renderer into a private temp dir and renames it into place.
 * When the final name is taken it publishes under the next free name
 * (NAME.1, NAME.2, ...); when the parent is gone, unwritable, or the temp
 * directory was tampered with, it publishes in /var/tmp instead.  Either
 * way r->publish_note says where and why (in the manifest too; the bundle is
 * partial).  `where` gets the published path.  Returns 0, or -errno with a
 * message in err when nothing could be published (the temp dir is removed).
 * Test hook: PERFREPORT_TEST_PAUSE_BEFORE_PUBLISH=FIFO blocks after the
 * files are written and before the rename until a byte is read
 * from the FIFO (opened O_RDWR: it shows among our fds while we wait). */
int bundle_publish(struct report *r, struct bundle_target *t, char *where, size_t wn, char *err,
                   size_t n);
#endif
