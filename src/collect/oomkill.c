/* Collector "oomkill": names the processes the OOM killer chose while
 * perfreport ran (from the attach to the drain, so a kill during start-up
 * or finalisation is not lost), the memory cgroup each lived in, and when
 * each happened relative to the window. */
#include "../model/model.h"
#include "../model/names.h"
#include "../util/clock.h"
#include "../util/hostfs.h"
#include "../util/xalloc.h"
#include "../procfs/cgroup_parse.h"
#include "collector.h"
#include "../kbpf/kbpf.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../bpf/oomkill.h"
#include "oomkill.skel.h"

#define WALK_MAX_DEPTH 32
#define WALK_MAX_DIRS 20000

struct oom_state {
    struct oomkill_bpf *skel; /* owned */
    uint64_t begin_ns;        /* CLOCK_MONOTONIC at the window's start (begin) */
};

static int oom_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    (void)ctx;
    struct oom_state *st = xcalloc(1, sizeof *st);
    *state = st;
    st->skel = oomkill_bpf__open_and_load();
    if (!st->skel) {
        int e = errno ? errno : EINVAL;
        snprintf(err, n, "loading the mark_victim program failed: %s", strerror(e));
        return -e;
    }
    int rc = oomkill_bpf__attach(st->skel);
    if (rc) {
        snprintf(err, n, "attaching to the mark_victim tracepoint failed: %s", strerror(-rc));
        return rc;
    }
    st->begin_ns = mono_ns(); /* until begin moves it */
    return 0;
}

/* The program records from its attach on: begin only notes where the window
 * starts, in the clock bpf_ktime_get_ns stamps victims with. */
static int oom_begin(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct oom_state *st = state;
    st->begin_ns = mono_ns();
    return 0;
}

/* Depth-first search below `dir` (a real path, root prefix included) for the
 * directory whose inode is `ino`; its path relative to `base_len` goes to out. */
static bool find_ino(char *dir, size_t len, size_t base_len, uint64_t ino, int depth, int *budget,
                     char *out, size_t n)
{
    struct stat st;
    if (stat(dir, &st) == 0 && (uint64_t)st.st_ino == ino) {
        snprintf(out, n, "%s", len > base_len ? dir + base_len : "/");
        return true;
    }
    if (depth >= WALK_MAX_DEPTH || --*budget <= 0)
        return false;
    DIR *d = opendir(dir);
    if (!d)
        return false;
    struct dirent *e;
    bool found = false;
    while (!found && (e = readdir(d))) {
        if (e->d_type != DT_DIR || e->d_name[0] == '.')
            continue;
        size_t l = strlen(e->d_name);
        if (len + 1 + l >= PATH_MAX)
            continue;
        dir[len] = '/';
        memcpy(dir + len + 1, e->d_name, l + 1);
        found = find_ino(dir, len + 1 + l, base_len, ino, depth + 1, budget, out, n);
        dir[len] = '\0';
    }
    closedir(d);
    return found;
}

/* Maps a memory cgroup's kernfs id to its path below the hierarchy that
 * carries the memory controller (v1 memory, else the v2 mount). */
static void memcg_path(uint64_t id, char *out, size_t n)
{
    snprintf(out, n, "?");
    if (!id)
        return;
    struct strbuf mi = STRBUF_INIT;
    if (hostfs_read("/proc/self/mountinfo", &mi, 0) != 0) {
        sb_free(&mi);
        return;
    }
    struct cg_mounts m = {0};
    cg_parse_mountinfo(sb_str(&mi), &m);
    sb_free(&mi);
    const struct cg_mount *mem = NULL;
    for (size_t i = 0; i < m.n; i++)
        if (!m.v[i].v2 && (m.v[i].ctrls & CG_CTRL_MEMORY))
            mem = &m.v[i];
    for (size_t i = 0; !mem && i < m.n; i++)
        if (m.v[i].v2)
            mem = &m.v[i];
    char dir[PATH_MAX];
    if (mem && hostfs_path(dir, sizeof dir, mem->mnt) == 0) {
        int budget = WALK_MAX_DIRS;
        size_t len = strlen(dir);
        if (!find_ino(dir, len, len, id, 0, &budget, out, n))
            snprintf(out, n, "(cgroup id %llu, removed)", (unsigned long long)id);
    }
    cg_mounts_free(&m);
}

static int oom_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    struct oom_state *st = state;
    struct report *r = ctx->r;
    __u32 zero = 0;
    __u64 count = 0;
    if (bpf_map_lookup_elem(bpf_map__fd(st->skel->maps.nvictims), &zero, &count) != 0) {
        snprintf(err, n, "reading the victim count failed: %s", strerror(errno));
        return -errno;
    }
    report_metric(r, NM_MEM_OOM_VICTIMS, "OOM victims", "", "memory", (double)count);
    if (!count)
        return 0;
    if (count > OOM_MAX_VICTIMS)
        ledger_note(report_ledger(r, "oomkill", NULL), "%llu victims beyond the first %d not listed",
                    (unsigned long long)(count - OOM_MAX_VICTIMS), OOM_MAX_VICTIMS);
    struct table *t = report_table(r, NM_MEMORY_OOM_VICTIMS, "Processes killed by the OOM killer",
                                   "memory");
    static const struct col_spec memory_oom_victims_cols[] = {
        {"pid", "PID", "", 0},
        {"comm", "Command", "", 0},
        {"cgroup", "Memory cgroup", "", 0},
        {"total_vm_kib", "Virtual size", "KiB", 0},
        {"oom_score_adj", "oom_score_adj", "", 0},
        {"uid", "UID", "", 0},
        {"at_s", "When (s from the window's start)", "s", 1},
    };
    table_add_cols(t, memory_oom_victims_cols, ARRAY_LEN(memory_oom_victims_cols));
    table_set_note(t, "Seen from the program's attach to the end of the run: a negative time is "
                      "before the window opened, one past the window's length after it closed.");
    long page_kib = sysconf(_SC_PAGESIZE) / 1024;
    for (__u32 i = 0; i < count && i < OOM_MAX_VICTIMS; i++) {
        struct oom_victim v;
        if (bpf_map_lookup_elem(bpf_map__fd(st->skel->maps.victims), &i, &v) != 0)
            continue;
        char comm[sizeof v.comm + 1];
        memcpy(comm, v.comm, sizeof v.comm);
        comm[sizeof v.comm] = '\0';
        char path[PATH_MAX];
        memcg_path(v.memcg_id, path, sizeof path);
        size_t row = table_add_row(t);
        table_set_num(t, row, "pid", v.pid);
        table_set_str(t, row, "comm", comm);
        table_set_str(t, row, "cgroup", path);
        table_set_num(t, row, "total_vm_kib", (double)v.total_vm_pages * (double)page_kib);
        table_set_num(t, row, "oom_score_adj", v.oom_score_adj);
        table_set_num(t, row, "uid", v.uid);
        /* signed: a kill during start-up precedes begin_ns */
        table_set_num(t, row, "at_s", (double)(int64_t)(v.ts_ns - st->begin_ns) / 1e9);
    }
    return 0;
}

static void oom_destroy(void *state)
{
    struct oom_state *st = state;
    if (!st)
        return;
    oomkill_bpf__destroy(st->skel);
    free(st);
}

/* mark_victim has no classic-tracepoint version here: tp_btf or nothing
 * (the memory collector still counts OOM kills from /proc/vmstat). */
static bool oom_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    static const char *const tps[] = {"mark_victim"};
    if (kbpf_force_classic()) {
        snprintf(reason, n, "needs tp_btf mark_victim (PERFREPORT_FORCE_CLASSIC is set)");
        return false;
    }
    if (kbpf_missing_tp_btf(tps, 1)) {
        snprintf(reason, n, "tp_btf mark_victim is not in the kernel BTF");
        return false;
    }
    return true;
}

const struct collector collector_oomkill = {
    .name = "oomkill",
    .title = "OOM kills (BPF)",
    .needs_bpf = true,
    .can_run = oom_can_run,
    .start = oom_start,
    .begin = oom_begin,
    .stop = oom_stop,
    .destroy = oom_destroy,
};
