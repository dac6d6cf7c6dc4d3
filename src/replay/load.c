#include "load.h"
#include "../codec/report_json.h"
#include "../codec/report_json_read.h"
#include "../model/model.h"
#include "../model/profile.h"
#include "../model/profile_sites.h"
#include "../render/charts.h"
#include "../codec/profile_time_text.h"
#include "../flame/folded.h"
#include "../util/hash.h"
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

/* The .folded file's stacks by line, for <profile>.time, whose line numbers
 * are the file's: each stack line's frames hashed as they went into the
 * profile, then (line_leaves) the node where that stack ends.  Lines that
 * wrote different capture stacks as the same text end at one node. */
struct line_keys {
    uint64_t *key; /* per stack line, in order: the hash of its frames */
    size_t n, cap;
    bool gaps;     /* a line without a stack (blank, zero, malformed) came first */
};

static uint64_t frame_key(uint64_t h, const char *name, size_t n, unsigned kind)
{
    if (n == 0) /* as profile.c interns an empty name */
        name = "[unknown]", n = 9;
    return hash_pair(hash_pair(h, hash_bytes(name, n)), kind);
}

/* 0 is no stack */
static uint64_t stack_key_done(uint64_t h) { return h ? h : 1; }

static void key_line(void *ctx, size_t lineno, const struct pframe *f, size_t n)
{
    struct line_keys *lk = ctx;
    if (lineno != lk->n + 1) { /* perfreport writes one stack a line, nothing else */
        lk->gaps = true;
        return;
    }
    uint64_t h = 0;
    for (size_t i = 0; i < n; i++)
        h = frame_key(h, f[i].s, f[i].len, f[i].kind);
    xgrow(&lk->key, &lk->cap, lk->n + 1, sizeof *lk->key);
    lk->key[lk->n++] = stack_key_done(h);
}

/* hash -> leaf, open addressed; a hash two leaves share is no leaf */
struct leaf_table {
    uint64_t *key;
    uint32_t *leaf;
    size_t mask;
};

static int table_stack(void *ctx, const struct profile *p, const uint32_t *path, size_t depth,
                       uint64_t self)
{
    (void)self;
    struct leaf_table *t = ctx;
    uint64_t h = 0;
    for (size_t d = 0; d < depth; d++) {
        const char *name = profile_node_name(p, path[d]);
        h = frame_key(h, name, strlen(name), (unsigned)profile_node_kind(p, path[d]));
    }
    h = stack_key_done(h);
    uint32_t leaf = depth ? path[depth - 1] : PROFILE_ROOT;
    for (size_t i = (size_t)h & t->mask;; i = (i + 1) & t->mask) {
        if (!t->key[i]) {
            t->key[i] = h;
            t->leaf[i] = leaf;
            return 0;
        }
        if (t->key[i] == h) {
            t->leaf[i] = PROFILE_NONE;
            return 0;
        }
    }
}

static int count_stack(void *ctx, const struct profile *p, const uint32_t *path, size_t depth,
                       uint64_t self)
{
    (void)p;
    (void)path;
    (void)depth;
    (void)self;
    ++*(size_t *)ctx;
    return 0;
}

/* Each stack line's leaf in p (PROFILE_NONE: none, or a hash two stacks
 * share), written over lk->key: read as uint32_t from the returned pointer,
 * which lk still owns.  Element i is written after key i was read, and
 * lands before it, so the one buffer serves both. */
static const uint32_t *line_leaves(const struct profile *p, struct line_keys *lk)
{
    size_t nstacks = 0, size = 2;
    profile_walk_stacks(p, count_stack, &nstacks);
    while (size < 2 * nstacks + 2)
        size *= 2;
    struct leaf_table t = {xcalloc(size, sizeof *t.key), xcalloc(size, sizeof *t.leaf), size - 1};
    profile_walk_stacks(p, table_stack, &t);
    unsigned char *out = (unsigned char *)lk->key;
    for (size_t i = 0; i < lk->n; i++) {
        uint64_t h;
        memcpy(&h, out + 8 * i, sizeof h);
        uint32_t leaf = PROFILE_NONE;
        for (size_t k = (size_t)h & t.mask; t.key[k]; k = (k + 1) & t.mask)
            if (t.key[k] == h) {
                leaf = t.leaf[k];
                break;
            }
        memcpy(out + 4 * i, &leaf, sizeof leaf);
    }
    free(t.key);
    free(t.leaf);
    return (const uint32_t *)(void *)out;
}

/* The ledger entry of the collector that made p, for what reading its files
 * back left out ("cpu" is the "profile" collector's); a "bundle" entry when
 * the bundle lists no such collector. */
static struct ledger_entry *ledger_of(struct report *r, const struct profile *p)
{
    const char *name = p->name && strcmp(p->name, "cpu") == 0 ? "profile" : p->name;
    for (size_t i = 0; name && i < r->nledger; i++)
        if (strcmp(r->ledger[i].name, name) == 0)
            return &r->ledger[i];
    struct ledger_entry *e = report_ledger(r, "bundle", "Bundle read back");
    e->status = CS_RAN;
    return e;
}

/* The run's <profile>.time (its stacks per second), when the manifest lists
 * it, read into p->time; lk: the .folded file's stack lines.  The file is
 * checked against the manifest (a file that fails is as any other: -1
 * after a message) and then parsed as hostile text (profile_time_text.h):
 * a file that breaks a rule costs the profile its time, never the bundle,
 * and the ledger says why. */
static int keep_time(struct bl *b, struct report *r, struct profile *p, struct line_keys *lk)
{
    char name[512];
    flame_filename(p, "time", name, sizeof name);
    if (!manifest_lists(b, name))
        return 0; /* a bundle from before per-second stacks */
    struct strbuf text = STRBUF_INIT;
    int rc = read_checked(b, name, PROFILE_TIME_MAX_FILE, &text);
    if (rc == 0) {
        static const uint32_t no_lines[1] = {PROFILE_NONE};
        char why[256] = "";
        const uint32_t *leaf = lk->gaps ? NULL : lk->n ? line_leaves(p, lk) : no_lines;
        if (!leaf)
            snprintf(why, sizeof why, "its .folded file is not one stack a line");
        if (!leaf || profile_time_read(p, text.buf ? text.buf : "", text.len, leaf, lk->n, why,
                                       sizeof why) != 0)
            ledger_note(ledger_of(r, p), "%s not read back (%s): %s has no per-second stacks "
                        "and no heat map", name, why, p->name ? p->name : "the profile");
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
    struct line_keys lk;
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

/* One profile from its .folded file, streamed; NULL after a message.
 * Notes in r's ledger what it leaves out. */
static struct profile *load_profile(struct bl *b, struct report *r, const struct pspec *ps)
{
    struct profile *p = profile_new(ps->name, ps->title, ps->unit);
    long long size = 0;
    struct fold_ctx c = {.size = &size};
    folded_init(&c.fp, p);
    /* perfreport's own conventions for the kinds folded text cannot spell */
    c.fp.bundle_kinds = true;
    char tname[512];
    flame_filename(p, "time", tname, sizeof tname);
    if (manifest_lists(b, tname)) { /* its lines' stacks, for the .time file */
        c.fp.on_stack = key_line;
        c.fp.on_stack_ctx = &c.lk;
    }
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
    if (keep_pprof(b, p) == 0 && keep_time(b, r, p, &c.lk) == 0) {
        free(c.lk.key);
        return p;
    }
bad:
    free(c.lk.key);
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
        struct profile *p = load_profile(b, r, &specs[i]);
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
