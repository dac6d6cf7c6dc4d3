#include "strmap.h"
#include "hash.h"
#include "xalloc.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t find(const struct strmap *m, const char *key)
{
    size_t mask = m->cap - 1, i = (size_t)hash_str(key) & mask;
    while (m->v[i].key && strcmp(m->v[i].key, key) != 0)
        i = (i + 1) & mask;
    return i;
}

void *strmap_get(const struct strmap *m, const char *key)
{
    if (!m->cap)
        return NULL;
    size_t i = find(m, key);
    return m->v[i].key ? m->v[i].val : NULL;
}

void **strmap_slot(struct strmap *m, const char *key)
{
    if ((m->n + 1) * 4 > m->cap * 3) { /* keep the load under 3/4 */
        struct strmap old = *m;
        m->cap = old.cap ? old.cap * 2 : 64;
        m->v = xcalloc(m->cap, sizeof *m->v);
        for (size_t k = 0; k < old.cap; k++)
            if (old.v[k].key)
                m->v[find(m, old.v[k].key)] = old.v[k];
        free(old.v);
    }
    size_t i = find(m, key);
    if (!m->v[i].key) {
        m->v[i].key = xstrdup(key);
        m->v[i].val = NULL;
        m->n++;
    }
    return &m->v[i].val;
}

static int cmp_keys(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char **strmap_sorted_keys(const struct strmap *m, size_t *n)
{
    const char **keys = xmalloc((m->n + 1) * sizeof *keys);
    size_t k = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->v[i].key)
            keys[k++] = m->v[i].key;
    qsort(keys, k, sizeof *keys, cmp_keys);
    *n = k;
    return keys;
}

void strmap_free(struct strmap *m, void (*free_val)(void *))
{
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->v[i].key)
            continue;
        free(m->v[i].key);
        if (free_val)
            free_val(m->v[i].val);
    }
    free(m->v);
    m->v = NULL;
    m->cap = m->n = 0;
}
