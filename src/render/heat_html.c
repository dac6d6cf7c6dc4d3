/* The heat map's figure and data (see heat_html.h). */
#include "heat_html.h"
#include "escape.h"
#include "../model/profile.h"
#include "../model/profile_time.h"
#include "svg_flame.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <stdlib.h>

struct heat {
    const struct profile *p;
    uint64_t min_total;
    uint32_t *id;      /* per profile node: page node id + 1, 0 = not kept */
    uint32_t *leaf_to; /* per profile node that ends a stack: its kept node id + 1 */
    int32_t *name_ix;  /* per string id: index in names, -1 none yet */
    uint32_t nnames, nkept;
    struct strbuf names, nodes;
};

static uint32_t name_of(struct heat *h, uint32_t str)
{
    if (h->name_ix[str] < 0) {
        if (h->nnames)
            sb_addc(&h->names, ',');
        sb_addc(&h->names, '"');
        esc_json(&h->names, profile_str(h->p, str));
        sb_addc(&h->names, '"');
        h->name_ix[str] = (int32_t)h->nnames++;
    }
    return (uint32_t)h->name_ix[str];
}

/* Page node ids in the static graph's depth-first, name-sorted order: a
 * parent always comes before its children, siblings in drawing order. */
static int keep_stack(void *ctx, const struct profile *p, const uint32_t *path, size_t depth,
                      uint64_t self)
{
    (void)self;
    struct heat *h = ctx;
    uint32_t parent = 0; /* the root "all" is page node 0 */
    for (size_t d = 0; d < depth; d++) {
        uint32_t n = path[d];
        if (p->nodes[n].total < h->min_total || h->nkept >= HEAT_MAX_NODES)
            break;
        if (!h->id[n]) {
            h->id[n] = ++h->nkept; /* root is 0: ids from 1 */
            sb_addf(&h->nodes, ",%u,%u,%u", parent, name_of(h, p->nodes[n].name),
                    (unsigned)p->nodes[n].kind);
        }
        parent = h->id[n];
    }
    if (depth)
        h->leaf_to[path[depth - 1]] = parent + 1;
    return 0;
}

static int by_node_bucket(const void *a, const void *b)
{
    const struct profile_time_cell *x = a, *y = b;
    if (x->leaf != y->leaf)
        return x->leaf < y->leaf ? -1 : 1;
    return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

void heat_html(const struct profile *p, const struct flame_opts *o, const char *prefix,
               struct strbuf *out)
{
    const struct profile_time *pt = p ? p->time : NULL;
    if (!pt || !p->nnodes)
        return;
    /* the frames of the graph above, as it drew them: a report's graph folds
     * runs of an unnamed frame ("[heap]+0x6966df ×134"), so the stacks' ends
     * move to the folded profile's nodes */
    uint32_t *fold_to = o && o->report ? xmalloc(p->nnodes * sizeof *fold_to) : NULL;
    struct profile *folded = fold_to ? flame_report_folded(p, fold_to) : NULL;
    const struct profile *raw = p;
    if (folded)
        p = folded;
    struct heat h = {.p = p};
    h.min_total = profile_total(p) / HEAT_MAX_NODES;
    h.id = xcalloc(p->nnodes, sizeof *h.id);
    h.leaf_to = xcalloc(p->nnodes, sizeof *h.leaf_to);
    h.name_ix = xmalloc((p->nstrs ? p->nstrs : 1) * sizeof *h.name_ix);
    for (uint32_t i = 0; i < p->nstrs; i++)
        h.name_ix[i] = -1;
    /* node 0: the root, drawn "all" */
    sb_add(&h.names, "\"all\"");
    h.nnames = 1;
    sb_add(&h.nodes, "-1,0,0");
    profile_walk_stacks(p, keep_stack, &h);

    sb_addf(out, "<figure class=\"heat\" data-heat-for=\"%s\">\n", prefix);
    if (pt->bucket_s == 1)
        sb_addf(out, "<figcaption>Per second of the window: %s of this profile in each "
                     "second (one cell a second; the collectors count per second, not finer).",
                p->unit && p->unit[0] == 'u' ? "microseconds blocked" : "samples");
    else /* -i over 1 s: the collectors read once an interval */
        sb_addf(out, "<figcaption>Per %g seconds of the window: %s of this profile in each "
                     "%g s (one cell per %g s, the interval between the collectors' readings).",
                pt->bucket_s, p->unit && p->unit[0] == 'u' ? "microseconds blocked" : "samples",
                pt->bucket_s, pt->bucket_s);
    sb_add(out, " Drag across the cells, or focus them and use Shift+Arrow keys, to redraw the "
                "flame graph above for those seconds; Esc shows the whole window "
                "again.</figcaption>\n");
    sb_add(out, "<script type=\"application/json\" class=\"heat-data\">{\"unit\":\"");
    esc_json(out, p->unit ? p->unit : "");
    sb_addf(out, "\",\"bucket_s\":%g,\"total\":[", pt->bucket_s);
    for (uint32_t b = 0; b < pt->nbuckets; b++)
        sb_addf(out, "%s%llu", b ? "," : "", (unsigned long long)pt->total[b]);
    sb_add(out, "],\"unstacked\":[");
    for (uint32_t b = 0; b < pt->nbuckets; b++)
        sb_addf(out, "%s%llu", b ? "," : "", (unsigned long long)pt->unstacked[b]);
    sb_add(out, "],\"names\":[");
    sb_addn(out, sb_str(&h.names), h.names.len);
    sb_add(out, "],\"nodes\":[");
    sb_addn(out, sb_str(&h.nodes), h.nodes.len);
    sb_add(out, "],\"cells\":[");
    /* by page node, then second: the same page from a capture and from its
     * bundle read back, whose profile numbers its nodes otherwise */
    struct profile_time_cell *c = xmalloc((pt->ncells ? pt->ncells : 1) * sizeof *c);
    size_t nc = 0;
    for (size_t i = 0; i < pt->ncells; i++) {
        uint32_t leaf = pt->cells[i].leaf;
        if (folded)
            leaf = leaf < raw->nnodes ? fold_to[leaf] : PROFILE_NONE;
        uint32_t to = leaf < p->nnodes ? h.leaf_to[leaf] : 0;
        if (to) /* else not a stack of the graph: counted in unstacked by the writer */
            c[nc++] = (struct profile_time_cell){to - 1, pt->cells[i].bucket, pt->cells[i].value};
    }
    qsort(c, nc, sizeof *c, by_node_bucket);
    for (size_t i = 0, j; i < nc; i = j) {
        uint64_t v = 0; /* stacks cut at one kept frame add up there */
        for (j = i; j < nc && c[j].leaf == c[i].leaf && c[j].bucket == c[i].bucket; j++)
            v += c[j].value;
        sb_addf(out, "%s%u,%u,%llu", i ? "," : "", c[i].leaf, c[i].bucket,
                (unsigned long long)v);
    }
    free(c);
    sb_add(out, "]}</script>\n</figure>\n");
    sb_free(&h.names);
    sb_free(&h.nodes);
    free(h.id);
    free(h.leaf_to);
    free(h.name_ix);
    free(fold_to);
    profile_free(folded);
}
