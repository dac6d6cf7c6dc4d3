/* kbpf: the tp_btf hook questions answered from the kernel BTF's string
 * section must give libbpf's answer (a typedef named "btf_trace_<tp>")
 * for every hook of the running kernel. */
#include "harness.h"
#include "../../src/kbpf/kbpf.h"
#include "../../src/kbpf/sampled.h"
#include "../../src/util/xalloc.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TEST(kbpf_tp_btf_hooks_match_libbpf)
{
    if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
        test_skip("no /sys/kernel/btf/vmlinux on this kernel");
        return;
    }
    struct btf *btf = btf__load_vmlinux_btf();
    REQUIRE(btf);
    size_t hooks = 0, agree = 0;
    const char *first_wrong = NULL;
    for (unsigned id = 1; id < btf__type_cnt(btf); id++) {
        const struct btf_type *t = btf__type_by_id(btf, id);
        if (!btf_is_typedef(t))
            continue;
        const char *name = btf__name_by_offset(btf, t->name_off);
        if (!name || strncmp(name, "btf_trace_", 10) != 0)
            continue;
        hooks++;
        if (kbpf_has_tp_btf(name + 10))
            agree++;
        else if (!first_wrong)
            first_wrong = name;
    }
    CHECK(hooks > 100); /* a real kernel has hundreds of tracepoints */
    if (agree != hooks)
        test_fail(__FILE__, __LINE__, "%zu of %zu hooks not found, first %s", hooks - agree,
                  hooks, first_wrong);
    /* names that are not hooks: a prefix of one, one with a suffix, empty */
    CHECK(!kbpf_has_tp_btf("sched_switc"));
    CHECK(!kbpf_has_tp_btf("sched_switch_"));
    CHECK(!kbpf_has_tp_btf(""));
    CHECK(kbpf_has_tp_btf("sched_switch"));
    kbpf_release_vmlinux_btf();
    /* after a release the answers are read again */
    CHECK(kbpf_has_tp_btf("sched_wakeup"));
    kbpf_release_vmlinux_btf();
    btf__free(btf);
}

/* A hash map of 64 u32 -> u64 entries, or -1 with the test skipped. */
static int u32_u64_map(const char *name)
{
    if (running_on_valgrind()) { /* bpf() attributes: see test_stacks.c */
        test_skip("bpf() maps under valgrind");
        return -1;
    }
    if (geteuid() != 0) {
        test_skip("needs root to create a BPF map");
        return -1;
    }
    LIBBPF_OPTS(bpf_map_create_opts, o);
    int fd = bpf_map_create(BPF_MAP_TYPE_HASH, name, sizeof(uint32_t), sizeof(uint64_t), 64, &o);
    if (fd < 0)
        test_skip("bpf_map_create failed");
    return fd;
}

/* kbpf_walk_next visits every entry of a map once with its value, whatever
 * the body does to its key, or every key once without a value buffer; an
 * empty map and a key larger than a walk holds give nothing. */
TEST(kbpf_walk_visits_every_entry_once)
{
    int fd = u32_u64_map("walk_test");
    if (fd < 0)
        return;
    uint32_t key;
    uint64_t val;
    struct kbpf_walk w = KBPF_WALK_INIT(fd);
    CHECK(!kbpf_walk_next(&w, &key, sizeof key, &val));
    enum { N = 40 };
    for (uint32_t k = 1; k <= N; k++) {
        uint64_t v = (uint64_t)k * 1000;
        REQUIRE(bpf_map_update_elem(fd, &k, &v, BPF_ANY) == 0);
    }
    unsigned seen[N + 1] = {0}, n = 0;
    w = KBPF_WALK_INIT(fd);
    while (kbpf_walk_next(&w, &key, sizeof key, &val)) {
        REQUIRE(n < N); /* a walk that restarts never ends */
        REQUIRE(key >= 1 && key <= N);
        CHECK(val == (uint64_t)key * 1000);
        seen[key]++;
        n++;
        key = 0; /* the walk goes on from its own copy */
    }
    CHECK(n == N);
    for (unsigned k = 1; k <= N; k++)
        CHECK(seen[k] == 1);
    /* the keys alone (no value buffer): each once */
    memset(seen, 0, sizeof seen);
    n = 0;
    w = KBPF_WALK_INIT(fd);
    while (kbpf_walk_next(&w, &key, sizeof key, NULL)) {
        REQUIRE(n < N && key >= 1 && key <= N);
        seen[key]++;
        n++;
    }
    CHECK(n == N);
    for (unsigned k = 1; k <= N; k++)
        CHECK(seen[k] == 1);
    unsigned char big[KBPF_WALK_MAX_KEY + 1];
    w = KBPF_WALK_INIT(fd);
    CHECK(!kbpf_walk_next(&w, big, sizeof big, &val));
    close(fd);
}

struct drain_elem {
    uint32_t key;
    uint64_t val;
};

static bool even_row(const void *key, const void *val, void *elem, void *ctx)
{
    unsigned *calls = ctx;
    (*calls)++;
    uint32_t k = *(const uint32_t *)key;
    if (k % 2)
        return false;
    *(struct drain_elem *)elem = (struct drain_elem){k, *(const uint64_t *)val};
    return true;
}

/* kbpf_drain appends every entry row() keeps after what the array holds,
 * each once, with its value; an empty map appends nothing. */
TEST(kbpf_drain_appends_kept_entries)
{
    int fd = u32_u64_map("drain_test");
    if (fd < 0)
        return;
    struct drain_elem *v = NULL;
    size_t n = 0, cap = 0;
    unsigned calls = 0;
    struct kbpf_drain d = {fd, sizeof(uint32_t), sizeof(uint64_t), sizeof *v, even_row, &calls};
    CHECK(kbpf_drain(&d, &v, &n, &cap) == 0 && n == 0 && calls == 0);
    enum { N = 40, PRE = 3 };
    for (uint32_t k = 1; k <= N; k++) {
        uint64_t x = (uint64_t)k * 1000;
        REQUIRE(bpf_map_update_elem(fd, &k, &x, BPF_ANY) == 0);
    }
    for (uint32_t i = 0; i < PRE; i++) {
        xgrow(&v, &cap, n + 1, sizeof *v);
        v[n++] = (struct drain_elem){1000 + i, i};
    }
    CHECK(kbpf_drain(&d, &v, &n, &cap) == N / 2);
    CHECK(calls == N);
    REQUIRE(n == PRE + N / 2);
    for (uint32_t i = 0; i < PRE; i++)
        CHECK(v[i].key == 1000 + i && v[i].val == i);
    unsigned seen[N + 1] = {0};
    for (size_t i = PRE; i < n; i++) {
        REQUIRE(v[i].key >= 1 && v[i].key <= N);
        CHECK(v[i].key % 2 == 0 && v[i].val == (uint64_t)v[i].key * 1000);
        seen[v[i].key]++;
    }
    for (unsigned k = 2; k <= N; k += 2)
        CHECK(seen[k] == 1);
    free(v);
    close(fd);
}

TEST(kbpf_per_thread_entries_follow_the_host)
{
    CHECK_NUM(kbpf_per_thread_entries(215, 2048, 32768), 2048, 0);   /* 1,454 wanted */
    CHECK_NUM(kbpf_per_thread_entries(1500, 2048, 32768), 4096, 0);  /* 4,024 */
    CHECK_NUM(kbpf_per_thread_entries(1600, 2048, 32768), 8192, 0);  /* 4,224 */
    CHECK_NUM(kbpf_per_thread_entries(20000, 2048, 32768), 32768, 0); /* the most */
    CHECK_NUM(kbpf_per_thread_entries(20000, 2048, 10240), 10240, 0); /* not a power of two */
    CHECK_NUM(kbpf_per_thread_entries(-1, 2048, 32768), 32768, 0);    /* unknown */
    CHECK_NUM(kbpf_per_thread_entries(0, 2048, 32768), 32768, 0);
    /* the live host: at least twice its threads */
    long t = kbpf_host_threads();
    CHECK(t > 0);
    if (t > 0)
        CHECK(kbpf_per_thread_entries(t, 2048, 1u << 20) >= 2 * (uint64_t)t);
}

/* The per-CPU sampling skeleton without a program: its tables sized to the
 * possible CPUs with no event open; enabling and disabling nothing are no
 * errors and count nothing; the per-CPU counters of a real map are summed
 * slot by slot, and a slot past the map's end is an error. */
TEST(kbpf_sampled_tables_and_stats)
{
    struct kbpf_sampled s;
    char err[128] = "";
    REQUIRE(kbpf_sampled_init(&s, err, sizeof err) == 0);
    CHECK(s.ncpu == libbpf_num_possible_cpus() && s.attached == 0);
    for (int i = 0; i < s.ncpu; i++)
        CHECK(s.links[i] == NULL && s.fds[i] == -1);
    CHECK(kbpf_sampled_enable(&s, true) == 0);
    CHECK(kbpf_sampled_disable(&s) == 0);
    if (running_on_valgrind() || geteuid() != 0) {
        kbpf_sampled_free(&s);
        test_skip("needs root to create a BPF map (and no valgrind)");
        return;
    }
    LIBBPF_OPTS(bpf_map_create_opts, o);
    int fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "sampled_test", sizeof(uint32_t),
                            sizeof(uint64_t), 3, &o);
    if (fd < 0) {
        kbpf_sampled_free(&s);
        test_skip("bpf_map_create failed");
        return;
    }
    uint64_t *v = xcalloc((size_t)s.ncpu, sizeof *v);
    for (uint32_t k = 0; k < 3; k++) {
        for (int i = 0; i < s.ncpu; i++)
            v[i] = (uint64_t)(k + 1) * 100 + (uint64_t)i;
        REQUIRE(bpf_map_update_elem(fd, &k, v, BPF_ANY) == 0);
    }
    uint64_t out[4] = {0};
    REQUIRE(kbpf_sampled_stats(&s, fd, 3, out) == 0);
    uint64_t idx = (uint64_t)s.ncpu * (uint64_t)(s.ncpu - 1) / 2;
    for (uint32_t k = 0; k < 3; k++)
        CHECK(out[k] == (uint64_t)(k + 1) * 100 * (uint64_t)s.ncpu + idx);
    CHECK(kbpf_sampled_stats(&s, fd, 4, out) < 0);
    free(v);
    close(fd);
    kbpf_sampled_free(&s);
    CHECK(s.links == NULL && s.fds == NULL);
}
