#include "profile.h"
#include "profile_chart.h"
#include "../util/xalloc.h"
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[FRAME_KIND_COUNT] = {"user", "kernel", "jit", "inline", "unknown",
                                                 "process"};

const char *frame_kind_name(enum frame_kind k)
{
    return (unsigned)k < FRAME_KIND_COUNT ? kind_names[k] : "unknown";
}

static uint64_t hash_bytes(const char *s, size_t n)
{
    /* FNV-1a folded 8 bytes at a time: names are short, this is not the bottleneck */
    uint64_t h = 0xcbf29ce484222325ull;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    while (n--) {
        h = (h ^ (unsigned char)*s++) * 0x100000001b3ull;
    }
    h ^= h >> 32;
    return h;
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
#define SLOT(tag, node) ((uint64_t)(tag) << 32 | (node))

/* ---- string table ---- */

static void str_rehash(struct profile *p, uint32_t size)
{
    free(p->str_ht);
    p->str_ht = xmalloc((size_t)size * sizeof *p->str_ht);
    memset(p->str_ht, 0xff, (size_t)size * sizeof *p->str_ht);
    p->str_ht_mask = size - 1;
    for (uint32_t id = 0; id < p->nstrs; id++) {
        const char *s = p->blob + p->str_off[id];
        uint32_t i = (uint32_t)hash_bytes(s, strlen(s)) & p->str_ht_mask;
        while (p->str_ht[i] != PROFILE_NONE)
            i = (i + 1) & p->str_ht_mask;
        p->str_ht[i] = id;
    }
}

static uint32_t intern(struct profile *p, const char *s, size_t n)
{
    /* Names are stored as C strings: one ends at its first NUL, here too,
     * or a host-supplied "a\0b" would hash unlike its stored form. */
    n = strnlen(s, n);
    uint32_t i = (uint32_t)hash_bytes(s, n) & p->str_ht_mask;
    for (;;) {
        uint32_t id = p->str_ht[i];
        if (id == PROFILE_NONE)
            break;
        const char *t = p->blob + p->str_off[id];
        /* strncmp, not memcmp: t may be shorter than n and end the blob. */
        if (strncmp(t, s, n) == 0 && t[n] == '\0')
            return id;
        i = (i + 1) & p->str_ht_mask;
    }
    if (p->blob_len + n + 1 > UINT32_MAX || p->nstrs >= PROFILE_MAX_STRS - 1) {
        /* 4 GiB of distinct names: fold everything further into one name */
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
    p->str_ht[i] = id;
    if ((uint64_t)p->nstrs * 4 > (uint64_t)(p->str_ht_mask + 1) * 3)
        str_rehash(p, (p->str_ht_mask + 1) * 2);
    return id;
}

void profile_map_strings(struct profile *p, char *(*fn)(void *ctx, const char *s), void *ctx)
{
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

static void child_rehash(struct profile *p, uint32_t size)
{
    free(p->child_ht);
    p->child_ht = xmalloc((size_t)size * sizeof *p->child_ht);
    memset(p->child_ht, 0xff, (size_t)size * sizeof *p->child_ht);
    p->ht_mask = size - 1;
    /* in groups, prefetching the slots: the writes land at random */
    enum { GROUP = 32 };
    uint64_t hs[GROUP];
    for (uint32_t base = 1; base < p->nnodes; base += GROUP) {
        uint32_t cnt = p->nnodes - base < GROUP ? p->nnodes - base : GROUP;
        for (uint32_t k = 0; k < cnt; k++) {
            const struct pnode *nd = &p->nodes[base + k];
            hs[k] = hash_child(nd->parent, nd->name, nd->kind);
            __builtin_prefetch(&p->child_ht[(uint32_t)hs[k] & p->ht_mask], 1);
        }
        for (uint32_t k = 0; k < cnt; k++) {
            uint32_t i = (uint32_t)hs[k] & p->ht_mask;
            while (p->child_ht[i] != SLOT_EMPTY)
                i = (i + 1) & p->ht_mask;
            p->child_ht[i] = SLOT(hs[k] >> 32, base + k);
        }
    }
}

static uint32_t new_node(struct profile *p, uint32_t parent, uint32_t name, unsigned kind)
{
    if (p->nnodes == p->cap_nodes) {
        if (p->cap_nodes >= UINT32_MAX / 2) {
            return PROFILE_NONE;
        }
        p->cap_nodes = p->cap_nodes ? p->cap_nodes * 2 : 1024;
        p->nodes = xrealloc(p->nodes, (size_t)p->cap_nodes * sizeof *p->nodes);
        if (p->srcs)
            p->srcs = xrealloc(p->srcs, (size_t)p->cap_nodes * sizeof *p->srcs);
    }
    uint32_t n = p->nnodes++;
    struct pnode *nd = &p->nodes[n];
    nd->name = name;
    nd->parent = parent;
    nd->first_child = PROFILE_NONE;
    nd->total = 0;
    nd->kind = kind & 15;
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
    child_rehash(p, 1024);
    return p;
}

void profile_free(struct profile *p)
{
    if (!p)
        return;
    free(p->name);
    free(p->title);
    free(p->unit);
    free(p->nodes);
    free(p->srcs);
    free(p->child_ht);
    free(p->blob);
    free(p->str_off);
    free(p->str_ht);
    free(p->base);
    profile_chart_free(p->chart);
    free(p);
}

/* Looks up (parent, name, kind) with its precomputed hash; creates it when
 * `create`. */
static uint32_t child_h(struct profile *p, uint32_t parent, uint32_t name, unsigned kind,
                        uint64_t h, bool create)
{
    uint32_t tag = (uint32_t)(h >> 32);
    uint32_t i = (uint32_t)h & p->ht_mask;
    for (;;) {
        uint64_t slot = p->child_ht[i];
        if (slot == SLOT_EMPTY)
            break;
        /* the tag spares a cache miss on the node for almost every non-match */
        uint32_t c = (uint32_t)slot;
        if ((uint32_t)(slot >> 32) == tag && p->nodes[c].parent == parent &&
            p->nodes[c].name == name && p->nodes[c].kind == kind)
            return c;
        i = (i + 1) & p->ht_mask;
    }
    if (!create)
        return PROFILE_NONE;
    uint32_t c = new_node(p, parent, name, kind);
    if (c == PROFILE_NONE)
        return PROFILE_NONE;
    p->child_ht[i] = SLOT(tag, c);
    if ((uint64_t)p->nnodes * 10 > (uint64_t)(p->ht_mask + 1) * 7)
        child_rehash(p, (p->ht_mask + 1) * 2);
    return c;
}

static unsigned norm_kind(unsigned kind) { return kind < FRAME_KIND_COUNT ? kind : FRAME_UNKNOWN; }

static uint32_t intern_frame(struct profile *p, const char *s, size_t n)
{
    n = strnlen(s, n); /* "\0x" is as empty as "" */
    return n ? intern(p, s, n) : intern(p, "[unknown]", 9);
}

static uint32_t child_n(struct profile *p, uint32_t parent, const char *s, size_t n,
                        unsigned kind, bool create)
{
    kind = norm_kind(kind);
    uint32_t name = intern_frame(p, s, n);
    return child_h(p, parent, name, kind, hash_child(parent, name, kind), create);
}

void profile_add_stacks(struct profile *p, const struct pstack *st, size_t n)
{
    if (p->chart) { /* a flame chart merges only with the previous stack */
        for (size_t j = 0; j < n; j++)
            profile_chart_add(p, st[j].f, st[j].depth, st[j].count);
        return;
    }
    /* Level by level across the batch: the lookups of one level are
     * independent, so their cache misses are prefetched and overlap instead
     * of being paid one after another down each stack. */
    uint32_t *cur = xmalloc((n + 1) * sizeof *cur);
    uint32_t *name = xmalloc((n + 1) * sizeof *name);
    uint64_t *h = xmalloc((n + 1) * sizeof *h);
    size_t *lim = xmalloc((n + 1) * sizeof *lim);
    size_t maxd = 0;
    for (size_t j = 0; j < n; j++) {
        cur[j] = PROFILE_ROOT;
        lim[j] = st[j].depth;
        if (lim[j] > maxd)
            maxd = lim[j];
        p->nodes[PROFILE_ROOT].total += st[j].count;
    }
    for (size_t d = 0; d < maxd; d++) {
        for (size_t j = 0; j < n; j++) {
            if (d >= lim[j] || (j && d < st[j].shared))
                continue;
            const struct pframe *f = &st[j].f[d];
            name[j] = intern_frame(p, f->s, f->len);
            h[j] = hash_child(cur[j], name[j], norm_kind(f->kind));
            __builtin_prefetch(&p->child_ht[(uint32_t)h[j] & p->ht_mask]);
        }
        for (size_t j = 0; j < n; j++) {
            if (d >= lim[j] || (j && d < st[j].shared))
                continue;
            uint64_t slot = p->child_ht[(uint32_t)h[j] & p->ht_mask];
            if (slot != SLOT_EMPTY)
                __builtin_prefetch(&p->nodes[(uint32_t)slot]);
        }
        for (size_t j = 0; j < n; j++) {
            if (d >= lim[j])
                continue;
            if (j && d < st[j].shared && d < lim[j - 1]) {
                /* same frame as the previous stack, already resolved at this level */
                cur[j] = cur[j - 1];
                p->nodes[cur[j]].total += st[j].count;
                continue;
            }
            if (j && d < st[j].shared) { /* the previous stack was cut short: look up */
                const struct pframe *f = &st[j].f[d];
                name[j] = intern_frame(p, f->s, f->len);
                h[j] = hash_child(cur[j], name[j], norm_kind(f->kind));
            }
            uint32_t c = child_h(p, cur[j], name[j], norm_kind(st[j].f[d].kind), h[j], true);
            if (c == PROFILE_NONE) {
                lim[j] = d; /* node index space exhausted: the rest stays in the parent */
                continue;
            }
            cur[j] = c;
            p->nodes[c].total += st[j].count;
        }
    }
    free(cur);
    free(name);
    free(h);
    free(lim);
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
    uint32_t cur = PROFILE_ROOT;
    p->nodes[cur].total += count;
    for (size_t d = 0; d < depth; d++) {
        uint32_t c = child_n(p, cur, f[d].s, f[d].len, f[d].kind, true);
        if (c == PROFILE_NONE)
            break; /* node index space exhausted: count stays in the parent */
        cur = c;
        p->nodes[cur].total += count;
    }
    return cur;
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
    return new_node(p, parent, name, norm_kind(kind));
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
    profile_walk_stacks(p, add_reversed, &r);
    free(r.f);
    return r.out;
}
