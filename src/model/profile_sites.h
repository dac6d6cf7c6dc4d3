/* What a stack profile knows of its frames and stacks beyond their names,
 * for the pprof export (render/pprof.c); the folded files and flame graphs
 * do not use it.  Filled by the drain (collect/stacks.c); a profile read
 * back from a folded file has none.
 *
 *  - Sites: per node, the address its frame was sampled at, the file mapped
 *    there (path, GNU build-id, range) and its source file:line.  A node
 *    merges every address with the same frame names on the same path, so
 *    its site is the first one seen.  An inline frame has the address of
 *    the frame it was inlined into and a file:line of its own.  Mappings
 *    are one per (path, build-id, file offset): the same library in many
 *    processes is one mapping with the range of the first process seen,
 *    and addresses from the others are moved into that range.
 *  - Labels: per stack (its leaf node) and process, the count it got, with
 *    the pid, thread id (0 when the collector does not know it), comm and
 *    cgroup (path and container name, or none).
 *
 * Strings (paths, build-ids, files, comms, cgroups) are the profile's
 * interned strings, so profile_map_strings() (--obfuscate) rewrites them
 * with the frame names.  Memory: 4 bytes per node once a site is set, a
 * record per distinct site, mapping and label, and 16 bytes per labelled
 * stack (at most one per aggregated BPF key).  Owned by the profile. */
#ifndef PERFREPORT_PROFILE_SITES_H
#define PERFREPORT_PROFILE_SITES_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct profile;

struct profile_mapping {
    uint32_t path, build_id; /* string ids; build_id PROFILE_NONE when unknown */
    uint64_t start, limit, offset;
};

struct profile_site {
    uint64_t addr;    /* inside its mapping's range; 0 when unknown */
    uint32_t mapping; /* index + 1 into maps; 0 none */
    uint32_t file;    /* string id, PROFILE_NONE when unknown */
    uint32_t line;    /* 0 when unknown */
};

struct profile_label {
    uint32_t pid, tid;       /* 0 when unknown */
    uint32_t comm;           /* string id */
    uint32_t cgroup, container; /* string ids, PROFILE_NONE when unknown */
};

struct profile_labelled {
    uint32_t node, label; /* leaf node; index into labels */
    uint64_t count;
};

struct profile_sites {
    uint32_t *node_site; /* per node: index + 1 into sites; 0 none */
    size_t cap_node_site;
    struct profile_site *sites;
    size_t nsites, cap_sites;
    struct profile_mapping *maps;
    size_t nmaps, cap_maps;
    struct profile_label *labels;
    size_t nlabels, cap_labels;
    struct profile_labelled *stacks;
    size_t nstacks, cap_stacks;
    /* The run's own pprof file (gzip'd, as its bundle holds it), kept by
     * perfreport render (replay/load.c): a profile read back from its
     * folded file has no sites, so the renderer writes this instead of
     * encoding again.  NULL when none; profile_map_strings() drops it. */
    char *kept_pprof;
    size_t kept_pprof_len;
    /* open-addressed indexes (value index + 1; 0 empty) */
    uint32_t *site_ht, *map_ht, *label_ht;
    size_t site_mask, map_mask, label_mask;
};

/* A frame's site as the drain knows it: the address in its own process
 * and the mapping there.  Strings are copied (interned). */
struct profile_site_in {
    uint64_t addr;
    const char *map_path;     /* NULL: no mapping (then addr is not kept) */
    const char *map_build_id; /* NULL when unknown */
    uint64_t map_start, map_end, map_offset;
    const char *file;         /* NULL when unknown */
    int line;
};

/* Sets the site of node unless it has one; false when it had one. */
bool profile_set_site(struct profile *p, uint32_t node, const struct profile_site_in *in);
/* The site of node, or NULL. */
const struct profile_site *profile_node_site(const struct profile *p, uint32_t node);

/* Notes that count of leaf's stack came from this process (thread tid, 0
 * when unknown; cgroup and container NULL when unknown). */
void profile_add_labelled(struct profile *p, uint32_t leaf, uint32_t pid, uint32_t tid,
                          const char *comm, const char *cgroup, const char *container,
                          uint64_t count);

/* Keeps data[0..len) as the profile's pprof file (copied). */
void profile_keep_pprof(struct profile *p, const char *data, size_t len);
void profile_sites_free(struct profile_sites *s);
#endif
