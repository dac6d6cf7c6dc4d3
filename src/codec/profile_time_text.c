/* <profile>.time writer and reader (see profile_time_text.h). */
#include "profile_time_text.h"
#include "../model/profile.h"
#include "../model/profile_time.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VALUE (1ull << 53) /* exact in the page's JavaScript numbers */

/* Line numbers (1-based) of p's stacks by leaf node, and each line's leaf,
 * in folded_write()'s order. */
struct lines {
    uint32_t *line_of; /* per node, 0 = no line */
    uint32_t *leaf;    /* per line - 1 */
    size_t n, cap_leaf;
};

static int note_line(void *ctx, const struct profile *p, const uint32_t *path, size_t depth,
                     uint64_t self)
{
    (void)self;
    struct lines *l = ctx;
    uint32_t leaf = depth ? path[depth - 1] : PROFILE_ROOT;
    xgrow(&l->leaf, &l->cap_leaf, l->n + 1, sizeof *l->leaf);
    l->leaf[l->n++] = leaf;
    if (l->line_of && leaf < p->nnodes && l->n <= UINT32_MAX)
        l->line_of[leaf] = (uint32_t)l->n;
    return 0;
}

static void lines_of(const struct profile *p, struct lines *l, bool by_node)
{
    memset(l, 0, sizeof *l);
    if (by_node)
        l->line_of = xcalloc(p->nnodes ? p->nnodes : 1, sizeof *l->line_of);
    profile_walk_stacks(p, note_line, l);
}

static void lines_free(struct lines *l)
{
    free(l->line_of);
    free(l->leaf);
}

static int by_line(const void *a, const void *b)
{
    const struct profile_time_cell *x = a, *y = b; /* leaf holds the line here */
    if (x->leaf != y->leaf)
        return x->leaf < y->leaf ? -1 : 1;
    return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

void profile_time_write(const struct profile *p, struct strbuf *out)
{
    const struct profile_time *pt = p ? p->time : NULL;
    if (!pt)
        return;
    struct lines l;
    lines_of(p, &l, true);
    /* cells by line: a cell whose leaf has no line (no self count) cannot be */
    struct profile_time_cell *c = xmalloc((pt->ncells ? pt->ncells : 1) * sizeof *c);
    size_t nc = 0;
    uint64_t *unstacked = xcalloc(pt->nbuckets, sizeof *unstacked);
    memcpy(unstacked, pt->unstacked, pt->nbuckets * sizeof *unstacked);
    for (size_t i = 0; i < pt->ncells; i++) {
        const struct profile_time_cell *s = &pt->cells[i];
        uint32_t line = s->leaf < p->nnodes ? l.line_of[s->leaf] : 0;
        if (line)
            c[nc++] = (struct profile_time_cell){line, s->bucket, s->value};
        else
            unstacked[s->bucket] += s->value;
    }
    qsort(c, nc, sizeof *c, by_line);
    sb_addf(out, "perfreport-time 1\nbucket_s %g\nbuckets %u\ntotal", pt->bucket_s, pt->nbuckets);
    for (uint32_t b = 0; b < pt->nbuckets; b++)
        sb_addf(out, " %llu", (unsigned long long)pt->total[b]);
    sb_add(out, "\nunstacked");
    for (uint32_t b = 0; b < pt->nbuckets; b++)
        sb_addf(out, " %llu", (unsigned long long)unstacked[b]);
    for (size_t i = 0; i < nc; i++) {
        if (!i || c[i].leaf != c[i - 1].leaf)
            sb_addf(out, "\n%u", c[i].leaf);
        sb_addf(out, " %u:%llu", c[i].bucket, (unsigned long long)c[i].value);
    }
    sb_addc(out, '\n');
    free(unstacked);
    free(c);
    lines_free(&l);
}

/* ---- reader ---- */

struct rd {
    const char *s, *end;
    size_t lineno;
    char *err;
    size_t n;
};

static int bad(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct rd *r, const char *fmt, ...)
{
    char why[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->n, "line %zu: %s", r->lineno, why);
    return -EINVAL;
}

/* Next line into [*a, *b) without its '\n'; false at the end. */
static bool next_line(struct rd *r, const char **a, const char **b)
{
    if (r->s >= r->end)
        return false;
    const char *nl = memchr(r->s, '\n', (size_t)(r->end - r->s));
    *a = r->s;
    *b = nl ? nl : r->end;
    r->s = nl ? nl + 1 : r->end;
    r->lineno++;
    return true;
}

/* A decimal number <= max at *p (no sign, no leading '+', at most 20
 * digits); advances *p. */
static bool number(const char **p, const char *end, uint64_t max, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    size_t digits = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        uint64_t d = (uint64_t)(*s - '0');
        if (++digits > 20 || d > max || v > (max - d) / 10) /* v * 10 + d > max */
            return false;
        v = v * 10 + d;
        s++;
    }
    if (!digits)
        return false;
    *p = s;
    *out = v;
    return true;
}

static bool word(const char **p, const char *end, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(end - *p) < n || memcmp(*p, w, n) != 0)
        return false;
    *p += n;
    return true;
}

/* "KEY N" as a whole line. */
static int keyed(struct rd *r, const char *key, uint64_t max, uint64_t *out)
{
    const char *a, *b;
    if (!next_line(r, &a, &b) || !word(&a, b, key) || !word(&a, b, " ") ||
        !number(&a, b, max, out) || a != b)
        return bad(r, "expected \"%s N\" with N at most %llu", key, (unsigned long long)max);
    return 0;
}

/* "KEY V0 V1 ... V(n-1)" */
static int row(struct rd *r, const char *key, uint64_t *v, uint32_t n)
{
    const char *a, *b;
    if (!next_line(r, &a, &b) || !word(&a, b, key))
        return bad(r, "expected \"%s\"", key);
    for (uint32_t i = 0; i < n; i++)
        if (!word(&a, b, " ") || !number(&a, b, MAX_VALUE, &v[i]))
            return bad(r, "%s: value %u missing or over 2^53", key, i);
    if (a != b)
        return bad(r, "%s: more than %u values", key, n);
    return 0;
}

int profile_time_read(struct profile *p, const char *text, size_t len, const uint32_t *line_leaf,
                      size_t nlines, char *err, size_t n)
{
    struct rd r = {text, text + len, 0, err, n};
    if (!p || !text)
        return bad(&r, "nothing to read");
    if (len > PROFILE_TIME_MAX_FILE)
        return bad(&r, "over %u bytes", PROFILE_TIME_MAX_FILE);
    uint64_t version, bucket_s, nb;
    int rc;
    if ((rc = keyed(&r, "perfreport-time", 1, &version)) || version != 1)
        return rc ? rc : bad(&r, "not version 1");
    /* whole seconds: stack_time_bucket_width() of the run's -i */
    if ((rc = keyed(&r, "bucket_s", PROFILE_TIME_MAX_BUCKETS, &bucket_s)) || bucket_s < 1)
        return rc ? rc : bad(&r, "buckets of less than 1 s");
    if ((rc = keyed(&r, "buckets", PROFILE_TIME_MAX_BUCKETS, &nb)) || nb == 0)
        return rc ? rc : bad(&r, "no buckets");
    struct profile_time *pt = profile_time_new((double)bucket_s, (uint32_t)nb);
    struct lines l;
    memset(&l, 0, sizeof l);
    if (!line_leaf) {
        lines_of(p, &l, false);
        line_leaf = l.leaf;
        nlines = l.n;
    }
    uint64_t *sum = xcalloc(nb, sizeof *sum);
    if ((rc = row(&r, "total", pt->total, pt->nbuckets)) ||
        (rc = row(&r, "unstacked", pt->unstacked, pt->nbuckets)))
        goto out;
    for (uint32_t b = 0; b < pt->nbuckets; b++)
        sum[b] = pt->unstacked[b];
    uint64_t prev_line = 0;
    const char *a, *e;
    while (next_line(&r, &a, &e)) {
        uint64_t line, prev_b = 0;
        bool first = true;
        if (!number(&a, e, nlines, &line) || line <= prev_line) {
            rc = bad(&r, "a stack's line must ascend and be one of the %zu of the folded file",
                     nlines);
            goto out;
        }
        uint32_t leaf = line_leaf[line - 1];
        if (leaf >= p->nnodes) {
            rc = bad(&r, "line %llu of the folded file holds no stack", (unsigned long long)line);
            goto out;
        }
        prev_line = line;
        if (a == e) {
            rc = bad(&r, "a stack without a value");
            goto out;
        }
        while (a < e) {
            uint64_t bk, v;
            if (!word(&a, e, " ") || !number(&a, e, pt->nbuckets - 1, &bk) ||
                !word(&a, e, ":") || !number(&a, e, MAX_VALUE, &v) || v == 0 ||
                (!first && bk <= prev_b)) {
                rc = bad(&r, "expected ascending \"SECOND:VALUE\" (SECOND < %u, 0 < VALUE "
                             "<= 2^53)", pt->nbuckets);
                goto out;
            }
            first = false;
            prev_b = bk;
            if (pt->ncells >= PROFILE_TIME_MAX_CELLS) {
                rc = bad(&r, "more than %u cells", PROFILE_TIME_MAX_CELLS);
                goto out;
            }
            sum[bk] += v; /* each at most 2^53 plus 2^22 cells of 2^53: no wrap */
            if (sum[bk] > MAX_VALUE) {
                rc = bad(&r, "more than 2^53 in second %llu", (unsigned long long)bk);
                goto out;
            }
            profile_time_add(pt, leaf, (uint32_t)bk, v);
        }
    }
    for (uint32_t b = 0; b < pt->nbuckets; b++)
        if (sum[b] != pt->total[b]) {
            rc = bad(&r, "second %u: stacks and unstacked make %llu, its total says %llu", b,
                     (unsigned long long)sum[b], (unsigned long long)pt->total[b]);
            goto out;
        }
    /* a stack's seconds (its lines' when several wrote it) make at most its
     * folded count: the cells are sorted by leaf now */
    profile_time_sort(pt);
    for (size_t i = 0, j; i < pt->ncells; i = j) {
        uint64_t v = 0; /* <= 2^22 cells of 2^53 < 2^64 */
        for (j = i; j < pt->ncells && pt->cells[j].leaf == pt->cells[i].leaf; j++)
            v += pt->cells[j].value;
        if (v > profile_self(p, pt->cells[i].leaf)) {
            rc = bad(&r, "a stack's seconds make %llu, more than its folded count %llu",
                     (unsigned long long)v,
                     (unsigned long long)profile_self(p, pt->cells[i].leaf));
            goto out;
        }
    }
    profile_time_free(p->time);
    p->time = pt;
    pt = NULL;
out:
    profile_time_free(pt);
    free(sum);
    lines_free(&l);
    return rc;
}
