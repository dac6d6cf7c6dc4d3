/* Per-bucket values of aggregated stacks, bounded (see stack_time.h). */
#include "stack_time.h"
#include "../util/hash.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NO_CELL UINT32_MAX

struct cell {
    uint32_t key, bucket;
    uint64_t value;
};

struct key_rec {
    uint64_t last;     /* cumulative count at the last observation */
    uint32_t cell;     /* the key's newest cell, NO_CELL when none */
    bool seen;
};

struct stack_time {
    size_t key_size;
    uint32_t max_keys, max_cells, max_buckets;

    unsigned char *kbytes; /* nkeys * key_size */
    struct key_rec *keys;
    uint32_t nkeys;
    size_t cap_keys;
    uint32_t *ht; /* open addressing: key index + 1, 0 empty; 2 * max_keys rounded up */
    uint32_t ht_mask;

    struct cell *cells;
    uint32_t ncells;
    size_t cap_cells;

    uint32_t first;            /* the span's first bucket */
    uint64_t *total, *unstacked; /* per bucket - first, nspan of them */
    uint32_t nspan;
    size_t cap_span;
    uint32_t top;              /* 1 + highest bucket with a value */

    uint64_t unstacked_sum, outside;
    uint32_t key_refusals, cell_refusals, outside_refusals;
};

struct stack_time *stack_time_new(size_t key_size, uint32_t max_keys, uint32_t max_cells,
                                  uint32_t max_buckets)
{
    if (key_size < 1 || key_size > 256 || max_keys < 1 || max_keys > (1u << 24) ||
        max_cells < 1 || max_cells > (1u << 26) || max_buckets < 1 || max_buckets > (1u << 24))
        return NULL;
    struct stack_time *t = xcalloc(1, sizeof *t);
    t->key_size = key_size;
    t->max_keys = max_keys;
    t->max_cells = max_cells;
    t->max_buckets = max_buckets;
    uint32_t n = 16;
    while (n < 2 * max_keys)
        n *= 2;
    t->ht = xcalloc(n, sizeof *t->ht);
    t->ht_mask = n - 1;
    return t;
}

void stack_time_free(struct stack_time *t)
{
    if (!t)
        return;
    free(t->kbytes);
    free(t->keys);
    free(t->ht);
    free(t->cells);
    free(t->total);
    free(t->unstacked);
    free(t);
}

/* Index of key, made when `create` and max_keys allows; UINT32_MAX if not. */
static uint32_t key_index(struct stack_time *t, const void *key, bool create)
{
    uint32_t slot = (uint32_t)hash_bytes(key, t->key_size) & t->ht_mask;
    for (;; slot = (slot + 1) & t->ht_mask) {
        uint32_t v = t->ht[slot];
        if (!v)
            break;
        if (!memcmp(t->kbytes + (size_t)(v - 1) * t->key_size, key, t->key_size))
            return v - 1;
    }
    if (!create || t->nkeys >= t->max_keys)
        return UINT32_MAX;
    size_t cap = t->cap_keys;
    xgrow(&t->keys, &cap, t->nkeys + 1, sizeof *t->keys);
    if (cap != t->cap_keys) {
        t->kbytes = xrealloc(t->kbytes, cap * t->key_size);
        t->cap_keys = cap;
    }
    uint32_t i = t->nkeys++;
    memcpy(t->kbytes + (size_t)i * t->key_size, key, t->key_size);
    t->keys[i] = (struct key_rec){0, NO_CELL, false};
    t->ht[slot] = i + 1; /* the table has room: max_keys <= half its slots */
    return i;
}

/* The totals' slot of bucket, growing the span; NULL outside it. */
static bool span_slot(struct stack_time *t, uint32_t bucket, size_t *slot)
{
    if (bucket < t->first || bucket - t->first >= t->max_buckets)
        return false;
    uint32_t i = bucket - t->first;
    if (i >= t->nspan) {
        size_t cap = t->cap_span;
        xgrow(&t->total, &cap, (size_t)i + 1, sizeof *t->total);
        size_t cap2 = t->cap_span;
        xgrow(&t->unstacked, &cap2, (size_t)i + 1, sizeof *t->unstacked);
        t->cap_span = cap;
        memset(t->total + t->nspan, 0, ((size_t)i + 1 - t->nspan) * sizeof *t->total);
        memset(t->unstacked + t->nspan, 0, ((size_t)i + 1 - t->nspan) * sizeof *t->unstacked);
        t->nspan = i + 1;
    }
    *slot = i;
    return true;
}

static bool add_at(struct stack_time *t, uint32_t k, const void *key, uint32_t bucket,
                   uint64_t value)
{
    size_t s;
    if (!span_slot(t, bucket, &s)) {
        t->outside += value;
        t->outside_refusals++;
        return false;
    }
    t->total[s] += value;
    if (bucket >= t->top)
        t->top = bucket + 1;
    if (k == UINT32_MAX)
        k = key_index(t, key, true);
    if (k == UINT32_MAX) {
        t->unstacked[s] += value;
        t->unstacked_sum += value;
        t->key_refusals++;
        return false;
    }
    struct key_rec *kr = &t->keys[k];
    if (kr->cell != NO_CELL && t->cells[kr->cell].bucket == bucket) {
        t->cells[kr->cell].value += value;
        return true;
    }
    if (t->ncells >= t->max_cells) {
        t->unstacked[s] += value;
        t->unstacked_sum += value;
        t->cell_refusals++;
        return false;
    }
    xgrow(&t->cells, &t->cap_cells, (size_t)t->ncells + 1, sizeof *t->cells);
    t->cells[t->ncells] = (struct cell){k, bucket, value};
    kr->cell = t->ncells++;
    return true;
}

bool stack_time_add(struct stack_time *t, const void *key, uint32_t bucket, uint64_t value)
{
    if (!t || !key || !value)
        return t && key;
    return add_at(t, UINT32_MAX, key, bucket, value);
}

uint64_t stack_time_observe(struct stack_time *t, const void *key, uint64_t cumulative,
                            uint32_t bucket)
{
    if (!t || !key)
        return 0;
    uint32_t k = key_index(t, key, true);
    uint64_t grew;
    if (k == UINT32_MAX) {
        /* No key to remember the last reading by: the whole cumulative count
         * would be counted again at every tick.  Nothing sound can be added,
         * so it is refused and counted as refused. */
        t->key_refusals++;
        return 0;
    }
    struct key_rec *kr = &t->keys[k];
    grew = kr->seen && cumulative >= kr->last ? cumulative - kr->last : cumulative;
    kr->last = cumulative;
    kr->seen = true;
    if (grew)
        add_at(t, k, key, bucket, grew);
    return grew;
}

void stack_time_forget_before(struct stack_time *t, uint32_t bucket)
{
    if (!t || bucket <= t->first)
        return;
    uint32_t w = 0;
    for (uint32_t k = 0; k < t->nkeys; k++)
        t->keys[k].cell = NO_CELL;
    for (uint32_t i = 0; i < t->ncells; i++) {
        if (t->cells[i].bucket < bucket)
            continue;
        t->cells[w] = t->cells[i];
        t->keys[t->cells[w].key].cell = w; /* later cells of a key come later */
        w++;
    }
    t->ncells = w;
    uint32_t drop = bucket - t->first;
    if (drop >= t->nspan) {
        t->nspan = 0;
    } else {
        memmove(t->total, t->total + drop, (size_t)(t->nspan - drop) * sizeof *t->total);
        memmove(t->unstacked, t->unstacked + drop,
                (size_t)(t->nspan - drop) * sizeof *t->unstacked);
        t->nspan -= drop;
    }
    t->first = bucket;
    if (t->top < bucket)
        t->top = 0;
}

void stack_time_stats(const struct stack_time *t, struct stack_time_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!t)
        return;
    out->keys = t->nkeys;
    out->cells = t->ncells;
    out->first = t->first;
    out->buckets = t->top;
    out->unstacked = t->unstacked_sum;
    out->outside = t->outside;
    out->key_refusals = t->key_refusals;
    out->cell_refusals = t->cell_refusals;
    out->outside_refusals = t->outside_refusals;
    out->bytes = sizeof *t + t->cap_keys * (t->key_size + sizeof *t->keys) +
                 ((size_t)t->ht_mask + 1) * sizeof *t->ht + t->cap_cells * sizeof *t->cells +
                 t->cap_span * 2 * sizeof(uint64_t);
}

uint64_t stack_time_total(const struct stack_time *t, uint32_t bucket)
{
    if (!t || bucket < t->first || bucket - t->first >= t->nspan)
        return 0;
    return t->total[bucket - t->first];
}

uint64_t stack_time_unstacked(const struct stack_time *t, uint32_t bucket)
{
    if (!t || bucket < t->first || bucket - t->first >= t->nspan)
        return 0;
    return t->unstacked[bucket - t->first];
}

static int by_key_bucket(const void *a, const void *b)
{
    const struct cell *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

int stack_time_walk(const struct stack_time *t, stack_time_cell_fn fn, void *ctx)
{
    if (!t || !t->ncells)
        return 0;
    struct cell *c = xmalloc((size_t)t->ncells * sizeof *c);
    memcpy(c, t->cells, (size_t)t->ncells * sizeof *c);
    qsort(c, t->ncells, sizeof *c, by_key_bucket);
    int rc = 0;
    for (uint32_t i = 0; i < t->ncells && !rc;) {
        uint64_t v = c[i].value;
        uint32_t j = i + 1;
        while (j < t->ncells && c[j].key == c[i].key && c[j].bucket == c[i].bucket)
            v += c[j++].value;
        rc = fn(ctx, t->kbytes + (size_t)c[i].key * t->key_size, c[i].key, c[i].bucket, v);
        i = j;
    }
    free(c);
    return rc;
}

uint32_t stack_time_nkeys(const struct stack_time *t) { return t ? t->nkeys : 0; }

const void *stack_time_key(const struct stack_time *t, uint32_t i)
{
    return t && i < t->nkeys ? t->kbytes + (size_t)i * t->key_size : NULL;
}

int64_t stack_time_find(const struct stack_time *t, const void *key)
{
    if (!t || !key)
        return -1;
    /* without `create` the lookup changes nothing */
    uint32_t k = key_index((struct stack_time *)t, key, false);
    return k == UINT32_MAX ? -1 : (int64_t)k;
}

double stack_time_bucket_width(double interval_s)
{
    if (!(interval_s > 1))
        return 1;
    return interval_s < 86400 ? ceil(interval_s) : 86400;
}

uint32_t stack_time_bucket_of(double from_s, double to_s, double bucket_s)
{
    double mid = (from_s + to_s) / 2 / (bucket_s >= 1 ? bucket_s : 1);
    if (!(mid > 0))
        return 0;
    if (mid >= (double)UINT32_MAX)
        return UINT32_MAX;
    return (uint32_t)mid;
}

bool stack_time_read_due(double read_s, double now_s, double interval_s, double bucket_s)
{
    if (!(interval_s > 0))
        return true;
    return stack_time_bucket_of(read_s, now_s, bucket_s) !=
           stack_time_bucket_of(now_s, now_s + interval_s, bucket_s);
}

uint32_t stack_time_buckets_for(double span_s, double bucket_s)
{
    double n = ceil(span_s / (bucket_s >= 1 ? bucket_s : 1) - 1e-3); /* 10.0004 s: 10 */
    if (!(n >= 1))
        return 1;
    return n < (double)UINT32_MAX ? (uint32_t)n : UINT32_MAX;
}
