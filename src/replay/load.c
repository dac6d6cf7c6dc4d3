#include "load.h"
#include "../codec/report_json.h"
#include "../codec/report_json_read.h"
#include "../model/model.h"
#include "../model/profile.h"
#include "../model/profile_sites.h"
#include "../render/charts.h"
#include "../codec/profile_time_text.h"
#include "../flame/folded.h"
#include "../util/json_read.h"
#include "../util/sha256.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- the bundle directory -------------------------------------------------- */

/* Profiles a bundle may name, capped as report.json's other entries are
 * (codec/report_json_read.c). */
#define MAX_PROFILES 64

struct bl {
    int dfd;
    const char *dir; /* as given, for messages */
    char *err;
    size_t errlen;
    const struct json *integrity; /* manifest.json's list */
};

static int bl_fail(struct bl *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bl_fail(struct bl *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, b->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* dir/name opened for reading: a regular file (not a symlink, FIFO or
 * device) of at most max bytes, its size in *size.  The fd, or -errno
 * (-ENOENT when absent) after a message. */
static int open_in(struct bl *b, const char *name, size_t max, size_t *size)
{
    int fd = openat(b->dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP)
            bl_fail(b, "%s/%s is a symbolic link: refused", b->dir, name);
        else
            bl_fail(b, "%s/%s: %s", b->dir, name, strerror(e));
        return -e;
    }
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0) {
        rc = -errno;
        bl_fail(b, "%s/%s: %s", b->dir, name, strerror(-rc));
    } else if (!S_ISREG(st.st_mode)) {
        rc = -EINVAL;
        bl_fail(b, "%s/%s is not a regular file: refused", b->dir, name);
    } else if ((unsigned long long)st.st_size > max) {
        rc = -EFBIG;
        bl_fail(b, "%s/%s is larger than %zu MiB: refused", b->dir, name, max >> 20);
    }
    if (rc) {
        close(fd);
        return rc;
    }
    *size = (size_t)st.st_size;
    return fd;
}

/* Up to want bytes of fd into buf; 0 at the end, -errno after a message. */
static ssize_t read_some(struct bl *b, int fd, const char *name, char *buf, size_t want)
{
    for (;;) {
        ssize_t got = read(fd, buf, want);
        if (got >= 0)
            return got;
        if (errno != EINTR) {
            int e = errno;
            bl_fail(b, "%s/%s: %s", b->dir, name, strerror(e));
            return -e;
        }
    }
}

/* dir/name into out (open_in's rules): read to the end, never past max
 * (the file may still grow), into one buffer of the size fstat gave.
 * -errno (-ENOENT when absent) after a message. */
static int read_in(struct bl *b, const char *name, size_t max, struct strbuf *out)
{
    sb_reset(out);
    size_t expect;
    int fd = open_in(b, name, max, &expect);
    if (fd < 0)
        return fd;
    int rc = 0;
    for (;;) {
        if (out->len + 1 >= out->cap) { /* the size first; a file that grows gets more */
            size_t cap = out->cap ? out->cap + (1u << 20) : expect + 2;
            out->buf = xrealloc(out->buf, cap);
            out->cap = cap;
        }
        size_t want = out->cap - out->len - 1;
        if (want > max + 1 - out->len)
            want = max + 1 - out->len;
        ssize_t got = read_some(b, fd, name, out->buf + out->len, want);
        if (got < 0)
            rc = (int)got;
        if (got <= 0)
            break;
        out->len += (size_t)got;
        out->buf[out->len] = '\0';
        if (out->len > max) {
            rc = -EFBIG;
            bl_fail(b, "%s/%s is larger than %zu MiB: refused", b->dir, name, max >> 20);
            break;
        }
    }
    close(fd);
    return rc;
}

/* The manifest's size and SHA-256 of name (a file of at most max bytes): a
 * file the manifest does not vouch for is not used.  -1 after a message. */
static int vouched(struct bl *b, const char *name, size_t max, long long *size, const char **hex)
{
    const struct json *ent = NULL;
    for (uint32_t i = 0; i < b->integrity->n; i++) {
        const struct json *it = &b->integrity->u.items[i];
        const char *n = json_str(json_get(it, "name"));
        if (!n || strcmp(n, name) != 0)
            continue;
        if (ent)
            return bl_fail(b, "%s/manifest.json lists %s twice: refused", b->dir, name);
        ent = it;
    }
    if (!ent)
        return bl_fail(b, "%s/manifest.json does not list %s with its checksum: refused", b->dir,
                       name);
    *hex = json_str(json_get(ent, "sha256"));
    if (!json_int(json_get(ent, "size"), 0, (long long)max, size) || !*hex || strlen(*hex) != 64)
        return bl_fail(b, "%s/manifest.json: the entry of %s has no usable size and sha256", b->dir,
                       name);
    return 0;
}

/* Whether len bytes hashed to d are what the manifest says; -1 after a
 * message when not. */
static int check_digest(struct bl *b, const char *name, size_t len, long long size,
                        const uint8_t d[32], const char *hex)
{
    if (len != (size_t)size)
        return bl_fail(b,
                       "%s/%s is %zu bytes, but manifest.json says %lld: the file was "
                       "truncated or changed after the bundle was written; refused",
                       b->dir, name, len, size);
    char got[65];
    for (int i = 0; i < 32; i++)
        snprintf(got + 2 * i, 3, "%02x", d[i]);
    if (strcmp(got, hex) != 0)
        return bl_fail(b,
                       "%s/%s does not match its SHA-256 in manifest.json: the file was "
                       "changed after the bundle was written; refused",
                       b->dir, name);
    return 0;
}

/* dir/name read whole and checked against its size and SHA-256. */
static int read_checked(struct bl *b, const char *name, size_t max, struct strbuf *out)
{
    long long size;
    const char *hex;
    if (vouched(b, name, max, &size, &hex) != 0 || read_in(b, name, max, out) != 0)
        return -1;
    uint8_t d[32];
    sha256(out->buf ? out->buf : "", out->len, d);
    return check_digest(b, name, out->len, size, d, hex);
}

/* dir/name (at most max bytes, vouched for by the manifest, whose size goes
 * to *size first) fed to fn a line at a time as it is read, without its
 * "\n", and checked against its size and SHA-256 at the end: the caller
 * throws away what fn made when this fails.  Only a line (at most
 * BUNDLE_MAX_LINE bytes: a longer one fails) and a read buffer are held,
 * never the file. */
static int stream_checked(struct bl *b, const char *name, size_t max, long long *size,
                          void (*fn)(void *ctx, const char *line, size_t len, size_t lineno),
                          void *ctx)
{
    const char *hex;
    size_t expect;
    if (vouched(b, name, max, size, &hex) != 0)
        return -1;
    int fd = open_in(b, name, max, &expect);
    if (fd < 0)
        return -1;
    enum { CHUNK_BYTES = 1 << 20 };
    char *chunk = xmalloc(CHUNK_BYTES);
    struct strbuf part = STRBUF_INIT; /* a line that spans reads */
    struct sha256 h;
    sha256_init(&h);
    size_t total = 0, lineno = 0;
    int rc = 0;
    while (rc == 0) {
        ssize_t got = read_some(b, fd, name, chunk, CHUNK_BYTES);
        if (got < 0)
            rc = -1;
        if (got <= 0)
            break;
        sha256_update(&h, chunk, (size_t)got);
        total += (size_t)got;
        if (total > max) {
            rc = bl_fail(b, "%s/%s is larger than %zu MiB: refused", b->dir, name, max >> 20);
            break;
        }
        const char *s = chunk, *end = chunk + got;
        while (s < end) {
            const char *nl = memchr(s, '\n', (size_t)(end - s));
            const char *le = nl ? nl : end;
            if (part.len + (size_t)(le - s) > BUNDLE_MAX_LINE) {
                rc = bl_fail(b, "%s/%s line %zu is longer than %u KiB: refused", b->dir, name,
                             lineno + 1, BUNDLE_MAX_LINE >> 10);
                break;
            }
            if (!nl) {
                sb_addn(&part, s, (size_t)(le - s));
                break;
            }
            if (part.len) {
                sb_addn(&part, s, (size_t)(le - s));
                fn(ctx, part.buf, part.len, ++lineno);
                sb_reset(&part);
            } else {
                fn(ctx, s, (size_t)(le - s), ++lineno);
            }
            s = nl + 1;
        }
    }
    if (rc == 0 && part.len)
        fn(ctx, part.buf, part.len, ++lineno);
    close(fd);
    free(chunk);
    sb_free(&part);
    if (rc)
        return -1;
    uint8_t d[32];
    sha256_final(&h, d);
    return check_digest(b, name, total, *size, d, hex);
}

/* Whether the manifest's integrity list names the file. */
static bool manifest_lists(const struct bl *b, const char *name)
{
    for (uint32_t i = 0; i < b->integrity->n; i++) {
        const char *n = json_str(json_get(&b->integrity->u.items[i], "name"));
        if (n && strcmp(n, name) == 0)
            return true;
    }
    return false;
}

/* The run's pprof file of p, when the manifest lists one, kept for the
 * renderer to write as it is: it carries the addresses, mappings, source
 * lines and process labels that the folded file does not.  Its bytes are
 * only copied, never parsed.  -1 after a message (checksum, size, a
 * symbolic link). */
static int keep_pprof(struct bl *b, struct profile *p)
{
    char name[512];
    flame_filename(p, "pb.gz", name, sizeof name);
    if (!manifest_lists(b, name))
        return 0; /* an older bundle: encoded again from the folded file */
    /* removed since (an export, which a kept bundle may be trimmed of):
     * encoded again too, with names and counts only; a diff or --baseline
     * needs none of it */
    struct stat st;
    if (fstatat(b->dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
        return 0;
    struct strbuf gz = STRBUF_INIT;
    int rc = read_checked(b, name, BUNDLE_MAX_PPROF, &gz);
    if (rc == 0)
        profile_keep_pprof(p, gz.buf ? gz.buf : "", gz.len);
    sb_free(&gz);
    return rc ? -1 : 0;
}

/* The run's <profile>.time (its stacks per second), when the manifest lists
 * it, read into p->time.  The file is checked against the manifest and then
 * parsed as hostile text (profile_time_text.h); -1 after a message. */
static int keep_time(struct bl *b, struct profile *p)
{
    char name[512];
    flame_filename(p, "time", name, sizeof name);
    if (!manifest_lists(b, name))
        return 0; /* a bundle from before per-second stacks */
    struct strbuf text = STRBUF_INIT;
    int rc = read_checked(b, name, PROFILE_TIME_MAX_FILE, &text);
    if (rc == 0) {
        char why[256];
        if (profile_time_read(p, text.buf ? text.buf : "", text.len, why, sizeof why) != 0)
            rc = bl_fail(b, "%s/%s: %s: refused", b->dir, name, why);
    }
    sb_free(&text);
    return rc ? -1 : 0;
}

/* A profile to load: report.json's entry (or the manifest's file). */
struct pspec {
    char *name, *title, *unit, *file; /* owned */
    double total;                     /* NAN: not said */
};

static void pspecs_free(struct pspec *ps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(ps[i].name);
        free(ps[i].title);
        free(ps[i].unit);
        free(ps[i].file);
    }
    free(ps);
}

struct fold_ctx {
    struct folded_parser fp;
    bool sized;            /* the profile's bounds are set */
    const long long *size; /* the file's, as the manifest says */
};

static void fold_line(void *ctx, const char *line, size_t len, size_t lineno)
{
    struct fold_ctx *c = ctx;
    if (!c->sized) {
        uint32_t cap = BUNDLE_PROFILE_NODES((size_t)*c->size);
        profile_set_bounds(c->fp.p, cap, cap);
        c->sized = true;
    }
    folded_line(&c->fp, line, len, lineno);
}

/* One profile from its .folded file, streamed; NULL after a message. */
static struct profile *load_profile(struct bl *b, const struct pspec *ps)
{
    struct profile *p = profile_new(ps->name, ps->title, ps->unit);
    long long size = 0;
    struct fold_ctx c = {.size = &size};
    folded_init(&c.fp, p);
    /* perfreport's own conventions for the kinds folded text cannot spell */
    c.fp.bundle_kinds = true;
    profile_bulk_limit(c.fp.bulk, BUNDLE_BULK_IDS);
    int rc = stream_checked(b, ps->file, BUNDLE_MAX_FOLDED, &size, fold_line, &c);
    folded_finish(&c.fp);
    const struct flame_parse_stats *st = &c.fp.st;
    if (rc != 0)
        goto bad;
    if (st->malformed || st->mixed || p->base) {
        if (st->nbad)
            bl_fail(b, "%s/%s line %zu: %s", b->dir, ps->file, st->bad_line[0], st->bad_why[0]);
        else
            bl_fail(b, "%s/%s is not perfreport's folded stacks", b->dir, ps->file);
        goto bad;
    }
    if (profile_over_bounds(p)) {
        bl_fail(b, "%s/%s holds more than %u distinct frames or names for its %lld bytes: "
                   "refused", b->dir, ps->file, (unsigned)BUNDLE_PROFILE_NODES((size_t)size),
                size);
        goto bad;
    }
    if (!isnan(ps->total) && (double)profile_total(p) != ps->total) {
        bl_fail(b, "%s/%s holds %llu, but report.json says %.0f: refused", b->dir, ps->file,
                (unsigned long long)profile_total(p), ps->total);
        goto bad;
    }
    if (keep_pprof(b, p) == 0 && keep_time(b, p) == 0)
        return p;
bad:
    profile_free(p);
    return NULL;
}

/* The profiles to load: named by report.json's "profiles"; a bundle written
 * before it had them lists its .folded files in the manifest's "files".
 * Taken from the trees before they go, so that the profiles are loaded
 * without them.  -1 after a message. */
static int profile_specs(struct bl *b, const struct json *root, const struct json *manifest,
                         struct pspec **out, size_t *nout)
{
    struct pspec *ps = xcalloc(MAX_PROFILES, sizeof *ps);
    size_t n = 0;
    const struct json *list = json_get(root, "profiles");
    *out = NULL;
    *nout = 0;
    if (list && list->type != JSON_ARR) {
        bl_fail(b, "%s/report.json: \"profiles\" is %s, expected an array", b->dir,
                json_type_name(list->type));
        goto bad;
    }
    if (list && list->n > MAX_PROFILES) {
        bl_fail(b, "%s/report.json: %u profiles, more than the %u a bundle may have: refused",
                b->dir, list->n, MAX_PROFILES);
        goto bad;
    }
    for (uint32_t i = 0; list && i < list->n; i++) {
        const struct json *it = &list->u.items[i];
        const char *name = json_str(json_get(it, "name")), *file = json_str(json_get(it, "file"));
        const char *title = json_str(json_get(it, "title")), *unit = json_str(json_get(it, "unit"));
        double total = NAN;
        if (!name || !*name || !file || (unit && !ld_plain_unit(unit)) ||
            (json_get(it, "total") && !json_num_or_null(json_get(it, "total"), &total))) {
            bl_fail(b, "%s/report.json: profiles[%u] is not {name, title, unit, file, total}",
                    b->dir, i);
            goto bad;
        }
        struct profile probe = {.name = (char *)name};
        char want[512];
        flame_filename(&probe, "folded", want, sizeof want);
        if (strcmp(want, file) != 0) { /* only the name the writer gives it */
            bl_fail(b, "%s/report.json: profile \"%.80s\" names the file \"%.80s\", expected \"%s\"",
                    b->dir, name, file, want);
            goto bad;
        }
        for (size_t k = 0; k < n; k++)
            if (strcmp(ps[k].name, name) == 0) {
                bl_fail(b, "%s/report.json: profile \"%.80s\" appears twice", b->dir, name);
                goto bad;
            }
        ps[n++] = (struct pspec){xstrdup(name), xstrdup(title ? title : name),
                                 xstrdup(unit ? unit : ""), xstrdup(file), total};
    }
    static const struct {
        const char *name, *title, *unit;
    } known[] = {{"cpu", "On-CPU profile", "samples"}, {"offcpu", "Off-CPU time", "us"}};
    const struct json *files = list ? NULL : json_get(manifest, "files");
    for (uint32_t i = 0; files && files->type == JSON_ARR && i < files->n; i++) {
        const char *f = json_str(&files->u.items[i]);
        size_t len = f ? strlen(f) : 0;
        if (len <= 7 || len > 200 || strcmp(f + len - 7, ".folded") != 0 || strchr(f, '/') ||
            f[0] == '.')
            continue;
        char name[208];
        snprintf(name, sizeof name, "%.*s", (int)(len - 7), f);
        const char *title = name, *unit = "samples";
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            if (strcmp(known[k].name, name) == 0)
                title = known[k].title, unit = known[k].unit;
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++)
            seen = strcmp(ps[k].name, name) == 0;
        if (seen)
            continue;
        if (n >= MAX_PROFILES) {
            bl_fail(b, "%s/manifest.json: more than %u .folded files: refused", b->dir,
                    MAX_PROFILES);
            goto bad;
        }
        ps[n++] = (struct pspec){xstrdup(name), xstrdup(title), xstrdup(unit), xstrdup(f), NAN};
    }
    *out = ps;
    *nout = n;
    return 0;
bad:
    pspecs_free(ps, n);
    return -1;
}

/* manifest.json: a perfreport manifest of a schema this program reads,
 * with its integrity list. */
static int check_manifest(struct bl *b, const struct json *m, long long *schema)
{
    char where[PATH_MAX + 32];
    snprintf(where, sizeof where, "%s/manifest.json", b->dir);
    struct ld l = {.where = where, .err = b->err, .errlen = b->errlen};
    if (m->type != JSON_OBJ)
        return ld_bad(&l, "the top level is %s, not a perfreport manifest",
                      json_type_name(m->type));
    const char *tool = json_str(json_get(json_get(m, "tool"), "name"));
    if (!tool || strcmp(tool, "perfreport") != 0)
        return ld_bad(&l, "not a perfreport manifest (no \"tool\": {\"name\": \"perfreport\"})");
    if (ld_check_schema(&l, m, schema) != 0)
        return -1;
    b->integrity = json_get(m, "integrity");
    if (!json_is(b->integrity, JSON_ARR))
        return ld_bad(&l, "no \"integrity\" list (sizes and SHA-256 of the files): refused");
    return 0;
}

int bundle_manifest_read(int dfd, const char *shown, struct json **out, char *err, size_t errlen)
{
    struct bl b = {.dfd = dfd, .dir = shown, .err = err, .errlen = errlen};
    struct strbuf text = STRBUF_INIT;
    struct json *man = NULL;
    char jerr[256];
    long long schema;
    *out = NULL;
    int e = read_in(&b, "manifest.json", BUNDLE_MAX_MANIFEST, &text);
    if (e == -ENOENT)
        bl_fail(&b, "%s has no manifest.json", shown);
    if (e != 0) {
        sb_free(&text);
        return -1;
    }
    if (json_parse_bounded(text.buf ? text.buf : "", text.len, BUNDLE_TREE_MEM(text.len), &man,
                           jerr, sizeof jerr) != 0) {
        bl_fail(&b, "%s/manifest.json: %s", shown, jerr);
        sb_free(&text);
        return -1;
    }
    sb_free(&text);
    if (check_manifest(&b, man, &schema) != 0) {
        json_free(man);
        return -1;
    }
    *out = man;
    return 0;
}

bool bundle_manifest_start(const struct json *man, struct timespec *out)
{
    const struct json *w = json_get(man, "window");
    const char *start = json_str(json_get(w, "start"));
    long long ns = 0;
    time_t t;
    if (!start || !parse_iso8601_utc(start, &t) ||
        (json_get(w, "start_ns") && !json_int(json_get(w, "start_ns"), 0, 999999999, &ns)))
        return false;
    out->tv_sec = t;
    out->tv_nsec = (long)ns;
    return true;
}

/* Everything after the directory is open: manifest.json, report.json
 * (at most max_report bytes, checked against the manifest) and, with
 * `profiles`, the .folded files, once report.json's text and tree are
 * gone: besides the model, one file's worth is held at a time. */
static int load_opened(struct bl *b, size_t max_report, bool profiles, struct report **out)
{
    const char *dir = b->dir;
    struct strbuf text = STRBUF_INIT;
    struct json *man = NULL, *rep = NULL;
    struct report *r = NULL;
    struct pspec *specs = NULL;
    size_t nspecs = 0;
    char jerr[256];
    int rc = -1;
    int e = read_in(b, "manifest.json", BUNDLE_MAX_MANIFEST, &text);
    if (e == -ENOENT) {
        bl_fail(b, "%s is not a perfreport bundle: it has no manifest.json", dir);
        goto out;
    }
    if (e != 0)
        goto out;
    if (json_parse_bounded(text.buf ? text.buf : "", text.len, BUNDLE_TREE_MEM(text.len), &man,
                           jerr, sizeof jerr) != 0) {
        bl_fail(b, "%s/manifest.json: %s", dir, jerr);
        goto out;
    }
    long long mschema, rschema;
    if (check_manifest(b, man, &mschema) != 0)
        goto out;
    e = read_checked(b, "report.json", max_report, &text);
    if (e != 0)
        goto out;
    size_t rlen = text.len;
    if (json_parse_bounded(text.buf ? text.buf : "", rlen, BUNDLE_TREE_MEM(rlen), &rep, jerr,
                           sizeof jerr) != 0) {
        bl_fail(b, "%s/report.json: %s", dir, jerr);
        goto out;
    }
    sb_free(&text);
    char where[PATH_MAX + 32];
    snprintf(where, sizeof where, "%s/report.json", dir);
    struct ld l = {.r = report_new(), .where = where, .err = b->err, .errlen = b->errlen,
                   .max_mem = BUNDLE_MODEL_MEM(rlen), .tree = rep};
    r = l.r;
    if (ld_fill(&l, rep) != 0)
        goto out;
    rschema = json_get(rep, "schema")->u.num; /* fill checked it */
    if (rschema != mschema) {
        bl_fail(b, "%s: report.json has schema %lld but manifest.json %lld: refused", dir, rschema,
                mschema);
        goto out;
    }
    if (profiles && profile_specs(b, rep, man, &specs, &nspecs) != 0)
        goto out;
    json_free(rep);
    rep = NULL;
    for (size_t i = 0; i < nspecs; i++) {
        struct profile *p = load_profile(b, &specs[i]);
        if (!p)
            goto out;
        report_add_profile(r, p);
    }
    *out = r;
    r = NULL;
    rc = 0;
out:
    pspecs_free(specs, nspecs);
    report_free(r);
    json_free(rep);
    json_free(man);
    sb_free(&text);
    return rc;
}

/* The bundle directory `dir`, opened by the loader's rules; -1 after a
 * message. */
static int open_bundle(struct bl *b, const char *dir)
{
    b->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (b->dfd >= 0)
        return 0;
    int e = errno;
    struct stat st;
    /* O_DIRECTORY|O_NOFOLLOW fails on a symlink with ENOTDIR or ELOOP */
    if (e == ELOOP || (e == ENOTDIR && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)))
        return bl_fail(b, "%s is a symbolic link: give the bundle directory itself", dir);
    if (e == ENOTDIR)
        return bl_fail(b, "%s is not a directory (nor a bundle)", dir);
    return bl_fail(b, "%s: %s", dir, strerror(e));
}

int bundle_load(const char *dir, struct report **out, char *err, size_t errlen)
{
    struct bl b = {.dir = dir, .err = err, .errlen = errlen};
    *out = NULL;
    if (open_bundle(&b, dir) != 0)
        return -1;
    int rc = load_opened(&b, BUNDLE_MAX_REPORT, true, out);
    close(b.dfd);
    return rc;
}

int bundle_probe(const char *dir, char *err, size_t errlen)
{
    struct bl b = {.dir = dir, .err = err, .errlen = errlen};
    if (open_bundle(&b, dir) != 0)
        return -1;
    struct json *man = NULL;
    int rc = bundle_manifest_read(b.dfd, dir, &man, err, errlen);
    long long size;
    const char *hex;
    if (rc == 0) {
        b.integrity = json_get(man, "integrity"); /* an array: the read checked it */
        rc = vouched(&b, "report.json", BUNDLE_MAX_REPORT, &size, &hex);
    }
    json_free(man);
    close(b.dfd);
    return rc;
}

int bundle_load_report_at(int dfd, const char *shown, size_t max_report, struct report **out,
                          char *err, size_t errlen)
{
    struct bl b = {.dfd = dfd, .dir = shown, .err = err, .errlen = errlen};
    *out = NULL;
    return load_opened(&b, max_report < BUNDLE_MAX_REPORT ? max_report : BUNDLE_MAX_REPORT, false,
                       out);
}
