#include "profile.h"
#include "profile_chart.h"
#include "profile_sites.h"
#include "profile_time.h"
#include "../util/xalloc.h"
#include "../util/hash.h"
#include <stdlib.h>
#include <string.h>

_Static_assert(FRAME_KIND_COUNT <= 8, "struct pnode keeps the kind in 3 bits");

static const char *const kind_names[FRAME_KIND_COUNT] = {"user", "kernel", "jit", "inline", "unknown",
                                                 "process"};

const char *frame_kind_name(enum frame_kind k)
{
    return (unsigned)k < FRAME_KIND_COUNT ? kind_names[k] : "unknown";
}

/* Low bits index the table, high 32 bits are the tag kept in the slot. */
static uint64_t hash_child(uint32_t parent, uint32_t name, unsigned kind)
{
    uint64_t h = ((uint64_t)parent << 32 | (uint64_t)name << 4 | kind) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
}

#define SLOT_EMPTY UINT64_MAX
#define SLOT(tag, id) ((uint64_t)(tag) << 32 | (id))

/* ---- string table ---- */

/* Strings lie in the blob in id order (intern appends, profile_map_strings
 * rewrites in order), so a string's length is the gap to the next one. */
static size_t str_len(const struct profile *p, uint32_t id)
{
    size_t end = id + 1 < p->nstrs ? p->str_off[id + 1] : p->blob_len;
    return end - p->str_off[id] - 1;
}

static void str_rehash(struct profile *p, uint32_t size)
{
    free(p->str_ht);
    p->str_ht = xmalloc((size_t)size * sizeof *p->str_ht);
    memset(p->str_ht, 0xff, (size_t)size * sizeof *p->str_ht);
    p->str_ht_mask = size - 1;
    for (uint32_t id = 0; id < p->nstrs; id++) {
        uint64_t h = hash_bytes(p->blob + p->str_off[id], str_len(p, id));
        uint32_t i = (uint32_t)h & p->str_ht_mask;
        while (p->str_ht[i] != SLOT_EMPTY)
            i = (i + 1) & p->str_ht_mask;
        p->str_ht[i] = SLOT(h >> 32, id);
    }
}

/* Whether a and b hold the same n bytes: names are short, and memcmp's
 * call costs more than the compare itself here. */
static bool same_bytes(const char *a, const char *b, size_t n)
{
    for (; n >= 8; a += 8, b += 8, n -= 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        if (x != y)
            return false;
    }
    while (n--)
        if (*a++ != *b++)
            return false;
    return true;
}

/* Id of s[0..n), which holds no NUL: names are stored as C strings, and one
 * with a NUL inside would hash unlike its stored form. */
static uint32_t intern(struct profile *p, const char *s, size_t n)
{
    uint64_t h = hash_bytes(s, n);
    uint32_t tag = (uint32_t)(h >> 32);
    uint32_t i = (uint32_t)h & p->str_ht_mask;
    for (;;) {
        uint64_t slot = p->str_ht[i];
        if (slot == SLOT_EMPTY)
            break;
        uint32_t id = (uint32_t)slot;
        if ((uint32_t)(slot >> 32) == tag && str_len(p, id) == n &&
            same_bytes(p->blob + p->str_off[id], s, n))
            return id;
        i = (i + 1) & p->str_ht_mask;
    }
    if (p->blob_len + n + 1 > UINT32_MAX || p->nstrs >= PROFILE_MAX_STRS - 1 ||
        (p->max_strs && p->nstrs >= p->max_strs)) {
        /* 4 GiB of distinct names, or the bound: everything further folds
         * into one name */
        p->over = p->over || p->max_strs;
        return 0;
    }
    xgrow(&p->blob, &p->blob_cap, p->blob_len + n + 1, 1);
    memcpy(p->blob + p->blob_len, s, n);
    p->blob[p->blob_len + n] = '\0';
    if (p->nstrs == p->cap_strs) {
        p->cap_strs = p->cap_strs ? p->cap_strs * 2 : 256;
        p->str_off = xrealloc(p->str_off, (size_t)p->cap_strs * sizeof *p->str_off);
    }
    uint32_t id = p->nstrs++;
    p->str_off[id] = (uint32_t)p->blob_len;
    p->blob_len += n + 1;
    p->str_ht[i] = SLOT(tag, id);
    if ((uint64_t)p->nstrs * 4 > (uint64_t)(p->str_ht_mask + 1) * 3)
        str_rehash(p, (p->str_ht_mask + 1) * 2);
    return id;
}

void profile_map_strings(struct profile *p, char *(*fn)(void *ctx, const char *s), void *ctx)
{
    if (p->sites) { /* a kept pprof file holds the strings as they were */
        free(p->sites->kept_pprof);
        p->sites->kept_pprof = NULL;
        p->sites->kept_pprof_len = 0;
    }
    if (!p->nstrs)
        return;
    char *blob = NULL;
    size_t len = 0, cap = 0;
    for (uint32_t id = 0; id < p->nstrs; id++) {
        const char *old = p->blob + p->str_off[id];
        char *neu = fn(ctx, old);
        const char *s = neu ? neu : old;
        size_t n = strlen(s);
        if (len + n + 1 > UINT32_MAX) { /* cannot grow past 32-bit offsets: keep it */
            s = "[unknown]";
            n = strlen(s);
        }
        xgrow(&blob, &cap, len + n + 1, 1);
        memcpy(blob + len, s, n + 1);
        p->str_off[id] = (uint32_t)len;
        len += n + 1;
        free(neu);
    }
    free(p->blob);
    p->blob = blob;
    p->blob_len = len;
    p->blob_cap = cap;
    str_rehash(p, p->str_ht_mask + 1);
}

const char *profile_str(const struct profile *p, uint32_t id)
{
    return id < p->nstrs ? p->blob + p->str_off[id] : "";
}

/* ---- nodes ---- */

/* A parent with more children than this gets them indexed in child_ht:
 * beyond it a sibling scan, a cache miss per sibling, costs more than a
 * hash probe. */
#define WIDE_KIDS 8

static uint64_t node_hash(const struct profile *p, uint32_t n)
{
    const struct pnode *nd = &p->nodes[n];
    return hash_child(nd->parent, nd->name, nd->kind);
}

static void ht_put(struct profile *p, uint64_t h, uint32_t node)
{
    uint32_t i = (uint32_t)h & p->ht_mask;
    while (p->child_ht[i] != SLOT_EMPTY)
        i = (i + 1) & p->ht_mask;
    p->child_ht[i] = SLOT(h >> 32, node);
}

static void child_rehash(struct profile *p, uint32_t size)
{
    uint64_t *old = p->child_ht;
    size_t old_size = old ? (size_t)p->ht_mask + 1 : 0;
    p->child_ht = xmalloc((size_t)size * sizeof *p->child_ht);
    memset(p->child_ht, 0xff, (size_t)size * sizeof *p->child_ht);
    p->ht_mask = size - 1;
    for (size_t i = 0; i < old_size; i++)
        if (old[i] != SLOT_EMPTY)
            ht_put(p, node_hash(p, (uint32_t)old[i]), (uint32_t)old[i]);
    free(old);
}

static void ht_add(struct profile *p, uint32_t node)
{
    if (!p->child_ht)
        child_rehash(p, 1024);
    else if ((uint64_t)(p->ht_used + 1) * 10 > ((uint64_t)p->ht_mask + 1) * 7 &&
             p->ht_mask < UINT32_MAX / 2)
        child_rehash(p, (p->ht_mask + 1) * 2);
    /* past 2^31 slots the table only fills up: fewer nodes than slots exist */
    ht_put(p, node_hash(p, node), node);
    p->ht_used++;
}

static uint32_t new_node(struct profile *p, uint32_t parent, uint32_t name, unsigned kind)
{
    if (p->max_nodes && p->nnodes >= p->max_nodes) {
        p->over = true;
        return PROFILE_NONE;
    }
    if (p->nnodes == p->cap_nodes) {
        if (p->cap_nodes >= UINT32_MAX / 2) {
            return PROFILE_NONE;
        }
        uint32_t cap = p->cap_nodes ? p->cap_nodes * 2 : 1024;
        p->nodes = xbig_realloc(p->nodes, (size_t)p->cap_nodes * sizeof *p->nodes,
                                (size_t)cap * sizeof *p->nodes);
        p->cap_nodes = cap;
        if (p->srcs)
            p->srcs = xrealloc(p->srcs, (size_t)p->cap_nodes * sizeof *p->srcs);
    }
    uint32_t n = p->nnodes++;
    struct pnode *nd = &p->nodes[n];
    nd->name = name;
    nd->kind = kind & 7;
    nd->wide = 0;
    nd->parent = parent;
    nd->first_child = PROFILE_NONE;
    nd->total = 0;
    if (p->srcs)
        p->srcs[n] = PROFILE_NONE;
    if (parent != PROFILE_NONE) {
        nd->next_sibling = p->nodes[parent].first_child;
        p->nodes[parent].first_child = n;
    } else {
        nd->next_sibling = PROFILE_NONE;
    }
    return n;
}

struct profile *profile_new(const char *name, const char *title, const char *unit)
{
    struct profile *p = xcalloc(1, sizeof *p);
    p->name = xstrdup(name ? name : "profile");
    p->title = xstrdup(title ? title : p->name);
    p->unit = xstrdup(unit ? unit : "samples");
    str_rehash(p, 1024);
    intern(p, "all", 3); /* id 0: the root's name, also the overflow fallback */
    new_node(p, PROFILE_NONE, 0, FRAME_PROCESS);
    return p;
}

void profile_set_bounds(struct profile *p, uint32_t max_nodes, uint32_t max_strs)
{
    p->max_nodes = max_nodes;
    p->max_strs = max_strs;
}

bool profile_over_bounds(const struct profile *p) { return p->over; }

void profile_free(struct profile *p)
{
    if (!p)
        return;
    free(p->name);
    free(p->title);
    free(p->unit);
    xbig_free(p->nodes, (size_t)p->cap_nodes * sizeof *p->nodes);
    free(p->srcs);
    free(p->child_ht);
    free(p->blob);
    free(p->str_off);
    free(p->str_ht);
    free(p->base);
    profile_chart_free(p->chart);
    profile_sites_free(p->sites);
    profile_time_free(p->time);
    free(p);
}

/* The child (name, kind) of parent, or PROFILE_NONE; then *nkids is how
 * many children a parent that is not wide has. */
static uint32_t find_child(const struct profile *p, uint32_t parent, uint32_t name,
                           unsigned kind, uint32_t *nkids)
{
    const struct pnode *nd = p->nodes;
    if (nd[parent].wide) {
        uint64_t h = hash_child(parent, name, kind);
        uint32_t tag = (uint32_t)(h >> 32);
        for (uint32_t i = (uint32_t)h & p->ht_mask;; i = (i + 1) & p->ht_mask) {
            uint64_t slot = p->child_ht[i];
            if (slot == SLOT_EMPTY)
                return PROFILE_NONE;
            /* the tag spares a cache miss on the node for almost every non-match */
            uint32_t c = (uint32_t)slot;
            if ((uint32_t)(slot >> 32) == tag && nd[c].parent == parent && nd[c].name == name &&
                nd[c].kind == kind)
                return c;
        }
    }
    uint32_t k = 0;
    for (uint32_t c = nd[parent].first_child; c != PROFILE_NONE; c = nd[c].next_sibling, k++)
        if (nd[c].name == name && nd[c].kind == kind)
            return c;
    *nkids = k;
    return PROFILE_NONE;
}

/* A new child of parent, which has nkids children unless it is wide;
 * PROFILE_NONE when the node index space is exhausted. */
static uint32_t add_child(struct profile *p, uint32_t parent, uint32_t name, unsigned kind,
                          uint32_t nkids)
{
    uint32_t c = new_node(p, parent, name, kind);
    if (c == PROFILE_NONE)
        return PROFILE_NONE;
    struct pnode *pn = &p->nodes[parent]; /* after new_node: it may move the array */
    if (pn->wide) {
        ht_add(p, c);
    } else if (nkids >= WIDE_KIDS) {
        pn->wide = 1;
        for (uint32_t k = pn->first_child; k != PROFILE_NONE; k = p->nodes[k].next_sibling)
            ht_add(p, k);
    }
    return c;
}

static unsigned norm_kind(unsigned kind) { return kind < FRAME_KIND_COUNT ? kind : FRAME_UNKNOWN; }

static uint32_t intern_frame(struct profile *p, const char *s, size_t n)
{
    n = strnlen(s, n); /* "\0x" is as empty as "" */
    return n || p->empty_names ? intern(p, s, n) : intern(p, "[unknown]", 9);
}

/* Goes down from node cur along the depth frames f, adding count to every
 * node reached (created when missing) and noting it in path[] when path is
 * not NULL.  Returns the last node reached; *reached is how many frames were
 * followed (fewer than depth only when the node index space ran out: the
 * rest of the count stays in that node). */
static uint32_t descend(struct profile *p, uint32_t cur, const struct pframe *f, size_t depth,
                        uint64_t count, uint32_t *path, size_t *reached)
{
    bool fresh = false; /* cur was created by this stack: it has no children to look at */
    size_t d;
    for (d = 0; d < depth; d++) {
        unsigned kind = norm_kind(f[d].kind);
        uint32_t name = intern_frame(p, f[d].s, f[d].len);
        uint32_t c = PROFILE_NONE, nkids = 0;
        if (!fresh)
            c = find_child(p, cur, name, kind, &nkids);
        if (c == PROFILE_NONE) {
            c = add_child(p, cur, name, kind, nkids);
            if (c == PROFILE_NONE)
                break;
            fresh = true;
        }
        p->nodes[c].total += count;
        if (path)
            path[d] = c;
        cur = c;
    }
    *reached = d;
    return cur;
}

static uint32_t child_n(struct profile *p, uint32_t parent, const char *s, size_t n,
                        unsigned kind, bool create)
{
    kind = norm_kind(kind);
    uint32_t name = intern_frame(p, s, n), nkids = 0;
    uint32_t c = find_child(p, parent, name, kind, &nkids);
    if (c == PROFILE_NONE && create)
        c = add_child(p, parent, name, kind, nkids);
    return c;
}

void profile_add_stacks(struct profile *p, const struct pstack *st, size_t n)
{
    if (p->chart) { /* a flame chart merges only with the previous stack */
        for (size_t j = 0; j < n; j++)
            profile_chart_add(p, st[j].f, st[j].depth, st[j].count);
        return;
    }
    /* path: the nodes of the previous stack, whose first `have` frames were
     * followed; frames it shares with the next one need no lookup */
    uint32_t *path = NULL;
    size_t cap = 0, have = 0;
    for (size_t j = 0; j < n; j++) {
        uint64_t count = st[j].count;
        size_t depth = st[j].depth;
        p->nodes[PROFILE_ROOT].total += count;
        size_t from = j ? st[j].shared : 0;
        if (from > have)
            from = have;
        if (from > depth)
            from = depth;
        for (size_t d = 0; d < from; d++)
            p->nodes[path[d]].total += count;
        xgrow(&path, &cap, depth + 1, sizeof *path);
        size_t reached;
        descend(p, from ? path[from - 1] : PROFILE_ROOT, st[j].f + from, depth - from, count,
                path + from, &reached);
        have = from + reached;
    }
    free(path);
}

/* ---- bulk ---- */

/* 32 bytes: glibc sorts records of up to 32 bytes in place; larger ones
 * through pointers, a cache miss per compare. */
struct bstack {
    uint64_t key[2]; /* its first four frames' codes (0 for none): most compares end here */
    uint64_t count;
    uint32_t off;    /* its first frame in ids (fewer than max_ids <= UINT32_MAX wait) */
    uint32_t depth;
};

_Static_assert(sizeof(struct bstack) == 32, "see struct bstack");

struct profile_bulk {
    struct profile *p;
    uint32_t *ids; /* name id << 3 | kind for every frame of every waiting stack */
    size_t nids, cap_ids;
    struct bstack *st;
    size_t nst, cap_st;
    size_t max_ids; /* merge when more frames would wait */
    uint64_t prune; /* the last merge creates no node whose total stays below this */
};

struct profile_bulk *profile_bulk_new(struct profile *p)
{
    struct profile_bulk *b = xcalloc(1, sizeof *b);
    b->p = p;
    b->max_ids = PROFILE_BULK_MAX_IDS;
    return b;
}

void profile_bulk_limit(struct profile_bulk *b, size_t max_ids)
{
    b->max_ids = max_ids < UINT32_MAX ? max_ids : UINT32_MAX;
}

void profile_bulk_prune(struct profile_bulk *b, uint64_t min_total) { b->prune = min_total; }

/* Marks with KEEP the frames whose new node would reach a total of at least
 * min (the first frame of each node's run of sorted stacks stands for it).
 * The stacks through a node are a run of neighbours in the sorted order, so
 * its total is a difference of prefix sums of their counts. */
#define KEEP 0x80000000u
static void mark_keep(struct profile_bulk *b, const uint32_t *lcps, uint32_t maxd, uint64_t min)
{
    uint64_t *sum = xmalloc((b->nst + 1) * sizeof *sum);
    size_t *first = xmalloc(((size_t)maxd + 1) * sizeof *first); /* run start per open depth */
    sum[0] = 0;
    for (size_t j = 0; j < b->nst; j++) {
        uint64_t c = b->st[j].count;
        sum[j + 1] = sum[j] + (c < UINT64_MAX - sum[j] ? c : UINT64_MAX - sum[j]);
    }
    uint32_t open = 0;
    for (size_t j = 0; j <= b->nst; j++) {
        uint32_t lcp = j < b->nst ? lcps[j] : 0;
        for (uint32_t d = lcp; d < open; d++) /* runs that end before stack j */
            if (sum[j] - sum[first[d]] >= min)
                b->ids[b->st[first[d]].off + d] |= KEEP;
        if (j == b->nst)
            break;
        for (uint32_t d = lcp; d < b->st[j].depth; d++)
            first[d] = j;
        open = b->st[j].depth;
    }
    free(sum);
    free(first);
}

/* Lexicographic on the frame codes, a stack before its extensions: any
 * order that keeps the stacks sharing a prefix together would do. */
static int cmp_bstack(const void *x, const void *y, void *ctx)
{
    const uint32_t *ids = ctx;
    const struct bstack *a = x, *b = y;
    /* keys that differ order as the codes do (a stack of one frame has 0
     * where its extensions have a code: it comes first, as below) */
    for (int k = 0; k < 2; k++)
        if (a->key[k] != b->key[k])
            return a->key[k] < b->key[k] ? -1 : 1;
    const uint32_t *u = ids + a->off, *v = ids + b->off;
    uint32_t n = a->depth < b->depth ? a->depth : b->depth;
    for (uint32_t i = 0; i < n; i++)
        if (u[i] != v[i])
            return u[i] < v[i] ? -1 : 1;
    return (a->depth > b->depth) - (a->depth < b->depth);
}

static void reserve_nodes(struct profile *p, uint64_t want)
{
    if (want > UINT32_MAX / 2)
        want = UINT32_MAX / 2;
    if (p->max_nodes && want > p->max_nodes)
        want = p->max_nodes;
    if (want <= p->cap_nodes)
        return;
    p->nodes = xbig_realloc(p->nodes, (size_t)p->cap_nodes * sizeof *p->nodes,
                            (size_t)want * sizeof *p->nodes);
    p->cap_nodes = (uint32_t)want;
    if (p->srcs)
        p->srcs = xrealloc(p->srcs, (size_t)p->cap_nodes * sizeof *p->srcs);
}

static void bulk_merge(struct profile_bulk *b, bool final)
{
    struct profile *p = b->p;
    const uint32_t *ids = b->ids;
    if (!b->nst)
        return;
    qsort_r(b->st, b->nst, sizeof *b->st, cmp_bstack, b->ids);
    uint64_t most_new = 0; /* nodes this merge creates at most: one array, no regrowth */
    uint32_t maxd = 0;
    uint32_t *lcps = xmalloc(b->nst * sizeof *lcps); /* frames equal to the previous stack's */
    for (size_t j = 0; j < b->nst; j++) {
        const struct bstack *s = &b->st[j];
        uint32_t l = 0;
        if (j) {
            const struct bstack *q = &b->st[j - 1];
            uint32_t n = s->depth < q->depth ? s->depth : q->depth;
            while (l < n && ids[s->off + l] == ids[q->off + l])
                l++;
        }
        lcps[j] = l;
        most_new += s->depth - l;
        if (s->depth > maxd)
            maxd = s->depth;
    }
    bool prune = b->prune > 1 && final;
    if (prune)
        mark_keep(b, lcps, maxd, b->prune);
    else
        reserve_nodes(p, (uint64_t)p->nnodes + most_new);

    /* Below a node created by this merge no lookup is needed: the stacks
     * through it are neighbours in the sorted order, so a child it should
     * have was made by the previous stack, within the shared prefix. */
    uint32_t base = p->nnodes;
    uint32_t *path = xmalloc(((size_t)maxd + 1) * sizeof *path);
    /* kids[d]: children made so far for path[d - 1] when that node is new
     * (its children are never looked up, so nothing else counts them): past
     * WIDE_KIDS add_child indexes them, and the next merge finds any of
     * them in constant time instead of scanning millions of siblings */
    uint32_t *kids = xcalloc((size_t)maxd + 2, sizeof *kids);
    uint32_t have = 0; /* frames of the previous stack that got a node */
    for (size_t j = 0; j < b->nst; j++) {
        const struct bstack *s = &b->st[j];
        uint32_t from = lcps[j] < have ? lcps[j] : have;
        for (uint32_t d = 0; d < from; d++)
            p->nodes[path[d]].total += s->count;
        uint32_t cur = from ? path[from - 1] : PROFILE_ROOT;
        uint32_t d;
        for (d = from; d < s->depth; d++) {
            uint32_t code = ids[s->off + d], name = (code & ~KEEP) >> 3, kind = code & 7;
            uint32_t c = PROFILE_NONE, nkids = kids[d];
            if (cur < base)
                c = find_child(p, cur, name, kind, &nkids);
            if (c == PROFILE_NONE) {
                if (prune && !(code & KEEP))
                    break; /* too light to draw: the rest stays in cur */
                c = add_child(p, cur, name, kind, nkids);
                if (c == PROFILE_NONE)
                    break; /* node index space exhausted: the rest stays in cur */
                kids[d]++;
                kids[d + 1] = 0; /* c is new: no children yet */
            }
            p->nodes[c].total += s->count;
            path[d] = c;
            cur = c;
        }
        have = d;
    }
    free(path);
    free(kids);
    free(lcps);
    b->nst = 0;
    b->nids = 0;
}

void profile_bulk_add(struct profile_bulk *b, const struct pstack *s)
{
    struct profile *p = b->p;
    p->nodes[PROFILE_ROOT].total += s->count;
    if (s->depth == 0)
        return; /* counts at the root only, as in profile_add_stacks */
    uint32_t depth = s->depth < UINT32_MAX ? (uint32_t)s->depth : UINT32_MAX;
    if (b->nst && b->nids + depth > b->max_ids)
        bulk_merge(b, false); /* bounds the memory waiting stacks hold */
    if (b->nids + depth > b->cap_ids) {
        size_t cap = b->cap_ids ? b->cap_ids : 4096;
        while (cap < b->nids + depth)
            cap *= 2;
        b->ids = xbig_realloc(b->ids, b->cap_ids * sizeof *b->ids, cap * sizeof *b->ids);
        b->cap_ids = cap;
    }
    if (b->nst == b->cap_st) {
        size_t cap = b->cap_st ? b->cap_st * 2 : 1024;
        b->st = xbig_realloc(b->st, b->cap_st * sizeof *b->st, cap * sizeof *b->st);
        b->cap_st = cap;
    }
    uint32_t *out = b->ids + b->nids;
    uint32_t sh = 0;
    if (b->nst && s->shared) { /* the previous stack's codes: no interning */
        const struct bstack *q = &b->st[b->nst - 1];
        sh = s->shared < q->depth ? (uint32_t)s->shared : q->depth;
        if (sh > depth)
            sh = depth;
        memcpy(out, b->ids + q->off, (size_t)sh * sizeof *out);
    }
    for (uint32_t d = sh; d < depth; d++)
        out[d] = intern_frame(p, s->f[d].s, s->f[d].len) << 3 | norm_kind(s->f[d].kind);
    uint32_t c[4];
    for (uint32_t k = 0; k < 4; k++)
        c[k] = k < depth ? out[k] : 0;
    b->st[b->nst++] = (struct bstack){{(uint64_t)c[0] << 32 | c[1], (uint64_t)c[2] << 32 | c[3]},
                                      s->count, (uint32_t)b->nids, depth};
    b->nids += depth;
}

void profile_bulk_end(struct profile_bulk *b)
{
    if (!b)
        return;
    bulk_merge(b, true);
    xbig_free(b->ids, b->cap_ids * sizeof *b->ids);
    xbig_free(b->st, b->cap_st * sizeof *b->st);
    free(b);
}

uint32_t profile_child(struct profile *p, uint32_t parent, const char *name,
                       enum frame_kind kind, bool create)
{
    if (parent >= p->nnodes)
        return PROFILE_NONE;
    return child_n(p, parent, name ? name : "", name ? strlen(name) : 0, kind, create);
}

uint32_t profile_add_frames(struct profile *p, const struct pframe *f, size_t depth,
                            uint64_t count)
{
    static const struct pframe unknown = {"[unknown]", 9, FRAME_UNKNOWN};
    if (p->chart)
        return profile_chart_add(p, f, depth, count);
    if (depth == 0) {
        f = &unknown;
        depth = 1;
    }
    p->nodes[PROFILE_ROOT].total += count;
    size_t reached;
    return descend(p, PROFILE_ROOT, f, depth, count, NULL, &reached);
}

uint32_t profile_add_stack(struct profile *p, const char *const *frames,
                           const uint8_t *kinds, size_t depth, uint64_t count)
{
    if (depth == 0)
        return profile_add_frames(p, NULL, 0, count);
    struct pframe buf[64];
    struct pframe *f = depth <= 64 ? buf : xmalloc(depth * sizeof *f);
    for (size_t d = 0; d < depth; d++) {
        f[d].s = frames[d] ? frames[d] : "";
        f[d].len = strlen(f[d].s);
        f[d].kind = kinds ? kinds[d] : FRAME_USER;
    }
    uint32_t leaf = profile_add_frames(p, f, depth, count);
    if (f != buf)
        free(f);
    return leaf;
}

uint32_t profile_intern_name(struct profile *p, const char *s, size_t n)
{
    return intern_frame(p, s, n);
}

uint32_t profile_new_child(struct profile *p, uint32_t parent, uint32_t name,
                           enum frame_kind kind)
{
    if (parent >= p->nnodes || name >= p->nstrs)
        return PROFILE_NONE;
    return add_child(p, parent, name, norm_kind(kind), 0); /* hashed under a wide parent */
}

void profile_set_source(struct profile *p, uint32_t node, const char *file_line)
{
    if (node >= p->nnodes || !file_line)
        return;
    if (!p->srcs) {
        p->srcs = xmalloc((size_t)p->cap_nodes * sizeof *p->srcs);
        memset(p->srcs, 0xff, (size_t)p->cap_nodes * sizeof *p->srcs);
    }
    p->srcs[node] = intern(p, file_line, strlen(file_line));
}

uint64_t profile_total(const struct profile *p) { return p->nodes[PROFILE_ROOT].total; }

bool profile_scale(struct profile *p, uint64_t mul)
{
    /* every count is at most the root's total (a baseline at most the sum
     * of baselines, the root's) */
    uint64_t most = p->nodes[PROFILE_ROOT].total;
    if (p->base && p->nbase && p->base[PROFILE_ROOT] > most)
        most = p->base[PROFILE_ROOT];
    if (mul == 0 || (most && most > UINT64_MAX / mul))
        return false;
    for (uint32_t n = 0; n < p->nnodes; n++)
        p->nodes[n].total *= mul;
    for (uint32_t n = 0; p->base && n < p->nbase; n++)
        p->base[n] *= mul;
    profile_chart_scale(p, mul);
    return true;
}

uint64_t profile_self(const struct profile *p, uint32_t node)
{
    uint64_t t = p->nodes[node].total;
    for (uint32_t c = p->nodes[node].first_child; c != PROFILE_NONE; c = p->nodes[c].next_sibling)
        t -= p->nodes[c].total;
    return t;
}

const char *profile_node_name(const struct profile *p, uint32_t node)
{
    return node < p->nnodes ? profile_str(p, p->nodes[node].name) : "";
}

enum frame_kind profile_node_kind(const struct profile *p, uint32_t node)
{
    return node < p->nnodes ? (enum frame_kind)p->nodes[node].kind : FRAME_UNKNOWN;
}

const char *profile_node_source(const struct profile *p, uint32_t node)
{
    if (!p->srcs || node >= p->nnodes || p->srcs[node] == PROFILE_NONE)
        return NULL;
    return profile_str(p, p->srcs[node]);
}

uint32_t profile_find(const struct profile *p, const char *const *frames, size_t depth)
{
    uint32_t cur = PROFILE_ROOT;
    for (size_t d = 0; d < depth && cur != PROFILE_NONE; d++) {
        uint32_t next = PROFILE_NONE;
        for (uint32_t c = p->nodes[cur].first_child; c != PROFILE_NONE;
             c = p->nodes[c].next_sibling) {
            if (strcmp(profile_str(p, p->nodes[c].name), frames[d]) == 0) {
                next = c;
                break;
            }
        }
        cur = next;
    }
    return cur;
}

size_t profile_max_depth(const struct profile *p)
{
    /* parents always precede their children in the node array */
    uint32_t *depth = xcalloc(p->nnodes, sizeof *depth);
    size_t max = 0;
    for (uint32_t n = 1; n < p->nnodes; n++) {
        depth[n] = depth[p->nodes[n].parent] + 1;
        if (depth[n] > max)
            max = depth[n];
    }
    free(depth);
    return max;
}

size_t profile_nchildren(const struct profile *p, uint32_t node)
{
    size_t n = 0;
    for (uint32_t c = p->nodes[node].first_child; c != PROFILE_NONE; c = p->nodes[c].next_sibling)
        n++;
    return n;
}

static int cmp_str_ids(const void *a, const void *b, void *ctx)
{
    const struct profile *p = ctx;
    return strcmp(profile_str(p, *(const uint32_t *)a), profile_str(p, *(const uint32_t *)b));
}

uint32_t *profile_name_ranks(const struct profile *p)
{
    uint32_t *ids = xmalloc(((size_t)p->nstrs + 1) * sizeof *ids);
    for (uint32_t i = 0; i < p->nstrs; i++)
        ids[i] = i;
    qsort_r(ids, p->nstrs, sizeof *ids, cmp_str_ids, (void *)p);
    uint32_t *rank = xmalloc(((size_t)p->nstrs + 1) * sizeof *rank);
    for (uint32_t i = 0; i < p->nstrs; i++)
        rank[ids[i]] = i;
    free(ids);
    return rank;
}

struct sort_ctx {
    const struct profile *p;
    const uint32_t *ranks;
};

static int cmp_nodes(const void *a, const void *b, void *vctx)
{
    const struct sort_ctx *c = vctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t rx = c->ranks[c->p->nodes[x].name], ry = c->ranks[c->p->nodes[y].name];
    if (rx != ry)
        return rx < ry ? -1 : 1;
    return (int)c->p->nodes[x].kind - (int)c->p->nodes[y].kind;
}

void profile_sort_nodes(const struct profile *p, const uint32_t *ranks, uint32_t *v, size_t n)
{
    struct sort_ctx c = {p, ranks};
    if (n > 1)
        qsort_r(v, n, sizeof *v, cmp_nodes, &c);
}

struct walk_level {
    size_t start, n, i;
};

int profile_walk_stacks(const struct profile *p, profile_stack_fn fn, void *ctx)
{
    uint32_t *ranks = profile_name_ranks(p);
    uint32_t *kids = NULL; /* sorted child lists of every open level, concatenated */
    size_t nkids = 0, cap_kids = 0;
    struct walk_level *lv = NULL;
    size_t nlv = 0, cap_lv = 0;
    uint32_t *path = NULL;
    size_t cap_path = 0;
    int rc = 0;

    uint32_t open = PROFILE_ROOT;
    for (;;) {
        if (open != PROFILE_NONE) {
            size_t start = nkids;
            for (uint32_t c = p->nodes[open].first_child; c != PROFILE_NONE;
                 c = p->nodes[c].next_sibling) {
                xgrow(&kids, &cap_kids, nkids + 1, sizeof *kids);
                kids[nkids++] = c;
            }
            if (nkids > start) /* kids is still NULL under a childless root */
                profile_sort_nodes(p, ranks, kids + start, nkids - start);
            xgrow(&lv, &cap_lv, nlv + 1, sizeof *lv);
            lv[nlv++] = (struct walk_level){start, nkids - start, 0};
            open = PROFILE_NONE;
        }
        if (nlv == 0)
            break;
        struct walk_level *top = &lv[nlv - 1];
        if (top->i == top->n) {
            nkids = top->start;
            nlv--;
            continue;
        }
        uint32_t c = kids[top->start + top->i++];
        size_t depth = nlv; /* levels open = this node's depth */
        xgrow(&path, &cap_path, depth, sizeof *path);
        path[depth - 1] = c;
        uint64_t self = profile_self(p, c);
        if (self > 0 && (rc = fn(ctx, p, path, depth, self)) != 0)
            break;
        if (p->nodes[c].first_child != PROFILE_NONE)
            open = c;
    }
    free(ranks);
    free(kids);
    free(lv);
    free(path);
    return rc;
}

struct rev_ctx {
    struct profile *out;
    struct pframe *f;
    size_t cap;
};

static int add_reversed(void *vctx, const struct profile *p, const uint32_t *path, size_t depth,
                        uint64_t self)
{
    struct rev_ctx *r = vctx;
    xgrow(&r->f, &r->cap, depth, sizeof *r->f);
    for (size_t d = 0; d < depth; d++) {
        uint32_t n = path[depth - 1 - d];
        const char *s = profile_str(p, p->nodes[n].name);
        r->f[d] = (struct pframe){s, strlen(s), p->nodes[n].kind};
    }
    profile_add_frames(r->out, r->f, depth, self);
    return 0;
}

struct profile *profile_reversed(const struct profile *p)
{
    struct rev_ctx r = {profile_new(p->name, p->title, p->unit), NULL, 0};
    r.out->empty_names = p->empty_names;
    profile_walk_stacks(p, add_reversed, &r);
    free(r.f);
    return r.out;
}
