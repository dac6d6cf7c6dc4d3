/* Finding and loading bundles for perfreport history (see history_scan.h). */
#include "history_scan.h"
#include "../analyze/analyze.h"
#include "load.h"
#include "../util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A place in the scan: the path shown to people and the absolute one used
 * for links (NULL when it could not be resolved). */
struct where {
    const char *shown;
    const char *abs;
};

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    return xasprintf("%s%s%s", dir, n && dir[n - 1] == '/' ? "" : "/", name);
}

static bool has_manifest(int dfd)
{
    struct stat st;
    /* present in any form: a symlinked or odd manifest is the loader's to refuse */
    return fstatat(dfd, "manifest.json", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static void load_one(struct history *h, int dfd, const struct where *w)
{
    /* refusals count too: a directory of broken bundles costs no more */
    if (h->tried >= HISTORY_MAX_BUNDLES) {
        h->over_cap++;
        return;
    }
    struct stat dst;
    if (fstat(dfd, &dst) != 0) {
        history_skip(h, w->shown, strerror(errno));
        return;
    }
    for (size_t i = 0; i < h->nruns; i++) /* the runs so far: bounded by the cap */
        if (h->seen[i].dev == dst.st_dev && h->seen[i].ino == dst.st_ino) {
            char why[600];
            snprintf(why, sizeof why, "the same directory as %.500s, listed once",
                     h->runs[h->seen[i].run].path);
            history_skip(h, w->shown, why);
            return;
        }
    h->tried++;
    char err[PATH_MAX + 512];
    struct report *r = NULL;
    if (bundle_load_report_at(dfd, w->shown, HISTORY_MAX_REPORT, &r, err, sizeof err) != 0) {
        history_skip(h, w->shown, err);
        return;
    }
    if (thresholds_load(r, NULL, err, sizeof err) != 0) { /* the built-in table */
        history_skip(h, w->shown, err);
        report_free(r);
        return;
    }
    analyze_run(r);
    struct stat st;
    bool index = fstatat(dfd, "index.html", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
    h->seen = xrealloc(h->seen, (h->nruns + 1) * sizeof *h->seen);
    h->seen[h->nruns] = (struct history_seen){dst.st_dev, dst.st_ino, h->nruns};
    history_add_run(h, r, w->shown, w->abs, index);
    report_free(r);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entry names of directory dfd (not "." or ".." or hidden ones),
 * sorted so the page does not depend on the directory's order; NULL with
 * errno on failure.  *more is set when entries past the cap were left. */
static char **list_dir(int dfd, size_t *n, bool *more)
{
    int fd = dup(dfd);
    if (fd < 0)
        return NULL;
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    rewinddir(d);
    char **names = NULL;
    size_t cap = 0;
    *n = 0;
    *more = false;
    struct dirent *e;
    while ((errno = 0, e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (*n >= HISTORY_MAX_DIR_ENTRIES) {
            *more = true;
            break;
        }
        xgrow(&names, &cap, *n + 1, sizeof *names);
        names[(*n)++] = xstrdup(e->d_name);
    }
    int rerr = errno;
    closedir(d);
    if (rerr) {
        for (size_t i = 0; i < *n; i++)
            free(names[i]);
        free(names);
        errno = rerr;
        return NULL;
    }
    if (*n)
        qsort(names, *n, sizeof *names, cmp_name);
    return names ? names : xcalloc(1, sizeof *names);
}

/* Opens pfd/name as a directory without following a symlink.  Returns the
 * fd, -2 for a non-directory (passed over), or -1 after a skip. */
static int open_sub(struct history *h, int pfd, const char *name, const char *shown)
{
    struct stat st;
    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        history_skip(h, shown, strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        history_skip(h, shown, "a symbolic link: not followed");
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return -2;
    int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        history_skip(h, shown, errno == ELOOP || errno == ENOTDIR ? "replaced by a symbolic "
                                                                    "link: not followed"
                                                                  : strerror(errno));
        return -1;
    }
    return fd;
}

/* Directory dfd holds bundles, or (depth 0) per-host directories of them. */
static void scan_dir(struct history *h, int dfd, const struct where *w, int depth)
{
    size_t n;
    bool more;
    char **names = list_dir(dfd, &n, &more);
    if (!names) {
        history_skip(h, w->shown, strerror(errno));
        return;
    }
    if (more) {
        char why[160];
        snprintf(why, sizeof why, "more than %d entries: only the first %d (by name) were read",
                 HISTORY_MAX_DIR_ENTRIES, HISTORY_MAX_DIR_ENTRIES);
        history_skip(h, w->shown, why);
    }
    for (size_t i = 0; i < n; i++) {
        struct where sub = {join(w->shown, names[i]), w->abs ? join(w->abs, names[i]) : NULL};
        int fd = open_sub(h, dfd, names[i], sub.shown);
        if (fd >= 0) {
            if (has_manifest(fd)) {
                load_one(h, fd, &sub);
            } else if (depth == 0) {
                size_t before = h->nruns + h->nskipped + h->skipped_more + h->over_cap;
                scan_dir(h, fd, &sub, 1);
                if (h->nruns + h->nskipped + h->skipped_more + h->over_cap == before)
                    history_skip(h, sub.shown, "not a bundle (no manifest.json), and no bundle "
                                               "in it");
            } else {
                history_skip(h, sub.shown, "not a bundle: no manifest.json");
            }
            close(fd);
        }
        free((char *)sub.shown);
        free((char *)sub.abs);
        free(names[i]);
    }
    free(names);
}

void history_scan(struct history *h, char *const *dirs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *dir = dirs[i];
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            struct stat st;
            if (e == ELOOP || (e == ENOTDIR && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)))
                history_skip(h, dir, "a symbolic link: not followed (give the directory itself)");
            else
                history_skip(h, dir, strerror(e));
            continue;
        }
        /* for links only: the page may live elsewhere */
        char *abs = realpath(dir, NULL);
        struct where w = {dir, abs};
        if (has_manifest(fd))
            load_one(h, fd, &w);
        else
            scan_dir(h, fd, &w, 0);
        free(abs);
        close(fd);
    }
}
