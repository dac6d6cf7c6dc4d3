#include "stack_counts.h"
#include "../util/hash.h"
#include "../util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys live in chunks that never move, so entries can point into them. */
#define CHUNK (1u << 20)

struct key_chunk {
    struct key_chunk *next;
    size_t used, cap;
    char data[];
};

struct stack_counts {
    struct stack_entry *e; /* the entries in insertion order, then sorted */
    size_t n, cap_e;
    uint32_t *slot;        /* open addressing: index+1 into e, 0 = empty */
    size_t nslot;          /* power of two */
    struct key_chunk *chunks;
    bool sorted;           /* e is sorted; slot[] must be rebuilt on the next add */
};

struct stack_counts *stack_counts_new(void)
{
    struct stack_counts *t = xcalloc(1, sizeof *t);
    t->nslot = 1024;
    t->slot = xcalloc(t->nslot, sizeof *t->slot);
    return t;
}

void stack_counts_free(struct stack_counts *t)
{
    if (!t)
        return;
    for (struct key_chunk *c = t->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(t->e);
    free(t->slot);
    free(t);
}


static const char *store_key(struct stack_counts *t, const char *key, size_t len)
{
    struct key_chunk *c = t->chunks;
    if (!c || c->cap - c->used < len) {
        size_t cap = len > CHUNK ? len : CHUNK;
        c = xmalloc(sizeof *c + cap);
        c->used = 0;
        c->cap = cap;
        c->next = t->chunks;
        t->chunks = c;
    }
    char *k = c->data + c->used;
    memcpy(k, key, len);
    c->used += len;
    return k;
}

static void rehash(struct stack_counts *t, size_t nslot)
{
    free(t->slot);
    t->nslot = nslot;
    t->slot = xcalloc(nslot, sizeof *t->slot);
    for (size_t i = 0; i < t->n; i++) {
        size_t s = (size_t)t->e[i].hash & (nslot - 1);
        while (t->slot[s])
            s = (s + 1) & (nslot - 1);
        t->slot[s] = (uint32_t)(i + 1);
    }
    t->sorted = false;
}

/* Perl: a digit string numifies to an integer when it fits in a UV, else to
 * a double; an integer sum that overflows becomes the double sum. */
static void count_add(struct stack_count *c, const char *digits, size_t n)
{
    uint64_t v = 0;
    bool big = false;
    for (size_t i = 0; i < n && !big; i++) {
        unsigned d = (unsigned)(digits[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            big = true;
        else
            v = v * 10 + d;
    }
    double dv = (double)v;
    if (big) {
        char *tmp = xstrndup(digits, n);
        dv = strtod(tmp, NULL);
        free(tmp);
    }
    if (!c->nv && !big && c->u <= UINT64_MAX - v) {
        c->u += v;
        return;
    }
    c->d = (c->nv ? c->d : (double)c->u) + dv;
    c->nv = true;
}

void stack_counts_add(struct stack_counts *t, const char *key, size_t key_len,
                      const char *digits, size_t ndigits)
{
    if (t->sorted)
        rehash(t, t->nslot);
    uint64_t h = hash_bytes(key, key_len);
    size_t s = (size_t)h & (t->nslot - 1);
    for (uint32_t i; (i = t->slot[s]) != 0; s = (s + 1) & (t->nslot - 1)) {
        struct stack_entry *e = &t->e[i - 1];
        if (e->hash == h && e->key_len == key_len && memcmp(e->key, key, key_len) == 0) {
            count_add(&e->count, digits, ndigits);
            return;
        }
    }
    if (t->n >= UINT32_MAX - 1) {
        fputs("perfreport: more than 4 billion distinct stacks\n", stderr);
        exit(3);
    }
    xgrow(&t->e, &t->cap_e, t->n + 1, sizeof *t->e);
    struct stack_entry *e = &t->e[t->n];
    *e = (struct stack_entry){store_key(t, key, key_len), key_len, h, {0, 0, false}};
    count_add(&e->count, digits, ndigits);
    t->slot[s] = (uint32_t)++t->n;
    if (t->n * 2 > t->nslot)
        rehash(t, t->nslot * 2);
}

static int cmp_entry(const void *a, const void *b)
{
    const struct stack_entry *x = a, *y = b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int c = memcmp(x->key, y->key, n); /* bytes as unsigned, as Perl's cmp */
    if (c)
        return c;
    return (x->key_len > y->key_len) - (x->key_len < y->key_len);
}

const struct stack_entry *stack_counts_sorted(struct stack_counts *t, size_t *n)
{
    if (!t->sorted && t->n > 1)
        qsort(t->e, t->n, sizeof *t->e, cmp_entry);
    t->sorted = true; /* the slots now point at the wrong entries */
    *n = t->n;
    return t->e;
}

void stack_count_format(const struct stack_count *c, struct strbuf *out)
{
    if (c->nv)
        sb_addf(out, "%.15g", c->d);
    else
        sb_addf(out, "%llu", (unsigned long long)c->u);
}
