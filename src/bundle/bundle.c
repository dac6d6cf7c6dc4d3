#include "bundle.h"
#include "../util/caller.h"
#include "../util/fdio.h"
#include "../model/model.h"
#include "../render/renderer.h"
#include "../util/sha256.h"
#include "../util/test_pause.h"
#include "../util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* Where a bundle goes when its own directory cannot take it: sticky and
 * root-owned on Debian, so nobody else can rename or remove what we put in it. */
#define FALLBACK_PARENT "/var/tmp"
/* NAME.1 ... NAME.99 when NAME is taken. */
#define MAX_SUFFIX 99
/* Entries scanned to find our temp dir again after someone renamed it. */
#define MAX_SCAN 100000

void bundle_default_name(const struct report *r, char *out, size_t n)
{
    char prefix[96];
    bundle_name_prefix(r, prefix, sizeof prefix);
    struct tm tm;
    time_t t = r->window.start_wall.tv_sec ? r->window.start_wall.tv_sec : time(NULL);
    localtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(out, n, "%s%s", prefix, stamp);
}

void bundle_name_prefix(const struct report *r, char *out, size_t n)
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
    snprintf(out, n, "perfreport-%s-", safe);
}


/* Filesystems a bundle must never be written to: writes there are kernel
 * interfaces (or fail only after the window). */
static const char *pseudo_fs(long type)
{
    switch (type) {
    case PROC_SUPER_MAGIC: return "procfs";
    case SYSFS_MAGIC: return "sysfs";
    case CGROUP_SUPER_MAGIC: return "cgroupfs";
    case CGROUP2_SUPER_MAGIC: return "cgroup2fs";
    case TRACEFS_MAGIC: return "tracefs";
    case DEBUGFS_MAGIC: return "debugfs";
    case SECURITYFS_MAGIC: return "securityfs";
    case BPF_FS_MAGIC: return "bpffs";
    case DEVPTS_SUPER_MAGIC: return "devpts";
    case PSTOREFS_MAGIC: return "pstore";
    case 0x62656570: return "configfs";
    case EFIVARFS_MAGIC: return "efivarfs";
    case 0x42494e4d: return "binfmt_misc";
    case NSFS_MAGIC: return "nsfs";
    case SELINUX_MAGIC: return "selinuxfs";
    case 0x65735543: return "fusectl";
    default: return NULL;
    }
}

/* Refuses a parent on, or mounted below, a pseudo filesystem (/sys/fs/cgroup
 * is a tmpfs on sysfs), or on a read-only one.  Walks up by fd to "/". */
static int check_fs(int pfd, const char *shown, char *err, size_t n)
{
    struct statvfs vfs;
    if (fstatvfs(pfd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
        snprintf(err, n, "output %s: %s", shown, strerror(EROFS));
        return -EROFS;
    }
    struct stat root;
    if (stat("/", &root) != 0)
        return 0;
    int fd = dup(pfd);
    for (int depth = 0; fd >= 0 && depth < 256; depth++) {
        struct statfs sfs;
        struct stat st;
        if (fstatfs(fd, &sfs) != 0 || fstat(fd, &st) != 0)
            break;
        const char *bad = pseudo_fs((long)sfs.f_type);
        if (bad) {
            close(fd);
            snprintf(err, n, "output %s: is on (or below) %s, a kernel pseudo filesystem; "
                     "choose a real directory", shown, bad);
            return -EINVAL;
        }
        if (st.st_dev == root.st_dev && st.st_ino == root.st_ino)
            break;
        int up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(fd);
        fd = up;
    }
    if (fd >= 0)
        close(fd);
    return 0;
}

/* The real writability probe: root passes access(2) everywhere, and a
 * read-only bind mount or an immutable directory shows only on a write. */
static int probe_write(int pfd, const char *shown, char *err, size_t n)
{
    char name[64];
    for (int tries = 0; tries < 8; tries++) {
        fd_random_name(name, sizeof name, ".perfreport-probe-");
        if (mkdirat(pfd, name, 0700) == 0) {
            unlinkat(pfd, name, AT_REMOVEDIR);
            return 0;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    snprintf(err, n, "output %s: cannot write in its directory: %s", shown, strerror(e));
    return -e;
}

static int split_name(const char *path, char *parent, size_t pn, char *name, size_t nn)
{
    char tmp[PATH_MAX];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof tmp)
        return -ENAMETOOLONG;
    memcpy(tmp, path, len + 1);
    while (len > 1 && tmp[len - 1] == '/')
        tmp[--len] = '\0';
    char *slash = strrchr(tmp, '/');
    const char *base = slash ? slash + 1 : tmp;
    size_t blen = strlen(base);
    if (!blen || !strcmp(base, ".") || !strcmp(base, "..") || blen + 8 > nn)
        return -EINVAL; /* room for ".NN" suffixes */
    memcpy(name, base, blen + 1);
    if (!slash)
        snprintf(parent, pn, ".");
    else if (slash == tmp)
        snprintf(parent, pn, "/");
    else {
        *slash = '\0';
        snprintf(parent, pn, "%s", tmp);
    }
    return 0;
}

/* Opens the parent by fd: its path is resolved once, here, and the fd is
 * kept, so a later rename or symlink swap of the path changes nothing. */
static int open_parent(const char *parent, const char *shown, char *err, size_t n)
{
    char real[PATH_MAX];
    if (!realpath(parent, real)) {
        int e = errno;
        snprintf(err, n, "output %s: parent directory %s: %s", shown, parent, strerror(e));
        return -e;
    }
    int fd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(err, n, "output %s: parent directory %s: %s", shown, parent, strerror(e));
        return -e;
    }
    return fd;
}

static int check_free(int pfd, const char *name, const char *shown, char *err, size_t n)
{
    struct stat st;
    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        snprintf(err, n, "output %s already exists; choose another -o or remove it", shown);
        return -EEXIST;
    }
    if (errno != ENOENT) {
        int e = errno;
        snprintf(err, n, "output %s: %s", shown, strerror(e));
        return -e;
    }
    return 0;
}

int bundle_target_open(struct bundle_target *t, const char *dir, char *err, size_t n)
{
    char parent[PATH_MAX];
    t->parent_fd = -1;
    t->name[0] = '\0';
    t->published[0] = '\0';
    t->published_fd = -1;
    t->files = NULL;
    t->nfiles = 0;
    t->placed[0] = '\0';
    t->placed_fd = -1;
    snprintf(t->shown, sizeof t->shown, "%s", dir ? dir : ".");
    snprintf(t->parent_shown, sizeof t->parent_shown, ".");
    if (dir) {
        if (split_name(dir, parent, sizeof parent, t->name, sizeof t->name) != 0) {
            snprintf(err, n, "output %s: not a usable directory name", dir);
            return -EINVAL;
        }
        size_t len = strlen(t->shown); /* shown without trailing slashes */
        while (len > 1 && t->shown[len - 1] == '/')
            t->shown[--len] = '\0';
        snprintf(t->parent_shown, sizeof t->parent_shown, "%s", parent);
    } else {
        snprintf(parent, sizeof parent, ".");
    }
    int fd = open_parent(parent, t->shown, err, n);
    if (fd < 0)
        return fd;
    int rc = check_fs(fd, t->shown, err, n);
    if (rc == 0 && t->name[0])
        rc = check_free(fd, t->name, t->shown, err, n);
    if (rc == 0)
        rc = probe_write(fd, t->shown, err, n);
    if (rc != 0) {
        close(fd);
        return rc;
    }
    t->parent_fd = fd;
    return 0;
}

void bundle_target_name(struct bundle_target *t, const char *name)
{
    /* bundle_default_name's names are safe; cut to leave room for ".NN" */
    snprintf(t->name, sizeof t->name - 8, "%s", *name && strcmp(name, "..") ? name : "perfreport");
    snprintf(t->shown, sizeof t->shown, "%s", t->name);
}

void bundle_target_close(struct bundle_target *t)
{
    if (t->parent_fd >= 0)
        close(t->parent_fd);
    t->parent_fd = -1;
    if (t->published[0])
        close(t->published_fd);
    t->published[0] = '\0';
    if (t->placed[0])
        close(t->placed_fd);
    t->placed[0] = '\0';
    free(t->files);
    t->files = NULL;
    t->nfiles = 0;
}

/* ---- writing the files ---- */

struct dir_sink {
    int dirfd;
    int first_errno;
    char failed_name[256];
    struct sink_file *files; /* owned */
    size_t nfiles, cap;
};

/* Writes one file with O_EXCL|O_NOFOLLOW so nothing pre-created is followed,
 * and remembers its size and SHA-256 for the manifest. */
static int dir_sink_write(void *ctx, const char *name, const char *data, size_t len)
{
    struct dir_sink *ds = ctx;
    if (!*name || strchr(name, '/') || name[0] == '.' || strlen(name) >= sizeof ds->failed_name)
        return -EINVAL;
    int fd = openat(ds->dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    int rc = 0;
    if (fd < 0) {
        rc = -errno;
    } else {
        rc = fd_write_all(fd, data, len);
        if (rc == 0 && fsync(fd) != 0)
            rc = -errno;
        if (close(fd) != 0 && rc == 0)
            rc = -errno;
    }
    if (rc && !ds->first_errno) {
        ds->first_errno = -rc;
        snprintf(ds->failed_name, sizeof ds->failed_name, "%s", name);
    }
    if (rc == 0) {
        if (ds->nfiles == ds->cap) {
            ds->cap = ds->cap ? 2 * ds->cap : 32;
            ds->files = xrealloc(ds->files, ds->cap * sizeof *ds->files);
        }
        struct sink_file *f = &ds->files[ds->nfiles++];
        snprintf(f->name, sizeof f->name, "%s", name);
        f->size = len;
        sha256(data, len, f->sha256);
    }
    return rc;
}

static size_t dir_sink_written(void *ctx, const struct sink_file **files)
{
    struct dir_sink *ds = ctx;
    *files = ds->files;
    return ds->nfiles;
}

/* ---- the temp directory, by fd ---- */

struct tmpdir {
    int fd;          /* owned, -1 when closed */
    char name[64];   /* its name in the parent when made */
    dev_t dev;
    ino_t ino;
};

static bool is_dir_empty(int fd)
{
    int d = dup(fd);
    if (d < 0)
        return false;
    DIR *dir = fdopendir(d);
    if (!dir) {
        close(d);
        return false;
    }
    rewinddir(dir); /* the dup shares the offset of earlier scans */
    bool empty = true;
    struct dirent *e;
    while (empty && (e = readdir(dir)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            empty = false;
    closedir(dir);
    return empty;
}

/* Makes the temp directory and opens it; only a fresh, empty directory owned
 * by us is accepted (the name could be swapped between mkdirat and openat). */
static int tmp_make(int pfd, struct tmpdir *t)
{
    t->fd = -1;
    for (int tries = 0; tries < 16; tries++) {
        fd_random_name(t->name, sizeof t->name, ".perfreport-tmp-");
        if (mkdirat(pfd, t->name, 0700) != 0) {
            if (errno == EEXIST)
                continue;
            return -errno;
        }
        int fd = openat(pfd, t->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == fs_uid() &&
            is_dir_empty(fd) && fchmod(fd, 0700) == 0) {
            t->fd = fd;
            t->dev = st.st_dev;
            t->ino = st.st_ino;
            return 0;
        }
        int e = fd < 0 ? errno : EEXIST;
        if (fd >= 0)
            close(fd);
        (void)unlinkat(pfd, t->name, AT_REMOVEDIR); /* empty, ours, or harmless */
        if (e != EEXIST)
            return -e;
    }
    return -EEXIST;
}

static bool name_is(int pfd, const char *name, const struct tmpdir *t)
{
    struct stat st;
    return fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
           st.st_dev == t->dev && st.st_ino == t->ino;
}

/* Removes every file of the temp directory through its own fd: only what is
 * in the directory we made and hold, whatever its name has become. */
static void tmp_empty(struct tmpdir *t)
{
    int d = dup(t->fd);
    DIR *dir = d >= 0 ? fdopendir(d) : NULL;
    if (!dir) {
        if (d >= 0)
            close(d);
        return;
    }
    rewinddir(dir); /* the dup shares the offset of earlier scans */
    struct dirent *e;
    while ((e = readdir(dir)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            (void)unlinkat(t->fd, e->d_name, 0);
    closedir(dir);
}

/* Empties the temp directory and removes it.  If someone renamed it, it is
 * still in the same parent (moving a directory we own to another parent
 * needs write access to it): find it by (dev, ino).  rmdir of a name that was
 * swapped meanwhile removes at most an empty directory, never follows one. */
static void tmp_discard(int pfd, struct tmpdir *t)
{
    if (t->fd < 0)
        return;
    tmp_empty(t);
    if (name_is(pfd, t->name, t)) {
        (void)unlinkat(pfd, t->name, AT_REMOVEDIR);
    } else {
        int d = dup(pfd);
        DIR *dir = d >= 0 ? fdopendir(d) : NULL;
        if (dir) {
            rewinddir(dir);
            struct dirent *e;
            for (long k = 0; (e = readdir(dir)) && k < MAX_SCAN; k++)
                if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                    name_is(pfd, e->d_name, t)) {
                    (void)unlinkat(pfd, e->d_name, AT_REMOVEDIR);
                    break;
                }
            closedir(dir);
        } else if (d >= 0) {
            close(d);
        }
    }
    close(t->fd);
    t->fd = -1;
}

/* Renders every renderer into t (emptied first).  Returns 0 or -errno; on
 * 0, *files (owned by the caller) and *nfiles say what t holds. */
static int render_into(const struct report *r, struct tmpdir *t, struct sink_file **files,
                       size_t *nfiles, char *err, size_t n)
{
    tmp_empty(t);
    free(*files);
    *files = NULL;
    *nfiles = 0;
    struct dir_sink ds = {.dirfd = t->fd};
    struct out_sink sink = {.write = dir_sink_write, .ctx = &ds, .written = dir_sink_written};
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
    if (rc == 0 && fsync(t->fd) != 0) {
        rc = -errno;
        snprintf(err, n, "fsync of the bundle: %s", strerror(-rc));
    }
    if (rc == 0) {
        *files = ds.files;
        *nfiles = ds.nfiles;
    } else {
        free(ds.files);
    }
    return rc;
}

/* First free name among base, base.1 ... base.MAX_SUFFIX; -1 if none. */
static int free_suffix(int pfd, const char *base)
{
    for (int k = 0; k <= MAX_SUFFIX; k++) {
        char cand[NAME_MAX + 1];
        if (k == 0)
            snprintf(cand, sizeof cand, "%s", base);
        else
            snprintf(cand, sizeof cand, "%s.%d", base, k);
        struct stat st;
        if (fstatat(pfd, cand, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
            return k;
    }
    return -1;
}

enum { PLACE_OK = 0, PLACE_NEXT = 1 };

/* What publish_in hands over: the published directory and its files. */
struct published {
    int fd;                  /* owned */
    struct sink_file *files; /* owned */
    size_t nfiles;
};

/* Publishes in one parent directory.  Returns PLACE_OK with the name in
 * `final` and, in pub, the published directory's fd and the files it holds
 * (both the caller's), PLACE_NEXT with the reason in `why` when this place
 * cannot take the bundle (try the next), or -errno when writing the bundle
 * itself failed.
 * `prefix_note` (or NULL) is what r->publish_note says when the bundle lands
 * here at all (a fallback place); a taken name adds "NAME was taken".  The
 * note is set before rendering, and when the plan changes after rendering
 * the bundle is rendered again, so that its manifest always tells where it is. */
static int publish_in(struct report *r, int pfd, const char *pshown, const char *base,
                      const char *prefix_note, bool pause, struct published *pub, char *final,
                      size_t fn, char *why, size_t wn, char *err, size_t en)
{
    struct tmpdir t;
    struct sink_file *files = NULL;
    size_t nfiles = 0;
    int rc = tmp_make(pfd, &t);
    if (rc != 0) {
        snprintf(why, wn, "cannot create a directory in %s: %s", pshown, strerror(-rc));
        return PLACE_NEXT;
    }
    int planned = -2; /* the suffix the rendered manifest describes */
    for (int attempt = 0; attempt < 4; attempt++) {
        int k = free_suffix(pfd, base);
        if (k < 0) {
            snprintf(why, wn, "%s and %s.1 ... %s.%d in %s are all taken", base, base, base,
                     MAX_SUFFIX, pshown);
            goto next;
        }
        if (k != planned) {
            free(r->publish_note);
            if (k > 0)
                r->publish_note = xasprintf("%s%s%s was taken; published as %s.%d",
                                            prefix_note ? prefix_note : "",
                                            prefix_note ? "; " : "", base, base, k);
            else
                r->publish_note = xstrdup(prefix_note); /* NULL stays NULL */
            rc = render_into(r, &t, &files, &nfiles, err, en);
            if (rc != 0) {
                tmp_discard(pfd, &t);
                return rc;
            }
            planned = k;
            if (pause && attempt == 0) {
                test_pause("PERFREPORT_TEST_PAUSE_BEFORE_PUBLISH");
                attempt = -1; /* the names may have changed during the pause */
                pause = false;
                continue;
            }
        }
        if (!name_is(pfd, t.name, &t)) {
            snprintf(why, wn, "the temporary directory in %s was renamed or replaced by someone "
                     "else", pshown);
            goto next;
        }
        if (k == 0)
            snprintf(final, fn, "%s", base);
        else
            snprintf(final, fn, "%s.%d", base, k);
        if (renameat2(pfd, t.name, pfd, final, RENAME_NOREPLACE) != 0) {
            int e = errno;
            if (e == EEXIST)
                continue; /* taken since: pick again, render again */
            snprintf(why, wn, "cannot rename the bundle to %s in %s: %s", final, pshown,
                     strerror(e));
            goto next;
        }
        if (!name_is(pfd, final, &t)) {
            /* Swapped between the check and the rename: what now has the
             * final name is not ours; it is neither announced nor touched. */
            snprintf(why, wn, "the temporary directory in %s was replaced by someone else while "
                     "it was renamed", pshown);
            goto next;
        }
        (void)fsync(pfd);
        pub->fd = t.fd;
        pub->files = files;
        pub->nfiles = nfiles;
        return PLACE_OK;
    }
    snprintf(why, wn, "the names %s.N in %s kept being taken", base, pshown);
next:
    tmp_discard(pfd, &t);
    free(files);
    return PLACE_NEXT;
}

/* /var/tmp, if it is a directory nobody else can rename our entries in. */
static int open_fallback(void)
{
    int fd = open(FALLBACK_PARENT, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || st.st_uid != 0 ||
        ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
        close(fd);
        return -1;
    }
    return fd;
}

int bundle_publish(struct report *r, struct bundle_target *t, char *where, size_t wn, char *err,
                   size_t n)
{
    char final[NAME_MAX + 1], why[PATH_MAX + 256];
    struct published pub = {.fd = -1};
    free(r->publish_note);
    r->publish_note = NULL;
    int rc = PLACE_NEXT;
    if (t->parent_fd >= 0)
        rc = publish_in(r, t->parent_fd, t->parent_shown, t->name, NULL, true, &pub, final,
                        sizeof final, why, sizeof why, err, n);
    else
        snprintf(why, sizeof why, "%s could not be used", t->parent_shown);
    if (rc < 0)
        return rc;
    if (rc == PLACE_OK) {
        snprintf(t->published, sizeof t->published, "%s", final);
        t->published_fd = pub.fd;
        t->placed_fd = fcntl(t->parent_fd, F_DUPFD_CLOEXEC, 0);
        if (t->placed_fd >= 0)
            snprintf(t->placed, sizeof t->placed, "%s", final);
        t->files = pub.files;
        t->nfiles = pub.nfiles;
        if (strcmp(final, t->name) == 0)
            snprintf(where, wn, "%s", t->shown);
        else
            snprintf(where, wn, "%s%s", t->shown, final + strlen(t->name));
        return 0;
    }
    /* The capture is never thrown away for the place's sake: fall back. */
    int fb = open_fallback();
    if (fb < 0) {
        snprintf(err, n, "%s; %s is not usable either; no bundle was published", why,
                 FALLBACK_PARENT);
        return -EACCES;
    }
    char why2[PATH_MAX + 256];
    char *note = xasprintf("not published as %s: %s; written to %s instead", t->shown, why,
                           FALLBACK_PARENT);
    rc = publish_in(r, fb, FALLBACK_PARENT, t->name, note, false, &pub, final, sizeof final,
                    why2, sizeof why2, err, n);
    free(note);
    if (rc == PLACE_OK) {
        /* not where it was asked: --archive and --keep leave it alone */
        close(pub.fd);
        free(pub.files);
        snprintf(t->placed, sizeof t->placed, "%s", final);
        t->placed_fd = fb;
        snprintf(where, wn, "%s/%s", FALLBACK_PARENT, final);
        return 0;
    }
    close(fb);
    if (rc > 0) {
        snprintf(err, n, "%s; and %s; no bundle was published", why, why2);
        rc = -EIO;
    }
    free(r->publish_note);
    r->publish_note = NULL;
    return rc;
}
