/* Top functions by self and total samples, top processes with their hottest
 * stack, kernel/user split. */
#include "profile_summary.h"
#include "model.h"
#include "names.h"
#include "profile.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Per (string id, kind) accumulator. */
struct facc {
    uint32_t name;
    uint8_t kind;
    uint64_t self, total;
    uint64_t last_stack; /* stack number that last added to total (+1) */
    uint32_t rank;       /* 1-based row in profile.top_self, 0 when not listed */
};

struct pacc {
    uint32_t node;      /* process node (child of the root) */
    uint64_t best_self; /* hottest stack's count */
    uint32_t best_leaf;
    uint32_t ord;       /* position among the root's children */
};

struct walk {
    const struct profile *p;
    struct facc *f;     /* indexed by name id * FRAME_KIND_COUNT + kind */
    struct pacc *procs; /* indexed by node (only root children used) */
    uint64_t nstack;
    uint64_t kernel, user, unnamed;
    uint64_t *by_proc;  /* second pass: [rank-1][ord] self samples */
    size_t nproc;
};

static int visit(void *ctx, const struct profile *p, const uint32_t *path, size_t depth,
                 uint64_t self)
{
    struct walk *w = ctx;
    w->nstack++;
    uint32_t leaf = path[depth - 1];
    enum frame_kind lk = profile_node_kind(p, leaf);
    const char *ln = profile_node_name(p, leaf);
    if (lk == FRAME_KERNEL || strcmp(ln, "[missing kernel stack]") == 0)
        w->kernel += self;
    else
        w->user += self;
    uint32_t proc = path[0];
    struct pacc *pa = &w->procs[proc];
    if (self > pa->best_self) {
        pa->best_self = self;
        pa->best_leaf = leaf;
    }
    if (lk == FRAME_PROCESS)
        return 0;
    if (lk == FRAME_UNKNOWN)
        w->unnamed += self;
    struct facc *lf = &w->f[p->nodes[leaf].name * FRAME_KIND_COUNT + lk];
    lf->self += self;
    for (size_t i = 1; i < depth; i++) {
        const struct pnode *n = &p->nodes[path[i]];
        struct facc *a = &w->f[n->name * FRAME_KIND_COUNT + n->kind];
        if (a->last_stack != w->nstack) { /* recursion counts once per stack */
            a->last_stack = w->nstack;
            a->total += self;
        }
    }
    return 0;
}

/* Second pass: self samples of each listed function per process. */
static int visit_procs(void *ctx, const struct profile *p, const uint32_t *path, size_t depth,
                       uint64_t self)
{
    struct walk *w = ctx;
    uint32_t leaf = path[depth - 1];
    const struct facc *lf = &w->f[p->nodes[leaf].name * FRAME_KIND_COUNT + p->nodes[leaf].kind];
    if (lf->rank)
        w->by_proc[(size_t)(lf->rank - 1) * w->nproc + w->procs[path[0]].ord] += self;
    return 0;
}

static int by_self(const void *a, const void *b)
{
    const struct facc *x = *(const struct facc *const *)a, *y = *(const struct facc *const *)b;
    return x->self != y->self ? (x->self < y->self ? 1 : -1) : (x->name > y->name) - (x->name < y->name);
}
static int by_total(const void *a, const void *b)
{
    const struct facc *x = *(const struct facc *const *)a, *y = *(const struct facc *const *)b;
    return x->total != y->total ? (x->total < y->total ? 1 : -1)
                                : (x->name > y->name) - (x->name < y->name);
}

static const char *kind_label(enum frame_kind k)
{
    return frame_kind_name(k);
}

void profile_summarize(struct report *r, const struct profile *p, module_fn module, void *mctx)
{
    uint64_t total = profile_total(p);
    report_metric(r, NM_PROFILE_SAMPLES, "On-CPU samples (non-idle)", "", "profile", (double)total);
    struct walk w = {.p = p};
    size_t nf = (size_t)p->nstrs * FRAME_KIND_COUNT;
    w.f = xcalloc(nf ? nf : 1, sizeof *w.f);
    w.procs = xcalloc(p->nnodes ? p->nnodes : 1, sizeof *w.procs);
    uint32_t *procs = xcalloc(p->nnodes ? p->nnodes : 1, sizeof *procs);
    size_t np = 0;
    for (uint32_t c = p->nnodes ? p->nodes[PROFILE_ROOT].first_child : PROFILE_NONE;
         c != PROFILE_NONE; c = p->nodes[c].next_sibling) {
        w.procs[c].ord = (uint32_t)np;
        procs[np++] = c;
    }
    w.nproc = np;
    if (total)
        profile_walk_stacks(p, visit, &w);
    double pct = total ? 100.0 / (double)total : 0;
    report_metric(r, NM_PROFILE_KERNEL_PCT, "Samples in kernel mode", "%", "profile",
                  total ? (double)w.kernel * pct : 0);
    report_metric(r, NM_PROFILE_USER_PCT, "Samples in user mode", "%", "profile",
                  total ? (double)w.user * pct : 0);

    struct facc **v = xcalloc(nf ? nf : 1, sizeof *v);
    size_t nv = 0;
    report_metric(r, NM_PROFILE_UNNAMED_PCT, "Samples whose leaf frame has no name", "%", "profile",
                  total ? (double)w.unnamed * pct : 0);
    /* Placeholders ("[unknown]", "[pid 12 exited]", "[missing ...]") stay in
     * the flame graph but are not functions to rank. */
    for (size_t i = 0; i < nf; i++) {
        if ((!w.f[i].self && !w.f[i].total) || i % FRAME_KIND_COUNT == FRAME_UNKNOWN)
            continue;
        w.f[i].name = (uint32_t)(i / FRAME_KIND_COUNT);
        w.f[i].kind = (uint8_t)(i % FRAME_KIND_COUNT);
        v[nv++] = &w.f[i];
    }

    struct table *t = report_table(r, NM_PROFILE_TOP_SELF, "Top functions by self samples", "profile");
    static const struct col_spec profile_top_self_cols[] = {
        {"function", "Function", "", 0},
        {"module", "Module", "", 0},
        {"kind", "Kind", "", 0},
        {"self_pct", "Self %", "%", 1},
        {"samples", "Samples", "", 0},
        {"process", "Top process", "", 0},
    };
    table_add_cols(t, profile_top_self_cols, ARRAY_LEN(profile_top_self_cols));
    qsort(v, nv, sizeof *v, by_self);
    size_t nrows = 0;
    while (nrows < nv && nrows < PROFILE_TOP_ROWS && v[nrows]->self) {
        v[nrows]->rank = (uint32_t)(nrows + 1);
        nrows++;
    }
    w.by_proc = xcalloc(nrows * np + 1, sizeof *w.by_proc);
    if (nrows)
        profile_walk_stacks(p, visit_procs, &w);
    for (size_t i = 0; i < nrows; i++) {
        size_t row = table_add_row(t);
        const char *name = profile_str(p, v[i]->name);
        const char *mod = module ? module(mctx, name, v[i]->kind) : NULL;
        table_set_str(t, row, "function", name);
        table_set_str(t, row, "module", mod ? mod : "");
        table_set_str(t, row, "kind", kind_label(v[i]->kind));
        table_set_num(t, row, "self_pct", (double)v[i]->self * pct);
        table_set_num(t, row, "samples", (double)v[i]->self);
        size_t best = 0;
        for (size_t j = 1; j < np; j++)
            if (w.by_proc[i * np + j] > w.by_proc[i * np + best])
                best = j;
        table_set_str(t, row, "process", np ? profile_node_name(p, procs[best]) : "");
    }
    free(w.by_proc);

    t = report_table(r, NM_PROFILE_TOP_TOTAL, "Top functions by total samples (with callees)", "profile");
    static const struct col_spec profile_top_total_cols[] = {
        {"function", "Function", "", 0},
        {"kind", "Kind", "", 0},
        {"total_pct", "Total %", "%", 1},
        {"samples", "Samples", "", 0},
    };
    table_add_cols(t, profile_top_total_cols, ARRAY_LEN(profile_top_total_cols));
    qsort(v, nv, sizeof *v, by_total);
    for (size_t i = 0; i < nv && i < PROFILE_TOP_ROWS && v[i]->total; i++) {
        size_t row = table_add_row(t);
        table_set_str(t, row, "function", profile_str(p, v[i]->name));
        table_set_str(t, row, "kind", kind_label(v[i]->kind));
        table_set_num(t, row, "total_pct", (double)v[i]->total * pct);
        table_set_num(t, row, "samples", (double)v[i]->total);
    }

    /* Processes: the root's children, by samples. */
    t = report_table(r, NM_PROFILE_TOP_PROCS, "Top processes by on-CPU samples", "profile");
    static const struct col_spec profile_top_procs_cols[] = {
        {"process", "Process", "", 0},
        {"samples", "Samples", "", 0},
        {"pct", "Share", "%", 1},
        {"hottest_stack", "Hottest stack (leaf first)", "", 0},
    };
    table_add_cols(t, profile_top_procs_cols, ARRAY_LEN(profile_top_procs_cols));
    for (size_t i = 0; i < np && i < PROFILE_TOP_PROCS; i++) { /* partial selection sort */
        size_t best = i;
        for (size_t j = i + 1; j < np; j++)
            if (p->nodes[procs[j]].total > p->nodes[procs[best]].total ||
                (p->nodes[procs[j]].total == p->nodes[procs[best]].total &&
                 strcmp(profile_node_name(p, procs[j]), profile_node_name(p, procs[best])) < 0))
                best = j;
        uint32_t tmp = procs[i];
        procs[i] = procs[best];
        procs[best] = tmp;
        uint32_t pn = procs[i];
        size_t row = table_add_row(t);
        table_set_str(t, row, "process", profile_node_name(p, pn));
        table_set_num(t, row, "samples", (double)p->nodes[pn].total);
        table_set_num(t, row, "pct", (double)p->nodes[pn].total * pct);
        struct strbuf sb = STRBUF_INIT;
        uint32_t n = w.procs[pn].best_self ? w.procs[pn].best_leaf : PROFILE_NONE;
        for (int k = 0; n != PROFILE_NONE && n != pn && k < PROFILE_HOT_FRAMES; k++) {
            sb_addf(&sb, "%s%s", k ? " <- " : "", profile_node_name(p, n));
            n = p->nodes[n].parent;
        }
        table_set_str(t, row, "hottest_stack", sb_str(&sb));
        sb_free(&sb);
    }
    free(procs);
    free(v);
    free(w.f);
    free(w.procs);
}
