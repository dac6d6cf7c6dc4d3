/* Per-pid cgroup labels (see proc_labels.h). */
#include "proc_labels.h"
#include "../procfs/cgroup_name.h"
#include "../util/proc_parse.h"
#include "../util/xalloc.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>


struct plent {
    uint32_t pid; /* 0: empty slot */
    char *cgroup, *container;
};

struct proc_labels {
    struct plent *t;
    size_t cap, n;
};

struct proc_labels *proc_labels_new(void)
{
    return xcalloc(1, sizeof(struct proc_labels));
}

void proc_labels_free(struct proc_labels *pl)
{
    if (!pl)
        return;
    for (size_t i = 0; i < pl->cap; i++) {
        free(pl->t[i].cgroup);
        free(pl->t[i].container);
    }
    free(pl->t);
    free(pl);
}

static size_t slot_of(const struct plent *t, size_t cap, uint32_t pid)
{
    size_t i = (pid * 0x9E3779B1u) & (cap - 1);
    while (t[i].pid && t[i].pid != pid)
        i = (i + 1) & (cap - 1);
    return i;
}

static void read_cgroup(struct plent *e, uint32_t pid)
{
    struct cg_proc_paths pp;
    if (pid <= INT_MAX && proc_read_cgroup((int)pid, &pp) == 0) {
        const char *path = pp.v2 ? pp.v2 : pp.cpu;
        if (path && *path) {
            e->cgroup = xstrdup(path);
            struct cgroup_workload w;
            char name[256];
            if (cgroup_workload_of(path, &w)) {
                cgroup_workload_name(&w, name, sizeof name);
                if (*name)
                    e->container = xstrdup(name);
            }
        }
        cg_proc_paths_free(&pp);
    }
}

void proc_labels_note(struct proc_labels *pl, uint32_t pid)
{
    if (!pl || !pid || pl->n >= PROC_LABELS_MAX)
        return;
    if ((pl->n + 1) * 4 > pl->cap * 3) {
        size_t ncap = pl->cap ? pl->cap * 2 : 64;
        struct plent *nt = xcalloc(ncap, sizeof *nt);
        for (size_t i = 0; i < pl->cap; i++)
            if (pl->t[i].pid)
                nt[slot_of(nt, ncap, pl->t[i].pid)] = pl->t[i];
        free(pl->t);
        pl->t = nt;
        pl->cap = ncap;
    }
    struct plent *e = &pl->t[slot_of(pl->t, pl->cap, pid)];
    if (e->pid)
        return;
    e->pid = pid;
    pl->n++;
    read_cgroup(e, pid);
}

void proc_labels_get(struct proc_labels *pl, uint32_t pid, const char **cgroup,
                     const char **container)
{
    *cgroup = *container = NULL;
    if (!pl || !pid)
        return;
    proc_labels_note(pl, pid);
    if (!pl->cap)
        return;
    const struct plent *e = &pl->t[slot_of(pl->t, pl->cap, pid)];
    if (e->pid == pid) {
        *cgroup = e->cgroup;
        *container = e->container;
    }
}
