#include "profile_diff.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>

void profile_add_base(struct profile *p, uint32_t leaf, uint64_t count)
{
    if (p->nbase < p->nnodes) { /* also the first call: base NULL, nbase 0 */
        /* to the node capacity at once: one realloc per doubling of the nodes */
        uint64_t *b = xrealloc(p->base, (size_t)p->cap_nodes * sizeof *b);
        memset(b + p->nbase, 0, ((size_t)p->cap_nodes - p->nbase) * sizeof *b);
        p->base = b;
        p->nbase = p->cap_nodes;
    }
    if (leaf >= p->nnodes)
        return;
    for (uint32_t n = leaf; n != PROFILE_NONE; n = p->nodes[n].parent)
        p->base[n] = p->base[n] > UINT64_MAX - count ? UINT64_MAX : p->base[n] + count;
}

uint32_t profile_add_frames2(struct profile *p, const struct pframe *f, size_t depth,
                             uint64_t count, uint64_t base)
{
    uint32_t leaf = profile_add_frames(p, f, depth, count);
    profile_add_base(p, leaf, base);
    return leaf;
}

uint64_t profile_node_base(const struct profile *p, uint32_t node)
{
    return p->base && node < p->nbase && node < p->nnodes ? p->base[node] : 0;
}

uint64_t profile_self_base(const struct profile *p, uint32_t node)
{
    uint64_t t = profile_node_base(p, node);
    for (uint32_t c = p->nodes[node].first_child; c != PROFILE_NONE; c = p->nodes[c].next_sibling) {
        uint64_t b = profile_node_base(p, c);
        t = t > b ? t - b : 0; /* saturated sums can leave less than the callees */
    }
    return t;
}

struct profile *profile_reversed_diff(const struct profile *p)
{
    struct profile *r = profile_new(p->name, p->title, p->unit);
    r->empty_names = p->empty_names;
    struct pframe *f = NULL;
    size_t cap = 0;
    bool diff = profile_is_diff(p);
    if (diff)
        profile_add_base(r, PROFILE_NONE, 0); /* differential even if every baseline is 0 */
    /* any node order will do: the reversed profile merges and sorts anyway */
    for (uint32_t n = 1; n < p->nnodes; n++) {
        uint64_t self = profile_self(p, n), self0 = diff ? profile_self_base(p, n) : 0;
        if (self == 0 && self0 == 0)
            continue;
        size_t depth = 0;
        for (uint32_t a = n; a != PROFILE_ROOT; a = p->nodes[a].parent) {
            xgrow(&f, &cap, depth + 1, sizeof *f);
            const char *s = profile_str(p, p->nodes[a].name);
            f[depth++] = (struct pframe){s, strlen(s), p->nodes[a].kind}; /* leaf first */
        }
        uint32_t leaf = profile_add_frames(r, f, depth, self);
        if (diff)
            profile_add_base(r, leaf, self0);
    }
    free(f);
    return r;
}
