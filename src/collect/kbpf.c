#include "kbpf.h"
#include "collector.h"
#include "../model/model.h"
#include "../options.h"
#include "../probe.h"
#include "../util/hostfs.h"
#include "../util/xalloc.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int kbpf_target(const struct collect_ctx *ctx, uint32_t *tgid, uint64_t *cgid, char *err, size_t n)
{
    *tgid = 0;
    *cgid = 0;
    if (ctx->opt && ctx->opt->pid > 0)
        *tgid = (uint32_t)ctx->opt->pid;
    if (ctx->opt && ctx->opt->cgroup) {
        if (!ctx->caps || !ctx->caps->cgroup_v2_root[0]) {
            snprintf(err, n, "-c needs a cgroup v2 hierarchy for in-kernel filtering");
            return -ENOENT;
        }
        const char *cg = ctx->opt->cgroup;
        while (*cg == '/')
            cg++;
        char rel[4096], path[4096];
        snprintf(rel, sizeof rel, "%s/%s", ctx->caps->cgroup_v2_root, cg);
        if (hostfs_path(path, sizeof path, rel) != 0) {
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
        *cgid = (uint64_t)st.st_ino; /* the v2 cgroup id is the directory's inode */
    }
    return 0;
}

/* The kernel's BTF is 5 MB that libbpf parses in tens of ms, most of it
 * page faults on fresh memory.  The collectors ask about a dozen hooks
 * (at plan, and again at start): one parse answers them all, and the
 * answers are kept so that the parsed BTF can be freed before the BPF
 * objects load (each load parses its own copy: two at once would raise
 * peak RSS by 10 MB). */
#define KBPF_MEMO_MAX 32
static pthread_mutex_t g_btf_mu = PTHREAD_MUTEX_INITIALIZER;
static struct btf *g_btf; /* owned here; freed by kbpf_release_vmlinux_btf */
static bool g_btf_tried;  /* parsed (or failed) since the last release */
static struct {
    char tp[64];
    bool present;
} g_memo[KBPF_MEMO_MAX];
static size_t g_nmemo;

/* Whether tracepoint tp has a tp_btf hook; with g_btf_mu held. */
static bool tp_btf_present(const char *tp)
{
    for (size_t i = 0; i < g_nmemo; i++)
        if (strcmp(g_memo[i].tp, tp) == 0)
            return g_memo[i].present;
    if (!g_btf_tried) {
        g_btf = btf__load_vmlinux_btf();
        g_btf_tried = true;
    }
    char name[160];
    snprintf(name, sizeof name, "btf_trace_%s", tp);
    bool present = g_btf && btf__find_by_name_kind(g_btf, name, BTF_KIND_TYPEDEF) > 0;
    /* no BTF at all is not memoised: it may be a transient failure */
    if (g_btf && g_nmemo < KBPF_MEMO_MAX && strlen(tp) < sizeof g_memo[0].tp) {
        snprintf(g_memo[g_nmemo].tp, sizeof g_memo[0].tp, "%s", tp);
        g_memo[g_nmemo++].present = present;
    }
    return present;
}

const char *kbpf_missing_tp_btf(const char *const *tps, size_t n)
{
    const char *missing = NULL;
    pthread_mutex_lock(&g_btf_mu);
    for (size_t i = 0; i < n && !missing; i++)
        if (!tp_btf_present(tps[i]))
            missing = tps[i];
    pthread_mutex_unlock(&g_btf_mu);
    return missing;
}

void kbpf_release_vmlinux_btf(void)
{
    pthread_mutex_lock(&g_btf_mu);
    btf__free(g_btf);
    g_btf = NULL;
    g_btf_tried = false;
    pthread_mutex_unlock(&g_btf_mu);
}

bool kbpf_force_classic(void)
{
    const char *v = getenv("PERFREPORT_FORCE_CLASSIC");
    return v && strcmp(v, "1") == 0;
}

bool kbpf_has_tp_btf(const char *tp)
{
    return kbpf_missing_tp_btf(&tp, 1) == NULL;
}

bool kbpf_has_tracepoint(const char *cat, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "/sys/kernel/tracing/events/%s/%s", cat, name);
    if (hostfs_is_dir(p))
        return true;
    snprintf(p, sizeof p, "/sys/kernel/debug/tracing/events/%s/%s", cat, name);
    return hostfs_is_dir(p);
}

void kbpf_hist_add(struct hist *h, const uint64_t *slots, size_t nslots, double sum, double max)
{
    for (size_t i = 0; i < nslots; i++)
        if (slots[i])
            hist_add_bucket(h, (unsigned)i, slots[i]);
    if (sum >= 0)
        h->sum = isnan(h->sum) ? sum : h->sum + sum;
    if (max >= 0 && (isnan(h->max) || max > h->max))
        h->max = max;
}

uint64_t kbpf_percpu_sum(int map_fd, uint32_t key)
{
    int ncpu = libbpf_num_possible_cpus();
    if (ncpu <= 0)
        return 0;
    uint64_t *v = xcalloc((size_t)ncpu, sizeof *v);
    uint64_t sum = 0;
    if (bpf_map_lookup_elem(map_fd, &key, v) == 0)
        for (int i = 0; i < ncpu; i++)
            sum += v[i];
    free(v);
    return sum;
}

bool kbpf_can_trace(const char *cat, const char *name, char *reason, size_t n)
{
    if (hostfs_exists("/sys/kernel/btf/vmlinux") || kbpf_has_tracepoint(cat, name))
        return true;
    snprintf(reason, n, "no kernel BTF and no tracepoint %s/%s", cat, name);
    return false;
}

int kbpf_ncpus(void)
{
    int n = libbpf_num_possible_cpus();
    return n > 0 ? n : 1;
}

int kbpf_percpu_sum_struct(const struct bpf_map *map, const void *key, size_t ksz, void *out,
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

unsigned kbpf_proc_threads(int pid)
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
