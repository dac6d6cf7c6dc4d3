/* A sampled perf event on every CPU with a BPF program (sampled.h). */
#include "sampled.h"
#include "kbpf.h"
#include "../collect/collector.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define SAMPLED_MAX_CPUS 4096

int kbpf_sampled_init(struct kbpf_sampled *s, char *err, size_t n)
{
    *s = (struct kbpf_sampled){.ncpu = libbpf_num_possible_cpus()};
    if (s->ncpu <= 0 || s->ncpu > SAMPLED_MAX_CPUS) {
        snprintf(err, n, "cannot count possible CPUs");
        return -EINVAL;
    }
    s->links = xcalloc((size_t)s->ncpu, sizeof *s->links);
    s->fds = xcalloc((size_t)s->ncpu, sizeof *s->fds);
    for (int i = 0; i < s->ncpu; i++)
        s->fds[i] = -1;
    return 0;
}

int kbpf_sampled_attach(struct kbpf_sampled *s, struct bpf_program *prog, uint64_t config,
                        uint64_t hz, const char *what, char *err, size_t n)
{
    /* every other field 0: exclude_kernel too (a page fault taken in
     * kernel mode, copy_to_user, counts) */
    struct perf_event_attr a = {.size = sizeof a, .type = PERF_TYPE_SOFTWARE, .config = config,
                                .freq = 1, .sample_freq = hz};
    int last_err;
    s->attached = kbpf_attach_per_cpu(prog, &a, s->ncpu, s->fds, s->links, &last_err);
    if (!s->attached) {
        snprintf(err, n, "no %s could be sampled: perf_event_open/attach: %s", what,
                 strerror(last_err ? last_err : ENODEV));
        return -(last_err ? last_err : ENODEV);
    }
    return 0;
}

int kbpf_sampled_enable(struct kbpf_sampled *s, bool reset)
{
    int rc = 0;
    for (int i = 0; i < s->ncpu; i++)
        if (s->links[i] && ((reset && ioctl(s->fds[i], PERF_EVENT_IOC_RESET, 0) != 0) ||
                            ioctl(s->fds[i], PERF_EVENT_IOC_ENABLE, 0) != 0))
            rc = -errno;
    return rc;
}

uint64_t kbpf_sampled_disable(struct kbpf_sampled *s)
{
    uint64_t sum = 0;
    for (int i = 0; s->links && i < s->ncpu; i++) {
        if (!s->links[i])
            continue;
        (void)ioctl(s->fds[i], PERF_EVENT_IOC_DISABLE, 0);
        uint64_t v;
        if (read(s->fds[i], &v, sizeof v) == (ssize_t)sizeof v)
            sum += v;
    }
    return sum;
}

void kbpf_sampled_detach(struct kbpf_sampled *s)
{
    for (int i = 0; s->links && i < s->ncpu; i++) {
        /* a perf_event link owns its event fd and closes it: closing it
         * again could close another thread's newly opened file */
        if (s->links[i])
            bpf_link__destroy(s->links[i]);
        else if (s->fds[i] >= 0)
            close(s->fds[i]);
        s->links[i] = NULL;
        s->fds[i] = -1;
    }
}

void kbpf_sampled_free(struct kbpf_sampled *s)
{
    kbpf_sampled_detach(s);
    free(s->links);
    free(s->fds);
    s->links = NULL;
    s->fds = NULL;
}

int kbpf_sampled_stats(const struct kbpf_sampled *s, int fd, uint32_t nkeys, uint64_t *out)
{
    uint64_t *v = xcalloc((size_t)s->ncpu, sizeof *v);
    int rc = 0;
    for (uint32_t k = 0; k < nkeys && rc == 0; k++) {
        out[k] = 0;
        rc = bpf_map_lookup_elem(fd, &k, v) ? -errno : 0;
        for (int i = 0; rc == 0 && i < s->ncpu; i++)
            out[k] += v[i];
    }
    free(v);
    return rc;
}

/* Path of -c relative to the cgroup root: an absolute path under the v2
 * mount loses that prefix; "//x/" becomes "/x". */
static char *cgroup_rel(const char *arg, const char *v2root)
{
    size_t ml = strlen(v2root);
    if (ml && strncmp(arg, v2root, ml) == 0 && (arg[ml] == '/' || !arg[ml]))
        arg += ml;
    struct strbuf sb = STRBUF_INIT;
    sb_addc(&sb, '/');
    for (const char *p = arg; *p; p++)
        if (*p != '/' || sb.buf[sb.len - 1] != '/')
            sb_addc(&sb, *p);
    if (sb.len > 1 && sb.buf[sb.len - 1] == '/')
        sb.buf[--sb.len] = '\0';
    return sb_detach(&sb);
}

/* Is rel a directory in some v1 hierarchy under /sys/fs/cgroup? */
static bool in_v1(const char *rel, const char *v2root)
{
    DIR *d = hostfs_opendir("/sys/fs/cgroup");
    if (!d)
        return false;
    bool found = false;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[PATH_MAX];
        if (snprintf(p, sizeof p, "/sys/fs/cgroup/%s", e->d_name) >= (int)sizeof p ||
            strcmp(p, v2root) == 0)
            continue;
        char q[PATH_MAX];
        if (snprintf(q, sizeof q, "%s%s", p, rel) < (int)sizeof q && hostfs_is_dir(q))
            found = true;
    }
    closedir(d);
    return found;
}

bool kbpf_sampled_cgroup_filter(const struct collect_ctx *ctx, const char *what, uint64_t *cgid,
                                char **scope, char **note)
{
    const char *v2 = ctx->caps ? ctx->caps->cgroup_v2_root : "";
    char *rel = cgroup_rel(ctx->cfg->cgroup, v2);
    bool found = false;
    if (strstr(rel, "/..")) {
        *note = xasprintf("cgroup %s: \"..\" is not allowed; %s is system-wide", rel, what);
        free(rel);
        return false;
    }
    struct stat sbuf;
    char path[PATH_MAX], real[PATH_MAX];
    bool ok = v2[0] && snprintf(path, sizeof path, "%s%s", v2, strcmp(rel, "/") ? rel : "") <
                           (int)sizeof path &&
              hostfs_path(real, sizeof real, path) == 0 && stat(real, &sbuf) == 0 &&
              S_ISDIR(sbuf.st_mode);
    if (ok) {
        *cgid = (uint64_t)sbuf.st_ino;
        *scope = xasprintf("cgroup %s", rel);
        found = true;
    } else if (in_v1(rel, v2)) {
        *note = xasprintf(
            "cgroup %s exists only in the v1 hierarchies; BPF can filter only by v2 cgroup id "
            "(bpf_get_current_cgroup_id), so %s is system-wide",
            rel, what);
    } else {
        *note = xasprintf("cgroup %s not found under the v2 hierarchy%s; %s is system-wide", rel,
                          v2[0] ? "" : " (none mounted)", what);
    }
    free(rel);
    return found;
}
