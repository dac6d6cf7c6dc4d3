#include "bpf_target.h"
#include "../options.h"
#include "../probe.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "collector.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int bpf_target_cgroup_id(const struct collect_ctx *ctx, uint64_t *id, char *err, size_t n)
{
    *id = 0;
    if (!ctx->opt->cgroup)
        return 0;
    if (!ctx->caps || !ctx->caps->cgroup_v2_root[0]) {
        snprintf(err, n, "-c needs the cgroup v2 hierarchy, which is not mounted");
        return -ENOENT;
    }
    char rel[PATH_MAX], path[PATH_MAX];
    const char *cg = ctx->opt->cgroup;
    while (*cg == '/')
        cg++;
    if (snprintf(rel, sizeof rel, "%s/%s", ctx->caps->cgroup_v2_root, cg) >= (int)sizeof rel ||
        hostfs_path(path, sizeof path, rel) != 0) {
        snprintf(err, n, "cgroup path too long");
        return -ENAMETOOLONG;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        int e = errno ? errno : ENOTDIR;
        snprintf(err, n, "cgroup %s not found in the v2 hierarchy: %s", ctx->opt->cgroup,
                 strerror(e));
        return -e;
    }
    *id = (uint64_t)st.st_ino;
    return 0;
}

unsigned proc_threads(int pid)
{
    struct strbuf sb = STRBUF_INIT;
    unsigned th = 0;
    if (hostfs_readf(&sb, 1 << 16, "/proc/%d/status", pid) == 0) {
        const char *p = strstr(sb_str(&sb), "\nThreads:");
        if (p) {
            long v = strtol(p + 9, NULL, 10);
            th = v > 0 ? (unsigned)v : 1;
        }
    }
    sb_free(&sb);
    return th;
}
