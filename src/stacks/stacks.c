/* BPF stack ids -> profile frames, cached per stack id. */
#include "stacks.h"
#include "proc_labels.h"
#include "../collect/collector.h"
#include "../model/profile_sites.h"
#include "../model/model.h"
#include "../model/profile.h"
#include "../symbolize/symbolize.h"
#include "../util/xalloc.h"
#include "../util/hash.h"
#include <bpf/bpf.h>
#include <linux/types.h>

#include "../../bpf/stackstore.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEPTH_FALLBACK 127 /* PERF_MAX_STACK_DEPTH */
#define MAX_DEPTH_LIMIT 1024   /* refuse absurd value sizes */
#define MAX_INLINE 16          /* inline frames kept per address */
/* process + truncated + user (with inlines) + truncated + kernel */
#define MAX_FRAMES(d) (2 + (size_t)(d) * (1 + MAX_INLINE) + 1 + (size_t)(d))

static const char MISSING_USER[] = "[missing user stack]";
static const char MISSING_KERNEL[] = "[missing kernel stack]";
static const char TRUNCATED[] = "[truncated]";

/* One cached stack: frames root-first in the pool, or a miss reason. */
struct sentry {
    uint64_t key; /* tgid << 33 | kernel << 32 | id */
    uint32_t first, n;
    int miss;     /* -1 when resolved, else enum stack_miss */
    bool used;
    bool truncated;
    bool names_only; /* resolved in the window without inline frames (prefetch_one) */
};

/* Where a pooled frame was (for the pprof export's locations and
 * mappings): a user frame's address, mapping and source line. */
struct fsite {
    uint64_t addr;
    const struct sym_mapping *map; /* owned by the symbolizer; NULL none */
    const char *file;              /* owned by the symbolizer; NULL none */
    int line;
};

struct modent {
    const char *name, *module; /* both owned by the symbolizer */
    uint64_t hash;
    int kind;
};

struct stack_resolver {
    struct symbolizer *sym; /* borrowed */
    int fd;                 /* borrowed */
    bool per_pid;
    bool trim_tracing; /* STACKS_TRIM_TRACING */
    uint32_t depth;         /* slots per stack */
    uint64_t *ips;          /* one stack read buffer */
    struct sentry *tab;
    size_t cap, n;
    struct pframe *pool;    /* names point into the symbolizer */
    struct fsite *pool_site; /* per pool frame */
    size_t npool, cap_pool;
    struct pframe *scratch; /* assembly of one sample's frames */
    struct fsite *scratch_site;
    uint32_t *scratch_node; /* the nodes of one added stack, leaf first */
    uint32_t last_leaf;     /* where the last added stack ended */
    struct proc_labels *labels; /* cgroups of the processes seen */
    struct modent *mods;    /* (name, kind) -> module, open-addressed */
    size_t cap_mods, nmods;
    struct stack_stats st;
};

bool stack_frame_is_tracing(const char *name)
{
    static const char *const prefix[] = {"bpf_prog_", "bpf_trace_run", "__bpf_trace_",
                                         "__traceiter_", "bpf_get_stack", "perf_trace_"};
    for (size_t i = 0; name && i < sizeof prefix / sizeof prefix[0]; i++)
        if (strncmp(name, prefix[i], strlen(prefix[i])) == 0)
            return true;
    return false;
}

const char *stack_miss_name(enum stack_miss m)
{
    switch (m) {
    case STACK_MISS_FAULT: return "unreadable";
    case STACK_MISS_COLLISION: return "hash collision";
    case STACK_MISS_FULL: return "stack map full";
    case STACK_MISS_GONE: return "not in the stack map";
    case STACK_MISS_OTHER: return "other error";
    case STACK_MISS_COUNT: break;
    }
    return "?";
}

static enum stack_miss miss_of(int64_t id)
{
    switch (-id) {
    case EFAULT: return STACK_MISS_FAULT;
    case EEXIST: return STACK_MISS_COLLISION;
    case ENOMEM:
    case E2BIG: return STACK_MISS_FULL;
    default: return STACK_MISS_OTHER;
    }
}

struct stack_resolver *stack_resolver_new(struct symbolizer *sym, int stackmap_fd,
                                          unsigned opts)
{
    struct stack_resolver *sr = xcalloc(1, sizeof *sr);
    sr->sym = sym;
    sr->fd = stackmap_fd;
    sr->last_leaf = PROFILE_NONE;
    sr->per_pid = opts & STACKS_USER_PER_PID;
    sr->trim_tracing = opts & STACKS_TRIM_TRACING;
    sr->depth = MAX_DEPTH_FALLBACK;
    /* the read buffer holds a whole value: a store's has its hash after
     * the frames */
    size_t slots = sizeof(struct ss_stack) / sizeof(uint64_t);
    struct bpf_map_info info;
    memset(&info, 0, sizeof info);
    uint32_t len = sizeof info;
    if (stackmap_fd >= 0 && bpf_obj_get_info_by_fd(stackmap_fd, &info, &len) == 0) {
        if (info.type == BPF_MAP_TYPE_HASH && info.value_size == sizeof(struct ss_stack)) {
            sr->depth = SS_DEPTH;
        } else if (info.type == BPF_MAP_TYPE_STACK_TRACE && info.value_size >= sizeof(uint64_t) &&
                   info.value_size / sizeof(uint64_t) <= MAX_DEPTH_LIMIT) {
            sr->depth = info.value_size / sizeof(uint64_t);
            slots = sr->depth;
        }
    }
    sr->ips = xcalloc(slots > sr->depth ? slots : sr->depth, sizeof *sr->ips);
    sr->scratch = xcalloc(MAX_FRAMES(sr->depth), sizeof *sr->scratch);
    sr->scratch_site = xcalloc(MAX_FRAMES(sr->depth), sizeof *sr->scratch_site);
    /* + 1: set_sites looks one node past a stack of every slot */
    sr->scratch_node = xcalloc(MAX_FRAMES(sr->depth) + 1, sizeof *sr->scratch_node);
    sr->labels = proc_labels_new();
    return sr;
}

void stack_resolver_free(struct stack_resolver *sr)
{
    if (!sr)
        return;
    free(sr->ips);
    free(sr->tab);
    free(sr->pool);
    free(sr->pool_site);
    free(sr->scratch);
    free(sr->scratch_site);
    free(sr->scratch_node);
    proc_labels_free(sr->labels);
    free(sr->mods);
    free(sr);
}

void stack_resolver_stats(const struct stack_resolver *sr, struct stack_stats *out)
{
    *out = sr->st;
}

static struct sentry *tab_find(struct stack_resolver *sr, uint64_t key, bool *found)
{
    if ((sr->n + 1) * 10 > sr->cap * 7) {
        size_t ncap = sr->cap ? sr->cap * 2 : 256;
        struct sentry *nt = xcalloc(ncap, sizeof *nt);
        for (size_t i = 0; i < sr->cap; i++) {
            if (!sr->tab[i].used)
                continue;
            size_t j = hash_u64(sr->tab[i].key) & (ncap - 1);
            while (nt[j].used)
                j = (j + 1) & (ncap - 1);
            nt[j] = sr->tab[i];
        }
        free(sr->tab);
        sr->tab = nt;
        sr->cap = ncap;
    }
    size_t i = hash_u64(key) & (sr->cap - 1);
    while (sr->tab[i].used) {
        if (sr->tab[i].key == key) {
            *found = true;
            return &sr->tab[i];
        }
        i = (i + 1) & (sr->cap - 1);
    }
    *found = false;
    sr->tab[i].used = true;
    sr->tab[i].key = key;
    sr->n++;
    return &sr->tab[i];
}

static struct modent *mod_slot(struct modent *t, size_t cap, const char *name, int kind,
                               uint64_t h)
{
    for (size_t i = hash_u64(h) & (cap - 1);; i = (i + 1) & (cap - 1))
        if (!t[i].name || (t[i].hash == h && t[i].kind == kind && !strcmp(t[i].name, name)))
            return &t[i];
}

static void mod_note(struct stack_resolver *sr, const char *name, const char *module, int kind)
{
    if (!module)
        return;
    if ((sr->nmods + 1) * 10 > sr->cap_mods * 7) {
        size_t ncap = sr->cap_mods ? sr->cap_mods * 2 : 256;
        struct modent *nt = xcalloc(ncap, sizeof *nt);
        for (size_t i = 0; i < sr->cap_mods; i++)
            if (sr->mods[i].name)
                *mod_slot(nt, ncap, sr->mods[i].name, sr->mods[i].kind, sr->mods[i].hash) = sr->mods[i];
        free(sr->mods);
        sr->mods = nt;
        sr->cap_mods = ncap;
    }
    uint64_t h = hash_str(name) ^ (uint64_t)kind;
    struct modent *e = mod_slot(sr->mods, sr->cap_mods, name, kind, h);
    if (!e->name) {
        *e = (struct modent){name, module, h, kind};
        sr->nmods++;
    }
}

const char *stack_resolver_module(const struct stack_resolver *sr, const char *name, int kind)
{
    if (!sr || !name || !sr->cap_mods)
        return NULL;
    uint64_t h = hash_str(name) ^ (uint64_t)kind;
    const struct modent *e = mod_slot(sr->mods, sr->cap_mods, name, kind, h);
    return e->name ? e->module : NULL;
}

/* f: where the frame was, or NULL (kernel and made-up frames). */
static void pool_push(struct stack_resolver *sr, const char *name, enum frame_kind kind,
                      const struct sym_frame *f)
{
    if (sr->npool == sr->cap_pool) {
        sr->cap_pool = sr->cap_pool ? sr->cap_pool * 2 : 1024;
        sr->pool = xrealloc(sr->pool, sr->cap_pool * sizeof *sr->pool);
        sr->pool_site = xrealloc(sr->pool_site, sr->cap_pool * sizeof *sr->pool_site);
    }
    struct fsite none = {0, NULL, NULL, 0};
    sr->pool_site[sr->npool] =
        f && f->mapping ? (struct fsite){f->addr, f->mapping, f->file, f->line} : none;
    sr->pool[sr->npool++] = (struct pframe){name, strlen(name), (uint8_t)kind};
}

/* Reads and symbolizes stack `id` into the pool (root-first); user frames
 * with their inline frames unless names_only. */
static void resolve(struct stack_resolver *sr, struct sentry *e, uint32_t tgid, bool kernel,
                    uint32_t id, bool names_only)
{
    sr->st.stacks_read++;
    memset(sr->ips, 0, sr->depth * sizeof *sr->ips);
    if (bpf_map_lookup_elem(sr->fd, &id, sr->ips) != 0) {
        e->miss = STACK_MISS_GONE;
        return;
    }
    uint32_t n = 0;
    while (n < sr->depth && sr->ips[n])
        n++;
    e->miss = -1;
    e->truncated = n == sr->depth;
    if (e->truncated)
        sr->st.truncated++;
    e->first = (uint32_t)sr->npool;
    /* Resolve leaf-first (the order addresses come in), reverse afterwards. */
    struct sym_frame f, inl[MAX_INLINE];
    /* perfreport's own stacks by name only: their inline frames would cost
     * inflating its libraries' DWARF (libc's debug file: 8 inflate calls in an
     * idle -d 5 run, 56fa60a) */
    bool self = tgid == (uint32_t)getpid();
    e->names_only = names_only && !kernel && !self;
    stacks_sym_lock(); /* the symbolizer may be the run's shared one */
    bool tip = kernel && sr->trim_tracing; /* still in the tracing frames at the tip */
    for (uint32_t i = 0; i < n; i++) {
        uint64_t a = i ? sr->ips[i] - 1 : sr->ips[i]; /* return address -> call site */
        size_t ninl = 0;
        int rc = kernel ? sym_kernel(sr->sym, a, &f)
                 : self || names_only ? sym_user_name(sr->sym, (int)tgid, a, &f)
                        : sym_user(sr->sym, (int)tgid, a, &f, inl, MAX_INLINE, &ninl);
        if (tip && rc == 0 && stack_frame_is_tracing(f.name) && i + 1 < n)
            continue; /* the stack keeps at least one frame */
        tip = false;
        if (rc < 0) {
            f = (struct sym_frame){.name = "[unknown]", .kind = FRAME_UNKNOWN};
            ninl = 0;
        }
        /* a run of frames that could not be named ("[pid N exited]" for each
         * address of a process gone before the drain) is one frame, so that
         * such stacks merge in the graph */
        if (f.kind == FRAME_UNKNOWN && ninl == 0 && sr->npool > e->first &&
            sr->pool[sr->npool - 1].kind == FRAME_UNKNOWN &&
            strcmp(sr->pool[sr->npool - 1].s, f.name) == 0) {
            sr->st.frames_unresolved++;
            continue;
        }
        if (rc == 0)
            sr->st.frames_resolved++;
        else
            sr->st.frames_unresolved++;
        for (size_t k = 0; k < ninl; k++) {
            pool_push(sr, inl[k].name, FRAME_INLINE, &inl[k]);
            mod_note(sr, inl[k].name, f.module, FRAME_INLINE);
        }
        pool_push(sr, f.name, f.kind, kernel ? NULL : &f);
        mod_note(sr, f.name, f.module, f.kind);
    }
    stacks_sym_unlock();
    if (e->truncated)
        pool_push(sr, TRUNCATED, FRAME_UNKNOWN, NULL);
    e->n = (uint32_t)(sr->npool - e->first);
    struct pframe *v = sr->pool + e->first;
    struct fsite *vs = sr->pool_site + e->first;
    for (size_t i = 0, j = e->n ? e->n - 1 : 0; i < j; i++, j--) {
        struct pframe t = v[i];
        v[i] = v[j];
        v[j] = t;
        struct fsite ts = vs[i];
        vs[i] = vs[j];
        vs[j] = ts;
    }
}

/* Appends the frames of one stack to out[*k]; an error id appends one
 * missing frame and counts it. */
static void append(struct stack_resolver *sr, struct pframe *out, struct fsite *out_site,
                   size_t *k, uint32_t tgid, const char *comm, bool kernel, int64_t id,
                   uint64_t count)
{
    if (id == STACK_ID_NONE)
        return;
    int miss = -1;
    if (id < 0) {
        miss = miss_of(id);
    } else {
        uint64_t key = (uint64_t)(uint32_t)id | (uint64_t)kernel << 32;
        if (!kernel && sr->per_pid)
            key |= (uint64_t)tgid << 33;
        bool found;
        struct sentry *e = tab_find(sr, key, &found);
        if (found && e->names_only) {
            /* named in the window: now its inline frames too (the binary
             * stays open, the maps are the symbolizer's), or the names */
            struct sentry named = *e;
            struct stack_stats counted = sr->st; /* distinct stacks: counted once */
            resolve(sr, e, tgid, kernel, (uint32_t)id, false);
            if (e->miss >= 0)
                *e = named;
            e->names_only = false;
            sr->st = counted;
            sr->st.stacks_cached++;
        } else if (found) {
            sr->st.stacks_cached++;
        } else {
            resolve(sr, e, tgid, kernel, (uint32_t)id, false);
        }
        miss = e->miss;
        if (miss < 0) {
            memcpy(out + *k, sr->pool + e->first, e->n * sizeof *out);
            memcpy(out_site + *k, sr->pool_site + e->first, e->n * sizeof *out_site);
            /* the user stack of a process that exited before its maps were
             * read is one unnamed frame: named by the comm instead of the
             * pid, so the stacks of a short-lived program's many processes
             * merge ("[make exited]", not one "[pid N exited]" each) */
            if (!kernel && e->n == 1 && out[*k].kind == FRAME_UNKNOWN) {
                stacks_sym_lock();
                const char *label = sym_exited_label(sr->sym, (int)tgid, comm);
                stacks_sym_unlock();
                if (label) {
                    out[*k] = (struct pframe){label, strlen(label), FRAME_UNKNOWN};
                    out_site[*k] = (struct fsite){0, NULL, NULL, 0};
                }
            }
            *k += e->n;
        }
    }
    if (miss >= 0) {
        (kernel ? sr->st.missing_kernel : sr->st.missing_user)[miss] += count;
        const char *s = kernel ? MISSING_KERNEL : MISSING_USER;
        out_site[*k] = (struct fsite){0, NULL, NULL, 0};
        out[(*k)++] = (struct pframe){s, strlen(s), FRAME_UNKNOWN};
    }
}

static int prefetch_one(struct stack_resolver *sr, uint32_t tgid, bool kernel, int64_t id)
{
    if (id < 0)
        return 0;
    uint64_t key = (uint64_t)(uint32_t)id | (uint64_t)kernel << 32;
    if (!kernel && sr->per_pid)
        key |= (uint64_t)tgid << 33;
    bool found;
    struct sentry *e = tab_find(sr, key, &found);
    if (found)
        return 0;
    /* Names only: what cannot wait is a process's maps while it lives.
     * Inline frames need the binary's DWARF, which for a library with a
     * separate debug file means inflating all of it (libc6-dbg: 10 MB,
     * 30 % of perfreport's CPU in a 3 s syscall storm, 2026-11-25); the
     * drain adds them after the window, from the same open binary. */
    resolve(sr, e, tgid, kernel, (uint32_t)id, true);
    return 1;
}

int stack_resolver_prefetch(struct stack_resolver *sr, uint32_t tgid, int64_t kstack_id,
                            int64_t ustack_id)
{
    if (!sr)
        return 0;
    proc_labels_note(sr->labels, tgid); /* while the process lives */
    return prefetch_one(sr, tgid, false, ustack_id) + prefetch_one(sr, tgid, true, kstack_id);
}

/* The sites of the frames f[0..k) (root first) onto the nodes that leaf
 * ends: only nodes new to the profile take one (a node keeps its first). */
static void set_sites(struct stack_resolver *sr, struct profile *p, uint32_t leaf, size_t k)
{
    size_t d = 0;
    for (uint32_t n = leaf; n != PROFILE_ROOT && n < p->nnodes && d <= k; n = p->nodes[n].parent)
        sr->scratch_node[d++] = n;
    if (d != k)
        return; /* the profile ran out of nodes: the path is shorter */
    for (size_t i = 0; i < k; i++) {
        const struct fsite *fs = &sr->scratch_site[k - 1 - i];
        if (!fs->map)
            continue;
        struct profile_site_in in = {fs->addr, fs->map->path, fs->map->build_id, fs->map->start,
                                     fs->map->end, fs->map->offset, fs->file, fs->line};
        profile_set_site(p, sr->scratch_node[i], &in);
    }
}

static void add_stack(struct stack_resolver *sr, struct profile *p, uint32_t tgid, uint32_t tid,
                      const char *comm, int64_t kstack_id, int64_t ustack_id, uint64_t count,
                      bool labels)
{
    const char *shown = comm && *comm ? comm : "[unknown]";
    struct pframe *f = sr->scratch;
    size_t k = 0;
    sr->scratch_site[k] = (struct fsite){0, NULL, NULL, 0};
    f[k++] = (struct pframe){shown, strlen(shown), FRAME_PROCESS};
    append(sr, f, sr->scratch_site, &k, tgid, comm, false, ustack_id, count);
    append(sr, f, sr->scratch_site, &k, tgid, comm, true, kstack_id, count);
    uint32_t leaf = profile_add_frames(p, f, k, count);
    sr->last_leaf = leaf;
    if (!labels)
        return;
    set_sites(sr, p, leaf, k);
    stack_resolver_label(sr, p, leaf, tgid, tid, shown, count);
}

uint32_t stack_resolver_last_leaf(const struct stack_resolver *sr)
{
    return sr ? sr->last_leaf : PROFILE_NONE;
}

void stack_resolver_label(struct stack_resolver *sr, struct profile *p, uint32_t leaf,
                          uint32_t tgid, uint32_t tid, const char *comm, uint64_t count)
{
    const char *cgroup, *container;
    sr->last_leaf = leaf;
    proc_labels_get(sr->labels, tgid, &cgroup, &container);
    profile_add_labelled(p, leaf, tgid, tid, comm && *comm ? comm : "[unknown]", cgroup,
                         container, count);
}

int stack_resolver_add(struct stack_resolver *sr, struct profile *p, uint32_t tgid,
                       const char *comm, int64_t kstack_id, int64_t ustack_id, uint64_t count)
{
    if (!sr || !p)
        return -EINVAL;
    add_stack(sr, p, tgid, 0, comm, kstack_id, ustack_id, count, true);
    return 0;
}

int stack_resolver_add_thread(struct stack_resolver *sr, struct profile *p, uint32_t tgid,
                              uint32_t tid, const char *comm, int64_t kstack_id,
                              int64_t ustack_id, uint64_t count)
{
    if (!sr || !p)
        return -EINVAL;
    add_stack(sr, p, tgid, tid, comm, kstack_id, ustack_id, count, true);
    return 0;
}

/* ---- shared symbolizer -------------------------------------------------- */

/* The run's one symbolizer, its references and the kallsyms prewarm thread,
 * under g_shared_mu.  The symbolizer itself is not thread-safe: every call
 * into it from this file, and from collectors between stacks_sym_lock() and
 * stacks_sym_unlock(), holds g_sym_mu (collectors drain on worker threads,
 * profile.c resolves on a prefetch thread during the window). */
static pthread_mutex_t g_shared_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_sym_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    struct symbolizer *sym;
    int refs;
    bool prewarmed;     /* the prewarm thread was started (once per symbolizer) */
    bool system_wide;   /* the run has no target: no DWARF from separate debug files */
    bool thread_running;
    pthread_t thread;
} g_shared;

void stacks_sym_lock(void)
{
    pthread_mutex_lock(&g_sym_mu);
}

void stacks_sym_unlock(void)
{
    pthread_mutex_unlock(&g_sym_mu);
}

static void *prewarm(void *arg)
{
    struct sym_frame f;
    stacks_sym_lock();
    sym_kernel(arg, 0, &f); /* loads kallsyms */
    stacks_sym_unlock();
    return NULL;
}

/* The run's symbolizer, made on first use; with g_shared_mu held. */
static struct symbolizer *shared_sym(void)
{
    if (!g_shared.sym) {
        g_shared.sym = symbolizer_new();
        symbolizer_set_separate_dwarf(g_shared.sym, !g_shared.system_wide);
    }
    return g_shared.sym;
}

void stacks_sym_acquire(const struct collect_config *cfg)
{
    pthread_mutex_lock(&g_shared_mu);
    g_shared.refs++;
    g_shared.system_wide = cfg && cfg->pid <= 0 && !cfg->cgroup && !cfg->npids;
    if (g_shared.sym)
        symbolizer_set_separate_dwarf(g_shared.sym, !g_shared.system_wide);
    pthread_mutex_unlock(&g_shared_mu);
}

void stacks_sym_prewarm(void)
{
    pthread_mutex_lock(&g_shared_mu);
    if (g_shared.refs > 0 && !g_shared.prewarmed) {
        g_shared.prewarmed = true;
        g_shared.thread_running =
            pthread_create(&g_shared.thread, NULL, prewarm, shared_sym()) == 0;
    }
    pthread_mutex_unlock(&g_shared_mu);
}

struct symbolizer *stacks_sym_get(void)
{
    pthread_mutex_lock(&g_shared_mu);
    shared_sym();
    if (g_shared.thread_running) {
        pthread_join(g_shared.thread, NULL);
        g_shared.thread_running = false;
    }
    struct symbolizer *sym = g_shared.sym;
    pthread_mutex_unlock(&g_shared_mu);
    return sym;
}

void stacks_sym_release(void)
{
    pthread_mutex_lock(&g_shared_mu);
    if (g_shared.refs > 0 && --g_shared.refs > 0) {
        pthread_mutex_unlock(&g_shared_mu);
        return;
    }
    if (g_shared.thread_running) {
        pthread_join(g_shared.thread, NULL);
        g_shared.thread_running = false;
    }
    symbolizer_free(g_shared.sym);
    g_shared.sym = NULL;
    g_shared.refs = 0;
    g_shared.prewarmed = false;
    pthread_mutex_unlock(&g_shared_mu);
}

/* Rows go into a scratch profile under root frames "#<row>", so that stack
 * ids shared by many rows are symbolized once; the walk hands them back. */
struct rows_walk {
    size_t nrows;
    stack_row_fn fn;
    void *ctx;
    const char **names; /* scratch, sized to the deepest path */
    uint8_t *kinds;
    size_t cap;
};

static int rows_walk_stack(void *vctx, const struct profile *p, const uint32_t *path,
                           size_t depth, uint64_t self)
{
    (void)self;
    struct rows_walk *w = vctx;
    if (!depth)
        return 0;
    const char *root = profile_node_name(p, path[0]);
    if (root[0] != '#')
        return 0;
    size_t row = strtoul(root + 1, NULL, 10);
    if (row >= w->nrows)
        return 0;
    if (depth > w->cap) {
        w->cap = depth * 2;
        w->names = xrealloc(w->names, w->cap * sizeof *w->names);
        w->kinds = xrealloc(w->kinds, w->cap * sizeof *w->kinds);
    }
    size_t n = 0;
    for (size_t i = depth; i-- > 1;) { /* leaf first, the "#row" root left out */
        w->names[n] = profile_node_name(p, path[i]);
        w->kinds[n++] = (uint8_t)profile_node_kind(p, path[i]);
    }
    w->fn(w->ctx, row, w->names, w->kinds, n);
    return 0;
}

int stack_resolver_rows(struct stack_resolver *sr, const struct stack_row *rows, size_t nrows,
                        stack_row_fn fn, void *ctx)
{
    struct profile *scratch = profile_new("rows", "", "");
    int rc = 0;
    for (size_t i = 0; i < nrows && !rc; i++) {
        if (rows[i].skip)
            continue;
        char tag[32];
        snprintf(tag, sizeof tag, "#%zu", i);
        add_stack(sr, scratch, rows[i].tgid, 0, tag, rows[i].kstack_id, rows[i].ustack_id, 1,
                  false);
    }
    struct rows_walk w = {.nrows = nrows, .fn = fn, .ctx = ctx};
    profile_walk_stacks(scratch, rows_walk_stack, &w);
    free(w.names);
    free(w.kinds);
    profile_free(scratch);
    return rc;
}

void stacks_note_symbolizer(struct ledger_entry *led, const struct symbolizer *sym)
{
    struct sym_stats st;
    stacks_sym_lock(); /* the notes are the symbolizer's, which others may be growing */
    sym_stats(sym, &st);
    for (size_t i = 0; i < st.nnotes; i++)
        ledger_note(led, "%s", st.notes[i]);
    if (st.notes_dropped)
        ledger_note(led, "%llu more symbolizer refusals not listed",
                    (unsigned long long)st.notes_dropped);
    stacks_sym_unlock();
}

void stacks_note_resolution(struct ledger_entry *led, const struct symbolizer *sym, size_t nkeys,
                            const struct stack_stats *ss)
{
    struct sym_stats sy;
    stacks_sym_lock(); /* other collectors may be resolving with it */
    sym_stats(sym, &sy);
    stacks_sym_unlock();
    ledger_note(led,
                "%zu keys, %llu stacks read; frames resolved %llu, unresolved %llu; %llu binaries "
                "read (%llu failed), %llu processes' maps read (%llu gone)",
                nkeys, (unsigned long long)ss->stacks_read,
                (unsigned long long)ss->frames_resolved, (unsigned long long)ss->frames_unresolved,
                (unsigned long long)sy.binaries_read, (unsigned long long)sy.binaries_failed,
                (unsigned long long)sy.pids_read, (unsigned long long)sy.pids_gone);
    if (sy.kernel_note)
        ledger_note(led, "%s", sy.kernel_note);
    stacks_note_symbolizer(led, sym);
}

void stacks_name_addrs(struct symbolizer *sym, uint32_t tgid, uint64_t uaddr, const char **uname,
                       uint8_t *ukind, const uint64_t *kaddr, size_t nk, const char **kname)
{
    *uname = NULL;
    stacks_sym_lock(); /* shared with the other collectors' threads */
    struct sym_frame f;
    if (uaddr && sym_user_name(sym, (int)tgid, uaddr, &f) == 0) {
        *uname = f.name;
        *ukind = (uint8_t)f.kind;
    }
    for (size_t i = 0; i < nk; i++) {
        sym_kernel(sym, kaddr[i], &f);
        kname[i] = f.name;
    }
    stacks_sym_unlock();
}
