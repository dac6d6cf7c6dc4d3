/* Workload names from cgroup paths: see cgroup_name.h. */
#include "cgroup_name.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static bool is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return n > 0;
}

static bool has_prefix(const char *s, size_t n, const char *p)
{
    size_t pl = strlen(p);
    return n >= pl && memcmp(s, p, pl) == 0;
}

static bool has_suffix(const char *s, size_t n, const char *p)
{
    size_t pl = strlen(p);
    return n >= pl && memcmp(s + n - pl, p, pl) == 0;
}

static void copy(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* A pod UID as the kubelet writes it: 36 characters, dashes or (under the
 * systemd driver) underscores in the four places; stored dashed. */
static bool take_pod(struct cgroup_workload *w, const char *s, size_t n)
{
    if (n != 36)
        return false;
    char uid[37];
    for (size_t i = 0; i < 36; i++) {
        char c = s[i];
        bool sep = i == 8 || i == 13 || i == 18 || i == 23;
        if (sep && (c == '-' || c == '_'))
            c = '-';
        else if (sep || !is_hex(&c, 1))
            return false;
        uid[i] = c;
    }
    uid[36] = '\0';
    memcpy(w->pod, uid, sizeof uid);
    return true;
}

/* "<prefix><64 hex>.scope" or "<prefix><64 hex>" for a runtime. */
static bool take_container(struct cgroup_workload *w, const char *s, size_t n, const char *prefix,
                           const char *runtime)
{
    if (!has_prefix(s, n, prefix))
        return false;
    const char *id = s + strlen(prefix);
    size_t idn = n - strlen(prefix);
    if (has_suffix(id, idn, ".scope"))
        idn -= strlen(".scope");
    if (idn < 12 || idn > 64 || !is_hex(id, idn))
        return false;
    copy(w->container, sizeof w->container, id, idn);
    copy(w->runtime, sizeof w->runtime, runtime, strlen(runtime));
    return true;
}

static void component(struct cgroup_workload *w, bool *kube, const char *s, size_t n,
                      const char *parent, size_t pn)
{
    static const struct {
        const char *prefix, *runtime;
    } scopes[] = {
        {"docker-", "docker"},           {"cri-containerd-", "containerd"},
        {"crio-conmon-", "cri-o"},       {"crio-", "cri-o"},
        {"libpod-conmon-", "podman"},    {"libpod-", "podman"},
    };
    if (n == 8 && memcmp(s, "kubepods", 8) == 0) {
        *kube = true;
        return;
    }
    if (has_prefix(s, n, "kubepods") && has_suffix(s, n, ".slice")) {
        /* kubepods.slice, kubepods-burstable.slice,
         * kubepods-burstable-pod<uid>.slice, kubepods-pod<uid>.slice */
        *kube = true;
        const char *q = s + 8;
        size_t qn = n - 8 - 6;
        if (has_prefix(q, qn, "-burstable")) {
            snprintf(w->qos, sizeof w->qos, "burstable");
            q += 10, qn -= 10;
        } else if (has_prefix(q, qn, "-besteffort")) {
            snprintf(w->qos, sizeof w->qos, "besteffort");
            q += 11, qn -= 11;
        }
        if (has_prefix(q, qn, "-pod") && take_pod(w, q + 4, qn - 4) && !w->qos[0])
            snprintf(w->qos, sizeof w->qos, "guaranteed");
        return;
    }
    if (*kube && ((n == 9 && memcmp(s, "burstable", 9) == 0) ||
                  (n == 10 && memcmp(s, "besteffort", 10) == 0))) {
        copy(w->qos, sizeof w->qos, s, n);
        return;
    }
    if (*kube && has_prefix(s, n, "pod") && take_pod(w, s + 3, n - 3)) {
        if (!w->qos[0])
            snprintf(w->qos, sizeof w->qos, "guaranteed");
        return;
    }
    for (size_t i = 0; i < sizeof scopes / sizeof scopes[0]; i++)
        if (take_container(w, s, n, scopes[i].prefix, scopes[i].runtime))
            return;
    if (n == 64 && is_hex(s, n)) { /* cgroupfs driver: the bare id */
        copy(w->container, sizeof w->container, s, n);
        if (pn == 6 && memcmp(parent, "docker", 6) == 0)
            snprintf(w->runtime, sizeof w->runtime, "docker");
        return;
    }
    if (has_suffix(s, n, ".service") || has_suffix(s, n, ".scope") ||
        (has_prefix(s, n, "user-") && has_suffix(s, n, ".slice")))
        copy(w->unit, sizeof w->unit, s, n);
}

bool cgroup_workload_of(const char *path, struct cgroup_workload *w)
{
    memset(w, 0, sizeof *w);
    bool kube = false;
    const char *parent = "";
    size_t pn = 0;
    for (const char *p = path ? path : ""; *p;) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n)
            component(w, &kube, p, n, parent, pn);
        parent = p;
        pn = n;
        p += n;
    }
    if (w->container[0] || w->pod[0])
        w->unit[0] = '\0'; /* the container's scope is not a service */
    return w->runtime[0] || w->container[0] || w->pod[0] || w->unit[0];
}

void cgroup_workload_name(const struct cgroup_workload *w, char *out, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    if (w->container[0])
        sb_addf(&sb, "%s %.12s", w->runtime[0] ? w->runtime : "container", w->container);
    if (w->pod[0])
        sb_addf(&sb, "%spod %s", sb.len ? " in " : "", w->pod);
    if (w->qos[0] && (w->pod[0] || w->container[0]))
        sb_addf(&sb, " (%s)", w->qos);
    if (!sb.len && w->unit[0])
        sb_add(&sb, w->unit);
    if (n)
        snprintf(out, n, "%s", sb_str(&sb));
    sb_free(&sb);
}

bool cgroup_workload_matches(const struct cgroup_workload *w, const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (n >= 6 && n <= 64 && is_hex(id, n) && w->container[0])
        return strncmp(w->container, id, n) == 0;
    if (n >= 8 && n <= 36 && w->pod[0]) {
        for (size_t i = 0; i < n; i++) {
            char a = id[i] == '_' ? '-' : id[i];
            if (a != w->pod[i])
                return false;
        }
        return true;
    }
    return false;
}

/* A container id (hex, 6 to 64) or a pod UID (8 to 36 of hex and dashes or
 * underscores, with at least one of them or 8+ characters). */
static bool looks_like_id(const char *s)
{
    size_t n = strlen(s), hex = 0, seps = 0;
    for (size_t i = 0; i < n; i++) {
        if (is_hex(&s[i], 1))
            hex++;
        else if (s[i] == '-' || s[i] == '_')
            seps++;
        else
            return false;
    }
    return (seps == 0 && n >= 6 && n <= 64) || (seps > 0 && n >= 9 && n <= 36 && hex >= 8);
}

struct finder {
    const char *id;
    char *best;       /* owned: the shallowest match so far */
    int best_depth;
    char other[64];   /* a different workload that also matched */
    size_t dirs;
    struct cgroup_workload best_w;
};

static void walk(struct finder *f, const char *root, struct strbuf *rel, int depth)
{
    if (depth > 12 || f->dirs >= CGROUP_FIND_MAX_DIRS)
        return;
    struct strbuf dir = STRBUF_INIT;
    sb_add(&dir, root);
    sb_add(&dir, sb_str(rel));
    DIR *d = hostfs_opendir(sb_str(&dir));
    sb_free(&dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && f->dirs < CGROUP_FIND_MAX_DIRS) {
        if (e->d_type != DT_DIR || e->d_name[0] == '.')
            continue; /* cgroupfs reports its type: no stat, never a link */
        f->dirs++;
        size_t keep = rel->len;
        sb_addc(rel, '/');
        sb_add(rel, e->d_name);
        struct cgroup_workload w;
        if (cgroup_workload_of(sb_str(rel), &w) && cgroup_workload_matches(&w, f->id)) {
            /* the same workload again (a container's conmon scope beside
             * it) is no ambiguity; another one is */
            bool same = f->best && strcmp(w.container, f->best_w.container) == 0 &&
                        strcmp(w.pod, f->best_w.pod) == 0;
            if (!f->best || depth < f->best_depth) {
                if (f->best && !same)
                    cgroup_workload_name(&f->best_w, f->other, sizeof f->other);
                free(f->best);
                f->best = xstrdup(sb_str(rel));
                f->best_depth = depth;
                f->best_w = w;
            } else if (!same && !f->other[0]) {
                cgroup_workload_name(&w, f->other, sizeof f->other);
            }
        } else {
            walk(f, root, rel, depth + 1);
        }
        rel->len = keep;
        rel->buf[keep] = '\0';
    }
    closedir(d);
}

static const char *const roots[] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
                                    "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu",
                                    "/sys/fs/cgroup/memory", "/sys/fs/cgroup/systemd"};

/* Is cgroup path arg (with or without its leading '/') a directory in some
 * hierarchy: the usual roots, else any v1 hierarchy mounted below
 * /sys/fs/cgroup (a tmpfs on v1 and hybrid hosts; its entries are root's). */
static bool cgroup_exists(const char *arg)
{
    const char *sep = arg[0] == '/' ? "" : "/";
    char p[4096];
    for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
        snprintf(p, sizeof p, "%s%s%s", roots[i], sep, arg);
        if (hostfs_is_dir(p))
            return true;
    }
    DIR *d = hostfs_opendir("/sys/fs/cgroup");
    bool found = false;
    size_t seen = 0;
    for (struct dirent *e; d && !found && seen < 64 && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        seen++;
        snprintf(p, sizeof p, "/sys/fs/cgroup/%s%s%s", e->d_name, sep, arg);
        found = hostfs_is_dir(p);
    }
    if (d)
        closedir(d);
    return found;
}

int cgroup_resolve_arg(const char *arg, char **path, char *err, size_t errlen)
{
    *path = NULL;
    if (!arg)
        return 0;
    /* a cgroup of that name exists: the argument is its path */
    if (cgroup_exists(arg))
        return 0;
    if (strchr(arg, '/') || !looks_like_id(arg)) {
        snprintf(err, errlen, "-c %s: no such cgroup in any cgroup hierarchy under /sys/fs/cgroup",
                 arg);
        return -1;
    }
    struct finder f = {.id = arg, .best_depth = 1 << 30};
    for (size_t i = 0; i < sizeof roots / sizeof roots[0] && !f.best; i++) {
        /* only a hierarchy's root: a v1 host's /sys/fs/cgroup is a tmpfs
         * holding them */
        char procs[4096];
        snprintf(procs, sizeof procs, "%s/cgroup.procs", roots[i]);
        if (!hostfs_exists(procs))
            continue;
        struct strbuf rel = STRBUF_INIT;
        walk(&f, roots[i], &rel, 0);
        sb_free(&rel);
    }
    if (!f.best) {
        snprintf(err, errlen,
                 "-c %s: no cgroup of that name, and no container or pod with that id "
                 "(searched %zu cgroups)", arg, f.dirs);
        return -1;
    }
    if (f.other[0]) {
        char first[160];
        cgroup_workload_name(&f.best_w, first, sizeof first);
        snprintf(err, errlen, "-c %s names more than one workload (%s, %s): give more of the id",
                 arg, first, f.other);
        free(f.best);
        return -1;
    }
    *path = f.best;
    return 0;
}
