/* --archive: see archive.h. */
#include "archive.h"
#include "../render/renderer.h"
#include "../util/fdio.h"
#include "../util/xalloc.h"
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Adds dfd/f as "name/f" to a: exactly the size the publisher wrote, from
 * a regular file that still has it. */
static int add_file(struct archive *a, int dfd, const char *name, const struct sink_file *f,
                    char *err, size_t errn)
{
    int fd = openat(dfd, f->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        st.st_size != (off_t)f->size) {
        snprintf(err, errn, "%s/%s: %s", name, f->name,
                 fd < 0 ? strerror(errno)
                 : !S_ISREG(st.st_mode) ? "not a regular file"
                                         : "not the size it was written with");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    struct archive_entry *e = archive_entry_new();
    if (!e) {
        close(fd);
        snprintf(err, errn, "out of memory");
        return -1;
    }
    char path[600];
    snprintf(path, sizeof path, "%s/%s", name, f->name);
    archive_entry_set_pathname(e, path);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0600);
    archive_entry_set_size(e, (la_int64_t)f->size);
    archive_entry_set_mtime(e, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    int rc = archive_write_header(a, e) == ARCHIVE_OK ? 0 : -1;
    char buf[65536];
    size_t left = f->size;
    while (rc == 0 && left > 0) {
        ssize_t n = read(fd, buf, sizeof buf < left ? sizeof buf : left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || archive_write_data(a, buf, (size_t)n) != n) {
            rc = -1;
            break;
        }
        left -= (size_t)n;
    }
    if (rc != 0)
        snprintf(err, errn, "%s/%s: %s", name, f->name,
                 archive_error_string(a) ? archive_error_string(a) : "read failed");
    archive_entry_free(e);
    close(fd);
    return rc;
}

static int cmp_files(const void *a, const void *b)
{
    return strcmp(((const struct sink_file *)a)->name, ((const struct sink_file *)b)->name);
}

int bundle_archive(int parent_fd, const char *name, int dfd, const struct sink_file *files,
                   size_t nfiles, char *out, size_t outn, char *err, size_t errn)
{
    /* sorted, so that two archives of one bundle list the same order */
    err[0] = '\0';
    struct sink_file *sorted = xcalloc(nfiles ? nfiles : 1, sizeof *sorted);
    if (nfiles) {
        memcpy(sorted, files, nfiles * sizeof *sorted);
        qsort(sorted, nfiles, sizeof *sorted, cmp_files);
    }
    /* an unpredictable temp name: nobody can take them all in advance */
    char tmp[300], prefix[240];
    snprintf(prefix, sizeof prefix, ".%.200s.tar.gz.tmp-", name);
    int tfd = -1;
    for (int k = 0; k < 10 && tfd < 0; k++) {
        fd_random_name(tmp, sizeof tmp, prefix);
        tfd = openat(parent_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (tfd < 0 && errno != EEXIST)
            break;
    }
    int rc = -1;
    struct archive *a = NULL;
    if (tfd < 0) {
        snprintf(err, errn, "cannot create the archive beside the bundle: %s", strerror(errno));
        goto out;
    }
    a = archive_write_new();
    if (!a || archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
        archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
        archive_write_open_fd(a, tfd) != ARCHIVE_OK) {
        snprintf(err, errn, "libarchive: %s", a && archive_error_string(a) ? archive_error_string(a) : "cannot start");
        goto out;
    }
    rc = 0;
    for (size_t i = 0; i < nfiles && rc == 0; i++)
        rc = add_file(a, dfd, name, &sorted[i], err, errn);
    if (archive_write_close(a) != ARCHIVE_OK && rc == 0) {
        snprintf(err, errn, "libarchive: %s", archive_error_string(a));
        rc = -1;
    }
    if (rc == 0 && fsync(tfd) != 0) {
        snprintf(err, errn, "archive: %s", strerror(errno));
        rc = -1;
    }
    if (rc == 0) {
        /* onto a name nobody holds: a planted NAME.tar.gz (a link to a
         * victim, say) is left as it is, and we take NAME.1.tar.gz */
        rc = -1;
        for (int k = 0; k < 100 && rc != 0; k++) {
            if (k)
                snprintf(out, outn, "%s.%d.tar.gz", name, k);
            else
                snprintf(out, outn, "%s.tar.gz", name);
            if (renameat2(parent_fd, tmp, parent_fd, out, RENAME_NOREPLACE) == 0)
                rc = 0;
            else if (errno != EEXIST) {
                snprintf(err, errn, "archive %s: %s", out, strerror(errno));
                break;
            }
        }
        if (rc != 0 && !err[0])
            snprintf(err, errn, "archive: %s.tar.gz and 99 more names are taken", name);
    }
out:
    if (a)
        archive_write_free(a);
    if (tfd >= 0) {
        close(tfd);
        if (rc != 0)
            unlinkat(parent_fd, tmp, 0);
    }
    free(sorted);
    return rc;
}
