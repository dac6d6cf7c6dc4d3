/* String-keyed hash map (open addressing).  The map owns copies of its keys;
 * values are the caller's (strmap_free can release them). */
#ifndef PERFREPORT_STRMAP_H
#define PERFREPORT_STRMAP_H
#include <stddef.h>

struct strmap_ent {
    char *key; /* NULL: empty slot */
    void *val;
};
struct strmap {
    struct strmap_ent *v;
    size_t cap, n; /* cap is 0 or a power of two */
};
#define STRMAP_INIT {0}

void *strmap_get(const struct strmap *m, const char *key);
/* The value slot of key, inserted (with a NULL value) when absent. */
void **strmap_slot(struct strmap *m, const char *key);
/* Keys in bytewise order (pointers into the map, valid until it changes);
 * the caller frees the array.  *n is set to m->n. */
const char **strmap_sorted_keys(const struct strmap *m, size_t *n);
void strmap_free(struct strmap *m, void (*free_val)(void *));
#endif
