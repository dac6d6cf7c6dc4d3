/* Sites and labels of a profile's stacks (see profile_sites.h). */
#include "profile_sites.h"
#include "profile.h"
#include "../util/xalloc.h"
#include "../util/hash.h"
#include <stdlib.h>
#include <string.h>

static struct profile_sites *sites_of(struct profile *p)
{
    if (!p->sites)
        p->sites = xcalloc(1, sizeof *p->sites);
    return p->sites;
}

/* One open-addressed index of records (value: index + 1): finds the slot of
 * the record equal to key (eq) or the empty slot where it goes.  Grown by
 * the callers before it is 3/4 full. */
typedef bool (*rec_eq)(const struct profile_sites *s, uint32_t idx, const void *key);

static uint32_t *ht_slot(const struct profile_sites *s, uint32_t *ht, size_t mask, uint64_t h,
                         rec_eq eq, const void *key)
{
    for (size_t i = h & mask;; i = (i + 1) & mask)
        if (!ht[i] || eq(s, ht[i] - 1, key))
            return &ht[i];
}

/* Grows ht (mask) so that n + 1 records fit; hash(idx) rehashes record idx. */
static void ht_reserve(struct profile_sites *s, uint32_t **ht, size_t *mask, size_t n,
                       uint64_t (*hash)(const struct profile_sites *, uint32_t))
{
    size_t size = *ht ? *mask + 1 : 0;
    if ((n + 1) * 4 <= size * 3)
        return;
    size_t nsize = size ? size * 2 : 64;
    uint32_t *nt = xcalloc(nsize, sizeof *nt);
    for (size_t i = 0; i < size; i++) {
        if (!(*ht)[i])
            continue;
        size_t j = hash(s, (*ht)[i] - 1) & (nsize - 1);
        while (nt[j])
            j = (j + 1) & (nsize - 1);
        nt[j] = (*ht)[i];
    }
    free(*ht);
    *ht = nt;
    *mask = nsize - 1;
}

/* ---- mappings ---- */

static uint64_t map_hash_of(const struct profile_mapping *m)
{
    return hash_pair(hash_pair(hash_pair(1, m->path), m->build_id), m->offset);
}

static uint64_t map_hash(const struct profile_sites *s, uint32_t idx)
{
    return map_hash_of(&s->maps[idx]);
}

static bool map_eq(const struct profile_sites *s, uint32_t idx, const void *key)
{
    const struct profile_mapping *a = &s->maps[idx], *b = key;
    return a->path == b->path && a->build_id == b->build_id && a->offset == b->offset;
}

/* Index + 1 of the mapping in (made when new); *shift moves an address of
 * in's process into the mapping's range. */
static uint32_t mapping_id(struct profile *p, const struct profile_site_in *in, uint64_t *shift)
{
    struct profile_sites *s = sites_of(p);
    struct profile_mapping key = {
        .path = profile_intern_name(p, in->map_path, strlen(in->map_path)),
        .build_id = in->map_build_id && *in->map_build_id
                        ? profile_intern_name(p, in->map_build_id, strlen(in->map_build_id))
                        : PROFILE_NONE,
        .start = in->map_start,
        .limit = in->map_end,
        .offset = in->map_offset,
    };
    ht_reserve(s, &s->map_ht, &s->map_mask, s->nmaps, map_hash);
    uint32_t *slot = ht_slot(s, s->map_ht, s->map_mask, map_hash_of(&key), map_eq, &key);
    if (!*slot) {
        xgrow(&s->maps, &s->cap_maps, s->nmaps + 1, sizeof *s->maps);
        s->maps[s->nmaps++] = key;
        *slot = (uint32_t)s->nmaps;
    }
    *shift = s->maps[*slot - 1].start - in->map_start; /* modulo 2^64 */
    return *slot;
}

/* ---- sites ---- */

static uint64_t site_hash_of(const struct profile_site *t)
{
    return hash_pair(hash_pair(hash_pair(hash_pair(2, t->addr), t->mapping), t->file), t->line);
}

static uint64_t site_hash(const struct profile_sites *s, uint32_t idx)
{
    return site_hash_of(&s->sites[idx]);
}

static bool site_eq(const struct profile_sites *s, uint32_t idx, const void *key)
{
    const struct profile_site *a = &s->sites[idx], *b = key;
    return a->addr == b->addr && a->mapping == b->mapping && a->file == b->file &&
           a->line == b->line;
}

bool profile_set_site(struct profile *p, uint32_t node, const struct profile_site_in *in)
{
    if (node >= p->nnodes || !in)
        return false;
    struct profile_sites *s = sites_of(p);
    if (node < s->cap_node_site && s->node_site[node])
        return false;
    struct profile_site key = {.file = PROFILE_NONE};
    if (in->map_path && *in->map_path) {
        uint64_t shift;
        key.mapping = mapping_id(p, in, &shift);
        key.addr = in->addr + shift;
    }
    if (in->file && *in->file) {
        key.file = profile_intern_name(p, in->file, strlen(in->file));
        key.line = in->line > 0 ? (uint32_t)in->line : 0;
    }
    if (!key.mapping && key.file == PROFILE_NONE)
        return false; /* nothing to say about it */
    ht_reserve(s, &s->site_ht, &s->site_mask, s->nsites, site_hash);
    uint32_t *slot = ht_slot(s, s->site_ht, s->site_mask, site_hash_of(&key), site_eq, &key);
    if (!*slot) {
        xgrow(&s->sites, &s->cap_sites, s->nsites + 1, sizeof *s->sites);
        s->sites[s->nsites++] = key;
        *slot = (uint32_t)s->nsites;
    }
    xgrow(&s->node_site, &s->cap_node_site, (size_t)node + 1, sizeof *s->node_site);
    s->node_site[node] = *slot;
    return true;
}

const struct profile_site *profile_node_site(const struct profile *p, uint32_t node)
{
    const struct profile_sites *s = p->sites;
    if (!s || node >= s->cap_node_site || !s->node_site[node])
        return NULL;
    return &s->sites[s->node_site[node] - 1];
}

/* ---- labels ---- */

static uint64_t label_hash_of(const struct profile_label *l)
{
    return hash_pair(hash_pair(hash_pair(hash_pair(hash_pair(3, l->pid), l->tid), l->comm), l->cgroup), l->container);
}

static uint64_t label_hash(const struct profile_sites *s, uint32_t idx)
{
    return label_hash_of(&s->labels[idx]);
}

static bool label_eq(const struct profile_sites *s, uint32_t idx, const void *key)
{
    const struct profile_label *a = &s->labels[idx], *b = key;
    return a->pid == b->pid && a->tid == b->tid && a->comm == b->comm && a->cgroup == b->cgroup &&
           a->container == b->container;
}

static uint32_t opt_str(struct profile *p, const char *v)
{
    return v && *v ? profile_intern_name(p, v, strlen(v)) : PROFILE_NONE;
}

void profile_add_labelled(struct profile *p, uint32_t leaf, uint32_t pid, uint32_t tid,
                          const char *comm, const char *cgroup, const char *container,
                          uint64_t count)
{
    if (leaf >= p->nnodes || !count)
        return;
    struct profile_sites *s = sites_of(p);
    if (!comm)
        comm = "";
    struct profile_label key = {pid, tid, profile_intern_name(p, comm, strlen(comm)),
                                opt_str(p, cgroup), opt_str(p, container)};
    ht_reserve(s, &s->label_ht, &s->label_mask, s->nlabels, label_hash);
    uint32_t *slot = ht_slot(s, s->label_ht, s->label_mask, label_hash_of(&key), label_eq, &key);
    if (!*slot) {
        xgrow(&s->labels, &s->cap_labels, s->nlabels + 1, sizeof *s->labels);
        s->labels[s->nlabels++] = key;
        *slot = (uint32_t)s->nlabels;
    }
    xgrow(&s->stacks, &s->cap_stacks, s->nstacks + 1, sizeof *s->stacks);
    s->stacks[s->nstacks++] = (struct profile_labelled){leaf, *slot - 1, count};
}

void profile_keep_pprof(struct profile *p, const char *data, size_t len)
{
    struct profile_sites *s = sites_of(p);
    free(s->kept_pprof);
    s->kept_pprof = xmalloc(len ? len : 1);
    memcpy(s->kept_pprof, data, len);
    s->kept_pprof_len = len;
}

void profile_sites_free(struct profile_sites *s)
{
    if (!s)
        return;
    free(s->kept_pprof);
    free(s->node_site);
    free(s->sites);
    free(s->maps);
    free(s->labels);
    free(s->stacks);
    free(s->site_ht);
    free(s->map_ht);
    free(s->label_ht);
    free(s);
}
