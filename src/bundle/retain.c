#include "retain.h"
#include "bundle.h"
#include "../util/clock.h"
#include "../replay/load.h"
#include "../render/escape.h"
#include "../util/caller.h"
#include "../util/json_read.h"
#include "../util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STAMP_LEN 15 /* YYYYmmdd-HHMMSS */
/* Names like this host's bundles considered: a year of hourly runs is 8,760. */
#define MAX_CANDIDATES 100000
/* Entries of one bundle: a real one has about a hundred files. */
#define MAX_BUNDLE_ENTRIES 4096
/* Lines on stderr about names left alone or removals that failed; the rest
 * are counted in one more line. */
#define MAX_NOTES 10

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
    struct timespec t; /* the window start its manifest records */
    dev_t dev;
    ino_t ino;
    bool ours;         /* examined: a bundle we may remove */
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

/* Newest first by the time recorded in the bundle, then by name. */
static int newest_first(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    if (x->t.tv_sec != y->t.tv_sec)
        return x->t.tv_sec < y->t.tv_sec ? 1 : -1;
    if (x->t.tv_nsec != y->t.tv_nsec)
        return x->t.tv_nsec < y->t.tv_nsec ? 1 : -1;
    return cand_cmp(y, x);
}

/* The names of prefix<time>[.N] in pfd, except `skip`; *n of them, owned,
 * and *whole true.  *whole false (nothing returned, the reason said) when
 * the directory cannot be read whole (more than max_scan entries, or more
 * candidates than MAX_CANDIDATES): a part of it could keep the wrong
 * bundles. */
static struct cand *candidates(int pfd, const char *pshown, const char *prefix, const char *skip,
                               size_t max_scan, size_t *n, bool *whole)
{
    struct cand *c = NULL;
    size_t cap = 0;
    *n = 0;
    *whole = false;
    int d = dup(pfd);
    DIR *dir = d >= 0 ? fdopendir(d) : NULL;
    if (!dir) {
        term_printf(stderr, "perfreport: --keep: nothing removed: cannot list %s: %s", pshown,
                    strerror(errno));
        if (d >= 0)
            close(d);
        return NULL;
    }
    rewinddir(dir); /* the dup shares the offset of earlier scans */
    struct dirent *e;
    size_t k = 0;
    bool all = true;
    errno = 0;
    while ((e = readdir(dir))) {
        if (++k > max_scan || *n == MAX_CANDIDATES) {
            all = false;
            break;
        }
        struct cand x = {0};
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
    int e_read = e ? 0 : errno;
    closedir(dir);
    if (all && e_read == 0) {
        *whole = true;
        return c;
    }
    if (!all)
        term_printf(stderr, "perfreport: --keep: nothing removed: %s holds more than %zu entries "
                    "(or %d bundles of this host); retention must see them all",
                    pshown, max_scan, MAX_CANDIDATES);
    else
        term_printf(stderr, "perfreport: --keep: nothing removed: cannot list %s: %s", pshown,
                    strerror(e_read));
    for (size_t i = 0; i < *n; i++)
        free(c[i].name);
    free(c);
    *n = 0;
    return NULL;
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

/* Lists the bundle's entries into v; each must be a regular file of ours
 * with one link that the manifest lists (manifest.json itself included).
 * 0, or -1 with why. */
static int scan_entries(struct victim *v, const struct json *man, char *why, size_t wn)
{
    uid_t me = fs_uid();
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
        } else if (st.st_uid != me) {
            snprintf(why, wn, "its %.200s is owned by uid %u, not by this user", e->d_name,
                     (unsigned)st.st_uid);
            rc = -1;
        } else if (st.st_nlink != 1) {
            /* a hard link: unlinking the name would not remove the file,
             * which may be someone else's */
            snprintf(why, wn, "its %.200s has %ju links", e->d_name, (uintmax_t)st.st_nlink);
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

/* Whether pfd/name is a bundle we may remove: a real directory as the
 * publisher makes it (ours, mode 0700), with perfreport's manifest
 * recording its window start, holding only files of ours that it lists.
 * 0 with v filled and *t the recorded start (the caller victim_frees v), or
 * -1 with why. */
static int examine(int pfd, const char *name, struct victim *v, struct timespec *t, char *why,
                   size_t wn)
{
    struct stat st, dst;
    uid_t me = fs_uid();
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
    if (st.st_uid != me) {
        snprintf(why, wn, "it is owned by uid %u, not by this user", (unsigned)st.st_uid);
        return -1;
    }
    /* Only we can change what a 0700 directory of ours holds; one that
     * others may write (a sticky 1777 one) holds their files too. */
    if ((st.st_mode & 07777) != 0700) {
        snprintf(why, wn, "its mode is %04o, not the 0700 perfreport makes",
                 (unsigned)(st.st_mode & 07777));
        return -1;
    }
    v->dfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (v->dfd < 0) {
        snprintf(why, wn, "%s", strerror(errno));
        return -1;
    }
    /* the name may have been swapped since the fstatat: judge what we hold */
    if (fstat(v->dfd, &dst) != 0 || !S_ISDIR(dst.st_mode) || dst.st_uid != me ||
        (dst.st_mode & 07777) != 0700 || dst.st_dev != st.st_dev || dst.st_ino != st.st_ino) {
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
    if (!bundle_manifest_start(man, t)) {
        snprintf(why, wn, "its manifest records no window start");
        json_free(man);
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

/* Says why a name was left alone or a removal failed, up to MAX_NOTES
 * lines; the rest are counted for one line at the end. */
struct notes {
    unsigned shown, more;
};

static void note(struct notes *nt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct notes *nt, const char *fmt, ...)
{
    if (nt->shown == MAX_NOTES) {
        nt->more++;
        return;
    }
    nt->shown++;
    char line[PATH_MAX + 1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    term_printf(stderr, "%s", line);
}

/* Users other than us (and root) may write in it: they could rename our
 * bundles (choosing which go) or slip their directories in. */
static bool others_may_write(const struct stat *st, uid_t me)
{
    return (st->st_mode & (S_IWGRP | S_IWOTH)) || (st->st_uid != me && st->st_uid != 0);
}

void bundle_retain(int pfd, const char *pshown, const char *prefix, const char *just_written,
                   unsigned keep, struct retain_result *res)
{
    retain_bounded(pfd, pshown, prefix, just_written, keep, RETAIN_MAX_SCAN, res);
}

void retain_bounded(int pfd, const char *pshown, const char *prefix, const char *just_written,
                    unsigned keep, size_t max_scan, struct retain_result *res)
{
    memset(res, 0, sizeof *res);
    uid_t me = fs_uid();
    struct stat pst, jst;
    if (fstat(pfd, &pst) != 0) {
        term_printf(stderr, "perfreport: --keep: nothing removed: %s: %s", pshown,
                    strerror(errno));
        res->refused = true;
        return;
    }
    if (others_may_write(&pst, me)) {
        term_printf(stderr, "perfreport: --keep: nothing removed: other users can write in %s "
                    "(owner uid %u, mode %04o), so its names cannot be trusted; keep bundles "
                    "in a directory only uid %u can write", pshown, (unsigned)pst.st_uid,
                    (unsigned)(pst.st_mode & 07777), (unsigned)me);
        res->refused = true;
        return;
    }
    bool have_just = fstatat(pfd, just_written, &jst, AT_SYMLINK_NOFOLLOW) == 0;
    size_t n;
    bool whole;
    struct cand *c = candidates(pfd, pshown, prefix, just_written, max_scan, &n, &whole);
    if (!whole) {
        res->refused = true;
        return;
    }
    struct notes nt = {0};
    /* Each name is judged, and its recorded time read, before any goes:
     * the order is the bundles' own, not their names'. */
    for (size_t i = 0; i < n; i++) {
        struct victim v = {.dfd = -1};
        char why[PATH_MAX + 1024];
        if (examine(pfd, c[i].name, &v, &c[i].t, why, sizeof why) != 0) {
            res->skipped++;
            note(&nt, "perfreport: --keep: left %s/%s alone: %s", pshown, c[i].name, why);
        } else if (have_just && v.dev == jst.st_dev && v.ino == jst.st_ino) {
            /* the bundle just written, under another name meanwhile */
        } else {
            c[i].ours = true;
            c[i].dev = v.dev;
            c[i].ino = v.ino;
        }
        victim_free(&v);
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (c[i].ours)
            c[m++] = c[i];
        else
            free(c[i].name);
    }
    if (m > 1)
        qsort(c, m, sizeof *c, newest_first);
    unsigned kept = 1; /* the bundle just written */
    for (size_t i = 0; i < m; i++) {
        if (kept < keep) {
            kept++;
            continue;
        }
        struct victim v = {.dfd = -1};
        struct timespec t;
        char why[PATH_MAX + 1024];
        int rc;
        /* judged again: it goes only if it still is what was judged */
        if (examine(pfd, c[i].name, &v, &t, why, sizeof why) != 0 || v.dev != c[i].dev ||
            v.ino != c[i].ino)
            rc = -ESTALE;
        else
            rc = remove_victim(pfd, c[i].name, &v);
        if (rc == 0) {
            res->removed++;
        } else {
            res->failed++;
            note(&nt, "perfreport: --keep: could not remove the old bundle %s/%s: %s", pshown,
                 c[i].name,
                 rc == -ESTALE ? "it changed while it was removed"
                 : rc == -ENOTEMPTY ? "something was added to it while it was removed"
                                    : strerror(-rc));
        }
        victim_free(&v);
    }
    if (nt.more)
        term_printf(stderr, "perfreport: --keep: and %u more names like old bundles in %s were "
                    "left alone or could not be removed", nt.more, pshown);
    for (size_t i = 0; i < m; i++)
        free(c[i].name);
    free(c);
}

void bundle_keep_published(const struct report *r, const struct bundle_target *target,
                           unsigned keep, bool verbose, struct retain_result *res)
{
    if (!target->published[0]) {
        term_printf(stderr, "perfreport: --keep: nothing removed: the bundle was not published "
                    "in %s", target->parent_shown);
        return;
    }
    char prefix[96];
    bundle_name_prefix(r, prefix, sizeof prefix);
    double t_keep = mono_ms();
    bundle_retain(target->parent_fd, target->parent_shown, prefix, target->published, keep, res);
    if (verbose)
        fprintf(stderr, "perfreport: --keep %u: %u removed, %u left alone, %u failed, %.1f ms\n",
                keep, res->removed, res->skipped, res->failed, mono_ms() - t_keep);
}
