/* Tasks in uninterruptible sleep: see dstate.h for what is measured and why. */
#include "dstate.h"
#include "model/model.h"
#include "model/names.h"
#include "util/proc_parse.h"
#include "util/hostfs.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WCHAN_MAX 63
#define DSTATE_SCHED_READ 512 /* the header and se.exec_start, the first field */
#define DSTATE_ROWS 50
#define HASH_SIZE (2 * DSTATE_TRACK_MAX) /* power of two, at most half full */

/* ---------------------------------------------------------------- parsers */

int dstate_parse_schedstat(const char *text, size_t len, uint64_t *timeslices)
{
    char buf[96];
    if (len >= sizeof buf)
        return -EINVAL;
    memcpy(buf, text, len);
    buf[len] = '\0';
    uint64_t v[3];
    const char *p = buf;
    for (int i = 0; i < 3; i++) {
        while (*p == ' ')
            p++;
        if (*p < '0' || *p > '9')
            return -EINVAL;
        char *end;
        errno = 0;
        unsigned long long x = strtoull(p, &end, 10);
        if (errno || end == p)
            return -EINVAL;
        v[i] = x;
        p = end;
    }
    if (*p && *p != '\n' && *p != ' ')
        return -EINVAL;
    if (v[0] == 0 && v[1] == 0 && v[2] == 0)
        return -ENODATA;
    *timeslices = v[2];
    return 0;
}

int dstate_parse_exec_start(const char *text, size_t len, double *ms)
{
    /* past the header's dashes: the header names the task, and a task names
     * itself (a comm may hold a newline and "se.exec_start") */
    const char *end = text + len;
    const char *p = text;
    for (;;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return -EINVAL;
        p = nl + 1;
        if (end - p >= 3 && memcmp(p, "---", 3) == 0)
            break;
    }
    static const char key[] = "\nse.exec_start";
    const size_t kl = sizeof key - 1;
    for (;;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl || (size_t)(end - nl) < kl)
            return -ENOENT;
        p = nl;
        if (memcmp(p, key, kl) == 0)
            break;
        p++;
    }
    p += kl;
    while (p < end && *p == ' ')
        p++;
    if (p >= end || *p != ':')
        return -EINVAL;
    p++;
    char num[40];
    size_t n = 0;
    while (p < end && *p == ' ')
        p++;
    while (p < end && n < sizeof num - 1 && ((*p >= '0' && *p <= '9') || *p == '.'))
        num[n++] = *p++;
    num[n] = '\0';
    if (n == 0 || n == sizeof num - 1 || p >= end || *p != '\n')
        return -EINVAL;
    char *e;
    errno = 0;
    double v = strtod(num, &e);
    if (errno || *e || !isfinite(v))
        return -EINVAL;
    *ms = v;
    return 0;
}

/* Kernel functions that say which file system a task waits in: the module's
 * own functions (by prefix) and the few static ones without one.  A
 * function name is host input only in the sense that modules choose them;
 * matching is on the name's start, never inside it. */
static const struct {
    const char *name;
    bool prefix;
    const char *family;
} fs_frames[] = {
    {"fuse_", true, "fuse"},
    {"request_wait_answer", false, "fuse"}, /* fs/fuse/dev.c: waits for the daemon's reply */
    {"nfs_", true, "nfs"},
    {"nfs3_", true, "nfs"},
    {"nfs4_", true, "nfs"},
    {"_nfs4_", true, "nfs"},
    {"rpc_", true, "nfs"},
    {"__rpc_", true, "nfs"},
    {"xprt_", true, "nfs"},
    {"cifs_", true, "cifs"},
    {"smb2_", true, "cifs"},
    {"SMB2_", true, "cifs"},
    {"wait_for_response", false, "cifs"},
    {"ceph_", true, "ceph"},
    {"p9_", true, "9p"},
    {"v9fs_", true, "9p"},
    {"ext4_", true, "ext4"},
    {"jbd2_", true, "ext4"},
    {"xfs_", true, "xfs"},
    {"btrfs_", true, "btrfs"},
    {"f2fs_", true, "f2fs"},
};

/* Frames of a wait for a block device (below any file system). */
static const struct {
    const char *name;
    bool prefix;
} block_frames[] = {
    {"io_schedule", true},       {"blk_", true},       {"submit_bio_wait", false},
    {"folio_wait_bit", true},    {"__folio_lock", true}, {"wait_on_page_bit", true},
    {"bit_wait_io", false},      {"__wait_on_buffer", false}, {"blkdev_", true},
};

static bool name_is(const char *f, size_t fl, const char *name, bool prefix)
{
    size_t nl = strlen(name);
    return prefix ? fl >= nl && memcmp(f, name, nl) == 0 : fl == nl && memcmp(f, name, nl) == 0;
}

static const char *frame_family(const char *f, size_t fl)
{
    for (size_t i = 0; i < sizeof fs_frames / sizeof fs_frames[0]; i++)
        if (name_is(f, fl, fs_frames[i].name, fs_frames[i].prefix))
            return fs_frames[i].family;
    return NULL;
}

static bool frame_is_block(const char *f, size_t fl)
{
    for (size_t i = 0; i < sizeof block_frames / sizeof block_frames[0]; i++)
        if (name_is(f, fl, block_frames[i].name, block_frames[i].prefix))
            return true;
    return false;
}

void dstate_parse_stack(const char *text, size_t len, char *summary, size_t n,
                        const char **family)
{
    const char *end = text + len;
    size_t o = 0;
    int frames = 0;
    bool block = false;
    *family = "";
    if (n)
        summary[0] = '\0';
    for (const char *l = text; l < end;) {
        const char *eol = memchr(l, '\n', (size_t)(end - l));
        if (!eol)
            eol = end;
        /* "[<0>] name+0x1a/0x40 [module]" */
        const char *f = memchr(l, ']', (size_t)(eol - l));
        if (f) {
            f++;
            while (f < eol && *f == ' ')
                f++;
            size_t fl = 0;
            while (f + fl < eol && f[fl] != '+' && f[fl] != ' ')
                fl++;
            if (fl) {
                const char *fam = frame_family(f, fl);
                if (fam && !**family)
                    *family = fam;
                block = block || frame_is_block(f, fl);
                if (frames < DSTATE_STACK_FRAMES && n) {
                    const char *sep = frames ? " < " : "";
                    size_t need = strlen(sep) + fl;
                    if (o + need < n) {
                        memcpy(summary + o, sep, strlen(sep));
                        o += strlen(sep);
                        /* kernel symbols are printable; anything else is not shown */
                        for (size_t i = 0; i < fl; i++)
                            summary[o++] = isgraph((unsigned char)f[i]) ? f[i] : '?';
                        summary[o] = '\0';
                    }
                    frames++;
                }
            }
        }
        l = eol + 1;
    }
    if (!**family && block)
        *family = "block";
}

static const struct {
    const char *family;
    const char *const fstypes[4]; /* exact names; "fuse" also takes "fuse.X" */
    bool remote;
} families[] = {
    {"fuse", {"fuse", "fuseblk", NULL}, true},
    {"nfs", {"nfs", "nfs4", NULL}, true},
    {"cifs", {"cifs", "smb3", NULL}, true},
    {"ceph", {"ceph", NULL}, true},
    {"9p", {"9p", NULL}, true},
    {"ext4", {"ext4", "ext3", "ext2", NULL}, false},
    {"xfs", {"xfs", NULL}, false},
    {"btrfs", {"btrfs", NULL}, false},
    {"f2fs", {"f2fs", NULL}, false},
};

bool dstate_fstype_in_family(const char *fstype, const char *family)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        if (strcmp(families[i].family, family) != 0)
            continue;
        for (size_t k = 0; k < 4 && families[i].fstypes[k]; k++) {
            const char *t = families[i].fstypes[k];
            if (strcmp(fstype, t) == 0)
                return true;
            /* FUSE file systems name themselves: fuse.sshfs, fuse.gcsfuse */
            if (strcmp(t, "fuse") == 0 && strncmp(fstype, "fuse.", 5) == 0)
                return true;
        }
    }
    return false;
}

/* "fuse", "network", "local" (a block device's file system) or "block". */
static const char *family_kind(const char *family)
{
    if (strcmp(family, "fuse") == 0)
        return "fuse";
    if (strcmp(family, "block") == 0)
        return "block";
    return dstate_family_remote(family) ? "network" : "local";
}

bool dstate_family_remote(const char *family)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (strcmp(families[i].family, family) == 0)
            return families[i].remote;
    return false;
}

/* The family whose fstypes hold fstype, or NULL. */
static const char *family_of_fstype(const char *fstype)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        if (dstate_fstype_in_family(fstype, families[i].family))
            return families[i].family;
    return NULL;
}

bool dstate_sigkill_pending(const char *status, size_t len)
{
    const char *end = status + len;
    for (const char *l = status; l < end;) {
        const char *eol = memchr(l, '\n', (size_t)(end - l));
        if (!eol)
            eol = end;
        if ((size_t)(eol - l) > 7 && memcmp(l, "SigPnd:", 7) == 0) {
            const char *p = l + 7;
            while (p < eol && (*p == ' ' || *p == '\t'))
                p++;
            /* 16 hex digits; SIGKILL (9) is bit 8: the third digit from the right */
            const char *h = p;
            while (h < eol && isxdigit((unsigned char)*h))
                h++;
            if (h - p < 3)
                return false;
            char c = h[-3];
            int v = isdigit((unsigned char)c) ? c - '0' : (tolower((unsigned char)c) - 'a' + 10);
            return (v & 1) != 0;
        }
        l = eol + 1;
    }
    return false;
}

/* Whether mount point mp holds path (is it, or one of its parents). */
static bool under(const char *path, const char *mp)
{
    size_t ml = strlen(mp);
    if (strcmp(mp, "/") == 0)
        return path[0] == '/';
    return strncmp(path, mp, ml) == 0 && (path[ml] == '\0' || path[ml] == '/');
}

static void copy_mount(struct dstate_mount *out, const struct mountinfo_entry *e)
{
    snprintf(out->mountpoint, sizeof out->mountpoint, "%s", e->mountpoint);
    snprintf(out->fstype, sizeof out->fstype, "%s", e->fstype);
    snprintf(out->source, sizeof out->source, "%s", e->source);
    snprintf(out->devno, sizeof out->devno, "%s", e->devno);
}

enum dstate_mount_how dstate_pick_mount(const char *mountinfo, const char *family,
                                        const char *const *paths, size_t npaths,
                                        struct dstate_mount *out, size_t *nfamily)
{
    memset(out, 0, sizeof *out);
    *nfamily = 0;
    /* Per path, the mount it is on: the longest mount point holding it, the
     * later of equal ones (a mount over a mount hides the one below). */
    enum { MAXP = DSTATE_FD_LINKS + 1 }; /* cwd and the fd links */
    struct mountinfo_entry *best = xmalloc(MAXP * sizeof *best); /* 33 KiB: not the stack */
    size_t best_len[MAXP] = {0};
    bool have[MAXP] = {false};
    if (npaths > MAXP)
        npaths = MAXP;
    struct mountinfo_entry e, only;
    memset(&only, 0, sizeof only);
    const char *cur = mountinfo;
    while (mountinfo_next(&cur, &e)) {
        if (*family && dstate_fstype_in_family(e.fstype, family)) {
            if (++*nfamily == 1)
                only = e;
        }
        if (e.mountpoint_cut)
            continue; /* a prefix of its path could match what is not under it */
        size_t ml = strlen(e.mountpoint);
        for (size_t i = 0; i < npaths; i++) {
            if (paths[i] && under(paths[i], e.mountpoint) && (!have[i] || ml >= best_len[i])) {
                best[i] = e;
                best_len[i] = ml;
                have[i] = true;
            }
        }
    }
    for (size_t i = 0; i < npaths; i++) {
        if (!have[i])
            continue;
        const char *fam = family_of_fstype(best[i].fstype);
        bool fits = *family ? dstate_fstype_in_family(best[i].fstype, family)
                            : fam && dstate_family_remote(fam);
        if (fits) {
            copy_mount(out, &best[i]);
            free(best);
            return DM_BY_PATH;
        }
    }
    free(best);
    if (*nfamily == 1) {
        copy_mount(out, &only);
        return DM_ONLY_ONE;
    }
    if (*nfamily > 1) {
        snprintf(out->fstype, sizeof out->fstype, "%s", family);
        return DM_AMBIGUOUS;
    }
    return DM_NONE;
}

/* ------------------------------------------------------------ the tracker */

/* What a stuck task waits for, read once (DSTATE_RESOLVE_MAX of them). */
struct dres {
    char stack[DSTATE_STACK_TEXT + 1];
    const char *family; /* static string, "" when unknown */
    bool stack_read;
    bool kill_pending;
    enum dstate_mount_how how;
    size_t nfamily;
    struct dstate_mount m;
    char device[40]; /* block device under a local file system, or "" */
};

struct dtask {
    int tid, tgid;
    uint64_t starttime; /* with tid, the task's identity */
    char comm[PROC_COMM_MAX + 1];  /* the thread's */
    char pcomm[PROC_COMM_MAX + 1]; /* its process's */
    bool kthread;
    unsigned ticks;          /* ticks seen in D */
    unsigned long last_tick; /* the tick it was last seen in D */
    bool in_wait;            /* in D at its last check */
    bool has_slices;
    uint64_t slices;          /* schedstat timeslices at the wait's first tick */
    double wait_t0, wait_t1;  /* first and last tick of the current wait */
    unsigned wait_ticks;
    double longest_s;         /* the longest single wait seen (lower bound) */
    unsigned longest_ticks;
    bool longest_is_current;  /* the longest wait is the current one */
    char wchan[WCHAN_MAX + 1];
    bool wchan_read;          /* wchan was read in the current wait */
    int res;                  /* index into dstate.res, -1 = not read */
    signed char frozen;       /* its cgroup's v1 freezer holds it: 1, 0, -1 unread this wait */
};

/* A multi-threaded process of this tick, for the thread reads. */
struct mtproc {
    int pid;
    long threads;
    char comm[PROC_COMM_MAX + 1];
};

struct dstate {
    struct dtask *t;
    size_t n, cap;
    int *hash; /* tid -> index into t; -1 free */
    size_t untracked;
    struct dres *res;
    size_t nres, cap_res;
    size_t resolved_this_tick;
    size_t reads_left;  /* this tick's share of DSTATE_TASK_READS */
    size_t follow_at;   /* the follow-ups resume at this task */
    size_t short_ticks; /* ticks that ran out of reads */
    bool short_now;     /* ... this one did */
    struct mtproc *mt;
    size_t nmt, cap_mt;
    int cur_pid;        /* thread reads resume at this process ... */
    size_t cur_skip;    /* ... after this many of its task entries */
    unsigned long tick; /* ticks so far */
    double now;
    size_t in_d;        /* tasks in D this tick */
    size_t turn_max;    /* most ticks a turn over every thread took */
    bool slices_missing; /* some schedstat read "0 0 0" */
    double sched_now_ms; /* this thread's se.exec_start at this tick, NAN unread */
    bool sched_absent;   /* this kernel's /proc has no readable sched file */
    struct strbuf buf;
    struct strbuf mi;   /* this tick's last mountinfo read ... */
    char mi_ns[64];     /* ... and its mount namespace ("" = none kept) */
    bool mi_cut;        /* some mountinfo was longer than DSTATE_MOUNTINFO_MAX */
    char (*links)[PATH_MAX]; /* cwd and fd paths of the task being resolved */
    bool frz_looked;    /* the v1 freezer's mount was looked for ... */
    char *frz_mnt;      /* ... owned, NULL: none mounted */
    char *frz_root;     /* owned: the hierarchy path mounted there */
};

struct dstate *dstate_new(void)
{
    struct dstate *d = xcalloc(1, sizeof *d);
    d->hash = xmalloc(HASH_SIZE * sizeof *d->hash);
    for (size_t i = 0; i < HASH_SIZE; i++)
        d->hash[i] = -1;
    d->sched_now_ms = NAN;
    return d;
}

void dstate_free(struct dstate *d)
{
    if (!d)
        return;
    free(d->t);
    free(d->hash);
    free(d->res);
    free(d->mt);
    free(d->links);
    free(d->frz_mnt);
    free(d->frz_root);
    sb_free(&d->buf);
    sb_free(&d->mi);
    free(d);
}

static size_t hash_slot(int tid) { return ((unsigned)tid * 2654435761u) & (HASH_SIZE - 1); }

static struct dtask *task_find(struct dstate *d, int tid, uint64_t starttime)
{
    for (size_t s = hash_slot(tid), k = 0; k < HASH_SIZE; k++, s = (s + 1) & (HASH_SIZE - 1)) {
        int i = d->hash[s];
        if (i < 0)
            return NULL;
        if (d->t[i].tid == tid && d->t[i].starttime == starttime)
            return &d->t[i];
    }
    return NULL;
}

static struct dtask *task_get(struct dstate *d, const struct pid_stat *ps, int tgid,
                              const char *pcomm)
{
    struct dtask *e = task_find(d, ps->pid, ps->starttime);
    if (e)
        return e;
    if (d->n >= DSTATE_TRACK_MAX) {
        d->untracked++;
        return NULL;
    }
    xgrow(&d->t, &d->cap, d->n + 1, sizeof *d->t);
    e = &d->t[d->n];
    memset(e, 0, sizeof *e);
    e->tid = ps->pid;
    e->tgid = tgid;
    e->starttime = ps->starttime;
    e->kthread = (ps->flags & 0x00200000) != 0; /* PF_KTHREAD */
    memcpy(e->comm, ps->comm, sizeof e->comm);
    snprintf(e->pcomm, sizeof e->pcomm, "%s", pcomm);
    e->res = -1;
    e->frozen = -1;
    size_t s = hash_slot(e->tid);
    while (d->hash[s] >= 0)
        s = (s + 1) & (HASH_SIZE - 1);
    d->hash[s] = (int)d->n;
    d->n++;
    return e;
}

/* One read of a task in D from this tick's budget. */
static bool take_read(struct dstate *d)
{
    if (d->reads_left == 0) {
        if (!d->short_now)
            d->short_ticks++;
        d->short_now = true;
        return false;
    }
    d->reads_left--;
    return true;
}

/* Once a wait: it stays in one function while it does not run. */
static void read_wchan(struct dstate *d, struct dtask *e)
{
    if (e->wchan_read || !take_read(d))
        return;
    if (hostfs_readf(&d->buf, 256, "/proc/%d/task/%d/wchan", e->tgid, e->tid) != 0)
        return;
    const char *w = sb_str(&d->buf);
    size_t l = strcspn(w, "\n");
    /* "0" means running or unknown: keep the last real symbol seen */
    if (l == 0 || (l == 1 && w[0] == '0'))
        return;
    if (l > WCHAN_MAX)
        l = WCHAN_MAX;
    memcpy(e->wchan, w, l);
    e->wchan[l] = '\0';
    e->wchan_read = true;
}

/* The block device of a file system's "MAJ:MIN", as /sys/dev/block names it
 * (the whole disk for a partition), into out; "" when it has none. */
static void device_of(const char *devno, char *out, size_t n)
{
    char path[96], link[512];
    out[0] = '\0';
    unsigned maj, min;
    if (sscanf(devno, "%u:%u", &maj, &min) != 2 || maj == 0)
        return; /* 0: an anonymous device (FUSE, NFS, tmpfs...) */
    snprintf(path, sizeof path, "/sys/dev/block/%u:%u", maj, min);
    int l = hostfs_readlink(path, link, sizeof link);
    if (l <= 0)
        return;
    char *base = strrchr(link, '/');
    base = base ? base + 1 : link;
    snprintf(path, sizeof path, "/sys/dev/block/%u:%u/partition", maj, min);
    if (hostfs_exists(path) && base > link + 1) {
        base[-1] = '\0';
        char *parent = strrchr(link, '/');
        base = parent ? parent + 1 : link;
    }
    size_t bl = strlen(base);
    if (bl < n) /* a cut name would name another device */
        memcpy(out, base, bl + 1);
}

/* readlink of /proc/TGID/task/TID/NAME when it is a path (not "pipe:[..]",
 * "socket:[..]", "anon_inode:..."), without a " (deleted)" tail. */
static bool link_path(const struct dtask *e, const char *name, char *out, size_t n)
{
    char p[96];
    snprintf(p, sizeof p, "/proc/%d/task/%d/%s", e->tgid, e->tid, name);
    int l = hostfs_readlink(p, out, n);
    if (l <= 0 || out[0] != '/')
        return false;
    static const char del[] = " (deleted)";
    size_t dl = sizeof del - 1;
    if ((size_t)l > dl && strcmp(out + l - dl, del) == 0)
        out[l - dl] = '\0';
    return true;
}

/* Its namespace's mountinfo into d->mi, kept for the other resolves of this
 * tick in the same namespace: mounts come and go (a FUSE or NFS mount made
 * mid-run), so dstate_tick_begin drops it. */
static bool read_mountinfo(struct dstate *d, const struct dtask *e)
{
    char p[96], ns[64];
    /* the thread's own files: a process whose main thread exited has none */
    snprintf(p, sizeof p, "/proc/%d/task/%d/ns/mnt", e->tgid, e->tid);
    if (hostfs_readlink(p, ns, sizeof ns) <= 0)
        ns[0] = '\0';
    if (ns[0] && strcmp(ns, d->mi_ns) == 0 && d->mi.len)
        return true;
    snprintf(p, sizeof p, "/proc/%d/task/%d/mountinfo", e->tgid, e->tid);
    d->mi_ns[0] = '\0';
    if (hostfs_read(p, &d->mi, DSTATE_MOUNTINFO_MAX) != 0)
        return false;
    if (d->mi.len >= DSTATE_MOUNTINFO_MAX)
        d->mi_cut = true; /* the mounts past the cap cannot be matched */
    snprintf(d->mi_ns, sizeof d->mi_ns, "%s", ns);
    return true;
}

static void resolve(struct dstate *d, struct dtask *e)
{
    if (d->nres >= DSTATE_RESOLVE_MAX || d->resolved_this_tick >= DSTATE_RESOLVE_PER_TICK)
        return;
    d->resolved_this_tick++;
    xgrow(&d->res, &d->cap_res, d->nres + 1, sizeof *d->res);
    struct dres *r = &d->res[d->nres];
    memset(r, 0, sizeof *r);
    r->family = "";
    e->res = (int)d->nres++;
    /* root only; the kernel prints at most a few dozen frames */
    if (hostfs_readf(&d->buf, DSTATE_STACK_MAX, "/proc/%d/task/%d/stack", e->tgid, e->tid) == 0 &&
        d->buf.len) {
        r->stack_read = true;
        dstate_parse_stack(d->buf.buf, d->buf.len, r->stack, sizeof r->stack, &r->family);
    }
    if (hostfs_readf(&d->buf, 8192, "/proc/%d/task/%d/status", e->tgid, e->tid) == 0)
        r->kill_pending = dstate_sigkill_pending(d->buf.buf, d->buf.len);
    if (e->kthread)
        return; /* no files, and the init namespace's mounts say nothing */

    /* cwd, then open files: names the kernel keeps, read without a lookup */
    if (!d->links)
        d->links = xmalloc((DSTATE_FD_LINKS + 1) * sizeof *d->links);
    char (*store)[PATH_MAX] = d->links;
    const char *paths[DSTATE_FD_LINKS + 1];
    size_t np = 0;
    if (link_path(e, "cwd", store[np], sizeof store[np]))
        paths[np] = store[np], np++;
    char dir[96];
    snprintf(dir, sizeof dir, "/proc/%d/task/%d/fd", e->tgid, e->tid);
    DIR *fd = hostfs_opendir(dir);
    if (fd) {
        struct dirent *de;
        size_t first_fd = np;
        while (np - first_fd < DSTATE_FD_LINKS && (de = readdir(fd)) != NULL) {
            if (de->d_name[0] < '0' || de->d_name[0] > '9')
                continue;
            char name[64];
            snprintf(name, sizeof name, "fd/%.20s", de->d_name);
            if (link_path(e, name, store[np], sizeof store[np]))
                paths[np] = store[np], np++;
        }
        closedir(fd);
    }
    if (!read_mountinfo(d, e))
        return;
    r->how = dstate_pick_mount(sb_str(&d->mi), r->family, paths, np, &r->m, &r->nfamily);
    if (r->how == DM_BY_PATH || r->how == DM_ONLY_ONE) {
        const char *fam = family_of_fstype(r->m.fstype);
        if (!*r->family && fam)
            r->family = fam; /* known from where its files are */
        if (fam && !dstate_family_remote(fam))
            device_of(r->m.devno, r->device, sizeof r->device);
    }
}

/* How long ago task e last ran, in seconds, by the scheduler's clock: its
 * /proc sched se.exec_start against this thread's own, read at this tick
 * (this thread is running, so its own is now, within a scheduler tick).
 * NAN when the kernel does not say (no /proc/PID/sched) or reads ran out. */
static double wait_began(struct dstate *d, const struct dtask *e)
{
    if (d->sched_absent || !take_read(d))
        return NAN;
    if (!isfinite(d->sched_now_ms) &&
        (hostfs_readf(&d->buf, DSTATE_SCHED_READ, "/proc/thread-self/sched") != 0 ||
         dstate_parse_exec_start(d->buf.buf, d->buf.len, &d->sched_now_ms) != 0)) {
        d->sched_absent = true;
        return NAN;
    }
    double ms;
    if (hostfs_readf(&d->buf, DSTATE_SCHED_READ, "/proc/%d/task/%d/sched", e->tgid, e->tid) != 0 ||
        dstate_parse_exec_start(d->buf.buf, d->buf.len, &ms) != 0)
        return NAN; /* gone: the ticks count */
    double s = (d->sched_now_ms - ms) / 1e3;
    return s > 0 ? s : NAN;
}

/* The v1 freezer hierarchy's mount, looked for once a run. */
static void find_freezer(struct dstate *d)
{
    d->frz_looked = true;
    struct strbuf sb = STRBUF_INIT;
    if (hostfs_read("/proc/self/mountinfo", &sb, DSTATE_MOUNTINFO_MAX) == 0) {
        struct mountinfo_entry m;
        for (const char *c = sb_str(&sb); mountinfo_next(&c, &m);) {
            if (strcmp(m.fstype, "cgroup") == 0 && !m.mountpoint_cut &&
                proc_list_has(m.superopts, strlen(m.superopts), "freezer")) {
                d->frz_mnt = xstrdup(m.mountpoint);
                d->frz_root = xstrdup(m.root);
                break;
            }
        }
    }
    sb_free(&sb);
}

/* Whether process tgid's cgroup in the v1 freezer is FROZEN or FREEZING:
 * its tasks then show state D (frozen in whatever sleep they were in, so
 * their wchan says nothing), stopped on purpose (docker pause).  1, 0; 0
 * too when nothing tells (no v1 freezer, a process gone, reads run out). */
static int in_frozen_cgroup(struct dstate *d, int tgid)
{
    if (!d->frz_looked)
        find_freezer(d);
    if (!d->frz_mnt || !take_read(d))
        return 0;
    struct cg_proc_paths cg;
    if (proc_read_cgroup(tgid, &cg) != 0)
        return 0;
    int frozen = 0;
    const char *p = cg.freezer;
    size_t rl = strcmp(d->frz_root, "/") == 0 ? 0 : strlen(d->frz_root);
    /* below the mounted subtree only; "/.." is outside our cgroup namespace */
    if (p && !strstr(p, "/..") && strncmp(p, d->frz_root, rl) == 0 &&
        (p[rl] == '/' || p[rl] == '\0') && take_read(d) &&
        hostfs_readf(&d->buf, 64, "%s%s/freezer.state", d->frz_mnt, p + rl) == 0) {
        const char *st = sb_str(&d->buf);
        frozen = strncmp(st, "FROZEN", 6) == 0 || strncmp(st, "FREEZING", 8) == 0;
    }
    cg_proc_paths_free(&cg);
    return frozen;
}

/* Task ps (thread tid of process tgid) is in D at this tick. */
static void observe(struct dstate *d, const struct pid_stat *ps, int tgid, const char *pcomm)
{
    d->in_d++;
    struct dtask *e = task_get(d, ps, tgid, pcomm);
    if (!e)
        return;
    if (e->last_tick == d->tick)
        return; /* read twice in one tick (a thread turn met a follow-up) */
    e->ticks++;
    uint64_t slices = 0;
    bool has = false;
    if (take_read(d) &&
        hostfs_readf(&d->buf, 128, "/proc/%d/task/%d/schedstat", tgid, e->tid) == 0) {
        int rc = dstate_parse_schedstat(d->buf.buf, d->buf.len, &slices);
        has = rc == 0;
        if (rc == -ENODATA)
            d->slices_missing = true;
    }
    /* The same wait goes on when it was in D at the previous tick and has
     * not run since; without schedstat, consecutive ticks in D count. */
    bool same = e->in_wait && e->last_tick + 1 == d->tick &&
                (!has || !e->has_slices || slices == e->slices);
    if (same) {
        e->wait_t1 = d->now;
        e->wait_ticks++;
    } else {
        e->wait_t0 = e->wait_t1 = d->now;
        e->wait_ticks = 1;
        e->slices = slices;
        e->has_slices = has;
        e->wchan_read = false;
        e->frozen = -1;
        /* it went to sleep when it last ran: a wait that began before the
         * window (or between ticks) counts from there */
        double since = wait_began(d, e);
        if (since > 0)
            e->wait_t0 = d->now - since;
    }
    e->in_wait = true;
    e->last_tick = d->tick;
    double len = e->wait_t1 - e->wait_t0;
    if (len > e->longest_s || (len == e->longest_s && e->wait_ticks > e->longest_ticks)) {
        e->longest_s = len;
        e->longest_ticks = e->wait_ticks;
        e->longest_is_current = true;
    } else if (!same) {
        e->longest_is_current = false;
    }
    read_wchan(d, e);
    /* in the freezer's own wait, or frozen in the sleep it was in */
    if (e->wait_ticks >= 2 && e->frozen < 0)
        e->frozen = (signed char)(strcmp(e->wchan, "__refrigerator") == 0 ||
                                  in_frozen_cgroup(d, e->tgid));
    if (e->wait_ticks >= 2 && e->res < 0 && e->frozen == 0)
        resolve(d, e);
}

void dstate_tick_begin(struct dstate *d, double t)
{
    d->tick++;
    d->now = t;
    d->in_d = 0;
    d->nmt = 0;
    d->resolved_this_tick = 0;
    d->reads_left = DSTATE_TASK_READS;
    d->sched_now_ms = NAN;
    d->short_now = false;
    d->mi_ns[0] = '\0';
    sb_reset(&d->mi);
}

void dstate_process(struct dstate *d, const struct pid_stat *ps)
{
    if (ps->state == 'D')
        observe(d, ps, ps->pid, ps->comm);
    if (ps->num_threads > 1) {
        xgrow(&d->mt, &d->cap_mt, d->nmt + 1, sizeof *d->mt);
        d->mt[d->nmt].pid = ps->pid;
        d->mt[d->nmt].threads = ps->num_threads;
        memcpy(d->mt[d->nmt].comm, ps->comm, sizeof d->mt[d->nmt].comm);
        d->nmt++;
    }
}

static int cmp_mt(const void *a, const void *b)
{
    const struct mtproc *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Reads the threads of one process from task entry *skip on, at most
 * *budget reads.  True when it got through them all; else *skip is where
 * the next turn resumes. */
static bool read_threads(struct dstate *d, const struct mtproc *p, size_t *skip, size_t *budget)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", p->pid);
    DIR *dir = hostfs_opendir(path);
    if (!dir)
        return true; /* gone */
    size_t idx = 0;
    struct dirent *de;
    struct pid_stat ps;
    bool done = true;
    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        if (idx < *skip) {
            idx++;
            continue;
        }
        long tid = strtol(de->d_name, NULL, 10);
        if (tid <= 0 || tid > INT_MAX || tid == p->pid) {
            idx++;
            continue; /* the main thread was read with its process */
        }
        if (*budget == 0) {
            done = false;
            break;
        }
        idx++;
        (*budget)--;
        if (hostfs_readf(&d->buf, 4096, "/proc/%d/task/%ld/stat", p->pid, tid) != 0 ||
            proc_parse_stat(d->buf.buf, d->buf.len, &ps) != 0)
            continue;
        ps.pid = (int)tid;
        if (ps.state == 'D')
            observe(d, &ps, p->pid, p->comm);
    }
    closedir(dir);
    *skip = done ? 0 : idx;
    return done;
}

/* This tick's share of the threads, resuming where the last turn stopped. */
static void thread_turn(struct dstate *d)
{
    if (!d->nmt)
        return;
    qsort(d->mt, d->nmt, sizeof *d->mt, cmp_mt);
    size_t extra = 0;
    for (size_t i = 0; i < d->nmt; i++)
        extra += d->mt[i].threads > 1 ? (size_t)d->mt[i].threads - 1 : 0;
    size_t turn = (extra + DSTATE_THREAD_READS - 1) / DSTATE_THREAD_READS;
    if (turn > d->turn_max)
        d->turn_max = turn;
    size_t start = 0;
    while (start < d->nmt && d->mt[start].pid < d->cur_pid)
        start++;
    if (start == d->nmt)
        start = 0;
    if (d->mt[start].pid != d->cur_pid)
        d->cur_skip = 0; /* that process is gone: start the next one afresh */
    size_t budget = DSTATE_THREAD_READS;
    for (size_t k = 0; k < d->nmt; k++) {
        size_t i = (start + k) % d->nmt;
        size_t skip = k == 0 ? d->cur_skip : 0;
        if (!read_threads(d, &d->mt[i], &skip, &budget)) {
            d->cur_pid = d->mt[i].pid;
            d->cur_skip = skip;
            return;
        }
        d->cur_pid = d->mt[(i + 1) % d->nmt].pid;
        d->cur_skip = 0;
        if (budget == 0)
            return;
    }
}

size_t dstate_tick_end(struct dstate *d)
{
    thread_turn(d);
    /* A task in D at its last check is read again now, so each wait is
     * followed tick by tick whichever threads this turn read. */
    struct pid_stat ps;
    if (d->follow_at >= d->n)
        d->follow_at = 0;
    for (size_t k = 0; k < d->n; k++) {
        size_t i = (d->follow_at + k) % d->n;
        struct dtask *e = &d->t[i];
        if (!e->in_wait || e->last_tick == d->tick)
            continue;
        if (!take_read(d)) {
            d->follow_at = i; /* the next tick starts here; this wait is cut */
            break;
        }
        e->in_wait = false;
        if (hostfs_readf(&d->buf, 4096, "/proc/%d/task/%d/stat", e->tgid, e->tid) != 0 ||
            proc_parse_stat(d->buf.buf, d->buf.len, &ps) != 0 || ps.starttime != e->starttime)
            continue; /* gone: its wait ended */
        ps.pid = e->tid;
        if (ps.state == 'D') {
            e->in_wait = true; /* observe() needs the previous state */
            observe(d, &ps, e->tgid, e->pcomm);
        }
    }
    return d->in_d;
}

/* ------------------------------------------------------------------ model */

static int by_stuck(const void *a, const void *b)
{
    const struct dtask *x = a, *y = b;
    if (x->longest_s != y->longest_s)
        return x->longest_s < y->longest_s ? 1 : -1;
    if (x->ticks != y->ticks)
        return x->ticks < y->ticks ? 1 : -1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

void dstate_to_model(struct dstate *d, struct report *r)
{
    struct table *t =
        report_table(r, NM_PROC_DSTATE, "Tasks seen in D state (uninterruptible)", "process");
    static const struct col_spec cols[] = {
        {"pid", "PID", "", 0},
        {"tid", "TID", "", 0},
        {"comm", "Command", "", 0},
        {"thread", "Thread", "", 0},
        {"ticks_in_d", "Ticks in D", "", 0},
        {"stuck_s", "Longest wait", "s", 1},
        {"stuck_ticks", "Ticks of it", "", 0},
        {"at_end", "Still in it", "", 0},
        {"wchan", "Waiting in", "", 0},
        {"frozen", "Frozen (cgroup freezer)", "", 0},
        {"kill_pending", "SIGKILL pending", "", 0},
        {"fs", "File system", "", 0},
        {"fs_kind", "Kind", "", 0},
        {"mount", "Mount", "", 0},
        {"mount_how", "Found by", "", 0},
        {"fstype", "Type", "", 0},
        {"source", "Source", "", 0},
        {"device", "Device", "", 0},
        {"devno", "Dev", "", 0},
        {"stack", "Kernel stack", "", 0},
    };
    table_add_cols(t, cols, sizeof cols / sizeof cols[0]);
    size_t stuck = 0;
    double stuck_max = 0;
    for (size_t i = 0; i < d->n; i++) {
        if (d->t[i].longest_ticks >= 2) {
            stuck++;
            if (d->t[i].longest_s > stuck_max)
                stuck_max = d->t[i].longest_s;
        }
    }
    /* sorting moves entries: the hash index is stale from here on */
    if (d->n)
        qsort(d->t, d->n, sizeof *d->t, by_stuck);
    for (size_t i = 0; i < d->n && i < DSTATE_ROWS; i++) {
        const struct dtask *e = &d->t[i];
        size_t row = table_add_row(t);
        table_set_num(t, row, "pid", e->tgid);
        table_set_num(t, row, "tid", e->tid);
        table_set_str(t, row, "comm", e->pcomm);
        if (e->tid != e->tgid)
            table_set_str(t, row, "thread", e->comm);
        table_set_num(t, row, "ticks_in_d", e->ticks);
        if (e->longest_ticks >= 2) {
            table_set_num(t, row, "stuck_s", e->longest_s);
            table_set_num(t, row, "stuck_ticks", e->longest_ticks);
        }
        /* still in its longest wait at the last tick */
        table_set_num(t, row, "at_end", e->longest_is_current && e->in_wait ? 1 : 0);
        table_set_str(t, row, "wchan", e->wchan);
        table_set_num(t, row, "frozen", e->frozen > 0 ? 1 : 0);
        if (e->res < 0)
            continue;
        const struct dres *s = &d->res[e->res];
        table_set_num(t, row, "kill_pending", s->kill_pending ? 1 : 0);
        if (*s->family) {
            table_set_str(t, row, "fs", s->family);
            table_set_str(t, row, "fs_kind", family_kind(s->family));
        }
        if (s->how == DM_BY_PATH || s->how == DM_ONLY_ONE) {
            table_set_str(t, row, "mount", s->m.mountpoint);
            table_set_str(t, row, "mount_how", s->how == DM_BY_PATH ? "path" : "only");
            table_set_str(t, row, "fstype", s->m.fstype);
            table_set_str(t, row, "source", s->m.source);
            table_set_str(t, row, "devno", s->m.devno);
        } else if (s->how == DM_AMBIGUOUS) {
            char note[96];
            snprintf(note, sizeof note, "one of %zu %s mounts", s->nfamily, s->family);
            table_set_str(t, row, "mount", note);
        }
        if (s->device[0])
            table_set_str(t, row, "device", s->device);
        if (s->stack_read)
            table_set_str(t, row, "stack", s->stack);
    }
    if (d->n == 0) {
        table_set_note(t, "No task was seen in D state at any tick.");
    } else {
        struct strbuf note = STRBUF_INIT;
        if (d->n > DSTATE_ROWS || d->untracked)
            sb_add(&note, "Only the tasks longest in one wait are listed. ");
        sb_add(&note, "A wait is one stretch in D across consecutive ticks without running in "
                      "between, counted from when the task last ran (its se.exec_start in "
                      "/proc/PID/sched), so a wait that began before the window counts whole.");
        if (d->sched_absent)
            sb_add(&note, " This kernel's /proc has no sched file: waits count from the first "
                          "tick that saw them (a lower bound).");
        if (d->turn_max > 1)
            sb_addf(&note, " Threads were read in turns, %d a tick: each at least every %zu "
                           "ticks.", DSTATE_THREAD_READS, d->turn_max);
        if (d->short_ticks)
            sb_addf(&note, " At %zu ticks more tasks were in D than %d reads a tick follow: "
                           "some waits were cut short.", d->short_ticks, DSTATE_TASK_READS);
        if (d->slices_missing)
            sb_add(&note, " This kernel keeps no schedstat: consecutive ticks in D count as "
                          "one wait.");
        if (d->mi_cut)
            sb_addf(&note, " A mount table was longer than %u KiB: mounts past it were not "
                           "matched.", DSTATE_MOUNTINFO_MAX / 1024);
        table_set_note(t, sb_str(&note));
        sb_free(&note);
    }
    report_metric(r, NM_PROC_DSTATE_TASKS, "Tasks seen in D state (threads included)", "",
                  "process", (double)(d->n + d->untracked));
    report_metric(r, NM_PROC_DSTATE_STUCK_TASKS,
                  "Tasks in one uninterruptible wait across ticks", "", "process", (double)stuck);
    report_metric(r, NM_PROC_DSTATE_STUCK_MAX_S, "Longest uninterruptible wait seen", "s",
                  "process", stuck_max);
    if (d->untracked)
        report_metric(r, NM_PROC_DSTATE_UNTRACKED, "D-state sightings beyond the tracked tasks",
                      "", "process", (double)d->untracked);
}
