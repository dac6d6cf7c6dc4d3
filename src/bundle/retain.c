#include "retain.h"
#include "load.h"
#include "../render/escape.h"
#include "../util/caller.h"
#include "../util/json_read.h"
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

#define STAMP_LEN 15 /* YYYYmmdd-HHMMSS */
/* Entries of the parent directory read: a year of hourly runs is 8,760. */
#define MAX_SCAN 1000000
/* Entries of one bundle: a real one has about a hundred files. */
#define MAX_BUNDLE_ENTRIES 4096

static bool digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) /* stops at a NUL: it is no digit */
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

bool retain_name_match(const char *prefix, const char *name, const char **stamp, int *suffix)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0)
        return false;
    const char *t = name + pl;
    if (!digits(t, 8) || t[8] != '-' || !digits(t + 9, 6))
        return false;
    const char *x = t + STAMP_LEN;
    int k = 0;
    if (*x == '.') { /* the publisher's ".1" ... ".99" */
        x++;
        if (*x < '1' || *x > '9')
            return false;
        k = *x++ - '0';
        if (*x >= '0' && *x <= '9')
            k = 10 * k + (*x++ - '0');
    }
    if (*x)
        return false;
    *stamp = t;
    *suffix = k;
    return true;
}

struct cand {
    char *name; /* owned */
    const char *stamp; /* inside name */
    int suffix;
};

static int cand_cmp(const struct cand *a, const struct cand *b)
{
    int c = memcmp(a->stamp, b->stamp, STAMP_LEN);
    return c ? c : (a->suffix > b->suffix) - (a->suffix < b->suffix);
}

int retain_name_cmp(const char *prefix, const char *a, const char *b)
{
    struct cand ca = {0}, cb = {0};
    if (!retain_name_match(prefix, a, &ca.stamp, &ca.suffix) ||
        !retain_name_match(prefix, b, &cb.stamp, &cb.suffix))
        return strcmp(a, b);
    return cand_cmp(&ca, &cb);
}

static int newest_first(const void *a, const void *b)
{
    return cand_cmp(b, a);
}

/* The names of prefix<time>[.N] in pfd, except `skip`; *n of them, owned. */
static struct cand *candidates(int pfd, const char *pshown, const char *prefix, const char *skip,
                               size_t *n)
{
    struct cand *c = NULL;
    size_t cap = 0;
    *n = 0;
    int d = dup(pfd);
    DIR *dir = d >= 0 ? fdopendir(d) : NULL;
    if (!dir) {
        term_printf(stderr, "perfreport: --keep: cannot list %s: %s", pshown, strerror(errno));
        if (d >= 0)
            close(d);
        return NULL;
    }
    rewinddir(dir); /* the dup shares the offset of earlier scans */
    struct dirent *e;
    long k = 0;
    for (; (e = readdir(dir)) && k < MAX_SCAN; k++) {
        struct cand x;
        if (!retain_name_match(prefix, e->d_name, &x.stamp, &x.suffix) ||
            strcmp(e->d_name, skip) == 0)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            c = xrealloc(c, cap * sizeof *c);
        }
        x.name = xstrdup(e->d_name);
        x.stamp = x.name + strlen(prefix);
        c[(*n)++] = x;
    }
    if (k == MAX_SCAN)
        term_printf(stderr, "perfreport: --keep: %s has more than %d entries; only the first "
                    "were considered", pshown, MAX_SCAN);
    closedir(dir);
    if (*n)
        qsort(c, *n, sizeof *c, newest_first);
    return c;
}

/* Whether the manifest names `name` in its "files" or "integrity" list. */
static bool listed(const struct json *man, const char *name)
{
    const struct json *files = json_get(man, "files");
    for (uint32_t i = 0; json_is(files, JSON_ARR) && i < files->n; i++) {
        const char *s = json_str(&files->u.items[i]);
        if (s && strcmp(s, name) == 0)
            return true;
    }
    const struct json *integ = json_get(man, "integrity");
    for (uint32_t i = 0; json_is(integ, JSON_ARR) && i < integ->n; i++) {
        const char *s = json_str(json_get(&integ->u.items[i], "name"));
        if (s && strcmp(s, name) == 0)
            return true;
    }
    return false;
}

/* A bundle we may remove, opened. */
struct victim {
    int dfd;       /* owned, -1 when closed */
    dev_t dev;
    ino_t ino;
    char **files;  /* owned: every entry, each a regular file the manifest lists */
    size_t nfiles;
};

static void victim_free(struct victim *v)
{
    if (v->dfd >= 0)
        close(v->dfd);
    v->dfd = -1;
    for (size_t i = 0; i < v->nfiles; i++)
        free(v->files[i]);
    free(v->files);
    v->files = NULL;
    v->nfiles = 0;
}

/* Lists the bundle's entries into v; each must be a regular file that the
 * manifest lists (manifest.json itself included).  0, or -1 with why. */
static int scan_entries(struct victim *v, const struct json *man, char *why, size_t wn)
{
    int d = dup(v->dfd);
    DIR *dir = d >= 0 ? fdopendir(d) : NULL;
    if (!dir) {
        snprintf(why, wn, "cannot list it: %s", strerror(errno));
        if (d >= 0)
            close(d);
        return -1;
    }
    size_t cap = 0;
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(dir))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        struct stat st;
        if (v->nfiles == MAX_BUNDLE_ENTRIES) {
            snprintf(why, wn, "it holds more than %d entries", MAX_BUNDLE_ENTRIES);
            rc = -1;
        } else if (strcmp(e->d_name, "manifest.json") != 0 && !listed(man, e->d_name)) {
            snprintf(why, wn, "it holds %.200s, which its manifest does not list", e->d_name);
            rc = -1;
        } else if (fstatat(v->dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
                   !S_ISREG(st.st_mode)) {
            snprintf(why, wn, "its %.200s is not a regular file", e->d_name);
            rc = -1;
        } else {
            if (v->nfiles == cap) {
                cap = cap ? 2 * cap : 128;
                v->files = xrealloc(v->files, cap * sizeof *v->files);
            }
            v->files[v->nfiles++] = xstrdup(e->d_name);
        }
    }
    closedir(dir);
    return rc;
}

/* Whether pfd/name is a bundle we may remove: a real directory owned by
 * us, with perfreport's manifest, holding only the files it lists.
 * 0 with v filled (the caller victim_frees it), or -1 with why. */
static int examine(int pfd, const char *name, struct victim *v, char *why,
                   size_t wn)
{
    struct stat st, dst;
    v->dfd = -1;
    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        snprintf(why, wn, "%s", strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
        snprintf(why, wn, "it is %s, not a directory",
                 S_ISLNK(st.st_mode) ? "a symbolic link" : "a file");
        return -1;
    }
    if (st.st_uid != fs_uid()) {
        snprintf(why, wn, "it is owned by uid %u, not by this user", (unsigned)st.st_uid);
        return -1;
    }
    v->dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (v->dfd < 0) {
        snprintf(why, wn, "%s", strerror(errno));
        return -1;
    }
    /* the name may have been swapped since the fstatat: judge what we hold */
    if (fstat(v->dfd, &dst) != 0 || !S_ISDIR(dst.st_mode) || dst.st_uid != fs_uid() ||
        dst.st_dev != st.st_dev || dst.st_ino != st.st_ino) {
        snprintf(why, wn, "it changed while it was examined");
        victim_free(v);
        return -1;
    }
    v->dev = dst.st_dev;
    v->ino = dst.st_ino;
    char err[PATH_MAX + 512];
    struct json *man = NULL;
    /* the caller's message names pshown/name already */
    if (bundle_manifest_read(v->dfd, name, &man, err, sizeof err) != 0) {
        snprintf(why, wn, "not a perfreport bundle (%s)", err);
        victim_free(v);
        return -1;
    }
    int rc = scan_entries(v, man, why, wn);
    json_free(man);
    if (rc != 0)
        victim_free(v);
    return rc;
}

/* Removes the examined bundle: its files by its own fd (manifest.json
 * last, so that a removal cut short is still a bundle the next run can
 * finish), then the name if it still is that directory.  0 or -errno. */
static int remove_victim(int pfd, const char *name, struct victim *v)
{
    int rc = 0;
    for (size_t i = 0; i < v->nfiles; i++)
        if (strcmp(v->files[i], "manifest.json") != 0 && unlinkat(v->dfd, v->files[i], 0) != 0 &&
            errno != ENOENT && !rc)
            rc = -errno;
    if (rc == 0 && unlinkat(v->dfd, "manifest.json", 0) != 0 && errno != ENOENT)
        rc = -errno;
    if (rc != 0)
        return rc;
    struct stat st;
    if (fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_dev != v->dev || st.st_ino != v->ino)
        return -ESTALE; /* renamed away meanwhile: the new holder of the name is not ours */
    if (unlinkat(pfd, name, AT_REMOVEDIR) != 0)
        return -errno; /* ENOTEMPTY: someone added a file meanwhile; left */
    return 0;
}

void bundle_retain(int pfd, const char *pshown, const char *prefix, const char *just_written,
                   unsigned keep, struct retain_result *res)
{
    memset(res, 0, sizeof *res);
    size_t n;
    struct cand *c = candidates(pfd, pshown, prefix, just_written, &n);
    unsigned kept = 1; /* the bundle just written */
    for (size_t i = 0; i < n; i++) {
        struct victim v = {.dfd = -1};
        char why[PATH_MAX + 1024];
        if (examine(pfd, c[i].name, &v, why, sizeof why) != 0) {
            if (kept >= keep) {
                res->skipped++;
                term_printf(stderr, "perfreport: --keep: left %s/%s alone: %s", pshown,
                            c[i].name, why);
            }
        } else if (kept < keep) {
            kept++;
        } else {
            int rc = remove_victim(pfd, c[i].name, &v);
            if (rc == 0) {
                res->removed++;
            } else {
                res->failed++;
                term_printf(stderr, "perfreport: --keep: could not remove the old bundle %s/%s: "
                            "%s", pshown, c[i].name,
                            rc == -ESTALE ? "it was renamed while it was removed"
                            : rc == -ENOTEMPTY ? "something was added to it while it was removed"
                                               : strerror(-rc));
            }
        }
        victim_free(&v);
        free(c[i].name);
    }
    free(c);
}
