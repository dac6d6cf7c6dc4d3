/* Stack profiles: a trie of frames with counts (on-CPU samples, off-CPU
 * microseconds...).  Collectors feed whole stacks root-first; renderers walk
 * the trie.  Frame names are interned once; nodes are compact 32-bit-indexed
 * records in one array (no per-node malloc) so 200k unique stacks of depth
 * 60 fit in well under 256 MiB.  Node 0 is the synthetic root "all".
 *
 * Most nodes have one child: a new stack's frames below where it leaves the
 * known trie are appended one after another, so descending such a chain
 * later reads adjacent memory.  Children are found by scanning the sibling
 * list; only a parent with many children gets its children indexed in a hash
 * table (child_ht), which then stays small.
 *
 * Ownership: a profile owns its strings and nodes; profile_free() releases
 * everything.  Functions taking strings copy them. */
#ifndef PERFREPORT_PROFILE_H
#define PERFREPORT_PROFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "frame_kind.h"

/* "user" "kernel" "jit" "inline" "unknown" "process" */
const char *frame_kind_name(enum frame_kind k);

#define PROFILE_ROOT 0u
#define PROFILE_NONE UINT32_MAX

#define PROFILE_MAX_STRS (1u << 28)

struct pnode {
    uint32_t name : 28;    /* string id */
    uint32_t kind : 3;     /* enum frame_kind; in the node to save a cache miss per lookup */
    uint32_t wide : 1;     /* internal: this node's children are indexed in child_ht */
    uint32_t parent;       /* PROFILE_NONE for the root */
    uint32_t first_child;  /* PROFILE_NONE when a leaf; unsorted sibling list */
    uint32_t next_sibling;
    uint64_t total;        /* count of this frame including its callees */
};

struct profile {
    char *name;  /* stable id: "cpu", "offcpu" */
    char *title; /* "On-CPU profile" */
    char *unit;  /* "samples", "us" */

    struct pnode *nodes;
    uint32_t *srcs;    /* per node "file:line" string id or PROFILE_NONE; NULL until used */
    uint32_t nnodes, cap_nodes;

    /* open-addressed (parent, name, kind) -> hash tag << 32 | node index,
     * for the children of wide nodes only; NULL until a node is wide */
    uint64_t *child_ht;
    uint32_t ht_mask, ht_used;

    /* string table: all names in one blob, offsets per id */
    char *blob;
    size_t blob_len, blob_cap;
    uint32_t *str_off;
    uint32_t nstrs, cap_strs;
    uint64_t *str_ht; /* open-addressed string -> hash tag << 32 | id */
    uint32_t str_ht_mask;

    /* Differential profiles (profile_diff.h): per node the baseline count,
     * summed like nodes[].total; NULL for an ordinary profile. */
    uint64_t *base;
    uint32_t nbase; /* nodes from nbase on have a baseline of 0 */
    /* Flame charts (profile_chart.h): stacks kept in input order; NULL for
     * a merged profile. */
    struct profile_chart *chart;
    /* Addresses, mappings, source lines and process labels for the pprof
     * export (profile_sites.h); NULL when nobody set them. */
    struct profile_sites *sites;
    /* The stacks per second of the window (profile_time.h); NULL when the
     * collector kept no time. */
    struct profile_time *time;
    /* Bounds on nodes and distinct names (0: none but the index space);
     * `over` once a stack or a name did not fit (profile_set_bounds). */
    uint32_t max_nodes, max_strs;
    bool over;
    /* An empty frame name stays empty instead of becoming "[unknown]"
     * (flamegraph.pl draws "a;;b" with a blank frame); kept by reversing. */
    bool empty_names;
};

struct profile *profile_new(const char *name, const char *title, const char *unit);
void profile_free(struct profile *p);
/* At most max_nodes nodes and max_strs distinct names from now on (a
 * profile read from a file that may be forged): a stack that would pass
 * them leaves the rest of its count in the last node that fit, a name goes
 * in as the root's, and profile_over_bounds() says so. */
void profile_set_bounds(struct profile *p, uint32_t max_nodes, uint32_t max_strs);
bool profile_over_bounds(const struct profile *p);

/* Adds `count` to the stack frames[0] (outermost) .. frames[depth-1] (leaf).
 * kinds may be NULL (all user).  NULL or empty names become "[unknown]".
 * Returns the leaf node index (the root when depth == 0). */
uint32_t profile_add_stack(struct profile *p, const char *const *frames,
                           const uint8_t *kinds, size_t depth, uint64_t count);
/* The same with counted (not NUL-terminated) names: the fast path parsers use. */
struct pframe {
    const char *s;
    size_t len;
    uint8_t kind; /* enum frame_kind */
};
uint32_t profile_add_frames(struct profile *p, const struct pframe *f, size_t depth,
                            uint64_t count);
/* A batch of stacks at once: a stack's frames shared with the one before it
 * follow that one's nodes without a lookup.  Depth-0 stacks only count at
 * the root here. */
struct pstack {
    const struct pframe *f;
    size_t depth;
    size_t shared; /* leading frames equal to the previous stack's in the batch (0 for the first) */
    uint64_t count;
};
void profile_add_stacks(struct profile *p, const struct pstack *st, size_t n);
/* Many stacks, most of them new (a folded file): the fastest way in.  Stacks
 * wait as interned frame ids, are sorted so that stacks sharing frames are
 * neighbours and are merged in one pass that needs no lookup below the nodes
 * that were there before; the new nodes come out in depth-first order.  The
 * root's total counts a stack at once, the other nodes when the stacks are
 * merged: at profile_bulk_end(), or early whenever PROFILE_BULK_MAX_IDS
 * frames wait.  s->shared counts the leading frames equal to those of the
 * previous stack given to this bulk (their names are not looked up again). */
#define PROFILE_BULK_MAX_IDS (16u << 20) /* 64 MiB of frame ids */
struct profile_bulk;
struct profile_bulk *profile_bulk_new(struct profile *p);
void profile_bulk_add(struct profile_bulk *b, const struct pstack *s);
/* Merges what waits and frees b (NULL is fine). */
void profile_bulk_end(struct profile_bulk *b);
/* Merges whenever max_ids frames wait instead (tests use a small one). */
void profile_bulk_limit(struct profile_bulk *b, size_t max_ids);
/* For a profile only drawn with frames narrower than a count left out: the
 * merge at profile_bulk_end() creates no node whose total would stay below
 * min_total (their counts stay in the parent, as the graph shows them).
 * Nodes made by earlier merges (a huge input) are all there. */
void profile_bulk_prune(struct profile_bulk *b, uint64_t min_total);
/* Child of parent with that name and kind, created when `create`. */
uint32_t profile_child(struct profile *p, uint32_t parent, const char *name,
                       enum frame_kind kind, bool create);
/* The string id a frame name is stored under (interned now); an empty name
 * is "[unknown]", as in profile_add_frames. */
uint32_t profile_intern_name(struct profile *p, const char *s, size_t n);
/* A new child of parent even when one of that name exists: flame charts
 * keep equal frames apart in time apart.  PROFILE_NONE when the node index
 * space is exhausted. */
uint32_t profile_new_child(struct profile *p, uint32_t parent, uint32_t name,
                           enum frame_kind kind);
/* Sets the hover source ("file:line") of a node. */
void profile_set_source(struct profile *p, uint32_t node, const char *file_line);

uint64_t profile_total(const struct profile *p);
/* Multiplies every count (totals, baselines, a chart's offsets) by mul, so
 * a reader of decimal fractions can keep them exact as integers of a finer
 * unit.  False, and nothing changed, when the total would not fit. */
bool profile_scale(struct profile *p, uint64_t mul);
/* Count of samples that ended in this node (total minus callees). */
uint64_t profile_self(const struct profile *p, uint32_t node);
const char *profile_str(const struct profile *p, uint32_t id);
const char *profile_node_name(const struct profile *p, uint32_t node);
enum frame_kind profile_node_kind(const struct profile *p, uint32_t node);
const char *profile_node_source(const struct profile *p, uint32_t node); /* NULL if none */
/* Node at the end of the root-first path `frames` (any kind), or PROFILE_NONE. */
uint32_t profile_find(const struct profile *p, const char *const *frames, size_t depth);
size_t profile_max_depth(const struct profile *p); /* root = depth 0 */

/* rank[id] = position of string id in bytewise order; caller frees.
 * Sorting siblings by rank gives flamegraph.pl's alphabetical merge order. */
uint32_t *profile_name_ranks(const struct profile *p);
/* Sorts node indices by (name rank, kind). */
void profile_sort_nodes(const struct profile *p, const uint32_t *ranks, uint32_t *v, size_t n);
size_t profile_nchildren(const struct profile *p, uint32_t node);

/* Depth-first walk in sorted order calling fn for every node that has
 * self count > 0, with its root-first path (node indices, excluding the
 * synthetic root).  Returning nonzero from fn stops the walk. */
typedef int (*profile_stack_fn)(void *ctx, const struct profile *p, const uint32_t *path,
                                size_t depth, uint64_t self);
int profile_walk_stacks(const struct profile *p, profile_stack_fn fn, void *ctx);

/* Rewrites every interned string (frame names, sources) to fn(ctx, s) when
 * fn returns non-NULL (a malloc'd string, freed here).  String ids and nodes
 * stay, so the trie keeps its shape even when two names become equal; meant
 * for rewriting a finished profile (--obfuscate), not for adding stacks after. */
void profile_map_strings(struct profile *p, char *(*fn)(void *ctx, const char *s), void *ctx);

/* A new profile with every stack reversed (leaf becomes the root):
 * flamegraph.pl --reverse. */
struct profile *profile_reversed(const struct profile *p);
#endif
