#include "textfile.h"
#include "../util/fdio.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ".NAME.tmp-XXXXXXXXXX" with a fresh unpredictable suffix. */
static int temp_name(const struct textfile *t, char *out, size_t n)
{
    char prefix[NAME_MAX + 8];
    int w = snprintf(prefix, sizeof prefix, ".%s.tmp-", t->name);
    if (w < 0 || (size_t)w >= sizeof prefix)
        return -ENAMETOOLONG;
    fd_random_name(out, n, prefix);
    return strlen(out) > NAME_MAX || strlen(out) < (size_t)w + 10 ? -ENAMETOOLONG : 0;
}

/* Creates a new temp file (mode 0644 whatever the umask); its name in tmp. */
static int temp_create(const struct textfile *t, char *tmp, size_t n)
{
    for (int tries = 0; tries < 8; tries++) {
        int rc = temp_name(t, tmp, n);
        if (rc)
            return rc;
        int fd = openat(t->dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        0644);
        if (fd >= 0) {
            if (fchmod(fd, 0644) != 0) {
                int e = errno;
                close(fd);
                (void)unlinkat(t->dir_fd, tmp, 0);
                return -e;
            }
            return fd;
        }
        if (errno != EEXIST)
            return -errno;
    }
    return -EEXIST;
}

int textfile_open(struct textfile *t, const char *path, char *err, size_t n)
{
    t->dir_fd = -1;
    t->name[0] = '\0';
    snprintf(t->shown, sizeof t->shown, "%s", path ? path : "");
    size_t len = path ? strlen(path) : 0;
    if (len == 0 || len >= PATH_MAX || path[len - 1] == '/') {
        snprintf(err, n, "--metrics %s: not a file name", t->shown);
        return -EINVAL;
    }
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!strcmp(base, ".") || !strcmp(base, "..") || strlen(base) > NAME_MAX - 20) {
        snprintf(err, n, "--metrics %s: not a usable file name", t->shown);
        return -EINVAL;
    }
    char parent[PATH_MAX];
    if (!slash)
        snprintf(parent, sizeof parent, ".");
    else if (slash == path)
        snprintf(parent, sizeof parent, "/");
    else
        snprintf(parent, sizeof parent, "%.*s", (int)(slash - path), path);
    /* The directory part is resolved once, now (a symlinked textfile
     * directory is fine); the fd is what every later step uses. */
    char real[PATH_MAX];
    int fd = realpath(parent, real) ? open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                                    : -1;
    if (fd < 0) {
        int e = errno;
        snprintf(err, n, "--metrics %s: directory %s: %s", t->shown, parent, strerror(e));
        return -e;
    }
    t->dir_fd = fd;
    snprintf(t->name, sizeof t->name, "%s", base);
    struct stat st;
    if (fstatat(fd, t->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, n, "--metrics %s: is a directory", t->shown);
        textfile_close(t);
        return -EISDIR;
    }
    /* A real probe, as for the bundle: root passes access(2) everywhere,
     * while a read-only mount shows only on a write. */
    char tmp[NAME_MAX + 1];
    int tfd = temp_create(t, tmp, sizeof tmp);
    if (tfd < 0) {
        snprintf(err, n, "--metrics %s: cannot create a file in %s: %s", t->shown, parent,
                 strerror(-tfd));
        textfile_close(t);
        return tfd;
    }
    close(tfd);
    (void)unlinkat(fd, tmp, 0);
    return 0;
}

int textfile_replace(struct textfile *t, const char *data, size_t len, char *err, size_t n)
{
    if (t->dir_fd < 0) {
        snprintf(err, n, "--metrics %s: not open", t->shown);
        return -EBADF;
    }
    char tmp[NAME_MAX + 1];
    int fd = temp_create(t, tmp, sizeof tmp);
    if (fd < 0) {
        snprintf(err, n, "--metrics %s: cannot create a temporary file: %s", t->shown,
                 strerror(-fd));
        return fd;
    }
    const char *step = "write";
    int rc = fd_write_all(fd, data, len);
    if (rc == 0 && fsync(fd) != 0) {
        rc = -errno;
        step = "fsync";
    }
    if (close(fd) != 0 && rc == 0) {
        rc = -errno;
        step = "close";
    }
    /* rename(2) replaces whatever NAME is (a symlink included) without
     * following it; a directory there makes it fail */
    if (rc == 0 && renameat(t->dir_fd, tmp, t->dir_fd, t->name) != 0) {
        rc = -errno;
        step = "rename";
    }
    if (rc) {
        (void)unlinkat(t->dir_fd, tmp, 0);
        snprintf(err, n, "--metrics %s: %s: %s; the previous file (if any) is unchanged",
                 t->shown, step, strerror(-rc));
        return rc;
    }
    (void)fsync(t->dir_fd); /* the rename itself survives a crash */
    return 0;
}

void textfile_close(struct textfile *t)
{
    if (t->dir_fd >= 0)
        close(t->dir_fd);
    t->dir_fd = -1;
}
