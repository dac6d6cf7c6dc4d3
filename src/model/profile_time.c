/* A profile's stacks per bucket of the window (see profile_time.h). */
#include "profile_time.h"
#include "../util/xalloc.h"
#include <stdlib.h>

struct profile_time *profile_time_new(double bucket_s, uint32_t nbuckets)
{
    if (nbuckets < 1 || nbuckets > PROFILE_TIME_MAX_BUCKETS || !(bucket_s > 0))
        return NULL;
    struct profile_time *pt = xcalloc(1, sizeof *pt);
    pt->bucket_s = bucket_s;
    pt->nbuckets = nbuckets;
    pt->total = xcalloc(nbuckets, sizeof *pt->total);
    pt->unstacked = xcalloc(nbuckets, sizeof *pt->unstacked);
    return pt;
}

void profile_time_free(struct profile_time *pt)
{
    if (!pt)
        return;
    free(pt->total);
    free(pt->unstacked);
    free(pt->cells);
    free(pt);
}

void profile_time_add(struct profile_time *pt, uint32_t leaf, uint32_t bucket, uint64_t value)
{
    if (!pt || bucket >= pt->nbuckets || !value)
        return;
    xgrow(&pt->cells, &pt->cap_cells, pt->ncells + 1, sizeof *pt->cells);
    pt->cells[pt->ncells++] = (struct profile_time_cell){leaf, bucket, value};
}

static int by_leaf_bucket(const void *a, const void *b)
{
    const struct profile_time_cell *x = a, *y = b;
    if (x->leaf != y->leaf)
        return x->leaf < y->leaf ? -1 : 1;
    return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

void profile_time_sort(struct profile_time *pt)
{
    if (!pt || !pt->ncells)
        return;
    qsort(pt->cells, pt->ncells, sizeof *pt->cells, by_leaf_bucket);
    size_t w = 0;
    for (size_t i = 0; i < pt->ncells; i++) {
        if (w && pt->cells[w - 1].leaf == pt->cells[i].leaf &&
            pt->cells[w - 1].bucket == pt->cells[i].bucket)
            pt->cells[w - 1].value += pt->cells[i].value;
        else
            pt->cells[w++] = pt->cells[i];
    }
    pt->ncells = w;
}
