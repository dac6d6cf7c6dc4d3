#include "kbpf.h"
#include "collector.h"
#include "model/model.h"
#include "options.h"
#include "probe.h"
#include "util/hostfs.h"
#include "util/xalloc.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int kbpf_target(const struct collect_ctx *ctx, uint32_t *tgid, uint64_t *cgid, char *err,
                size_t n)
{
    *tgid = 0;
    *cgid = 0;
    if (ctx->opt && ctx->opt->pid > 0)
        *tgid = (uint32_t)ctx->opt->pid;
    if (ctx->opt && ctx->opt->cgroup) {
        if (!ctx->caps || !ctx->caps->cgroup_v2_root[0]) {
            snprintf(err, n, "-c needs a cgroup v2 hierarchy to filter in the kernel");
            return -ENOENT;
        }
        char rel[1024], path[1200];
        snprintf(rel, sizeof rel, "%s/%s", ctx->caps->cgroup_v2_root, ctx->opt->cgroup);
        if (hostfs_path(path, sizeof path, rel) != 0) {
            snprintf(err, n, "cgroup path too long");
            return -ENAMETOOLONG;
        }
        struct stat st;
        if (stat(path, &st) != 0) {
            int e = errno;
            snprintf(err, n, "cgroup %s: %s", path, strerror(e));
            return -e;
        }
        *cgid = (uint64_t)st.st_ino;
    }
    return 0;
}

bool kbpf_can_trace(const char *cat, const char *name, char *reason, size_t n)
{
    if (hostfs_exists("/sys/kernel/btf/vmlinux"))
        return true;
    char p[256];
    snprintf(p, sizeof p, "/sys/kernel/tracing/events/%s/%s", cat, name);
    if (hostfs_is_dir(p))
        return true;
    snprintf(reason, n, "no kernel BTF and no tracepoint %s/%s", cat, name);
    return false;
}

int kbpf_ncpus(void)
{
    int n = libbpf_num_possible_cpus();
    return n > 0 ? n : 1;
}

int kbpf_percpu_sum(const struct bpf_map *map, const void *key, size_t ksz, void *out,
                    size_t vsz)
{
    size_t ncpu = (size_t)kbpf_ncpus();
    size_t words = vsz / 8;
    uint64_t *vals = xcalloc(ncpu, vsz);
    int rc = bpf_map__lookup_elem(map, key, ksz, vals, ncpu * vsz, 0);
    if (rc == 0) {
        uint64_t *o = out;
        memset(o, 0, vsz);
        for (size_t c = 0; c < ncpu; c++)
            for (size_t w = 0; w < words; w++)
                o[w] += vals[c * words + w];
    }
    free(vals);
    return rc;
}

void kbpf_errno_name(int e, char *buf, size_t n)
{
    const char *s = e > 0 ? strerrorname_np(e) : NULL;
    if (s)
        snprintf(buf, n, "%s", s);
    else
        snprintf(buf, n, "E%d", e);
}

void kbpf_hist_fill(struct hist *h, const uint64_t *buckets, size_t nb)
{
    for (size_t b = 0; b < nb && b < HIST_BUCKETS; b++)
        if (buckets[b])
            hist_add_bucket(h, (unsigned)b, buckets[b]);
}
