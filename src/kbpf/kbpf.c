#include "kbpf.h"
#include "kbtf.h"
#include <linux/types.h>
#include "../../bpf/khist.h"
#include "../collect/collector.h"
#include "../model/model.h"
#include "../util/hostfs.h"
#include "../util/proc_parse.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

int kbpf_target(const struct collect_ctx *ctx, uint32_t *tgid, uint64_t *cgid, char *err, size_t n)
{
    *tgid = 0;
    *cgid = 0;
    if (ctx->cfg && ctx->cfg->pid > 0)
        *tgid = (uint32_t)ctx->cfg->pid;
    if (ctx->cfg && ctx->cfg->cgroup) {
        if (!ctx->caps || !ctx->caps->cgroup_v2_root[0]) {
            snprintf(err, n, "-c needs a cgroup v2 hierarchy for in-kernel filtering");
            return -ENOENT;
        }
        const char *cg = ctx->cfg->cgroup;
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
            snprintf(err, n, "cgroup %s not found in the v2 hierarchy: %s", ctx->cfg->cgroup,
                     strerror(e));
            return -e;
        }
        *cgid = (uint64_t)st.st_ino; /* the v2 cgroup id is the directory's inode */
    }
    return 0;
}

/* The collectors ask about a dozen tp_btf hooks (at plan, and again at
 * start).  A hook is a "btf_trace_<tp>" typedef in the kernel's BTF, so the
 * answer is in the BTF's string section: one pass over that section (of
 * the bytes the BPF loads use too, see kbtf.h) collects every hook name.  Parsing the
 * whole BTF with libbpf instead cost ~100 ms of CPU per run on a small VM
 * (a 5 MB copy into fresh pages, then a linear scan of every type per
 * question); it remains the fallback when the sysfs file cannot be read
 * raw (BTF from /boot, an unexpected header).  Names of other kinds never
 * start with "btf_trace_" in the kernel's sources, so a string is taken
 * as the typedef's name. */
#define KBPF_MEMO_MAX 32
#define KBPF_HOOK_PREFIX "btf_trace_"
#define KBPF_HOOK_PREFIX_LEN (sizeof KBPF_HOOK_PREFIX - 1)
#define KBPF_HOOK_NAME_MAX 128 /* longer strings are not tracepoint typedefs */
static pthread_mutex_t g_btf_mu = PTHREAD_MUTEX_INITIALIZER;
static char **g_hooks;   /* owned: sorted hook names (prefix dropped), each malloc'd */
static size_t g_nhooks;  /* > 0 once read (a kernel BTF without hooks uses the fallback) */
static struct btf *g_btf;  /* owned: the libbpf fallback; freed by kbpf_release_vmlinux_btf */
static bool g_btf_tried;   /* fallback parsed (or failed) since the last release */
static struct {
    char tp[64];
    bool present;
} g_memo[KBPF_MEMO_MAX];
static size_t g_nmemo;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void hooks_free(void)
{
    for (size_t i = 0; i < g_nhooks; i++)
        free(g_hooks[i]);
    free(g_hooks);
    g_hooks = NULL;
    g_nhooks = 0;
}

static void hooks_add(const char *name, size_t len, size_t *cap)
{
    if (g_nhooks == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        g_hooks = xrealloc(g_hooks, *cap * sizeof *g_hooks);
    }
    g_hooks[g_nhooks++] = xstrndup(name, len);
}

/* Collects every hook name from the raw kernel BTF's string section (the
 * bytes kbtf.c reads once for the run).  Returns 0, or -errno (nothing
 * kept) when the file is missing or not raw native-endian BTF. */
static int hooks_read(void)
{
    size_t len;
    const uint8_t *raw = kbtf_raw_get(&len);
    if (!raw)
        return -errno;
    size_t slen;
    const char *str = kbtf_str_section(raw, &slen);
    size_t cap = 0;
    for (size_t i = 0; i < slen;) {
        const char *nul = memchr(str + i, 0, slen - i);
        size_t end = nul ? (size_t)(nul - str) : slen;
        size_t n = end - i;
        if (n > KBPF_HOOK_PREFIX_LEN && n < KBPF_HOOK_NAME_MAX &&
            memcmp(str + i, KBPF_HOOK_PREFIX, KBPF_HOOK_PREFIX_LEN) == 0)
            hooks_add(str + i + KBPF_HOOK_PREFIX_LEN, n - KBPF_HOOK_PREFIX_LEN, &cap);
        i = end + 1;
    }
    kbtf_raw_put();
    if (g_nhooks == 0)
        return -ENOENT; /* a kernel BTF without one hook: ask libbpf instead */
    qsort(g_hooks, g_nhooks, sizeof *g_hooks, cmp_str);
    return 0;
}

/* Whether tracepoint tp has a tp_btf hook; with g_btf_mu held. */
static bool tp_btf_present(const char *tp)
{
    for (size_t i = 0; i < g_nmemo; i++)
        if (strcmp(g_memo[i].tp, tp) == 0)
            return g_memo[i].present;
    if (!g_nhooks && !g_btf_tried && hooks_read() != 0) {
        g_btf = btf__load_vmlinux_btf();
        g_btf_tried = true;
    }
    bool present, known = true;
    if (g_nhooks) {
        present = bsearch(&tp, g_hooks, g_nhooks, sizeof *g_hooks, cmp_str) != NULL;
    } else {
        char name[160];
        snprintf(name, sizeof name, KBPF_HOOK_PREFIX "%s", tp);
        present = g_btf && btf__find_by_name_kind(g_btf, name, BTF_KIND_TYPEDEF) > 0;
        known = g_btf != NULL; /* no BTF at all may be a transient failure */
    }
    if (known && g_nmemo < KBPF_MEMO_MAX && strlen(tp) < sizeof g_memo[0].tp) {
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
    hooks_free();
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

/* Whether the running kernel is 6.1 or later (bpf_mem_alloc); false when
 * the release cannot be read.  Collectors start on several threads. */
static pthread_once_t g_memalloc_once = PTHREAD_ONCE_INIT;
static bool g_memalloc;
static void read_kernel_release(void)
{
    struct utsname u;
    unsigned major = 0, minor = 0;
    g_memalloc = uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
                 (major > 6 || (major == 6 && minor >= 1));
}

static bool kernel_has_bpf_mem_alloc(void)
{
    pthread_once(&g_memalloc_once, read_kernel_release);
    return g_memalloc;
}

void kbpf_alloc_on_insert(struct bpf_map *map)
{
    if (map && kernel_has_bpf_mem_alloc())
        bpf_map__set_map_flags(map, bpf_map__map_flags(map) | BPF_F_NO_PREALLOC);
}

uint32_t kbpf_per_thread_entries(long threads, uint32_t min, uint32_t max)
{
    if (threads <= 0 || threads > (long)max)
        return max;
    uint64_t want = 2 * (uint64_t)threads + 1024;
    uint64_t n = min ? min : 1;
    while (n < want && n < max)
        n *= 2;
    return n < max ? (uint32_t)n : max;
}

long kbpf_host_threads(void)
{
    char line[256];
    struct loadavg l;
    if (hostfs_read_line("/proc/loadavg", line, sizeof line) != 0 || parse_loadavg(line, &l) != 0)
        return -1;
    return l.threads;
}

void kbpf_warm_alloc(struct bpf_map *map)
{
    uint32_t key = UINT32_MAX; /* no program's key: stack ids are below 2^31 */
    cpu_set_t was;
    if (!map || !(bpf_map__map_flags(map) & BPF_F_NO_PREALLOC) ||
        bpf_map__key_size(map) != sizeof key || sched_getaffinity(0, sizeof was, &was) != 0)
        return;
    void *zero = xcalloc(1, bpf_map__value_size(map));
    int fd = bpf_map__fd(map);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        if (CPU_ISSET(cpu, &was) && sched_setaffinity(0, sizeof one, &one) == 0 &&
            bpf_map_update_elem(fd, &key, zero, BPF_NOEXIST) == 0)
            bpf_map_delete_elem(fd, &key);
    }
    (void)sched_setaffinity(0, sizeof was, &was);
    free(zero);
}

void kbpf_map_unused(struct bpf_map *map)
{
    (void)bpf_map__set_max_entries(map, 1); /* fails only after load: then it stays as is */
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

void kbpf_khist_add(struct hist *h, const struct khist *k)
{
    uint64_t slots[KHIST_SLOTS]; /* __u64 is unsigned long long, uint64_t unsigned long */
    for (size_t i = 0; i < KHIST_SLOTS; i++)
        slots[i] = k->slots[i];
    kbpf_hist_add(h, slots, KHIST_SLOTS, (double)k->sum, (double)k->max);
}

bool kbpf_walk_next(struct kbpf_walk *w, void *key, size_t ksz, void *val)
{
    if (ksz > sizeof w->prev)
        return false;
    for (;;) {
        if (bpf_map_get_next_key(w->fd, w->started ? w->prev : NULL, key) != 0)
            return false;
        memcpy(w->prev, key, ksz);
        w->started = true;
        if (!val || bpf_map_lookup_elem(w->fd, key, val) == 0)
            return true;
    }
}

size_t kbpf_drain(const struct kbpf_drain *d, void *arrp, size_t *n, size_t *cap)
{
    void **arr = arrp;
    _Alignas(max_align_t) unsigned char key[KBPF_WALK_MAX_KEY];
    void *val = xmalloc(d->vsz ? d->vsz : 1);
    size_t added = 0;
    struct kbpf_walk w = KBPF_WALK_INIT(d->fd);
    while (kbpf_walk_next(&w, key, d->ksz, val)) {
        xgrow(arr, cap, *n + 1, d->esz);
        if (d->row(key, val, (char *)*arr + *n * d->esz, d->ctx)) {
            (*n)++;
            added++;
        }
    }
    free(val);
    return added;
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

int kbpf_attach_per_cpu(struct bpf_program *prog, const struct perf_event_attr *attr, int ncpu,
                        int *fds, struct bpf_link **links, int *last_err)
{
    bool *on = xcalloc((size_t)ncpu, sizeof *on);
    struct strbuf sb = STRBUF_INIT;
    int listed = -1, attached = 0;
    if (hostfs_is_real() && hostfs_read("/sys/devices/system/cpu/online", &sb, 0) == 0)
        listed = profile_parse_cpu_list(sb_str(&sb), on, (size_t)ncpu);
    sb_free(&sb);
    if (listed <= 0)
        for (int i = 0; i < ncpu; i++)
            on[i] = true;
    *last_err = 0;
    for (int cpu = 0; cpu < ncpu; cpu++) {
        if (!on[cpu])
            continue;
        struct perf_event_attr a = *attr;
        int fd = (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
        if (fd < 0) {
            *last_err = errno;
            continue; /* offline since we read the list */
        }
        fds[cpu] = fd;
        struct bpf_link *l = bpf_program__attach_perf_event(prog, fd);
        if (!l) {
            *last_err = errno;
            continue;
        }
        links[cpu] = l;
        attached++;
        /* libbpf enabled it.  If this fails it samples from now on: a few
         * early ms, no harm. */
        (void)ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    }
    free(on);
    return attached;
}
