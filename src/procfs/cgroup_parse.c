/* See cgroup_parse.h. */
#include "cgroup_parse.h"
#include "util/xalloc.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* memory limits from here up mean "no limit" (v1 writes 2^63 - 4096) */
#define CG_UNLIMITED_BYTES (1ULL << 60)

bool cg_parse_u64(const char *s, const char **end, uint64_t *v)
{
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    char *e;
    unsigned long long x = strtoull(s, &e, 10);
    if (errno)
        return false;
    *v = x;
    if (end)
        *end = e;
    return true;
}

const char *cg_skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

bool cg_at_eol(const char *s)
{
    s = cg_skip_ws(s);
    return *s == '\0' || *s == '\n' || *s == '\r';
}

char *cg_unescape(const char *s, size_t n)
{
    char *out = xmalloc(n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' &&
            s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' &&
            s[i + 3] <= '7') {
            char c = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
            if (c != '\0') { /* a NUL would truncate the path: keep the text */
                out[o++] = c;
                i += 3;
                continue;
            }
        }
        out[o++] = s[i];
    }
    out[o] = '\0';
    return out;
}

/* Splits one line into space-separated fields (at most max); returns count. */
static size_t split_fields(const char *line, size_t len, const char **f, size_t *fl, size_t max)
{
    size_t n = 0, i = 0;
    while (i < len && n < max) {
        while (i < len && line[i] == ' ')
            i++;
        if (i >= len)
            break;
        size_t b = i;
        while (i < len && line[i] != ' ')
            i++;
        f[n] = line + b;
        fl[n] = i - b;
        n++;
    }
    return n;
}

/* As split_fields, with tabs as separators too (the v1 stat files). */
static size_t split_ws(const char *line, size_t len, const char **f, size_t *fl, size_t max)
{
    size_t n = 0, i = 0;
    while (i < len && n < max) {
        while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            i++;
        if (i >= len)
            break;
        size_t b = i;
        while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
            i++;
        f[n] = line + b;
        fl[n] = i - b;
        n++;
    }
    return n;
}

static bool field_is(const char *f, size_t fl, const char *word)
{
    return strlen(word) == fl && memcmp(f, word, fl) == 0;
}

static void mounts_add(struct cg_mounts *out, const char *mnt, size_t ml, const char *root,
                       size_t rl, bool v2, unsigned ctrls)
{
    xgrow(&out->v, &out->cap, out->n + 1, sizeof *out->v);
    struct cg_mount *m = &out->v[out->n++];
    m->mnt = cg_unescape(mnt, ml);
    /* "/" as the mount point would make every path start with "//" */
    size_t l = strlen(m->mnt);
    while (l > 1 && m->mnt[l - 1] == '/')
        m->mnt[--l] = '\0';
    if (strcmp(m->mnt, "/") == 0)
        m->mnt[0] = '\0';
    m->root = cg_unescape(root, rl);
    m->v2 = v2;
    m->ctrls = ctrls;
}

size_t cg_parse_mountinfo(const char *text, struct cg_mounts *out)
{
    memset(out, 0, sizeof *out);
    bool have_v2 = false;
    unsigned seen = 0;
    const char *p = text;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        const char *f[64];
        size_t fl[64];
        size_t n = split_fields(p, len, f, fl, 64);
        /* id parent maj:min root mountpoint opts [optional...] - fstype source superopts */
        size_t dash = 0;
        for (size_t i = 6; i < n; i++)
            if (field_is(f[i], fl[i], "-")) {
                dash = i;
                break;
            }
        if (dash && dash + 1 < n) {
            const char *fs = f[dash + 1];
            size_t fsl = fl[dash + 1];
            if (field_is(fs, fsl, "cgroup2") && !have_v2) {
                have_v2 = true;
                mounts_add(out, f[4], fl[4], f[3], fl[3], true, 0);
                /* keep v2 first so the walk order is v2, then v1 */
                if (out->n > 1) {
                    struct cg_mount t = out->v[out->n - 1];
                    memmove(out->v + 1, out->v, (out->n - 1) * sizeof *out->v);
                    out->v[0] = t;
                }
            } else if (field_is(fs, fsl, "cgroup") && dash + 3 < n) {
                const char *so = f[dash + 3];
                size_t sol = fl[dash + 3];
                unsigned c = 0;
                if (proc_list_has(so, sol, "cpu"))
                    c |= CG_CTRL_CPU;
                if (proc_list_has(so, sol, "cpuacct"))
                    c |= CG_CTRL_CPUACCT;
                if (proc_list_has(so, sol, "memory"))
                    c |= CG_CTRL_MEMORY;
                if (proc_list_has(so, sol, "blkio"))
                    c |= CG_CTRL_BLKIO;
                c &= ~seen; /* a bind mount of the same hierarchy adds nothing */
                if (c) {
                    seen |= c;
                    mounts_add(out, f[4], fl[4], f[3], fl[3], false, c);
                }
            }
        }
        p = nl ? nl + 1 : NULL;
    }
    return out->n;
}

void cg_mounts_free(struct cg_mounts *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].mnt);
        free(m->v[i].root);
    }
    free(m->v);
    memset(m, 0, sizeof *m);
}

bool cg_kv_u64(const char *text, const char *key, uint64_t *v)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p;) {
        const char *s = cg_skip_ws(p);
        if (strncmp(s, key, kl) == 0 && (s[kl] == ' ' || s[kl] == '\t')) {
            const char *e;
            if (cg_parse_u64(cg_skip_ws(s + kl), &e, v) && cg_at_eol(e))
                return true;
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return false;
}

int cg_parse_cpu_max(const char *text, int64_t *quota_us, uint64_t *period_us)
{
    const char *s = cg_skip_ws(text);
    uint64_t q, per;
    if (strncmp(s, "max", 3) == 0 && (s[3] == ' ' || s[3] == '\t')) {
        *quota_us = -1;
        s += 3;
    } else {
        if (!cg_parse_u64(s, &s, &q) || q > INT64_MAX)
            return -EINVAL;
        *quota_us = (int64_t)q;
    }
    s = cg_skip_ws(s);
    if (!cg_parse_u64(s, &s, &per) || per == 0 || !cg_at_eol(s))
        return -EINVAL;
    *period_us = per;
    return 0;
}

int cg_parse_mem_limit(const char *text, uint64_t *bytes, bool *unlimited)
{
    const char *s = cg_skip_ws(text), *e;
    if (strncmp(s, "max", 3) == 0 && cg_at_eol(s + 3)) {
        *bytes = 0;
        *unlimited = true;
        return 0;
    }
    if (!cg_parse_u64(s, &e, bytes) || !cg_at_eol(e))
        return -EINVAL;
    *unlimited = *bytes >= CG_UNLIMITED_BYTES;
    return 0;
}

int cg_parse_psi_some_total(const char *text, uint64_t *total_us)
{
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len > 5 && strncmp(p, "some ", 5) == 0) {
            const char *f[16];
            size_t fl[16];
            size_t n = split_fields(p, len, f, fl, 16);
            for (size_t i = 1; i < n; i++) {
                const char *e;
                if (fl[i] > 6 && strncmp(f[i], "total=", 6) == 0 &&
                    cg_parse_u64(f[i] + 6, &e, total_us) && e == f[i] + fl[i])
                    return 0;
            }
            return -EINVAL;
        }
        p = nl ? nl + 1 : NULL;
    }
    return -EINVAL;
}

double cg_throttled_pct(bool usage_known, uint64_t usage_ns, uint64_t throttled_ns,
                        uint64_t periods, int64_t quota_us, bool *estimated)
{
    *estimated = false;
    if (!usage_known) {
        if (quota_us <= 0 || periods == 0)
            return throttled_ns ? NAN : 0;
        /* Each period lets the group run at most quota: an upper bound on
         * usage, so the percentage errs low. */
        usage_ns = periods * (uint64_t)quota_us * 1000u;
        *estimated = true;
    }
    if (usage_ns == 0)
        return throttled_ns ? 100.0 : 0.0;
    return (double)throttled_ns / (double)usage_ns * 100.0;
}

const char *cg_io_kind_name(enum cg_io_kind k)
{
    static const char *const names[CG_IO_NKINDS] = {"rbps", "wbps", "riops", "wiops"};
    return (unsigned)k < CG_IO_NKINDS ? names[k] : "?";
}

/* "MAJ:MIN" at s (exactly `len` bytes); false unless both are numbers that fit. */
static bool parse_devno(const char *s, size_t len, uint32_t *major, uint32_t *minor)
{
    const char *colon = memchr(s, ':', len);
    if (!colon)
        return false;
    uint64_t a, b;
    const char *e;
    if (!cg_parse_u64(s, &e, &a) || e != colon || !cg_parse_u64(colon + 1, &e, &b) ||
        e != s + len || a > UINT32_MAX || b > UINT32_MAX)
        return false;
    *major = (uint32_t)a;
    *minor = (uint32_t)b;
    return true;
}

/* The lines of a text, each split into fields on spaces and tabs. */
#define CG_LINE_FIELDS 16
struct cg_lines {
    const char *p; /* next line; NULL at the end */
    const char *f[CG_LINE_FIELDS];
    size_t fl[CG_LINE_FIELDS];
    size_t n; /* fields of the current line (at most CG_LINE_FIELDS) */
};

static bool next_line(struct cg_lines *it)
{
    if (!it->p || !*it->p)
        return false;
    const char *nl = strchr(it->p, '\n');
    size_t len = nl ? (size_t)(nl - it->p) : strlen(it->p);
    it->n = split_ws(it->p, len, it->f, it->fl, CG_LINE_FIELDS);
    it->p = nl ? nl + 1 : NULL;
    return true;
}

/* Field i of the current line is a whole decimal number. */
static bool field_u64(const struct cg_lines *it, size_t i, size_t skip, uint64_t *v)
{
    const char *e;
    return i < it->n && it->fl[i] > skip && cg_parse_u64(it->f[i] + skip, &e, v) &&
           e == it->f[i] + it->fl[i];
}

size_t cg_parse_io_max(const char *text, struct cg_io_limit *out, size_t max)
{
    size_t k = 0;
    struct cg_lines it = {.p = text};
    while (next_line(&it)) {
        uint32_t ma, mi;
        if (it.n < 2 || !parse_devno(it.f[0], it.fl[0], &ma, &mi))
            continue;
        for (size_t i = 1; i < it.n && k < max; i++) {
            const char *eq = memchr(it.f[i], '=', it.fl[i]);
            size_t kl = eq ? (size_t)(eq - it.f[i]) : 0;
            for (unsigned kind = 0; eq && kind < CG_IO_NKINDS; kind++) {
                const char *name = cg_io_kind_name((enum cg_io_kind)kind);
                uint64_t v;
                if (kl == strlen(name) && memcmp(it.f[i], name, kl) == 0 &&
                    field_u64(&it, i, kl + 1, &v) && v > 0)
                    out[k++] = (struct cg_io_limit){ma, mi, (enum cg_io_kind)kind, v};
            }
        }
    }
    return k;
}

size_t cg_parse_blkio_limits(const char *text, enum cg_io_kind kind, struct cg_io_limit *out,
                             size_t max)
{
    size_t k = 0;
    struct cg_lines it = {.p = text};
    while (k < max && next_line(&it)) {
        uint32_t ma, mi;
        uint64_t v;
        if (it.n == 2 && parse_devno(it.f[0], it.fl[0], &ma, &mi) && field_u64(&it, 1, 0, &v) &&
            v > 0)
            out[k++] = (struct cg_io_limit){ma, mi, kind, v};
    }
    return k;
}

bool cg_parse_io_stat(const char *text, uint32_t major, uint32_t minor, enum cg_io_kind kind,
                      uint64_t *v)
{
    static const char *const keys[CG_IO_NKINDS] = {"rbytes=", "wbytes=", "rios=", "wios="};
    if ((unsigned)kind >= CG_IO_NKINDS)
        return false;
    size_t kl = strlen(keys[kind]);
    struct cg_lines it = {.p = text};
    while (next_line(&it)) {
        uint32_t ma, mi;
        if (it.n < 2 || !parse_devno(it.f[0], it.fl[0], &ma, &mi) || ma != major ||
            mi != minor)
            continue;
        for (size_t i = 1; i < it.n; i++)
            if (it.fl[i] > kl && memcmp(it.f[i], keys[kind], kl) == 0)
                return field_u64(&it, i, kl, v);
        return false;
    }
    return false;
}

bool cg_parse_blkio_stat(const char *text, uint32_t major, uint32_t minor, enum cg_io_kind kind,
                         uint64_t *v)
{
    if ((unsigned)kind >= CG_IO_NKINDS)
        return false;
    const char *op = kind == CG_IO_RBPS || kind == CG_IO_RIOPS ? "Read" : "Write";
    struct cg_lines it = {.p = text};
    while (next_line(&it)) {
        uint32_t ma, mi;
        if (it.n == 3 && field_is(it.f[1], it.fl[1], op) &&
            parse_devno(it.f[0], it.fl[0], &ma, &mi) && ma == major && mi == minor)
            return field_u64(&it, 2, 0, v);
    }
    return false;
}

bool cg_parse_mem_stat(const char *text, uint64_t *anon, uint64_t *file)
{
    if (cg_kv_u64(text, "anon", anon) && cg_kv_u64(text, "file", file))
        return true;
    if (cg_kv_u64(text, "total_rss", anon) && cg_kv_u64(text, "total_cache", file))
        return true;
    return cg_kv_u64(text, "rss", anon) && cg_kv_u64(text, "cache", file);
}
