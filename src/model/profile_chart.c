#include "profile_chart.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>

struct profile_chart {
    uint64_t *start; /* per node: the root's total when the node was made */
    size_t cap_start;
    uint32_t last;   /* leaf of the previous stack */
    bool leaf_first;
    uint32_t *path;  /* scratch: the previous stack, root first */
    size_t cap_path;
    struct pframe *rev; /* scratch: a reversed stack */
    size_t cap_rev;
};

bool profile_chart_begin(struct profile *p, bool leaf_first)
{
    if (p->chart || p->nnodes != 1 || profile_total(p) != 0)
        return false;
    struct profile_chart *c = xcalloc(1, sizeof *c);
    c->last = PROFILE_ROOT;
    c->leaf_first = leaf_first;
    xgrow(&c->start, &c->cap_start, 1, sizeof *c->start);
    c->start[PROFILE_ROOT] = 0;
    p->chart = c;
    return true;
}

void profile_chart_free(struct profile_chart *c)
{
    if (!c)
        return;
    free(c->start);
    free(c->path);
    free(c->rev);
    free(c);
}

void profile_chart_scale(struct profile *p, uint64_t mul)
{
    if (!p->chart)
        return;
    for (size_t n = 0; n < p->chart->cap_start && n < p->nnodes; n++)
        p->chart->start[n] *= mul;
}

uint64_t profile_chart_start(const struct profile *p, uint32_t node)
{
    if (!p->chart || node >= p->nnodes || node >= p->chart->cap_start)
        return 0;
    return p->chart->start[node];
}

uint32_t profile_chart_add(struct profile *p, const struct pframe *f, size_t depth,
                           uint64_t count)
{
    static const struct pframe unknown = {"[unknown]", 9, FRAME_UNKNOWN};
    struct profile_chart *c = p->chart;
    if (depth == 0) {
        f = &unknown;
        depth = 1;
    }
    if (c->leaf_first) {
        xgrow(&c->rev, &c->cap_rev, depth, sizeof *c->rev);
        for (size_t d = 0; d < depth; d++)
            c->rev[d] = f[depth - 1 - d];
        f = c->rev;
    }
    /* the previous stack, root first: its frames are the only ones to merge with */
    size_t nprev = 0;
    for (uint32_t n = c->last; n != PROFILE_ROOT; n = p->nodes[n].parent)
        nprev++;
    xgrow(&c->path, &c->cap_path, nprev + 1, sizeof *c->path);
    size_t i = nprev;
    for (uint32_t n = c->last; n != PROFILE_ROOT; n = p->nodes[n].parent)
        c->path[--i] = n;

    uint64_t now = p->nodes[PROFILE_ROOT].total;
    p->nodes[PROFILE_ROOT].total += count;
    uint32_t cur = PROFILE_ROOT;
    bool shared = true;
    for (size_t d = 0; d < depth; d++) {
        uint32_t name = profile_intern_name(p, f[d].s, f[d].len);
        unsigned kind = f[d].kind < FRAME_KIND_COUNT ? f[d].kind : FRAME_UNKNOWN;
        uint32_t next = PROFILE_NONE;
        if (shared && d < nprev && p->nodes[c->path[d]].name == name &&
            p->nodes[c->path[d]].kind == kind)
            next = c->path[d];
        if (next == PROFILE_NONE) {
            shared = false;
            next = profile_new_child(p, cur, name, (enum frame_kind)kind);
            if (next == PROFILE_NONE)
                break; /* node index space exhausted: the rest stays in the parent */
            xgrow(&c->start, &c->cap_start, (size_t)next + 1, sizeof *c->start);
            c->start[next] = now;
        }
        cur = next;
        p->nodes[cur].total += count;
    }
    c->last = cur;
    return cur;
}
