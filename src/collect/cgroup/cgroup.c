/* Cgroup collector: per-cgroup CPU, throttling, memory, OOM and pressure
 * over the window, on v1, v2 and hybrid hosts.
 *
 * The hierarchies are walked twice (start, stop); every number in the table
 * is a start/stop delta except gauges read at stop (memory, limits).  On a
 * hybrid host the same cgroup path exists below several hierarchy roots (v2
 * unified plus v1 cpu/cpuacct/memory/blkio); readings are merged per path,
 * each field coming from the hierarchy whose controller provides it.  The
 * first walk also finds the I/O limits and the cgroups whose memory is worth
 * following; those few are read at every tick (cgroup_watch.c). */
#include "cgroup.h"
#include "../../procfs/cgroup_name.h"
#include "cgroup_watch.h"
#include "../../procfs/procs_parse.h"
#include "model/model.h"
#include "model/names.h"
#include "util/hostfs.h"
#include "util/hash.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CG_MAX_DEPTH 32
#define CG_MAX_CGROUPS 4000
#define CG_HASH_SLOTS 8192 /* power of two, well above CG_MAX_CGROUPS + targets */
#define CG_FILE_MAX 65536
#define CG_TOP_CPU 15
#define CG_MEM_FLAG_PCT 80.0

/* -------------------------------------------------------------- snapshots */

enum {
    CGF_USAGE = 1u << 0,    /* usage_ns */
    CGF_CFS = 1u << 1,      /* nr_periods nr_throttled throttled_ns */
    CGF_QUOTA = 1u << 2,    /* quota_us period_us (quota -1 = unlimited) */
    CGF_MEM = 1u << 3,      /* mem_bytes */
    CGF_LIMIT = 1u << 4,    /* limit_bytes (only when limited) */
    CGF_FAILCNT = 1u << 5,  /* failcnt (v1 failcnt, v2 memory.events max) */
    CGF_OOM = 1u << 6,      /* oom_kills */
    CGF_PSI_CPU = 1u << 7,
    CGF_PSI_MEM = 1u << 8,
    CGF_PSI_IO = 1u << 9,
};

struct cg_sample {
    char *path; /* owned; "/" or "/a/b" below the hierarchy root */
    unsigned have;
    uint64_t usage_ns, nr_periods, nr_throttled, throttled_ns;
    int64_t quota_us;
    uint64_t period_us;
    uint64_t mem_bytes, limit_bytes, failcnt, oom_kills;
    uint64_t psi_cpu_us, psi_mem_us, psi_io_us;
    double t_s; /* collector clock when the usage was read; 0 = never */
    const struct cg_mount *mem_m; /* the mount its memory was read from */
    /* I/O limits (first walk only), read from io_m; owned, NULL when none */
    struct cg_io_limit *io_lim;
    size_t n_io_lim;
    const struct cg_mount *io_m;
};

struct cg_snap {
    struct cg_sample *v;
    size_t n, cap;
    int32_t *slots; /* hash of path -> index into v; -1 empty */
    size_t skipped; /* directories not read: depth or count cap, or path too long */
};

static void snap_init(struct cg_snap *s)
{
    memset(s, 0, sizeof *s);
    s->slots = xmalloc(CG_HASH_SLOTS * sizeof *s->slots);
    for (size_t i = 0; i < CG_HASH_SLOTS; i++)
        s->slots[i] = -1;
}

static void snap_free(struct cg_snap *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].path);
        free(s->v[i].io_lim);
    }
    free(s->v);
    free(s->slots);
    memset(s, 0, sizeof *s);
}

/* Finds path; creates it when `create` (refused beyond the cap unless
 * `force`, which the target uses).  NULL when absent or refused. */
static struct cg_sample *snap_get(struct cg_snap *s, const char *path, bool create, bool force)
{
    if (!s->slots)
        return NULL;
    uint32_t h = (uint32_t)hash_str(path) & (CG_HASH_SLOTS - 1);
    while (s->slots[h] >= 0) {
        struct cg_sample *c = &s->v[s->slots[h]];
        if (strcmp(c->path, path) == 0)
            return c;
        h = (h + 1) & (CG_HASH_SLOTS - 1);
    }
    if (!create)
        return NULL;
    if ((s->n >= CG_MAX_CGROUPS && !force) || s->n >= CG_HASH_SLOTS / 2)
        return NULL;
    xgrow(&s->v, &s->cap, s->n + 1, sizeof *s->v);
    struct cg_sample *c = &s->v[s->n];
    memset(c, 0, sizeof *c);
    c->path = xstrdup(path);
    s->slots[h] = (int32_t)s->n++;
    return c;
}

static bool read_u64_file(struct strbuf *sb, const char *dir, const char *file, uint64_t *v)
{
    const char *e;
    return hostfs_readf(sb, CG_FILE_MAX, "%s/%s", dir, file) == 0 &&
           cg_parse_u64(cg_skip_ws(sb_str(sb)), &e, v) && cg_at_eol(e);
}

static bool read_i64_file(struct strbuf *sb, const char *dir, const char *file, int64_t *v)
{
    if (hostfs_readf(sb, CG_FILE_MAX, "%s/%s", dir, file) != 0)
        return false;
    const char *s = cg_skip_ws(sb_str(sb));
    bool neg = *s == '-';
    uint64_t u;
    const char *e;
    if (!cg_parse_u64(neg ? s + 1 : s, &e, &u) || !cg_at_eol(e) || u > INT64_MAX)
        return false;
    *v = neg ? -(int64_t)u : (int64_t)u;
    return true;
}

static void read_psi(struct strbuf *sb, const char *dir, const char *file, struct cg_sample *c,
                     unsigned flag, uint64_t *dst)
{
    if (hostfs_readf(sb, CG_FILE_MAX, "%s/%s", dir, file) == 0 &&
        cg_parse_psi_some_total(sb_str(sb), dst) == 0)
        c->have |= flag;
}

static long clk_tck(void)
{
    long t = sysconf(_SC_CLK_TCK);
    return t > 0 ? t : 100;
}

/* What read_cgroup_dir reads: just what the per-tick target series needs,
 * everything, or everything and the I/O limits (the first walk). */
enum cg_read { CG_READ_CPU, CG_READ_ALL, CG_READ_LIMITS };

#define CG_IO_LIMITS_MAX 8 /* per cgroup: a few devices, four kinds each */

/* The cgroup's I/O limits in dir, v2 io.max or the four v1 files. */
static void read_io_limits(struct cg_sample *c, const struct cg_mount *m, const char *dir,
                           struct strbuf *sb)
{
    struct cg_io_limit lim[CG_IO_LIMITS_MAX];
    size_t n = 0;
    if (m->v2) {
        if (hostfs_readf(sb, CG_FILE_MAX, "%s/io.max", dir) == 0)
            n = cg_parse_io_max(sb_str(sb), lim, CG_IO_LIMITS_MAX);
    } else {
        static const char *const files[CG_IO_NKINDS] = {
            [CG_IO_RBPS] = "read_bps_device", [CG_IO_WBPS] = "write_bps_device",
            [CG_IO_RIOPS] = "read_iops_device", [CG_IO_WIOPS] = "write_iops_device"};
        for (unsigned k = 0; k < CG_IO_NKINDS && n < CG_IO_LIMITS_MAX; k++)
            if (hostfs_readf(sb, CG_FILE_MAX, "%s/blkio.throttle.%s", dir, files[k]) == 0)
                n += cg_parse_blkio_limits(sb_str(sb), (enum cg_io_kind)k, lim + n,
                                           CG_IO_LIMITS_MAX - n);
    }
    if (!n || c->io_lim) /* one hierarchy's limits: hybrid hosts have io in one only */
        return;
    c->io_lim = xmalloc(n * sizeof *lim);
    memcpy(c->io_lim, lim, n * sizeof *lim);
    c->n_io_lim = n;
    c->io_m = m;
}

/* Reads the files of one cgroup directory `dir` (host path) of mount m. */
static void read_cgroup_dir(const struct collect_ctx *ctx, struct cg_sample *c,
                            const struct cg_mount *m, const char *dir, struct strbuf *sb,
                            enum cg_read what)
{
    bool cpu_only = what == CG_READ_CPU;
    uint64_t a, b, t;
    /* Each cgroup's own read time: a walk of many cgroups by a niced thread
     * on a busy host takes long, and its counters keep running meanwhile. */
    if (m->v2 || (m->ctrls & CG_CTRL_CPUACCT) || c->t_s == 0)
        c->t_s = collect_clock_s(ctx);
    if (m->v2) {
        if (hostfs_readf(sb, CG_FILE_MAX, "%s/cpu.stat", dir) == 0) {
            const char *s = sb_str(sb);
            if (cg_kv_u64(s, "usage_usec", &a)) {
                c->usage_ns = a * 1000u;
                c->have |= CGF_USAGE;
            }
            /* present only where the v2 cpu controller is enabled */
            if (cg_kv_u64(s, "nr_periods", &a) && cg_kv_u64(s, "nr_throttled", &b) &&
                cg_kv_u64(s, "throttled_usec", &t)) {
                c->nr_periods = a;
                c->nr_throttled = b;
                c->throttled_ns = t * 1000u;
                c->have |= CGF_CFS;
            }
        }
        if (hostfs_readf(sb, CG_FILE_MAX, "%s/cpu.max", dir) == 0 &&
            cg_parse_cpu_max(sb_str(sb), &c->quota_us, &c->period_us) == 0)
            c->have |= CGF_QUOTA;
        if (cpu_only)
            return;
        if (read_u64_file(sb, dir, "memory.current", &a)) {
            c->mem_bytes = a;
            c->have |= CGF_MEM;
            c->mem_m = m;
        }
        bool unl;
        if (hostfs_readf(sb, CG_FILE_MAX, "%s/memory.max", dir) == 0 &&
            cg_parse_mem_limit(sb_str(sb), &a, &unl) == 0 && !unl) {
            c->limit_bytes = a;
            c->have |= CGF_LIMIT;
        }
        if (hostfs_readf(sb, CG_FILE_MAX, "%s/memory.events", dir) == 0) {
            if (cg_kv_u64(sb_str(sb), "oom_kill", &a)) {
                c->oom_kills = a;
                c->have |= CGF_OOM;
            }
            if (cg_kv_u64(sb_str(sb), "max", &a)) {
                c->failcnt = a;
                c->have |= CGF_FAILCNT;
            }
        }
        read_psi(sb, dir, "cpu.pressure", c, CGF_PSI_CPU, &c->psi_cpu_us);
        read_psi(sb, dir, "memory.pressure", c, CGF_PSI_MEM, &c->psi_mem_us);
        read_psi(sb, dir, "io.pressure", c, CGF_PSI_IO, &c->psi_io_us);
        if (what == CG_READ_LIMITS)
            read_io_limits(c, m, dir, sb);
        return;
    }
    if (m->ctrls & CG_CTRL_CPUACCT) {
        if (read_u64_file(sb, dir, "cpuacct.usage", &a)) {
            c->usage_ns = a;
            c->have |= CGF_USAGE;
        } else if (hostfs_readf(sb, CG_FILE_MAX, "%s/cpuacct.stat", dir) == 0 &&
                   cg_kv_u64(sb_str(sb), "user", &a) && cg_kv_u64(sb_str(sb), "system", &b)) {
            c->usage_ns = (a + b) * (1000000000u / (uint64_t)clk_tck());
            c->have |= CGF_USAGE;
        }
    }
    if (m->ctrls & CG_CTRL_CPU) {
        if (hostfs_readf(sb, CG_FILE_MAX, "%s/cpu.stat", dir) == 0) {
            const char *s = sb_str(sb);
            if (cg_kv_u64(s, "nr_periods", &a) && cg_kv_u64(s, "nr_throttled", &b) &&
                cg_kv_u64(s, "throttled_time", &t)) {
                c->nr_periods = a;
                c->nr_throttled = b;
                c->throttled_ns = t;
                c->have |= CGF_CFS;
            }
        }
        int64_t q;
        if (read_i64_file(sb, dir, "cpu.cfs_quota_us", &q) &&
            read_u64_file(sb, dir, "cpu.cfs_period_us", &a) && a > 0) {
            c->quota_us = q < 0 ? -1 : q;
            c->period_us = a;
            c->have |= CGF_QUOTA;
        }
    }
    if (what == CG_READ_LIMITS && (m->ctrls & CG_CTRL_BLKIO))
        read_io_limits(c, m, dir, sb);
    if (cpu_only || !(m->ctrls & CG_CTRL_MEMORY))
        return;
    if (read_u64_file(sb, dir, "memory.usage_in_bytes", &a)) {
        c->mem_bytes = a;
        c->have |= CGF_MEM;
        c->mem_m = m;
    }
    bool unl;
    if (hostfs_readf(sb, CG_FILE_MAX, "%s/memory.limit_in_bytes", dir) == 0 &&
        cg_parse_mem_limit(sb_str(sb), &a, &unl) == 0 && !unl) {
        c->limit_bytes = a;
        c->have |= CGF_LIMIT;
    }
    if (read_u64_file(sb, dir, "memory.failcnt", &a)) {
        c->failcnt = a;
        c->have |= CGF_FAILCNT;
    }
    if (hostfs_readf(sb, CG_FILE_MAX, "%s/memory.oom_control", dir) == 0 &&
        cg_kv_u64(sb_str(sb), "oom_kill", &a)) {
        c->oom_kills = a;
        c->have |= CGF_OOM;
    }
}

struct walker {
    const struct collect_ctx *ctx;
    struct cg_snap *s;
    const struct cg_mount *m;
    struct strbuf sb;
    char dir[PATH_MAX]; /* host path of the current directory */
    size_t mlen;        /* strlen(m->mnt): dir + mlen is the cgroup path */
    enum cg_read what;
};

static void walk(struct walker *w, size_t len, int depth)
{
    const char *rel = len == w->mlen ? "/" : w->dir + w->mlen;
    struct cg_sample *c = snap_get(w->s, rel, true, false);
    if (!c) {
        w->s->skipped++;
        return;
    }
    read_cgroup_dir(w->ctx, c, w->m, len ? w->dir : "/", &w->sb, w->what);
    DIR *d = hostfs_opendir(len ? w->dir : "/");
    if (!d)
        return; /* removed while we walked: what we read stays */
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
            continue;
        size_t nl = strlen(name);
        if (len + 1 + nl >= sizeof w->dir) {
            w->s->skipped++;
            continue;
        }
        w->dir[len] = '/';
        memcpy(w->dir + len + 1, name, nl + 1);
        bool isdir = de->d_type == DT_DIR ||
                     (de->d_type == DT_UNKNOWN && hostfs_is_dir(w->dir));
        if (isdir) {
            if (depth + 1 > CG_MAX_DEPTH)
                w->s->skipped++;
            else
                walk(w, len + 1 + nl, depth + 1);
        }
        w->dir[len] = '\0';
    }
    closedir(d);
}

/* Host directory of cgroup `rel` in mount m. */
static int cg_dir(char *out, size_t n, const struct cg_mount *m, const char *rel)
{
    int w = snprintf(out, n, "%s%s", m->mnt, strcmp(rel, "/") == 0 ? "" : rel);
    if (w < 0 || (size_t)w >= n)
        return -ENAMETOOLONG;
    if (!out[0])
        snprintf(out, n, "/");
    return 0;
}

/* Reads cgroup `rel` from every mount that has it, bypassing the cap. */
static bool read_path(const struct collect_ctx *ctx, struct cg_snap *s,
                      const struct cg_mounts *ms, const char *rel, enum cg_read what,
                      struct cg_sample *into)
{
    struct strbuf sb = STRBUF_INIT;
    bool found = false;
    for (size_t i = 0; i < ms->n; i++) {
        char dir[PATH_MAX];
        if (cg_dir(dir, sizeof dir, &ms->v[i], rel) != 0 || !hostfs_is_dir(dir))
            continue;
        struct cg_sample *c = into ? into : snap_get(s, rel, true, true);
        if (!c)
            break;
        read_cgroup_dir(ctx, c, &ms->v[i], dir, &sb, what);
        found = true;
    }
    sb_free(&sb);
    return found;
}

static void snapshot(const struct collect_ctx *ctx, struct cg_snap *s,
                     const struct cg_mounts *ms, char *const *targets, size_t ntargets,
                     enum cg_read what)
{
    snap_init(s);
    for (size_t i = 0; i < ms->n; i++) {
        struct walker w = {.ctx = ctx, .s = s, .m = &ms->v[i], .sb = STRBUF_INIT, .what = what};
        w.mlen = strlen(ms->v[i].mnt);
        if (w.mlen >= sizeof w.dir)
            continue;
        memcpy(w.dir, ms->v[i].mnt, w.mlen + 1);
        walk(&w, w.mlen, 0);
        sb_free(&w.sb);
    }
    /* the target always gets a row, even past the caps */
    for (size_t i = 0; i < ntargets; i++)
        if (!snap_get(s, targets[i], false, false))
            read_path(ctx, s, ms, targets[i], what, NULL);
}

/* -------------------------------------------------------------- collector */

struct cg_state {
    struct cg_mounts mounts;
    struct cg_snap t0;
    double t0_s;
    char **targets; /* owned paths marked target=1 */
    size_t ntargets;
    char *primary;  /* target whose CPU is sampled per tick; NULL = none */
    struct cg_sample prev; /* last per-tick reading of primary */
    bool prev_ok;
    char *target_note; /* why the -p target has no cgroup; may be NULL */
    struct cg_io_watch io[CG_IO_WATCH_MAX]; /* the I/O limits read at each tick */
    size_t nio, io_unwatched;
    struct cg_mem_watch mem[CG_MEM_WATCH_MAX]; /* the cgroups whose memory is */
    size_t nmem;
    bool self_watched; /* a memory watch holds perfreport itself */
    struct strbuf sb; /* the watches' read buffer */
};

static int load_mounts(struct cg_mounts *ms, char *err, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    int rc = hostfs_read("/proc/self/mountinfo", &sb, 0);
    if (rc) {
        snprintf(err, n, "cannot read /proc/self/mountinfo: %s", strerror(-rc));
        sb_free(&sb);
        return rc;
    }
    cg_parse_mountinfo(sb_str(&sb), ms);
    sb_free(&sb);
    if (ms->n == 0) {
        snprintf(err, n, "no cgroup filesystem (cgroup2, or v1 with cpu, cpuacct or memory) "
                         "is mounted");
        cg_mounts_free(ms);
        return -ENOENT;
    }
    return 0;
}

static bool cg_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    struct cg_mounts ms;
    if (load_mounts(&ms, reason, n) != 0)
        return false;
    cg_mounts_free(&ms);
    return true;
}

static void add_target(struct cg_state *st, const char *path)
{
    /* a process outside our cgroup namespace shows "/../x": never leave the mount */
    if (strstr(path, "/..") || path[0] != '/')
        return;
    for (size_t i = 0; i < st->ntargets; i++)
        if (strcmp(st->targets[i], path) == 0)
            return;
    st->targets = xrealloc(st->targets, (st->ntargets + 1) * sizeof *st->targets);
    st->targets[st->ntargets++] = xstrdup(path);
}

/* A /proc/PID/cgroup path is relative to the hierarchy root; the mount may
 * show only a subtree of it (mountinfo root), which we strip. */
static char *below_mount(const struct cg_mount *m, const char *path)
{
    if (!m || !path)
        return NULL;
    const char *root = m->root;
    if (strcmp(root, "/") == 0)
        return xstrdup(path);
    size_t rl = strlen(root);
    if (strncmp(path, root, rl) != 0 || (path[rl] != '\0' && path[rl] != '/'))
        return NULL; /* outside what is mounted here */
    return xstrdup(path[rl] ? path + rl : "/");
}

static const struct cg_mount *mount_for(const struct cg_mounts *ms, bool v2, unsigned ctrl)
{
    for (size_t i = 0; i < ms->n; i++)
        if (v2 ? ms->v[i].v2 : (ms->v[i].ctrls & ctrl) != 0)
            return &ms->v[i];
    return NULL;
}

static void targets_from_pid(struct cg_state *st, pid_t pid)
{
    struct cg_proc_paths pp;
    if (pid <= 0 || proc_read_cgroup((int)pid, &pp) != 0) {
        st->target_note = xasprintf("the cgroup of pid %d could not be read", (int)pid);
        return;
    }
    const struct cg_mounts *ms = &st->mounts;
    char *cpu = below_mount(mount_for(ms, false, CG_CTRL_CPU), pp.cpu);
    char *acct = below_mount(mount_for(ms, false, CG_CTRL_CPUACCT), pp.cpuacct);
    char *mem = below_mount(mount_for(ms, false, CG_CTRL_MEMORY), pp.memory);
    char *v2 = below_mount(mount_for(ms, true, 0), pp.v2);
    char *cand[4] = {cpu, acct, v2, mem}; /* primary preference: where cpu lives */
    bool nonroot = false;
    for (size_t i = 0; i < 4; i++)
        if (cand[i] && strcmp(cand[i], "/") != 0)
            nonroot = true;
    /* "/" in one hierarchy says nothing when the process sits deeper in another */
    for (size_t i = 0; i < 4; i++)
        if (cand[i] && (!nonroot || strcmp(cand[i], "/") != 0))
            add_target(st, cand[i]);
    for (size_t i = 0; i < 3 && !st->primary; i++)
        if (cand[i] && (!nonroot || strcmp(cand[i], "/") != 0) && !strstr(cand[i], "/.."))
            st->primary = xstrdup(cand[i]);
    for (size_t i = 0; i < 4; i++)
        free(cand[i]);
    cg_proc_paths_free(&pp);
}

/* "cpu,cpuacct": the v1 controllers in ctrls, joined by sep. */
static void add_ctrl_names(struct strbuf *sb, unsigned ctrls, const char *sep)
{
    static const char *const names[] = {"cpu", "cpuacct", "memory", "blkio"};
    const char *s = "";
    for (unsigned b = 0; b < ARRAY_LEN(names); b++)
        if (ctrls & (1u << b)) {
            sb_addf(sb, "%s%s", s, names[b]);
            s = sep;
        }
}

/* "-c x/" or "-c /sys/fs/cgroup/unified/x" -> "/x" */
static char *normalize_cgroup_arg(const struct cg_mounts *ms, const char *arg)
{
    for (size_t i = 0; i < ms->n; i++) {
        size_t ml = strlen(ms->v[i].mnt);
        if (ml && strncmp(arg, ms->v[i].mnt, ml) == 0 && (arg[ml] == '/' || !arg[ml])) {
            arg += ml;
            break;
        }
    }
    struct strbuf sb = STRBUF_INIT;
    sb_addc(&sb, '/');
    for (const char *p = arg; *p; p++)
        if (*p != '/' || (sb.len && sb.buf[sb.len - 1] != '/'))
            sb_addc(&sb, *p);
    if (sb.len > 1 && sb.buf[sb.len - 1] == '/')
        sb.buf[--sb.len] = '\0';
    return sb_detach(&sb);
}

static void not_found_msg(const struct cg_mounts *ms, const char *path, char *err, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    sb_addf(&sb, "cgroup %s not found", path);
    const struct cg_mount *v2 = mount_for(ms, true, 0);
    if (v2)
        sb_addf(&sb, " under %s", v2->mnt[0] ? v2->mnt : "/");
    unsigned ctrls = 0;
    for (size_t i = 0; i < ms->n; i++)
        ctrls |= ms->v[i].v2 ? 0 : ms->v[i].ctrls;
    if (ctrls) {
        sb_addf(&sb, "%s the v1 ", v2 ? " or" : " in");
        add_ctrl_names(&sb, ctrls, "/");
        sb_add(&sb, " hierarchies");
    }
    snprintf(err, n, "%s", sb_str(&sb));
    sb_free(&sb);
}

static void cg_destroy(void *p)
{
    struct cg_state *st = p;
    if (!st)
        return;
    cg_mounts_free(&st->mounts);
    snap_free(&st->t0);
    for (size_t i = 0; i < st->ntargets; i++)
        free(st->targets[i]);
    free(st->targets);
    free(st->primary);
    free(st->target_note);
    for (size_t i = 0; i < st->nio; i++)
        cg_io_watch_free(&st->io[i]);
    for (size_t i = 0; i < st->nmem; i++)
        cg_mem_watch_free(&st->mem[i]);
    sb_free(&st->sb);
    free(st);
}

/* Memory watch candidates, largest use first. */
static int by_mem_desc(const void *x, const void *y)
{
    const struct cg_sample *a = *(const struct cg_sample *const *)x;
    const struct cg_sample *b = *(const struct cg_sample *const *)y;
    if (a->mem_bytes != b->mem_bytes)
        return a->mem_bytes > b->mem_bytes ? -1 : 1;
    return strcmp(a->path, b->path);
}

/* Is `path` (in mount m) the cgroup perfreport's memory is charged to, or
 * one of its ancestors?  self: /proc/self/cgroup. */
static bool holds_self(const struct cg_mount *m, const struct cg_proc_paths *self,
                       const char *path)
{
    char *own = below_mount(m, m->v2 ? self->v2 : self->memory);
    bool in = false;
    if (own) {
        size_t l = strlen(path);
        in = strcmp(path, "/") == 0 ||
             (strncmp(own, path, l) == 0 && (own[l] == '\0' || own[l] == '/'));
    }
    free(own);
    return in;
}

static void watch_mem(struct cg_state *st, const struct cg_sample *c,
                      const struct cg_proc_paths *self)
{
    char dir[PATH_MAX];
    if (cg_dir(dir, sizeof dir, c->mem_m, c->path) != 0)
        return;
    struct cg_mem_watch *w = &st->mem[st->nmem++];
    cg_mem_watch_init(w, c->path, dir);
    w->self = self && holds_self(c->mem_m, self, c->path);
    st->self_watched |= w->self;
}

/* From the first walk: every I/O limit (up to CG_IO_WATCH_MAX), and the
 * memory of up to CG_MEM_WATCH_MAX cgroups: those with a limit (the
 * largest, half the places at most), then the largest of the others.
 * The root is the host, whose memory the memory collector follows. */
static void pick_watches(struct cg_state *st)
{
    const struct cg_snap *s = &st->t0;
    char dir[PATH_MAX];
    for (size_t i = 0; i < s->n; i++) {
        const struct cg_sample *c = &s->v[i];
        for (size_t j = 0; j < c->n_io_lim; j++) {
            if (st->nio == CG_IO_WATCH_MAX || cg_dir(dir, sizeof dir, c->io_m, c->path) != 0) {
                st->io_unwatched++;
                continue;
            }
            cg_io_watch_init(&st->io[st->nio], c->path, dir, c->io_m->v2, &c->io_lim[j],
                             st->nio);
            st->nio++;
        }
    }
    struct cg_proc_paths self;
    bool have_self = proc_read_cgroup(0, &self) == 0;
    const struct cg_sample **cand = xcalloc(s->n ? s->n : 1, sizeof *cand);
    bool *taken = xcalloc(s->n ? s->n : 1, sizeof *taken);
    size_t nc = 0, limited = 0;
    for (size_t i = 0; i < s->n; i++)
        if ((s->v[i].have & CGF_MEM) && s->v[i].mem_m && strcmp(s->v[i].path, "/") != 0)
            cand[nc++] = &s->v[i];
    qsort(cand, nc, sizeof *cand, by_mem_desc);
    for (size_t i = 0; i < nc && limited < CG_MEM_WATCH_MAX / 2; i++)
        if (cand[i]->have & CGF_LIMIT) {
            watch_mem(st, cand[i], have_self ? &self : NULL);
            taken[i] = true;
            limited++;
        }
    for (size_t i = 0; i < nc && st->nmem < CG_MEM_WATCH_MAX; i++)
        if (!taken[i])
            watch_mem(st, cand[i], have_self ? &self : NULL);
    if (have_self)
        cg_proc_paths_free(&self);
    free(taken);
    free(cand);
}

/* RssAnon of /proc/self/status, KiB; NAN when it cannot be read. */
static double self_anon_kib(struct strbuf *sb)
{
    uint64_t v;
    if (hostfs_read("/proc/self/status", sb, CG_FILE_MAX) != 0 ||
        proc_parse_kib_field(sb->buf, sb->len, "RssAnon:", &v) != 0)
        return NAN;
    return (double)v;
}

/* One reading of every watch; `tick` also sets the I/O series. */
static void read_watches(struct cg_state *st, struct collect_ctx *ctx, bool tick, bool last)
{
    for (size_t i = 0; i < st->nio; i++)
        cg_io_watch_read(&st->io[i], ctx, &st->sb, tick);
    double self = st->self_watched ? self_anon_kib(&st->sb) : NAN;
    for (size_t i = 0; i < st->nmem; i++)
        cg_mem_watch_read(&st->mem[i], ctx, &st->sb, last, self);
}

static int cg_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct cg_state *st = xcalloc(1, sizeof *st);
    *state = st;
    int rc = load_mounts(&st->mounts, err, n);
    if (rc)
        return rc;
    if (ctx->cfg && ctx->cfg->cgroup) {
        char *path = normalize_cgroup_arg(&st->mounts, ctx->cfg->cgroup);
        if (strstr(path, "/..")) {
            snprintf(err, n, "cgroup %s: \"..\" is not allowed", path);
            free(path);
            return -EINVAL;
        }
        bool found = false;
        for (size_t i = 0; i < st->mounts.n && !found; i++) {
            char dir[PATH_MAX];
            found = cg_dir(dir, sizeof dir, &st->mounts.v[i], path) == 0 && hostfs_is_dir(dir);
        }
        if (!found) {
            not_found_msg(&st->mounts, path, err, n);
            free(path);
            return -ENOENT;
        }
        add_target(st, path);
        st->primary = path;
    } else if (ctx->cfg && ctx->cfg->pid > 0) {
        targets_from_pid(st, ctx->cfg->pid);
    }
    st->t0_s = collect_clock_s(ctx);
    snapshot(ctx, &st->t0, &st->mounts, st->targets, st->ntargets, CG_READ_LIMITS);
    if (st->primary)
        st->prev_ok = read_path(ctx, NULL, &st->mounts, st->primary, CG_READ_CPU, &st->prev);
    pick_watches(st);
    read_watches(st, ctx, false, false);
    return 0;
}

static uint64_t delta(uint64_t a, uint64_t b)
{
    return b >= a ? b - a : b; /* went backwards: recreated under the same name */
}

static int cg_tick(struct collect_ctx *ctx, void *p)
{
    struct cg_state *st = p;
    read_watches(st, ctx, true, false);
    if (!st->primary)
        return 0;
    struct cg_sample cur;
    memset(&cur, 0, sizeof cur);
    if (!read_path(ctx, NULL, &st->mounts, st->primary, CG_READ_CPU, &cur)) {
        st->prev_ok = false;
        return 0;
    }
    double dt = cur.t_s - st->prev.t_s;
    struct series *cpu = report_series(ctx->r, NM_CGROUP_TARGET_CPU_PCT, "Target cgroup CPU",
                                       "%", "cgroup");
    struct series *thr = report_series(ctx->r, NM_CGROUP_TARGET_THROTTLED_PCT,
                                       "Target cgroup throttled time", "%", "cgroup");
    cpu->chart = true;
    thr->chart = true;
    if (st->prev_ok && dt > 0) {
        const struct cg_sample *a = &st->prev;
        bool usage = (a->have & cur.have & CGF_USAGE) != 0;
        uint64_t du = usage ? delta(a->usage_ns, cur.usage_ns) : 0;
        if (usage)
            series_set(ctx->r, cpu, (double)du / (dt * 1e9) * 100.0);
        if (a->have & cur.have & CGF_CFS) {
            bool est;
            double v = cg_throttled_pct(usage, du, delta(a->throttled_ns, cur.throttled_ns),
                                        delta(a->nr_periods, cur.nr_periods),
                                        (cur.have & CGF_QUOTA) ? cur.quota_us : -1, &est);
            if (!isnan(v))
                series_set(ctx->r, thr, v);
        }
    }
    st->prev = cur;
    st->prev_ok = true;
    return 0;
}

/* One cgroup's window figures; NAN = absent. */
struct cg_calc {
    const char *path;
    double cpu_pct, quota_cpus, nr_periods, nr_throttled, thr_periods_pct, throttled_ms,
        throttled_pct, mem_kib, mem_limit_kib, mem_pct, failcnt, oom_kills, oom_total, psi_cpu,
        psi_mem, psi_io;
    bool target, estimated, include;
};

/* Counter delta over the window; a cgroup (or controller) that appeared
 * during the window started from zero. */
static bool win_delta(const struct cg_sample *a, const struct cg_sample *b, unsigned flag,
                      uint64_t va, uint64_t vb, uint64_t *out)
{
    if (!(b->have & flag))
        return false;
    *out = (a && (a->have & flag)) ? delta(va, vb) : vb;
    return true;
}

#define WIN(field, flag, out) win_delta(a, b, flag, a ? a->field : 0, b->field, out)

/* win_s: the time between the two reads of this cgroup (from the window's
 * first snapshot when it appeared during the window). */
static void calc_one(struct cg_calc *k, const struct cg_sample *a, const struct cg_sample *b,
                     double win_s)
{
    double nan = NAN;
    k->cpu_pct = k->quota_cpus = k->nr_periods = k->nr_throttled = k->thr_periods_pct = nan;
    k->throttled_ms = k->throttled_pct = k->mem_kib = k->mem_limit_kib = k->mem_pct = nan;
    k->failcnt = k->oom_kills = k->oom_total = k->psi_cpu = k->psi_mem = k->psi_io = nan;
    k->path = b->path;
    bool root = strcmp(b->path, "/") == 0;
    uint64_t du = 0, dp, dt, dns, d;
    bool usage = WIN(usage_ns, CGF_USAGE, &du);
    if (usage && win_s > 0)
        k->cpu_pct = (double)du / (win_s * 1e9) * 100.0;
    if (!root && (b->have & CGF_QUOTA) && b->quota_us >= 0 && b->period_us > 0)
        k->quota_cpus = (double)b->quota_us / (double)b->period_us;
    if (WIN(nr_periods, CGF_CFS, &dp) && WIN(nr_throttled, CGF_CFS, &dt) &&
        WIN(throttled_ns, CGF_CFS, &dns)) {
        k->nr_periods = (double)dp;
        k->nr_throttled = (double)dt;
        k->thr_periods_pct = dp ? (double)dt / (double)dp * 100.0 : 0.0;
        k->throttled_ms = (double)dns / 1e6;
        k->throttled_pct = cg_throttled_pct(usage, du, dns, dp,
                                            (b->have & CGF_QUOTA) ? b->quota_us : -1,
                                            &k->estimated);
    }
    if (b->have & CGF_MEM)
        k->mem_kib = (double)b->mem_bytes / 1024.0;
    if (!root && (b->have & CGF_LIMIT)) {
        k->mem_limit_kib = (double)b->limit_bytes / 1024.0;
        if ((b->have & CGF_MEM) && b->limit_bytes > 0)
            k->mem_pct = (double)b->mem_bytes / (double)b->limit_bytes * 100.0;
    }
    if (WIN(failcnt, CGF_FAILCNT, &d))
        k->failcnt = (double)d;
    if (WIN(oom_kills, CGF_OOM, &d)) {
        k->oom_kills = (double)d;
        k->oom_total = (double)b->oom_kills;
    }
    if (win_s > 0) {
        if (WIN(psi_cpu_us, CGF_PSI_CPU, &d))
            k->psi_cpu = (double)d / (win_s * 1e6) * 100.0;
        if (WIN(psi_mem_us, CGF_PSI_MEM, &d))
            k->psi_mem = (double)d / (win_s * 1e6) * 100.0;
        if (WIN(psi_io_us, CGF_PSI_IO, &d))
            k->psi_io = (double)d / (win_s * 1e6) * 100.0;
    }
}

static int by_cpu_desc(const void *x, const void *y)
{
    const struct cg_calc *a = x, *b = y;
    double ca = isnan(a->cpu_pct) ? -1 : a->cpu_pct, cb = isnan(b->cpu_pct) ? -1 : b->cpu_pct;
    if (ca != cb)
        return ca > cb ? -1 : 1;
    return strcmp(a->path, b->path);
}

static void emit_table(struct report *r, struct cg_calc *k, size_t n)
{
    struct table *t = report_table(r, NM_CGROUP, "Cgroups", "cgroup");
    static const struct col_spec cgroup_cols[] = {
        {"path", "Cgroup", "", 0},
        {"name", "Workload", "", 0},
        {"cpu_pct", "CPU", "%", 1},
        {"quota_cpus", "Quota", "CPUs", 2},
        {"nr_periods", "Periods", "", 0},
        {"nr_throttled", "Throttled periods", "", 0},
        {"throttled_periods_pct", "Throttled periods", "%", 1},
        {"throttled_ms", "Throttled", "ms", 1},
        {"throttled_pct", "Throttled / usage", "%", 1},
        {"mem_kib", "Memory", "KiB", 0},
        {"mem_limit_kib", "Mem limit", "KiB", 0},
        {"mem_pct", "Mem of limit", "%", 1},
        {"mem_failcnt", "Limit hits", "", 0},
        {"oom_kills", "OOM kills", "", 0},
        {"oom_kills_total", "OOM kills (total)", "", 0},
        {"psi_cpu_some_pct", "CPU pressure", "%", 1},
        {"psi_memory_some_pct", "Mem pressure", "%", 1},
        {"psi_io_some_pct", "IO pressure", "%", 1},
        {"target", "Target", "", 0},
    };
    if (t->ncols == 0)
        table_add_cols(t, cgroup_cols, ARRAY_LEN(cgroup_cols));
    for (size_t i = 0; i < n; i++) {
        if (!k[i].include)
            continue;
        size_t row = table_add_row(t);
        table_set_str(t, row, "path", k[i].path);
        struct cgroup_workload w;
        if (cgroup_workload_of(k[i].path, &w)) {
            char name[192];
            cgroup_workload_name(&w, name, sizeof name);
            table_set_str(t, row, "name", name);
        }
        table_set_num_opt(t, row, "cpu_pct", k[i].cpu_pct);
        table_set_num_opt(t, row, "quota_cpus", k[i].quota_cpus);
        table_set_num_opt(t, row, "nr_periods", k[i].nr_periods);
        table_set_num_opt(t, row, "nr_throttled", k[i].nr_throttled);
        table_set_num_opt(t, row, "throttled_periods_pct", k[i].thr_periods_pct);
        table_set_num_opt(t, row, "throttled_ms", k[i].throttled_ms);
        table_set_num_opt(t, row, "throttled_pct", k[i].throttled_pct);
        table_set_num_opt(t, row, "mem_kib", k[i].mem_kib);
        table_set_num_opt(t, row, "mem_limit_kib", k[i].mem_limit_kib);
        table_set_num_opt(t, row, "mem_pct", k[i].mem_pct);
        table_set_num_opt(t, row, "mem_failcnt", k[i].failcnt);
        table_set_num_opt(t, row, "oom_kills", k[i].oom_kills);
        table_set_num_opt(t, row, "oom_kills_total", k[i].oom_total);
        table_set_num_opt(t, row, "psi_cpu_some_pct", k[i].psi_cpu);
        table_set_num_opt(t, row, "psi_memory_some_pct", k[i].psi_mem);
        table_set_num_opt(t, row, "psi_io_some_pct", k[i].psi_io);
        table_set_num(t, row, "target", k[i].target ? 1 : 0);
    }
}

static void describe_mounts(struct strbuf *sb, const struct cg_mounts *ms)
{
    const char *sep = "";
    for (size_t i = 0; i < ms->n; i++) {
        const struct cg_mount *m = &ms->v[i];
        if (m->v2) {
            sb_addf(sb, "%sv2 at %s", sep, m->mnt[0] ? m->mnt : "/");
        } else {
            sb_addf(sb, "%sv1 ", sep);
            add_ctrl_names(sb, m->ctrls, ",");
            sb_addf(sb, " at %s", m->mnt[0] ? m->mnt : "/");
        }
        sep = "; ";
    }
}

static int cg_stop(struct collect_ctx *ctx, void *p, char *err, size_t n)
{
    (void)err;
    (void)n;
    struct cg_state *st = p;
    read_watches(st, ctx, false, true);
    struct cg_snap t1;
    snapshot(ctx, &t1, &st->mounts, st->targets, st->ntargets, CG_READ_ALL);

    struct cg_calc *k = xcalloc(t1.n ? t1.n : 1, sizeof *k);
    size_t vanished = 0, estimated = 0;
    for (size_t i = 0; i < st->t0.n; i++)
        if (!snap_get(&t1, st->t0.v[i].path, false, false))
            vanished++;
    for (size_t i = 0; i < t1.n; i++) {
        const struct cg_sample *b = &t1.v[i];
        const struct cg_sample *a = snap_get(&st->t0, b->path, false, false);
        calc_one(&k[i], a, b, b->t_s - (a ? a->t_s : st->t0_s));
        for (size_t j = 0; j < st->ntargets; j++)
            if (strcmp(st->targets[j], b->path) == 0)
                k[i].target = true;
        for (size_t j = 0; j < st->nio; j++)
            if (strcmp(st->io[j].path, b->path) == 0)
                st->io[j].psi_io_pct = k[i].psi_io;
        for (size_t j = 0; j < st->nmem; j++)
            if (strcmp(st->mem[j].path, b->path) == 0) {
                st->mem[j].mem_kib = k[i].mem_kib;
                st->mem[j].limit_kib = k[i].mem_limit_kib;
            }
    }
    cg_io_watch_emit(ctx->r, st->io, st->nio, st->io_unwatched);
    cg_mem_watch_emit(ctx->r, st->mem, st->nmem);
    qsort(k, t1.n, sizeof *k, by_cpu_desc);
    size_t top = 0;
    for (size_t i = 0; i < t1.n; i++) {
        struct cg_calc *c = &k[i];
        bool busy = !isnan(c->cpu_pct) && c->cpu_pct > 0 && top < CG_TOP_CPU;
        if (busy)
            top++;
        bool throttled = (!isnan(c->nr_throttled) && c->nr_throttled > 0) ||
                         (!isnan(c->throttled_ms) && c->throttled_ms > 0);
        bool oom = !isnan(c->oom_kills) && c->oom_kills > 0;
        bool mem = !isnan(c->mem_pct) && c->mem_pct >= CG_MEM_FLAG_PCT;
        c->include = busy || throttled || oom || mem || c->target;
        if (c->include && c->estimated)
            estimated++;
    }
    emit_table(ctx->r, k, t1.n);
    report_metric(ctx->r, NM_CGROUP_COUNT, "Cgroups", "", "cgroup", (double)t1.n);

    struct strbuf note = STRBUF_INIT;
    sb_addf(&note, "%zu cgroups (", t1.n);
    describe_mounts(&note, &st->mounts);
    sb_add(&note, "); busiest by CPU plus every throttled, OOM-killed or near-limit cgroup.");
    if (vanished)
        sb_addf(&note, " %zu removed during the window (no row).", vanished);
    size_t skipped = st->t0.skipped > t1.skipped ? st->t0.skipped : t1.skipped;
    if (skipped)
        sb_addf(&note, " %zu not read (deeper than %d levels or more than %d cgroups).",
                skipped, CG_MAX_DEPTH, CG_MAX_CGROUPS);
    if (estimated)
        sb_addf(&note, " Throttled %% of %zu cgroup%s estimated from quota x periods (no "
                       "cpuacct usage for that path).",
                estimated, estimated == 1 ? "" : "s");
    if (st->target_note)
        sb_addf(&note, " Note: %s.", st->target_note);
    table_set_note(report_find_table(ctx->r, NM_CGROUP), sb_str(&note));
    sb_free(&note);
    if (skipped)
        ledger_note(report_ledger(ctx->r, "cgroup", "Cgroups"),
                    "%zu cgroups not read (depth %d / count %d caps)", skipped, CG_MAX_DEPTH,
                    CG_MAX_CGROUPS);
    free(k);
    snap_free(&t1);
    return 0;
}

const struct collector collector_cgroup = {
    .name = "cgroup",
    .title = "Cgroups",
    .needs_bpf = false,
    .can_run = cg_can_run,
    .start = cg_start,
    .tick = cg_tick,
    .stop = cg_stop,
    .destroy = cg_destroy,
};
