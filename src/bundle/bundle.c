#include "bundle.h"
#include "../model/model.h"
#include "../render/renderer.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void bundle_default_name(const struct report *r, char *out, size_t n)
{
    const char *host = kv_get(&r->host, "hostname");
    char safe[65];
    size_t k = 0;
    for (const char *p = host ? host : "host"; *p && k < sizeof safe - 1; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        safe[k++] = ok ? c : '_';
    }
    safe[k] = '\0';
    if (!k || safe[0] == '.')
        snprintf(safe, sizeof safe, "host");
    struct tm tm;
    time_t t = r->window.start_wall.tv_sec ? r->window.start_wall.tv_sec : time(NULL);
    localtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(out, n, "perfreport-%s-%s", safe, stamp);
}

/* dirname() may modify its argument; work on a copy. */
static void parent_of(const char *dir, char *out, size_t n)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", dir);
    snprintf(out, n, "%s", dirname(tmp));
}

int bundle_check_target(const char *dir, char *err, size_t n)
{
    struct stat st;
    if (lstat(dir, &st) == 0) {
        snprintf(err, n, "output %s already exists; choose another -o or remove it", dir);
        return -EEXIST;
    }
    if (errno != ENOENT) {
        int e = errno;
        snprintf(err, n, "output %s: %s", dir, strerror(e));
        return -e;
    }
    char parent[PATH_MAX];
    parent_of(dir, parent, sizeof parent);
    if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, n, "output %s: parent directory %s does not exist", dir, parent);
        return -ENOENT;
    }
    if (access(parent, W_OK | X_OK) != 0) {
        int e = errno;
        snprintf(err, n, "output %s: cannot write in %s: %s", dir, parent, strerror(e));
        return -e;
    }
    return 0;
}

struct dir_sink {
    int dirfd;
    int first_errno;
    char failed_name[256];
};

/* Writes one file with O_EXCL|O_NOFOLLOW so nothing pre-created is followed. */
static int dir_sink_write(void *ctx, const char *name, const char *data, size_t len)
{
    struct dir_sink *ds = ctx;
    if (!*name || strchr(name, '/') || name[0] == '.')
        return -EINVAL;
    int fd = openat(ds->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int rc = 0;
    if (fd < 0) {
        rc = -errno;
    } else {
        size_t off = 0;
        while (off < len) {
            ssize_t w = write(fd, data + off, len - off);
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                rc = -errno;
                break;
            }
            off += (size_t)w;
        }
        if (rc == 0 && fsync(fd) != 0)
            rc = -errno;
        if (close(fd) != 0 && rc == 0)
            rc = -errno;
    }
    if (rc && !ds->first_errno) {
        ds->first_errno = -rc;
        snprintf(ds->failed_name, sizeof ds->failed_name, "%s", name);
    }
    return rc;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            unlinkat(dirfd(d), e->d_name, 0);
        }
        closedir(d);
    }
    rmdir(dir);
}

int bundle_publish(const struct report *r, const char *dir, char *err, size_t n)
{
    char parent[PATH_MAX], tmp[PATH_MAX];
    parent_of(dir, parent, sizeof parent);
    if (snprintf(tmp, sizeof tmp, "%s/.perfreport-tmp-XXXXXX", parent) >= (int)sizeof tmp) {
        snprintf(err, n, "output path too long");
        return -ENAMETOOLONG;
    }
    if (!mkdtemp(tmp)) { /* mkdtemp creates it 0700 */
        int e = errno;
        snprintf(err, n, "cannot create a temporary directory in %s: %s", parent, strerror(e));
        return -e;
    }
    struct dir_sink ds = {.dirfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (ds.dirfd < 0) {
        int e = errno;
        snprintf(err, n, "cannot open %s: %s", tmp, strerror(e));
        rmdir(tmp);
        return -e;
    }
    struct out_sink sink = {.write = dir_sink_write, .ctx = &ds};
    int rc = 0;
    for (size_t i = 0; renderer_registry[i]; i++) {
        rc = renderer_registry[i]->render(r, &sink);
        if (rc || ds.first_errno) {
            int e = ds.first_errno ? ds.first_errno : (rc < 0 ? -rc : EIO);
            if (ds.failed_name[0])
                snprintf(err, n, "writing %s of the bundle failed: %s; no bundle was published",
                         ds.failed_name, strerror(e));
            else
                snprintf(err, n, "renderer %s failed: %s; no bundle was published",
                         renderer_registry[i]->name, strerror(e));
            rc = -e;
            break;
        }
    }
    if (rc == 0 && fsync(ds.dirfd) != 0) {
        rc = -errno;
        snprintf(err, n, "fsync %s: %s", tmp, strerror(-rc));
    }
    close(ds.dirfd);
    if (rc == 0 && renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_NOREPLACE) != 0) {
        rc = -errno;
        snprintf(err, n, "cannot rename the bundle to %s: %s", dir, strerror(-rc));
    }
    if (rc)
        remove_tree(tmp);
    return rc;
}
