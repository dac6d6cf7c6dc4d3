/* Recursive descent over the bytes, one function per JSON production.
 *
 * Memory.  The tree lives in chunks owned by the document: small things
 * (strings, keys, the items of a container) are cut from 64 KiB blocks one
 * after another, large ones get a block of their own.  The items of a
 * container are collected on a scratch stack shared by all levels and
 * copied out at its end, so a large array costs no more than its items.
 * An array that holds only numbers and nulls is gathered as doubles in a
 * block of its own, which becomes the array (JSON_NUMS) without a copy; the
 * first item of another kind turns it into an ordinary array.  Every byte
 * of the blocks and of the scratch buffers counts against the caller's
 * bound, checked before it is allocated. */
#include "json_read.h"
#include "xalloc.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NUM_TEXT 1023 /* digits of one number; longer is refused, not truncated */
#define CHUNK (64u * 1024u)
#define OWN_BLOCK (CHUNK / 4) /* a request this large gets a block of its own */
#define ALIGN 8u

/* A block of the document; its bytes follow the header.  Doubly linked, so
 * that an array of numbers the caller has copied can go at once
 * (json_release_nums). */
struct block {
    struct block *next, *prev;
    size_t size; /* of the whole allocation, header included */
};
#define BLOCK_HDR ((sizeof(struct block) + ALIGN - 1) / ALIGN * ALIGN)

/* What json_parse returns a pointer into: the root and the blocks. */
struct doc {
    struct block *blocks;
    struct json root;
};

struct parser {
    const char *s;
    size_t len, pos;
    int depth;
    char *err;
    size_t errlen;
    bool failed;
    struct doc *doc;
    char *cur;          /* free bytes of the current small-things block */
    size_t cur_left;
    size_t used, max_mem; /* bytes allocated (blocks and scratch) and the bound */
    struct json *items; /* scratch: items of the arrays being parsed */
    size_t nitems, cap_items;
    struct json_member *mem; /* scratch: members of the objects being parsed */
    size_t nmem, cap_mem;
    char *buf; /* the string being decoded */
    size_t nbuf, cap_buf;
    struct block *nums; /* the numbers of the array being gathered, after its header */
    size_t nnums, cap_nums;
};

static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Counts n more bytes against the bound; -1 after a message when they do
 * not fit. */
static int charge(struct parser *p, size_t n)
{
    if (n > p->max_mem - p->used)
        return fail(p, "the document needs more than %zu MiB of memory to hold: refused",
                    p->max_mem >> 20);
    p->used += n;
    return 0;
}

/* Grows a scratch array (elements of size `size`) to hold `need`; the
 * capacity doubles, and only what fits the bound is asked for. */
static int grow(struct parser *p, void **arr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t want = *cap ? *cap : 64;
    while (want < need)
        want = want > SIZE_MAX / 4 / size ? need : want * 2;
    size_t room = (p->max_mem - p->used) / size + *cap; /* elements the bound allows */
    if (want > room)
        want = room > need ? room : need;
    if (charge(p, (want - *cap) * size) != 0)
        return -1;
    *arr = xrealloc(*arr, want * size);
    *cap = want;
    return 0;
}

static void link_block(struct doc *d, struct block *b)
{
    b->prev = NULL;
    b->next = d->blocks;
    if (b->next)
        b->next->prev = b;
    d->blocks = b;
}

/* A new block of the document with n bytes after its header. */
static void *new_block(struct parser *p, size_t n)
{
    size_t size = BLOCK_HDR + n;
    if (charge(p, size) != 0)
        return NULL;
    struct block *b = xmalloc(size);
    b->size = size;
    link_block(p->doc, b);
    return (char *)b + BLOCK_HDR;
}

/* n bytes of the tree, aligned for any of its records; NULL after a
 * message when the bound is reached. */
static void *tree_alloc(struct parser *p, size_t n, size_t align)
{
    if (n >= OWN_BLOCK)
        return new_block(p, n);
    size_t pad = (size_t)(-(uintptr_t)p->cur & (align - 1));
    if (!p->cur || pad + n > p->cur_left) {
        char *b = new_block(p, CHUNK);
        if (!b)
            return NULL;
        p->cur = b;
        p->cur_left = CHUNK;
        pad = 0;
    }
    void *r = p->cur + pad;
    p->cur += pad + n;
    p->cur_left -= pad + n;
    return r;
}

static char *tree_strdup(struct parser *p, const char *s, size_t n)
{
    char *r = tree_alloc(p, n + 1, 1);
    if (r) {
        memcpy(r, s, n);
        r[n] = '\0';
    }
    return r;
}

void json_free(struct json *v)
{
    if (!v)
        return;
    struct doc *d = (struct doc *)((char *)v - offsetof(struct doc, root));
    for (struct block *b = d->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(d);
}

/* Records the first error with its line and column; later ones are
 * consequences and dropped. */
static int fail(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct parser *p, const char *fmt, ...)
{
    if (p->failed)
        return -1;
    p->failed = true;
    size_t line = 1, col = 1;
    size_t end = p->pos < p->len ? p->pos : p->len;
    for (size_t i = 0; i < end; i++) {
        if (p->s[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    if (p->errlen == 0)
        return -1;
    int k = snprintf(p->err, p->errlen, "line %zu, column %zu: ", line, col);
    if (k >= 0 && (size_t)k < p->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err + k, p->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The byte at pos, said printably for a message: 'x' or byte 0xNN. */
static const char *byte_text(const struct parser *p, char *out, size_t n)
{
    if (p->pos >= p->len)
        return "the end of the input";
    unsigned char c = (unsigned char)p->s[p->pos];
    if (c >= 0x21 && c < 0x7f && c != '\'')
        snprintf(out, n, "'%c'", c);
    else
        snprintf(out, n, "byte 0x%02x", c);
    return out;
}

static int unexpected(struct parser *p, const char *wanted)
{
    char b[16];
    if (p->pos >= p->len)
        return fail(p, "unexpected end of input (truncated?): expected %s", wanted);
    return fail(p, "expected %s, found %s", wanted, byte_text(p, b, sizeof b));
}

static void skip_ws(struct parser *p)
{
    while (p->pos < p->len) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        p->pos++;
    }
}

static int buf_add(struct parser *p, const char *s, size_t n)
{
    if (grow(p, (void **)&p->buf, &p->cap_buf, p->nbuf + n + 1, 1) != 0)
        return -1;
    memcpy(p->buf + p->nbuf, s, n);
    p->nbuf += n;
    p->buf[p->nbuf] = '\0';
    return 0;
}

static int buf_add_cp(struct parser *p, unsigned long cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        u[0] = (char)(0xf0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    return buf_add(p, u, n);
}

/* Four hex digits at pos; -1 after a message. */
static long hex4(struct parser *p)
{
    long v = 0;
    for (int i = 0; i < 4; i++, p->pos++) {
        if (p->pos >= p->len)
            return unexpected(p, "four hex digits after \\u");
        char c = p->s[p->pos];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return unexpected(p, "four hex digits after \\u");
        v = v * 16 + d;
    }
    return v;
}

/* After the backslash of a \u escape: one code point, surrogate pairs
 * joined; lone surrogates and NUL refused. */
static int unicode_escape(struct parser *p)
{
    size_t at = p->pos - 1;
    p->pos++; /* the 'u' */
    long hi = hex4(p);
    if (hi < 0)
        return -1;
    unsigned long cp = (unsigned long)hi;
    if (hi >= 0xdc00 && hi <= 0xdfff) {
        p->pos = at;
        return fail(p, "\\u%04lx is a low surrogate without a high one before it", cp);
    }
    if (hi >= 0xd800 && hi <= 0xdbff) {
        if (p->pos + 1 >= p->len || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u') {
            p->pos = at;
            return fail(p, "\\u%04lx (a high surrogate) is not followed by a \\u low surrogate",
                        cp);
        }
        p->pos += 2;
        long lo = hex4(p);
        if (lo < 0)
            return -1;
        if (lo < 0xdc00 || lo > 0xdfff) {
            p->pos = at;
            return fail(p, "\\u%04lx (a high surrogate) is followed by \\u%04lx, not a low "
                           "surrogate", cp, (unsigned long)lo);
        }
        cp = 0x10000 + ((cp - 0xd800) << 10) + ((unsigned long)lo - 0xdc00);
    }
    if (cp == 0) {
        p->pos = at;
        return fail(p, "\\u0000 (NUL) in a string is not accepted");
    }
    return buf_add_cp(p, cp);
}

/* Length of the valid UTF-8 sequence of a non-ASCII lead byte at pos, or 0. */
static size_t utf8_seq(const struct parser *p)
{
    const unsigned char *u = (const unsigned char *)p->s + p->pos;
    size_t left = p->len - p->pos;
    unsigned char c = u[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong below */
        else if (c == 0xed)
            hi = 0x9f; /* UTF-16 surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else
        return 0;
    if (left < n || u[1] < lo || u[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (u[i] < 0x80 || u[i] > 0xbf)
            return 0;
    return n;
}

/* The string at pos (its opening quote) decoded into p->buf. */
static int parse_string(struct parser *p)
{
    size_t open = p->pos;
    p->pos++;
    p->nbuf = 0;
    if (buf_add(p, "", 0) != 0)
        return -1;
    for (;;) {
        size_t run = p->pos;
        while (p->pos < p->len) {
            unsigned char c = (unsigned char)p->s[p->pos];
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
                break;
            p->pos++;
        }
        if (buf_add(p, p->s + run, p->pos - run) != 0)
            return -1;
        if (p->pos >= p->len) {
            p->pos = open;
            return fail(p, "unterminated string (truncated?)");
        }
        unsigned char c = (unsigned char)p->s[p->pos];
        if (c == '"') {
            p->pos++;
            return 0;
        }
        if (c < 0x20)
            return fail(p, "control character 0x%02x in a string (must be escaped)", c);
        if (c >= 0x80) {
            size_t n = utf8_seq(p);
            if (!n)
                return fail(p, "invalid UTF-8 (byte 0x%02x)", c);
            if (buf_add(p, p->s + p->pos, n) != 0)
                return -1;
            p->pos += n;
            continue;
        }
        /* a backslash */
        p->pos++;
        if (p->pos >= p->len) {
            p->pos = open;
            return fail(p, "unterminated string (truncated?)");
        }
        char e = p->s[p->pos], out;
        switch (e) {
        case '"': out = '"'; break;
        case '\\': out = '\\'; break;
        case '/': out = '/'; break;
        case 'b': out = '\b'; break;
        case 'f': out = '\f'; break;
        case 'n': out = '\n'; break;
        case 'r': out = '\r'; break;
        case 't': out = '\t'; break;
        case 'u':
            if (unicode_escape(p) != 0)
                return -1;
            continue;
        default: {
            char b[16];
            return fail(p, "invalid escape: backslash followed by %s", byte_text(p, b, sizeof b));
        }
        }
        if (buf_add(p, &out, 1) != 0)
            return -1;
        p->pos++;
    }
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The number at pos into *out. */
static int parse_number(struct parser *p, double *out)
{
    size_t start = p->pos;
    if (p->s[p->pos] == '-')
        p->pos++;
    if (p->pos >= p->len || !is_digit(p->s[p->pos]))
        return unexpected(p, "a digit");
    if (p->s[p->pos] == '0') {
        p->pos++;
        if (p->pos < p->len && is_digit(p->s[p->pos]))
            return fail(p, "a number may not have a leading zero");
    } else {
        while (p->pos < p->len && is_digit(p->s[p->pos]))
            p->pos++;
    }
    if (p->pos < p->len && p->s[p->pos] == '.') {
        p->pos++;
        if (p->pos >= p->len || !is_digit(p->s[p->pos]))
            return unexpected(p, "a digit after the decimal point");
        while (p->pos < p->len && is_digit(p->s[p->pos]))
            p->pos++;
    }
    if (p->pos < p->len && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < p->len && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
            p->pos++;
        if (p->pos >= p->len || !is_digit(p->s[p->pos]))
            return unexpected(p, "a digit in the exponent");
        while (p->pos < p->len && is_digit(p->s[p->pos]))
            p->pos++;
    }
    size_t n = p->pos - start;
    if (n > MAX_NUM_TEXT) {
        p->pos = start;
        return fail(p, "number longer than %d characters", MAX_NUM_TEXT);
    }
    /* strtod needs a terminated copy; the grammar above is JSON's, so the
     * C locale's strtod (we never call setlocale) reads all of it. */
    char tmp[MAX_NUM_TEXT + 1];
    memcpy(tmp, p->s + start, n);
    tmp[n] = '\0';
    char *end;
    errno = 0;
    double v = strtod(tmp, &end);
    if (end != tmp + n) {
        p->pos = start;
        return fail(p, "number not readable");
    }
    if (!isfinite(v)) { /* overflow; an underflow to 0 or a subnormal is kept */
        p->pos = start;
        return fail(p, "number out of range: %.40s", tmp);
    }
    *out = v;
    return 0;
}

static int parse_literal(struct parser *p, const char *word, struct json *out)
{
    size_t n = strlen(word);
    for (size_t i = 0; i < n; i++, p->pos++)
        if (p->pos >= p->len || p->s[p->pos] != word[i])
            return unexpected(p, word);
    if (word[0] == 'n') {
        out->type = JSON_NULL;
    } else {
        out->type = JSON_BOOL;
        out->b = word[0] == 't';
    }
    return 0;
}

static int parse_value(struct parser *p, struct json *out);

static int enter(struct parser *p)
{
    if (++p->depth > JSON_MAX_DEPTH)
        return fail(p, "nested deeper than %d levels", JSON_MAX_DEPTH);
    return 0;
}

static int push_item(struct parser *p, const struct json *v)
{
    if (grow(p, (void **)&p->items, &p->cap_items, p->nitems + 1, sizeof *p->items) != 0)
        return -1;
    p->items[p->nitems++] = *v;
    return 0;
}

/* The doubles gathered so far become ordinary items: the array holds
 * something else too. */
static int unpack(struct parser *p)
{
    if (!p->nnums)
        return 0; /* nothing gathered (and perhaps no block yet) */
    double *v = (double *)((char *)p->nums + BLOCK_HDR);
    for (size_t i = 0; i < p->nnums; i++) {
        struct json it = {.type = isnan(v[i]) ? JSON_NULL : JSON_NUM};
        it.u.num = v[i];
        if (push_item(p, &it) != 0)
            return -1;
    }
    p->nnums = 0;
    return 0;
}

/* One more number (NAN for null) of the array being gathered. */
static int push_num(struct parser *p, double v)
{
    if (p->nnums == p->cap_nums) {
        /* 1.5 times: the block is the array itself in the end, and large
         * blocks move by remapping, not copying */
        size_t want = p->cap_nums ? p->cap_nums + p->cap_nums / 2 : 512;
        size_t room = (p->max_mem - p->used) / sizeof v + p->cap_nums;
        if (want > room)
            want = room > p->nnums + 1 ? room : p->nnums + 1;
        if (charge(p, (want - p->cap_nums) * sizeof v) != 0)
            return -1;
        p->nums = xrealloc(p->nums, BLOCK_HDR + want * sizeof v);
        p->cap_nums = want;
    }
    ((double *)((char *)p->nums + BLOCK_HDR))[p->nnums++] = v;
    return 0;
}

/* The gathered numbers as out (JSON_NUMS): a few are copied into the tree,
 * many keep their block, which the document takes over. */
static int finish_nums(struct parser *p, struct json *out)
{
    size_t n = p->nnums, bytes = n * sizeof(double);
    const double *v = (const double *)((char *)p->nums + BLOCK_HDR);
    out->type = JSON_NUMS;
    out->n = (uint32_t)n;
    p->nnums = 0;
    if (bytes < OWN_BLOCK) {
        double *d = tree_alloc(p, bytes, ALIGN);
        if (!d)
            return -1;
        memcpy(d, v, bytes);
        out->u.nums = d;
        return 0;
    }
    struct block *b = xrealloc(p->nums, BLOCK_HDR + bytes); /* shrinks in place */
    p->used -= (p->cap_nums - n) * sizeof(double);
    p->nums = NULL;
    p->cap_nums = 0;
    b->size = BLOCK_HDR + bytes;
    link_block(p->doc, b);
    out->u.nums = (double *)((char *)b + BLOCK_HDR);
    return 0;
}

static bool starts_num(char c) { return c == '-' || is_digit(c); }

static int parse_array(struct parser *p, struct json *out)
{
    size_t base = p->nitems;
    /* numbers and nulls are gathered as doubles until another kind of item
     * shows up; an array started inside this one ends that first */
    bool packed = true;
    if (enter(p) != 0)
        return -1;
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == ']') {
        p->pos++;
        packed = false;
    } else {
        for (;;) {
            skip_ws(p);
            char c = p->pos < p->len ? p->s[p->pos] : '\0';
            if (packed && (starts_num(c) || c == 'n')) {
                double d = NAN;
                struct json lit;
                if ((c == 'n' ? parse_literal(p, "null", &lit) : parse_number(p, &d)) != 0 ||
                    push_num(p, d) != 0)
                    goto bad;
            } else {
                if (packed && unpack(p) != 0)
                    goto bad;
                packed = false;
                struct json v = {0};
                if (parse_value(p, &v) != 0 || push_item(p, &v) != 0)
                    goto bad;
            }
            skip_ws(p);
            if (p->pos < p->len && p->s[p->pos] == ',') {
                p->pos++;
                continue;
            }
            if (p->pos < p->len && p->s[p->pos] == ']') {
                p->pos++;
                break;
            }
            unexpected(p, "',' or ']'");
            goto bad;
        }
    }
    if (packed) {
        if (p->nnums > UINT32_MAX) {
            fail(p, "array of more than %u items", UINT32_MAX);
            goto bad;
        }
        if (finish_nums(p, out) != 0)
            goto bad;
        p->depth--;
        return 0;
    }
    size_t n = p->nitems - base;
    if (n > UINT32_MAX) {
        fail(p, "array of more than %u items", UINT32_MAX);
        goto bad;
    }
    out->type = JSON_ARR;
    out->n = (uint32_t)n;
    out->u.items = NULL;
    if (n) {
        if (!(out->u.items = tree_alloc(p, n * sizeof *out->u.items, ALIGN)))
            goto bad;
        memcpy(out->u.items, p->items + base, n * sizeof *out->u.items);
    }
    p->nitems = base;
    p->depth--;
    return 0;
bad:
    p->nitems = base;
    p->nnums = 0;
    return -1;
}

static int cmp_key(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The first key that occurs twice among m[0..n), or NULL (also after a
 * message, when the sort would not fit the bound). */
static const char *duplicate_key(struct parser *p, const struct json_member *m, size_t n)
{
    if (n < 2)
        return NULL;
    if (n <= 8) {
        for (size_t i = 1; i < n; i++)
            for (size_t j = 0; j < i; j++)
                if (strcmp(m[i].key, m[j].key) == 0)
                    return m[i].key;
        return NULL;
    }
    if (charge(p, n * sizeof(char *)) != 0)
        return NULL;
    char **k = xmalloc(n * sizeof *k);
    for (size_t i = 0; i < n; i++)
        k[i] = m[i].key;
    qsort(k, n, sizeof *k, cmp_key);
    const char *dup = NULL;
    for (size_t i = 1; i < n && !dup; i++)
        if (strcmp(k[i - 1], k[i]) == 0)
            dup = k[i];
    free(k);
    p->used -= n * sizeof(char *);
    return dup;
}

static int parse_object(struct parser *p, struct json *out)
{
    size_t base = p->nmem;
    if (enter(p) != 0)
        return -1;
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == '}') {
        p->pos++;
    } else {
        for (;;) {
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != '"') {
                unexpected(p, "a key (a string)");
                goto bad;
            }
            if (parse_string(p) != 0)
                goto bad;
            char *key = tree_strdup(p, p->buf, p->nbuf);
            if (!key)
                goto bad;
            skip_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                unexpected(p, "':' after a key");
                goto bad;
            }
            p->pos++;
            struct json v = {0};
            if (parse_value(p, &v) != 0)
                goto bad;
            if (grow(p, (void **)&p->mem, &p->cap_mem, p->nmem + 1, sizeof *p->mem) != 0)
                goto bad;
            p->mem[p->nmem++] = (struct json_member){key, v};
            skip_ws(p);
            if (p->pos < p->len && p->s[p->pos] == ',') {
                p->pos++;
                continue;
            }
            if (p->pos < p->len && p->s[p->pos] == '}') {
                p->pos++;
                break;
            }
            unexpected(p, "',' or '}'");
            goto bad;
        }
    }
    size_t n = p->nmem - base;
    const char *dup = n > 1 ? duplicate_key(p, p->mem + base, n) : NULL; /* mem may be NULL */
    if (p->failed)
        goto bad;
    if (dup) {
        char shown[48];
        size_t k = 0;
        for (const char *c = dup; *c && k < 40; c++) /* printable: the message reaches a terminal */
            shown[k++] = (unsigned char)*c >= 0x20 && (unsigned char)*c < 0x7f ? *c : '?';
        shown[k] = '\0';
        fail(p, "duplicate key \"%s\" in an object", shown);
        goto bad;
    }
    if (n > UINT32_MAX) {
        fail(p, "object of more than %u members", UINT32_MAX);
        goto bad;
    }
    out->type = JSON_OBJ;
    out->n = (uint32_t)n;
    out->u.members = NULL;
    if (n) {
        if (!(out->u.members = tree_alloc(p, n * sizeof *out->u.members, ALIGN)))
            goto bad;
        memcpy(out->u.members, p->mem + base, n * sizeof *out->u.members);
    }
    p->nmem = base;
    p->depth--;
    return 0;
bad:
    p->nmem = base;
    return -1;
}

static int parse_value(struct parser *p, struct json *out)
{
    skip_ws(p);
    if (p->pos >= p->len)
        return unexpected(p, "a value");
    char c = p->s[p->pos];
    switch (c) {
    case '{': return parse_object(p, out);
    case '[': return parse_array(p, out);
    case '"':
        if (parse_string(p) != 0)
            return -1;
        out->type = JSON_STR;
        out->n = (uint32_t)p->nbuf; /* < JSON_MAX_TEXT */
        out->u.str = tree_strdup(p, p->buf, p->nbuf);
        return out->u.str ? 0 : -1;
    case 't': return parse_literal(p, "true", out);
    case 'f': return parse_literal(p, "false", out);
    case 'n': return parse_literal(p, "null", out);
    default:
        if (starts_num(c)) {
            out->type = JSON_NUM;
            return parse_number(p, &out->u.num);
        }
        return unexpected(p, "a value");
    }
}

int json_parse_bounded(const char *text, size_t len, size_t max_mem, struct json **out,
                       char *err, size_t errlen)
{
    struct parser p = {.s = text, .len = len, .err = err, .errlen = errlen, .max_mem = max_mem};
    *out = NULL;
    if (errlen)
        err[0] = '\0';
    if (len > JSON_MAX_TEXT)
        return fail(&p, "input larger than %u bytes", JSON_MAX_TEXT);
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        return fail(&p, "a byte-order mark is not allowed at the start");
    if (charge(&p, sizeof *p.doc) != 0)
        return -1;
    p.doc = xcalloc(1, sizeof *p.doc);
    int rc = parse_value(&p, &p.doc->root);
    if (rc == 0) {
        skip_ws(&p);
        if (p.pos != p.len) {
            char b[16];
            rc = fail(&p, "unexpected %s after the value", byte_text(&p, b, sizeof b));
        }
    }
    free(p.items);
    free(p.mem);
    free(p.buf);
    free(p.nums);
    if (rc != 0) {
        json_free(&p.doc->root);
        return -1;
    }
    *out = &p.doc->root;
    return 0;
}

int json_parse(const char *text, size_t len, struct json **out, char *err, size_t errlen)
{
    return json_parse_bounded(text, len, SIZE_MAX, out, err, errlen);
}

const struct json *json_get(const struct json *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJ)
        return NULL;
    for (uint32_t i = 0; i < obj->n; i++)
        if (strcmp(obj->u.members[i].key, key) == 0)
            return &obj->u.members[i].val;
    return NULL;
}

const char *json_str(const struct json *v)
{
    return v && v->type == JSON_STR ? v->u.str : NULL;
}

bool json_is(const struct json *v, enum json_type t) { return v && v->type == t; }

bool json_num_or_null(const struct json *v, double *out)
{
    if (!v)
        return false;
    if (v->type == JSON_NULL) {
        *out = NAN;
        return true;
    }
    if (v->type != JSON_NUM)
        return false;
    *out = v->u.num;
    return true;
}

bool json_int(const struct json *v, long long min, long long max, long long *out)
{
    if (!v || v->type != JSON_NUM)
        return false;
    double d = v->u.num;
    /* bounds as doubles: callers' ranges are far inside 2^53 */
    if (d != trunc(d) || d < (double)min || d > (double)max)
        return false;
    *out = (long long)d;
    return true;
}

void json_release_nums(struct json *root, struct json *v)
{
    if (!root || !v || v->type != JSON_NUMS)
        return;
    if ((size_t)v->n * sizeof(double) >= OWN_BLOCK) { /* finish_nums gave it a block */
        struct doc *d = (struct doc *)((char *)root - offsetof(struct doc, root));
        struct block *b = (struct block *)((char *)v->u.nums - BLOCK_HDR);
        if (b->prev)
            b->prev->next = b->next;
        else
            d->blocks = b->next;
        if (b->next)
            b->next->prev = b->prev;
        free(b);
    }
    v->type = JSON_ARR;
    v->n = 0;
    v->u.items = NULL;
}

bool json_nums(const struct json *v, const double **vals, uint32_t *n)
{
    if (v && v->type == JSON_NUMS) {
        *vals = v->u.nums;
        *n = v->n;
        return true;
    }
    if (v && v->type == JSON_ARR && v->n == 0) {
        *vals = NULL;
        *n = 0;
        return true;
    }
    return false;
}

const char *json_type_name(enum json_type t)
{
    switch (t) {
    case JSON_NULL: return "null";
    case JSON_BOOL: return "a boolean";
    case JSON_NUM: return "a number";
    case JSON_STR: return "a string";
    case JSON_ARR: return "an array";
    case JSON_OBJ: return "an object";
    case JSON_NUMS: return "an array of numbers";
    }
    return "?";
}
