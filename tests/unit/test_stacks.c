/* stack_resolver: a real BPF map standing in for the STACK_TRACE map (user
 * space cannot write STACK_TRACE maps, so a HASH map with the same key and
 * value layout is filled with addresses of this test's own functions and of
 * kernel symbols), resolved to exact names; error ids become the right
 * [missing ...] frames and stats. */
#include "harness.h"
#include "../../src/stacks/stacks.h"
#include "../../src/model/profile.h"
#include "../../src/model/profile_sites.h"
#include "../../src/symbolize/symbolize.h"
#include "../../src/util/hostfs.h"
#include "../../src/util/strbuf.h"
#include <bpf/bpf.h>
#include <linux/types.h>

#include "../../bpf/stackstore.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEPTH 127

volatile unsigned stacktest_sink;
__attribute__((noinline, noclone)) void stacktest_leaf(void)
{
    for (unsigned i = 0; i < 3; i++)
        stacktest_sink += i;
}
__attribute__((noinline, noclone)) void stacktest_middle(void) { stacktest_leaf(); __asm__ volatile(""); }
__attribute__((noinline, noclone)) void stacktest_outer(void) { stacktest_middle(); __asm__ volatile(""); }

static int fake_map(void)
{
    LIBBPF_OPTS(bpf_map_create_opts, o);
    return bpf_map_create(BPF_MAP_TYPE_HASH, "fake_stacks", sizeof(uint32_t),
                          DEPTH * sizeof(uint64_t), 16, &o);
}

static void put(int fd, uint32_t id, const uint64_t *ips, size_t n)
{
    uint64_t v[DEPTH] = {0};
    for (size_t i = 0; i < n && i < DEPTH; i++)
        v[i] = ips[i];
    CHECK(bpf_map_update_elem(fd, &id, v, BPF_ANY) == 0);
}

/* Stack depth below node `leaf` as a ';'-joined string. */
static void path_of(const struct profile *p, uint32_t n, char *out, size_t cap)
{
    const char *names[300];
    size_t d = 0;
    for (; n != PROFILE_ROOT && n != PROFILE_NONE && d < 300; n = p->nodes[n].parent)
        names[d++] = profile_node_name(p, n);
    size_t len = 0;
    out[0] = '\0';
    while (d--)
        len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s", len ? ";" : "",
                                names[d]);
}

struct leafs {
    char s[8][2048];
    uint64_t c[8];
    size_t n;
};
static int collect(void *ctx, const struct profile *p, const uint32_t *path, size_t depth,
                   uint64_t self)
{
    struct leafs *l = ctx;
    if (l->n < 8 && depth) {
        path_of(p, path[depth - 1], l->s[l->n], sizeof l->s[0]);
        l->c[l->n++] = self;
    }
    return 0;
}

static const char *find_stack(struct leafs *l, const char *prefix, uint64_t *count)
{
    for (size_t i = 0; i < l->n; i++)
        if (strncmp(l->s[i], prefix, strlen(prefix)) == 0) {
            *count = l->c[i];
            return l->s[i];
        }
    return NULL;
}

/* A fake stack map for a test, or -1 after saying why the test is skipped:
 * valgrind does not model every bpf() command (it reports the unused tail of
 * the attribute union as uninitialised: false alarms), and a map and the
 * kallsyms addresses need root. */
static int map_or_skip(void)
{
    if (running_on_valgrind()) {
        test_skip("bpf() maps under valgrind");
        return -1;
    }
    if (geteuid() != 0) {
        test_skip("needs root to create a BPF map and read kallsyms addresses");
        return -1;
    }
    int fd = fake_map();
    if (fd < 0)
        test_skip("bpf_map_create failed");
    return fd;
}

/* 0 when a test may create BPF maps, else -1 after saying why not. */
static int map_or_skip_check(void)
{
    int fd = map_or_skip();
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

/* The fake map with stack id 1 = stacktest_leaf <- middle <- outer (their
 * addresses into u), or -1 after a skip.  Leaf-first, as bpf_get_stackid
 * stores them; +1 so that the resolver's addr-1 for callers still lands
 * inside each function. */
static int map_with_known_stack(uint64_t u[3])
{
    int fd = map_or_skip();
    if (fd < 0)
        return -1;
    u[0] = (uint64_t)(uintptr_t)&stacktest_leaf + 1;
    u[1] = (uint64_t)(uintptr_t)&stacktest_middle + 2;
    u[2] = (uint64_t)(uintptr_t)&stacktest_outer + 2;
    put(fd, 1, u, 3);
    return fd;
}

/* A stack store (bpf/stackstore.h): its values end in the stack's hash
 * after the 127 frame slots; the resolver reads the frames only, so a stack
 * that fills every slot is cut there (truncated), not extended by the hash. */
TEST(stacks_resolve_store_values)
{
    if (map_or_skip_check() != 0)
        return;
    LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);
    int fd = bpf_map_create(BPF_MAP_TYPE_HASH, "store", sizeof(uint32_t), sizeof(struct ss_stack),
                            16, &o);
    if (fd < 0) {
        test_skip("bpf_map_create failed");
        return;
    }
    struct ss_stack v;
    memset(&v, 0, sizeof v);
    v.ip[0] = (uint64_t)(uintptr_t)&stacktest_leaf + 1;
    v.ip[1] = (uint64_t)(uintptr_t)&stacktest_middle + 2;
    v.ip[2] = (uint64_t)(uintptr_t)&stacktest_outer + 2;
    v.hash = (uint64_t)(uintptr_t)&stacktest_outer + 2; /* would name a frame if read as one */
    uint32_t id = 7;
    CHECK(bpf_map_update_elem(fd, &id, &v, BPF_ANY) == 0);
    for (size_t i = 0; i < SS_DEPTH; i++)
        v.ip[i] = (uint64_t)(uintptr_t)&stacktest_leaf + 2;
    id = 9;
    CHECK(bpf_map_update_elem(fd, &id, &v, BPF_ANY) == 0);

    struct symbolizer *sym = symbolizer_new();
    struct stack_resolver *sr = stack_resolver_new(sym, fd, STACKS_USER_PER_PID);
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    uint32_t me = (uint32_t)getpid();
    CHECK(stack_resolver_add(sr, p, me, "short", STACK_ID_NONE, 7, 2) == 0);
    CHECK(stack_resolver_add(sr, p, me, "full", STACK_ID_NONE, 9, 1) == 0);
    struct leafs l = {.n = 0};
    profile_walk_stacks(p, collect, &l);
    uint64_t c = 0;
    CHECK_STR(find_stack(&l, "short;", &c), "short;stacktest_outer;stacktest_middle;stacktest_leaf");
    CHECK_NUM(c, 2, 0);
    const char *d = find_stack(&l, "full;", &c);
    CHECK(d && strncmp(d, "full;[truncated];stacktest_leaf;", 32) == 0);
    size_t frames = 0;
    for (const char *q = d; q && (q = strstr(q, "stacktest_")); q++)
        frames++;
    CHECK_NUM(frames, SS_DEPTH, 0);
    struct stack_stats st;
    stack_resolver_stats(sr, &st);
    CHECK_NUM(st.truncated, 1, 0);
    stack_resolver_free(sr);
    profile_free(p);
    symbolizer_free(sym);
    close(fd);
}

TEST(stacks_resolve_fake_map)
{
    uint64_t u[3];
    int fd = map_with_known_stack(u);
    if (fd < 0)
        return;
    uint64_t deep[DEPTH];
    for (size_t i = 0; i < DEPTH; i++)
        deep[i] = (uint64_t)(uintptr_t)&stacktest_leaf + 2;
    put(fd, 3, deep, DEPTH);

    struct symbolizer *sym = symbolizer_new();
    struct stack_resolver *sr = stack_resolver_new(sym, fd, STACKS_USER_PER_PID);
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    uint32_t me = (uint32_t)getpid();
    CHECK(stack_resolver_add(sr, p, me, "tester", STACK_ID_NONE, 1, 5) == 0);
    CHECK(stack_resolver_add(sr, p, me, "tester", STACK_ID_NONE, 1, 2) == 0); /* cached */
    CHECK(stack_resolver_add(sr, p, me, "tester", -EEXIST, -EFAULT, 3) == 0);
    CHECK(stack_resolver_add(sr, p, me, "other", -ENOMEM, 42, 4) == 0); /* 42 not in map */
    CHECK(stack_resolver_add(sr, p, me, "deep", STACK_ID_NONE, 3, 1) == 0);
    CHECK(stack_resolver_add(sr, p, me, "", -E2BIG, STACK_ID_NONE, 1) == 0);
    CHECK(stack_resolver_add(NULL, p, me, "x", 1, 1, 1) == -EINVAL);
    CHECK_NUM(profile_total(p), 16, 0);

    struct leafs l = {.n = 0};
    profile_walk_stacks(p, collect, &l);
    uint64_t c = 0;
    CHECK_STR(find_stack(&l, "tester;stacktest_", &c),
              "tester;stacktest_outer;stacktest_middle;stacktest_leaf");
    CHECK_NUM(c, 7, 0);
    CHECK_STR(find_stack(&l, "tester;[missing", &c),
              "tester;[missing user stack];[missing kernel stack]");
    CHECK_NUM(c, 3, 0);
    CHECK_STR(find_stack(&l, "other", &c), "other;[missing user stack];[missing kernel stack]");
    CHECK_NUM(c, 4, 0);
    CHECK_STR(find_stack(&l, "[unknown]", &c), "[unknown];[missing kernel stack]");
    const char *d = find_stack(&l, "deep;", &c);
    CHECK(d && strncmp(d, "deep;[truncated];stacktest_leaf;", 32) == 0);

    uint32_t proc = profile_child(p, PROFILE_ROOT, "tester", FRAME_PROCESS, false);
    CHECK(proc != PROFILE_NONE);
    uint32_t miss = profile_child(p, proc, "[missing user stack]", FRAME_UNKNOWN, false);
    CHECK(miss != PROFILE_NONE);

    struct stack_stats st;
    stack_resolver_stats(sr, &st);
    CHECK_NUM(st.stacks_read, 3, 0); /* ids 1, 42, 3 */
    CHECK_NUM(st.stacks_cached, 1, 0);
    CHECK_NUM(st.truncated, 1, 0);
    CHECK_NUM(st.missing_user[STACK_MISS_FAULT], 3, 0);
    CHECK_NUM(st.missing_user[STACK_MISS_GONE], 4, 0);
    CHECK_NUM(st.missing_kernel[STACK_MISS_COLLISION], 3, 0);
    CHECK_NUM(st.missing_kernel[STACK_MISS_FULL], 5, 0);
    CHECK_NUM(st.frames_resolved, 3 + DEPTH, 0);
    CHECK_NUM(st.frames_unresolved, 0, 0);
    CHECK_STR(stack_miss_name(STACK_MISS_FULL), "stack map full");

    stack_resolver_free(sr);
    profile_free(p);
    symbolizer_free(sym);
    close(fd);
}

/* The drain's extras for the pprof export: each user frame's node gets its
 * address (the leaf's as sampled, callers' minus one) and its mapping (this
 * binary); each stack the pid, comm and cgroup. */
TEST(stacks_sites_and_labels)
{
    uint64_t u[3];
    int fd = map_with_known_stack(u);
    if (fd < 0)
        return;
    struct symbolizer *sym = symbolizer_new();
    struct stack_resolver *sr = stack_resolver_new(sym, fd, STACKS_USER_PER_PID);
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    uint32_t me = (uint32_t)getpid();
    CHECK_NUM(stack_resolver_prefetch(sr, me, STACK_ID_NONE, 1), 1, 0);
    CHECK(stack_resolver_add(sr, p, me, "tester", STACK_ID_NONE, 1, 5) == 0);
    CHECK(stack_resolver_add(sr, p, me, "tester", STACK_ID_NONE, 1, 2) == 0);
    const char *path[] = {"tester", "stacktest_outer", "stacktest_middle", "stacktest_leaf"};
    uint32_t n_proc = profile_find(p, path, 1), n_mid = profile_find(p, path, 3),
             n_leaf = profile_find(p, path, 4);
    REQUIRE(n_leaf != PROFILE_NONE && n_mid != PROFILE_NONE);
    CHECK(profile_node_site(p, n_proc) == NULL);
    const struct profile_site *ls = profile_node_site(p, n_leaf), *ms = profile_node_site(p, n_mid);
    REQUIRE(ls && ms && p->sites);
    CHECK(ls->mapping && ls->mapping == ms->mapping);
    const struct profile_mapping *m = &p->sites->maps[ls->mapping - 1];
    /* one process: its own range, so the addresses are as sampled */
    CHECK(ls->addr == u[0] && ms->addr == u[1] - 1);
    CHECK(m->start <= u[0] && u[0] < m->limit);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    REQUIRE(n > 0);
    exe[n] = '\0';
    CHECK_STR(profile_str(p, m->path), exe);
    /* no file:line here: perfreport's own stacks (this process) are named
     * without DWARF (stacks.c); tests/e2e/exports.sh checks a workload's */
    /* both adds labelled with the process */
    REQUIRE(p->sites->nstacks == 2 && p->sites->nlabels == 1);
    const struct profile_label *lab = &p->sites->labels[0];
    CHECK(lab->pid == me && lab->tid == 0);
    CHECK_STR(profile_str(p, lab->comm), "tester");
    CHECK(p->sites->stacks[0].node == n_leaf && p->sites->stacks[0].count == 5);
    CHECK(p->sites->stacks[1].node == n_leaf && p->sites->stacks[1].count == 2);
    /* the cgroup: what /proc/self/cgroup says (v2 line "0::PATH") */
    struct strbuf cg = STRBUF_INIT;
    if (hostfs_read("/proc/self/cgroup", &cg, 65536) == 0) {
        const char *v2 = strstr(sb_str(&cg), "0::");
        if (v2 && (v2 == sb_str(&cg) || v2[-1] == '\n')) {
            char want[1024];
            snprintf(want, sizeof want, "%.*s", (int)strcspn(v2 + 3, "\n"), v2 + 3);
            REQUIRE(lab->cgroup != PROFILE_NONE);
            CHECK_STR(profile_str(p, lab->cgroup), want);
        }
    }
    sb_free(&cg);
    stack_resolver_free(sr);
    profile_free(p);
    symbolizer_free(sym);
    close(fd);
}

/* Text addresses of names[] (n of them) from the live kallsyms into out[]; 0
 * for a name not found. */
static void kallsyms_text(const char *const *names, uint64_t *out, size_t n)
{
    struct strbuf sb = STRBUF_INIT;
    hostfs_set_root(NULL);
    memset(out, 0, n * sizeof *out);
    if (hostfs_read("/proc/kallsyms", &sb, 64u << 20) == 0) {
        for (const char *s = sb_str(&sb); s && *s;) {
            unsigned long long a;
            char t, name[128];
            if (sscanf(s, "%llx %c %127s", &a, &t, name) == 3 && (t == 'T' || t == 't'))
                for (size_t i = 0; i < n; i++)
                    if (!out[i] && !strcmp(name, names[i]))
                        out[i] = a;
            const char *nl = strchr(s, '\n');
            s = nl ? nl + 1 : NULL;
        }
    }
    sb_free(&sb);
}

TEST(stacks_kernel_frames)
{
    int fd = map_or_skip();
    if (fd < 0)
        return;
    /* Two kernel functions from the live kallsyms. */
    static const char *const names[] = {"schedule", "do_syscall_64"};
    uint64_t addr[2];
    kallsyms_text(names, addr, 2);
    uint64_t a_sched = addr[0], a_syscall = addr[1];
    if (!a_sched || !a_syscall) {
        test_skip("schedule/do_syscall_64 not in kallsyms");
        close(fd);
        return;
    }
    uint64_t k[2] = {a_sched + 4, a_syscall + 8};
    put(fd, 7, k, 2);
    struct symbolizer *sym = symbolizer_new();
    struct stack_resolver *sr = stack_resolver_new(sym, fd, 0);
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    CHECK(stack_resolver_add(sr, p, 1234, "kthread", 7, STACK_ID_NONE, 9) == 0);
    const char *path[] = {"kthread", "do_syscall_64", "schedule"};
    uint32_t n = profile_find(p, path, 3);
    CHECK(n != PROFILE_NONE);
    if (n != PROFILE_NONE) {
        CHECK_NUM(profile_self(p, n), 9, 0);
        CHECK(profile_node_kind(p, n) == FRAME_KERNEL);
    }
    stack_resolver_free(sr);
    profile_free(p);
    symbolizer_free(sym);
    close(fd);
}

TEST(stacks_tracing_frames_named)
{
    static const char *const tracing[] = {
        "bpf_prog_6deef7357e7b4530_offcpu_switch_btf", "bpf_trace_run4", "bpf_trace_run12",
        "__bpf_trace_sched_switch", "__traceiter_sched_switch", "bpf_get_stackid_raw_tp",
        "bpf_get_stack_raw_tp", "perf_trace_sched_switch"};
    static const char *const others[] = {"__schedule", "schedule", "bpf_map_lookup_elem",
                                         "perf_event_task_tick", "do_syscall_64", "", NULL};
    for (size_t i = 0; i < sizeof tracing / sizeof tracing[0]; i++)
        CHECK(stack_frame_is_tracing(tracing[i]));
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        CHECK(!stack_frame_is_tracing(others[i]));
}

/* An off-CPU stack as a tracepoint program takes it: the tracing frames on
 * its tip are dropped with STACKS_TRIM_TRACING (they would top every stack
 * of the graph), kept without it (an on-CPU sample inside a BPF program is
 * time really spent there); a stack of nothing but tracing keeps its
 * outermost frame. */
TEST(stacks_trim_tracing_tip)
{
    int fd = map_or_skip();
    if (fd < 0)
        return;
    static const char *const names[] = {"bpf_trace_run4", "__traceiter_sched_switch",
                                        "__schedule", "schedule"};
    uint64_t a[4];
    kallsyms_text(names, a, 4);
    if (!a[0] || !a[1] || !a[2] || !a[3]) {
        test_skip("tracing or scheduler functions not in kallsyms");
        close(fd);
        return;
    }
    uint64_t k[4] = {a[0] + 4, a[1] + 8, a[2] + 8, a[3] + 8}; /* leaf first */
    put(fd, 5, k, 4);
    put(fd, 6, k, 2); /* tracing only */
    struct symbolizer *sym = symbolizer_new();
    for (int trim = 0; trim < 2; trim++) {
        struct stack_resolver *sr = stack_resolver_new(sym, fd, trim ? STACKS_TRIM_TRACING : 0);
        struct profile *p = profile_new("offcpu", "Off-CPU time", "us");
        CHECK(stack_resolver_add(sr, p, 1234, "waiter", 5, STACK_ID_NONE, 3) == 0);
        CHECK(stack_resolver_add(sr, p, 1234, "tracer", 6, STACK_ID_NONE, 2) == 0);
        struct leafs l = {.n = 0};
        profile_walk_stacks(p, collect, &l);
        uint64_t c = 0;
        if (trim) {
            CHECK_STR(find_stack(&l, "waiter;", &c), "waiter;schedule;__schedule");
            CHECK_STR(find_stack(&l, "tracer;", &c), "tracer;__traceiter_sched_switch");
        } else {
            CHECK_STR(find_stack(&l, "waiter;", &c),
                      "waiter;schedule;__schedule;__traceiter_sched_switch;bpf_trace_run4");
            CHECK_STR(find_stack(&l, "tracer;", &c),
                      "tracer;__traceiter_sched_switch;bpf_trace_run4");
        }
        stack_resolver_free(sr);
        profile_free(p);
    }
    symbolizer_free(sym);
    close(fd);
}

/* A run of frames that cannot be named is one frame: three unmapped
 * addresses under a named one read "[unknown]" once, so such stacks merge. */
/* Two processes of one program that exited before their stacks were read:
 * one frame named by the comm, so that their stacks merge, instead of one
 * "[pid N exited]" per process. */
TEST(stacks_exited_processes_merge_by_comm)
{
    int fd = map_or_skip();
    if (fd < 0)
        return;
    uint64_t u[3] = {0x401010, 0x401020, 0x401030};
    put(fd, 9, u, 3);
    pid_t kids[2];
    for (int i = 0; i < 2; i++) {
        kids[i] = fork();
        REQUIRE(kids[i] >= 0);
        if (kids[i] == 0)
            _exit(0);
        waitpid(kids[i], NULL, 0);
    }
    struct symbolizer *sym = symbolizer_new();
    struct stack_resolver *sr = stack_resolver_new(sym, fd, STACKS_USER_PER_PID);
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    CHECK(stack_resolver_add(sr, p, (uint32_t)kids[0], "cc1", STACK_ID_NONE, 9, 2) == 0);
    CHECK(stack_resolver_add(sr, p, (uint32_t)kids[1], "cc1", STACK_ID_NONE, 9, 3) == 0);
    CHECK(stack_resolver_add(sr, p, (uint32_t)kids[1], NULL, STACK_ID_NONE, 9, 1) == 0);
    struct leafs l = {.n = 0};
    profile_walk_stacks(p, collect, &l);
    uint64_t c = 0;
    CHECK_STR(find_stack(&l, "cc1;", &c), "cc1;[cc1 exited]");
    CHECK_NUM(c, 5, 0);
    /* without a comm the pid's own label stays */
    char want[64];
    snprintf(want, sizeof want, "[unknown];[pid %d exited]", (int)kids[1]);
    CHECK_STR(find_stack(&l, "[unknown];", &c), want);
    CHECK_NUM(l.n, 2, 0);
    stack_resolver_free(sr);
    profile_free(p);
    symbolizer_free(sym);
    close(fd);
}

TEST(stacks_unnamed_run_is_one_frame)
{
    int fd = map_or_skip();
    if (fd < 0)
        return;
    uint64_t u[4] = {0x10, 0x20, 0x30, (uint64_t)(uintptr_t)&stacktest_leaf + 2};
    put(fd, 8, u, 4);
    struct symbolizer *sym = symbolizer_new();
    struct stack_resolver *sr = stack_resolver_new(sym, fd, STACKS_USER_PER_PID);
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    CHECK(stack_resolver_add(sr, p, (uint32_t)getpid(), "runs", STACK_ID_NONE, 8, 2) == 0);
    struct leafs l = {.n = 0};
    profile_walk_stacks(p, collect, &l);
    uint64_t c = 0;
    CHECK_STR(find_stack(&l, "runs;", &c), "runs;stacktest_leaf;[unknown]");
    CHECK_NUM(c, 2, 0);
    struct stack_stats st;
    stack_resolver_stats(sr, &st);
    CHECK_NUM(st.frames_unresolved, 3, 0);
    stack_resolver_free(sr);
    profile_free(p);
    symbolizer_free(sym);
    close(fd);
}
