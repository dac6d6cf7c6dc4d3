/* Symbolizer tests: parsers on fixture text, kallsyms fixtures and the real
 * kallsyms, the test binary's own functions (PIE, DWARF, inline frames),
 * libc, a child symtest with a shared library linked at a non-zero base, a
 * deleted binary, a separate debug file found by build-id, perf JIT maps
 * (hostile names, symlink, foreign owner, FIFO, oversize), exited pids and
 * corrupt ELF files. */
#include "harness.h"
#include "../../src/symbolize/sym_guard.h"
#include "../../src/symbolize/sym_parse.h"
#include "../../src/symbolize/symbolize.h"
#include "../../src/util/hostfs.h"
#include "../../src/util/strbuf.h"
#include <errno.h>
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = s ? strlen(s) : 0, b = strlen(suffix);
    return s && a >= b && strcmp(s + a - b, suffix) == 0;
}

/* ---- parsers ------------------------------------------------------------ */

TEST(sym_parse_maps_fixture)
{
    struct strbuf sb = STRBUF_INIT;
    hostfs_set_root(fixtures_dir());
    REQUIRE(hostfs_read("/symbolize/maps-sleep", &sb, 0) == 0);
    hostfs_set_root(NULL);
    struct sym_map *m = NULL;
    bool trunc = true;
    size_t n = sym_parse_maps(sb_str(&sb), SYM_MAX_MAPS, &m, &trunc);
    CHECK_NUM(n, 37, 0);
    CHECK(!trunc);
    REQUIRE(n == 37);
    CHECK_NUM(m[1].start, 0x55788b152000ull, 0);
    CHECK_NUM(m[1].end, 0x55788b157000ull, 0);
    CHECK_STR(m[1].perms, "r-xp");
    CHECK_NUM(m[1].offset, 0x2000, 0);
    CHECK_NUM(m[1].dev_major, 0xfe, 0);
    CHECK_NUM(m[1].inode, 248056, 0);
    CHECK_STR(m[1].path, "/usr/bin/sleep");
    CHECK(sym_map_is_file(&m[1]));
    CHECK_STR(m[5].path, "[heap]");
    CHECK(!sym_map_is_file(&m[5]));
    CHECK_STR(m[13].path, "");
    CHECK_STR(m[n - 1].path, "[vsyscall]");
    /* the kernel's mappings, where no perf map is looked for */
    CHECK(sym_map_is_kernel_special(&m[n - 1]));
    size_t vdso = 0;
    for (size_t i = 0; i < n; i++)
        vdso = strcmp(m[i].path, "[vdso]") == 0 ? i : vdso;
    CHECK(vdso > 0 && sym_map_is_kernel_special(&m[vdso]));
    CHECK(!sym_map_is_kernel_special(&m[5]));  /* [heap] */
    CHECK(!sym_map_is_kernel_special(&m[13])); /* anonymous: a JIT's */
    CHECK(!sym_map_is_kernel_special(&m[1]));  /* a file */
    sym_maps_free(m, n);
    trunc = false;
    n = sym_parse_maps(sb_str(&sb), 3, &m, &trunc);
    CHECK_NUM(n, 3, 0);
    CHECK(trunc);
    sym_maps_free(m, n);
    sb_free(&sb);
}

TEST(sym_parse_maps_odd_lines)
{
    const char *text = "7f0000002000-7f0000003000 r-xp 00001000 fe:01 77 /tmp/dir with space/lib odd.so (deleted)\n"
                       "garbage\n"
                       "7f0000001000-7f0000001000 r-xp 00000000 00:00 0 \n"  /* empty range */
                       "1000-2000 r-xp 00000000 00:00 0\n"
                       "7f0000005000-7f0000006000 r-xp 00000000 00:05 9 /memfd:jit (deleted)\n";
    struct sym_map *m = NULL;
    bool trunc;
    size_t n = sym_parse_maps(text, 100, &m, &trunc);
    REQUIRE(n == 3);
    CHECK_NUM(m[0].start, 0x1000, 0); /* sorted */
    CHECK_STR(m[0].path, "");
    CHECK_STR(m[1].path, "/tmp/dir with space/lib odd.so");
    CHECK(m[1].deleted);
    CHECK_NUM(m[1].dev_minor, 1, 0);
    CHECK_STR(m[2].path, "/memfd:jit");
    CHECK(m[2].deleted && sym_map_is_file(&m[2]));
    sym_maps_free(m, n);
}

TEST(sym_parse_perf_map_hostile)
{
    char text[] = "1000 100 <script>alert(1)</script>\n"
                  "0x1100 0x80 ]]>cdata&amp;\n"
                  "zzzz 10 bad\n"
                  "2000 0 zero-size\n"
                  "1000 10 newer at same start\r\n"
                  "3000 10\n";
    struct jit_sym *j = NULL;
    size_t n = sym_parse_perf_map(text, &j);
    REQUIRE(n == 3);
    long i = sym_perf_map_find(j, n, 0x1005);
    REQUIRE(i >= 0);
    CHECK_STR(j[i].name, "newer at same start"); /* later line wins */
    i = sym_perf_map_find(j, n, 0x1050);
    REQUIRE(i >= 0);
    CHECK_STR(j[i].name, "<script>alert(1)</script>");
    i = sym_perf_map_find(j, n, 0x1150);
    REQUIRE(i >= 0);
    CHECK_STR(j[i].name, "]]>cdata&amp;");
    CHECK(sym_perf_map_find(j, n, 0x1180) < 0);
    CHECK(sym_perf_map_find(j, n, 0x10) < 0);
    free(j);
}

/* ---- kernel ------------------------------------------------------------- */

TEST(sym_kernel_fixture)
{
    char root[PATH_MAX];
    snprintf(root, sizeof root, "%s", fixture("symbolize/kallsyms"));
    hostfs_set_root(root);
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f;
    CHECK_NUM(sym_kernel(s, 0xffffffff821fb620ull, &f), 0, 0);
    CHECK_STR(f.name, "schedule");
    CHECK_STR(f.module, "[kernel]");
    CHECK(f.kind == FRAME_KERNEL);
    CHECK_NUM(f.offset, 0, 0);
    CHECK_NUM(sym_kernel(s, 0xffffffff821fb6a0ull, &f), 0, 0);
    CHECK_STR(f.name, "schedule");
    CHECK_NUM(f.offset, 0x80, 0);
    sym_kernel(s, 0xffffffff821fa700ull, &f);
    CHECK_STR(f.name, "__schedule");
    sym_kernel(s, 0xffffffff81000010ull, &f); /* aliases: fewest underscores */
    CHECK_STR(f.name, "srso_alias_untrain_ret");
    CHECK_NUM(sym_kernel(s, 0xffffffffc0a02010ull, &f), 0, 0);
    CHECK_STR(f.name, "ext4_fill_super");
    CHECK_STR(f.module, "[ext4]");
    CHECK_NUM(f.offset, 0x10, 0);
    CHECK_NUM(sym_kernel(s, 0xffffffffc0a03004ull, &f), 0, 0);
    CHECK_STR(f.name, "ext4_sync_fs");
    /* data symbols and addresses below every symbol are not named */
    CHECK_NUM(sym_kernel(s, 0xffffffffc0a04010ull, &f), 1, 0);
    CHECK_STR(f.name, "[unknown]");
    CHECK(f.kind == FRAME_KERNEL);
    CHECK_NUM(sym_kernel(s, 0xffffffff82400010ull, &f), 1, 0);
    CHECK_NUM(sym_kernel(s, 0x1000, &f), 1, 0);
    struct sym_stats st;
    sym_stats(s, &st);
    CHECK_NUM(st.kernel_symbols, 15, 0);
    CHECK_NUM(st.kernel_resolved, 6, 0);
    CHECK_NUM(st.kernel_unresolved, 3, 0);
    CHECK(st.kernel_note == NULL);
    symbolizer_free(s);
}

/* Text already in address order (as the kernel writes it) is not sorted
 * again, so aliases stay in file order: the lookup still names an address
 * by the best alias, whatever its line. */
TEST(sym_kallsyms_sorted_text_best_alias)
{
    char text[] = "ffffffff81000000 D __data_start\n"
                  "ffffffff81000000 t __local_alias\n"
                  "ffffffff81000000 T _stext\n"
                  "ffffffff81000000 T startup_64\n"
                  "ffffffff81000100 t helper\n"
                  "ffffffff81000200 d some_table\n"
                  "ffffffff81000300 T __pfx_last\n"
                  "ffffffff81000300 T last_fn\n";
    struct ksym *k = NULL;
    bool zero = true;
    size_t n = sym_parse_kallsyms(text, &k, &zero);
    CHECK_NUM(n, 8, 0);
    CHECK(!zero);
    /* file order kept: the first line is still first */
    CHECK_STR(k[0].name, "__data_start");
    long i = sym_kallsyms_find(k, n, 0xffffffff81000010ull);
    CHECK(i >= 0);
    if (i >= 0)
        CHECK_STR(k[i].name, "startup_64"); /* text, global, no underscore */
    i = sym_kallsyms_find(k, n, 0xffffffff81000300ull);
    CHECK(i >= 0);
    if (i >= 0)
        CHECK_STR(k[i].name, "last_fn");
    i = sym_kallsyms_find(k, n, 0xffffffff81000108ull);
    CHECK(i >= 0);
    if (i >= 0)
        CHECK_STR(k[i].name, "helper");
    CHECK_NUM(sym_kallsyms_find(k, n, 0xffffffff81000210ull), -1, 0); /* data */
    CHECK_NUM(sym_kallsyms_find(k, n, 0xffffffff80000000ull), -1, 0);
    free(k);
}

/* The kernel's own symbols come in order, those of modules and BPF
 * programs after them in any order: the tail is sorted and merged, even
 * where it reaches below the ordered part. */
TEST(sym_kallsyms_unordered_tail_merged)
{
    char text[] = "ffffffff81000000 T _stext\n"
                  "ffffffff81000100 t helper\n"
                  "ffffffff81000300 T last_fn\n"
                  "ffffffffa0002000 t bpf_prog_2_b\t[bpf]\n"
                  "ffffffffa0001000 t bpf_prog_1_a\t[bpf]\n"
                  "ffffffff81000200 t mod_fn\t[mod]\n"
                  "ffffffff81000100 T helper_alias\t[mod]\n";
    struct ksym *k = NULL;
    bool zero = true;
    size_t n = sym_parse_kallsyms(text, &k, &zero);
    CHECK_NUM(n, 7, 0);
    for (size_t i = 1; i < n; i++)
        CHECK(k[i - 1].addr <= k[i].addr);
    const char *want[] = {"_stext", NULL, NULL, "mod_fn", "last_fn", "bpf_prog_1_a", "bpf_prog_2_b"};
    for (size_t i = 0; i < n; i++)
        if (want[i])
            CHECK_STR(k[i].name, want[i]);
    long i = sym_kallsyms_find(k, n, 0xffffffff81000208ull);
    CHECK(i >= 0);
    if (i >= 0) {
        CHECK_STR(k[i].name, "mod_fn");
        CHECK_STR(k[i].module, "[mod]");
    }
    i = sym_kallsyms_find(k, n, 0xffffffffa0001010ull);
    CHECK(i >= 0);
    if (i >= 0)
        CHECK_STR(k[i].name, "bpf_prog_1_a");
    i = sym_kallsyms_find(k, n, 0xffffffff81000110ull); /* aliases: the global one */
    CHECK(i >= 0);
    if (i >= 0)
        CHECK_STR(k[i].name, "helper_alias");
    free(k);
}

TEST(sym_kernel_hidden_addresses)
{
    char root[PATH_MAX];
    snprintf(root, sizeof root, "%s", fixture("symbolize/kallsyms-hidden"));
    hostfs_set_root(root);
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f;
    CHECK_NUM(sym_kernel(s, 0xffffffff821fb620ull, &f), 1, 0);
    CHECK_STR(f.name, "[kernel]");
    CHECK(f.kind == FRAME_KERNEL);
    CHECK_NUM(sym_kernel(s, 0, &f), 1, 0);
    CHECK_STR(f.name, "[kernel]");
    struct sym_stats st;
    sym_stats(s, &st);
    CHECK_CONTAINS(st.kernel_note, "kptr_restrict");
    CHECK_NUM(st.kernel_unresolved, 2, 0);
    symbolizer_free(s);
    /* no kallsyms at all */
    hostfs_set_root(fixture("symbolize"));
    s = symbolizer_new();
    CHECK_NUM(sym_kernel(s, 0xffffffff821fb620ull, &f), 1, 0);
    CHECK_STR(f.name, "[kernel]");
    sym_stats(s, &st);
    CHECK_CONTAINS(st.kernel_note, "cannot read /proc/kallsyms");
    symbolizer_free(s);
}

TEST(sym_kernel_real_schedule)
{
    struct strbuf sb = STRBUF_INIT;
    if (geteuid() != 0 || hostfs_read("/proc/kallsyms", &sb, 64u << 20) != 0) {
        sb_free(&sb);
        test_skip("needs root and /proc/kallsyms");
        return;
    }
    const char *hit = strstr(sb_str(&sb), " T schedule\n");
    uint64_t addr = 0;
    if (hit && hit - sb_str(&sb) >= 16)
        addr = strtoull(hit - 16, NULL, 16);
    sb_free(&sb);
    if (!addr) {
        test_skip("kallsyms addresses hidden");
        return;
    }
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f;
    CHECK_NUM(sym_kernel(s, addr, &f), 0, 0);
    CHECK_STR(f.name, "schedule");
    CHECK_NUM(sym_kernel(s, addr + 7, &f), 0, 0);
    CHECK_STR(f.name, "schedule");
    CHECK_NUM(f.offset, 7, 0);
    CHECK_STR(f.module, "[kernel]");
    symbolizer_free(s);
}

/* ---- the test binary itself -------------------------------------------- */

static volatile unsigned long g_sink;
static int g_inline_line, g_call_line;

static const int self_leaf_line = __LINE__ + 1;
__attribute__((noinline, noclone)) int symtest_self_leaf(int x) { g_sink += (unsigned)x; return (int)g_sink; }

__attribute__((noinline, noclone)) static void *self_where(void) { return __builtin_return_address(0); }

static inline __attribute__((always_inline)) void *self_inlined(int x)
{
    g_sink += (unsigned)x;
    void *r = self_where(); g_inline_line = __LINE__;
    g_sink += 1;
    return r;
}

__attribute__((noinline, noclone)) void *symtest_self_outer(int x)
{
    void *r = self_inlined(x); g_call_line = __LINE__;
    g_sink += 2;
    return r;
}

TEST(sym_user_self_function)
{
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f, inl[4];
    size_t ni = 99;
    uint64_t a = (uint64_t)(uintptr_t)&symtest_self_leaf;
    CHECK_NUM(sym_user(s, getpid(), a, &f, inl, 4, &ni), 0, 0);
    CHECK_STR(f.name, "symtest_self_leaf");
    CHECK(f.kind == FRAME_USER);
    CHECK_STR(f.module, "unit-tests");
    CHECK_NUM(f.offset, 0, 0);
    CHECK(ends_with(f.file, "tests/unit/test_symbolize.c"));
    CHECK_NUM(f.line, self_leaf_line, 0);
    CHECK_NUM(ni, 0, 0);
    CHECK_NUM(sym_user(s, getpid(), a + 3, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "symtest_self_leaf");
    CHECK_NUM(f.offset, 3, 0);
    struct sym_stats st;
    sym_stats(s, &st);
    CHECK_NUM(st.binaries_read, 1, 0);
    CHECK_NUM(st.addr_cache_hits, 0, 0);
    CHECK_NUM(sym_user(s, getpid(), a, &f, NULL, 0, NULL), 0, 0);
    sym_stats(s, &st);
    CHECK_NUM(st.binaries_read, 1, 0); /* read once */
    CHECK_NUM(st.addr_cache_hits, 1, 0);
    CHECK_NUM(st.pids_read, 1, 0);
    symbolizer_free(s);
}

/* The build-id of the running program from its loaded PT_NOTE segments
 * (dl_iterate_phdr, not libelf), in hex. */
static int self_build_id_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    char *hex = data;
    if (info->dlpi_name && info->dlpi_name[0])
        return 0; /* the main program has an empty name */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const unsigned char *n = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        const unsigned char *end = n + ph->p_memsz;
        while (n + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)n;
            const unsigned char *name = n + sizeof *nh;
            const unsigned char *desc = name + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
                desc + nh->n_descsz <= end && nh->n_descsz <= 64) {
                for (size_t k = 0; k < nh->n_descsz; k++)
                    snprintf(hex + 2 * k, 3, "%02x", desc[k]);
                return 1;
            }
            n = desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return 0;
}

TEST(sym_user_mapping_and_build_id)
{
    char want[129] = "";
    dl_iterate_phdr(self_build_id_cb, want);
    char *ret = symtest_self_outer(1);
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f, inl[4];
    size_t ni = 0;
    uint64_t a = (uint64_t)(uintptr_t)(ret - 1);
    CHECK_NUM(sym_user(s, getpid(), a, &f, inl, 4, &ni), 0, 0);
    REQUIRE(f.mapping != NULL);
    CHECK_NUM(f.addr, a, 0);
    CHECK(f.mapping->start <= a && a < f.mapping->end);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    REQUIRE(n > 0);
    exe[n] = '\0';
    CHECK_STR(f.mapping->path, exe);
    if (*want)
        CHECK_STR(f.mapping->build_id ? f.mapping->build_id : "(none)", want);
    else
        CHECK(f.mapping->build_id == NULL);
    /* the inline frame is at the same address, in the same mapping */
    REQUIRE(ni == 1);
    CHECK(inl[0].mapping == f.mapping && inl[0].addr == a);
    /* a second lookup in the mapping: the same record */
    const struct sym_mapping *m = f.mapping;
    CHECK_NUM(sym_user(s, getpid(), a + 1, &f, NULL, 0, NULL), 0, 0);
    CHECK(f.mapping == m);
    /* nothing mapped there: no mapping */
    CHECK_NUM(sym_user(s, getpid(), 0x10, &f, NULL, 0, NULL), 1, 0);
    CHECK(f.mapping == NULL && f.addr == 0);
    symbolizer_free(s);
}

/* By name only: the same symbol, no DWARF read for it (no file, line or
 * inline frames); the full lookup of the same address afterwards still gets
 * them from the cached entry. */
TEST(sym_user_name_skips_dwarf_then_full_lookup_adds_it)
{
    char *ret = symtest_self_outer(1);
    uint64_t a = (uint64_t)(uintptr_t)(ret - 1);
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f, inl[4];
    size_t ni = 0;
    CHECK_NUM(sym_user_name(s, getpid(), a, &f), 0, 0);
    CHECK_STR(f.name, "symtest_self_outer");
    CHECK(f.file == NULL && f.line == 0);
    CHECK_NUM(sym_user(s, getpid(), a, &f, inl, 4, &ni), 0, 0);
    CHECK_STR(f.name, "symtest_self_outer");
    CHECK_NUM(f.line, g_call_line, 0);
    REQUIRE(ni == 1);
    CHECK_STR(inl[0].name, "self_inlined");
    struct sym_stats st;
    sym_stats(s, &st);
    CHECK_NUM(st.addr_cache_hits, 1, 0);
    /* and by name again: the looked-up entry serves it as it is */
    CHECK_NUM(sym_user_name(s, getpid(), a, &f), 0, 0);
    CHECK_STR(f.name, "symtest_self_outer");
    symbolizer_free(s);
}

TEST(sym_user_self_inline)
{
    char *ret = symtest_self_outer(1);
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f, inl[4];
    size_t ni = 0;
    CHECK_NUM(sym_user(s, getpid(), (uint64_t)(uintptr_t)(ret - 1), &f, inl, 4, &ni), 0, 0);
    CHECK_STR(f.name, "symtest_self_outer");
    CHECK_NUM(f.line, g_call_line, 0);
    CHECK(ends_with(f.file, "test_symbolize.c"));
    REQUIRE(ni == 1);
    CHECK_STR(inl[0].name, "self_inlined");
    CHECK(inl[0].kind == FRAME_INLINE);
    CHECK_NUM(inl[0].line, g_inline_line, 0);
    CHECK(ends_with(inl[0].file, "test_symbolize.c"));
    CHECK_STR(inl[0].module, "unit-tests");
    /* room for none: the outer frame is still right */
    CHECK_NUM(sym_user(s, getpid(), (uint64_t)(uintptr_t)(ret - 1), &f, NULL, 0, &ni), 0, 0);
    CHECK_NUM(ni, 0, 0);
    CHECK_STR(f.name, "symtest_self_outer");
    symbolizer_free(s);
}

TEST(sym_user_libc)
{
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f;
    pid_t (*volatile fn)(void) = getpid;
    uint64_t a = (uint64_t)(uintptr_t)fn;
    CHECK_NUM(sym_user(s, getpid(), a, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "getpid"); /* preferred over its alias __getpid */
    CHECK_STR(f.module, "libc.so.6");
    CHECK(f.kind == FRAME_USER);
    CHECK_NUM(sym_user(s, getpid(), a + 2, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "getpid");
    CHECK_NUM(f.offset, 2, 0);
    void *(*volatile m)(size_t) = malloc;
    if (sym_user(s, getpid(), (uint64_t)(uintptr_t)m, &f, NULL, 0, NULL) == 0 &&
        strcmp(f.module, "libc.so.6") == 0)
        CHECK_STR(f.name, "malloc");
    symbolizer_free(s);
}

TEST(sym_user_unknown_addresses)
{
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f;
    CHECK_NUM(sym_user(s, getpid(), 0x10, &f, NULL, 0, NULL), 1, 0);
    CHECK_STR(f.name, "[unknown]");
    CHECK(f.kind == FRAME_UNKNOWN);
    CHECK_NUM(sym_user(s, getpid(), 0x10, NULL, NULL, 0, NULL), -EINVAL, 0);
    symbolizer_free(s);

    /* a file mapping that is not ELF: module+offset */
    char path[64];
    snprintf(path, sizeof path, "/tmp/symtest-notelf-%d.txt", (int)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    REQUIRE(fd >= 0);
    char buf[8192];
    memset(buf, 'x', sizeof buf);
    CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
    void *p = mmap(NULL, sizeof buf, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    REQUIRE(p != MAP_FAILED);
    s = symbolizer_new();
    CHECK_NUM(sym_user(s, getpid(), (uint64_t)(uintptr_t)p + 0x1234, &f, NULL, 0, NULL), 1, 0);
    char want[128];
    snprintf(want, sizeof want, "symtest-notelf-%d.txt+0x1234", (int)getpid());
    CHECK_STR(f.name, want);
    *strstr(want, "+0x") = '\0';
    CHECK_STR(f.module, want);
    CHECK(f.kind == FRAME_USER);
    struct sym_stats st;
    sym_stats(s, &st);
    CHECK_NUM(st.binaries_failed, 1, 0);
    CHECK_NUM(st.user_unresolved, 1, 0);
    symbolizer_free(s);
    munmap(p, sizeof buf);
    unlink(path);
}

TEST(sym_user_exited_pid)
{
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0)
        _exit(0);
    waitpid(child, NULL, 0);
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f;
    CHECK_NUM(sym_user(s, child, 0x401000, &f, NULL, 0, NULL), 1, 0);
    char want[64];
    snprintf(want, sizeof want, "[pid %d exited]", (int)child);
    CHECK_STR(f.name, want);
    CHECK(f.kind == FRAME_UNKNOWN);
    CHECK_NUM(sym_user(s, child, 0x401008, &f, NULL, 0, NULL), 1, 0);
    CHECK_STR(f.name, want);
    struct sym_stats st;
    sym_stats(s, &st);
    CHECK_NUM(st.pids_gone, 1, 0);
    CHECK_NUM(st.user_unresolved, 2, 0);
    /* the whole stack's label by comm: the same for every process of that
     * name, and none for a pid never looked up or still alive */
    CHECK_STR(sym_exited_label(s, child, "make"), "[make exited]");
    CHECK(sym_exited_label(s, child, "make") == sym_exited_label(s, child, "make"));
    CHECK(sym_exited_label(s, child, "") == NULL);
    CHECK(sym_exited_label(s, getpid(), "self") == NULL);
    CHECK_NUM(sym_user(s, getpid(), (uint64_t)(uintptr_t)&symbolizer_new, &f, NULL, 0, NULL), 0, 0);
    CHECK(sym_exited_label(s, getpid(), "self") == NULL);
    symbolizer_free(s);
}

/* ---- a child symtest ------------------------------------------------------ */

struct child {
    pid_t pid;
    int to, from; /* its stdin (we write), its stdout (we read) */
    uint64_t leaf, inl_site, lib_fn;
    int leaf_line, inl_line, call_line, lib_line;
};

static const char *workload(const char *name)
{
    static char buf[PATH_MAX];
    const char *top = getenv("PERFREPORT_TOP");
    snprintf(buf, sizeof buf, "%s/build/workloads/%s", top ? top : ".", name);
    return buf;
}

/* Starts exe [lib] and reads its report up to "ready". */
static int child_start(struct child *c, const char *exe, const char *lib)
{
    memset(c, 0, sizeof *c);
    int in[2], out[2];
    if (pipe(in) || pipe(out))
        return -1;
    c->pid = fork();
    if (c->pid < 0)
        return -1;
    if (c->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execl(exe, exe, lib, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    c->to = in[1];
    c->from = out[0];
    char text[1024] = ""; /* strstr() looks at it before the first read */
    size_t len = 0;
    while (len < sizeof text - 1 && !strstr(text, "ready\n")) {
        ssize_t r = read(c->from, text + len, sizeof text - 1 - len);
        if (r <= 0)
            return -1;
        len += (size_t)r;
        text[len] = '\0';
    }
    const char *l;
    if ((l = strstr(text, "sym_leaf ")))
        sscanf(l, "sym_leaf %" SCNx64 " %d", &c->leaf, &c->leaf_line);
    if ((l = strstr(text, "inline_site ")))
        sscanf(l, "inline_site %" SCNx64 " %d %d", &c->inl_site, &c->inl_line, &c->call_line);
    if ((l = strstr(text, "symlib_fn ")))
        sscanf(l, "symlib_fn %" SCNx64 " %d", &c->lib_fn, &c->lib_line);
    return c->leaf ? 0 : -1;
}

static void child_stop(struct child *c)
{
    if (c->pid <= 0)
        return;
    close(c->to);
    close(c->from);
    waitpid(c->pid, NULL, 0);
    c->pid = 0;
}

static int count_fds(void)
{
    DIR *d = hostfs_opendir("/proc/self/fd");
    int n = 0;
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static bool have_workloads(void)
{
    char lib[PATH_MAX];
    snprintf(lib, sizeof lib, "%s", workload("libsymtest.so"));
    if (access(workload("symtest"), X_OK) != 0 || access(lib, R_OK) != 0) {
        test_skip("build/workloads/symtest or libsymtest.so missing (make workloads)");
        return false;
    }
    return true;
}

TEST(sym_user_child_pie_and_shared_lib)
{
    if (!have_workloads())
        return;
    char exe[PATH_MAX], lib[PATH_MAX];
    snprintf(exe, sizeof exe, "%s", workload("symtest"));
    REQUIRE(realpath(workload("libsymtest.so"), lib) != NULL);
    struct child c;
    REQUIRE(child_start(&c, exe, lib) == 0);
    int fds = count_fds();
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f, inl[4];
    size_t ni = 0;
    CHECK_NUM(sym_user(s, c.pid, c.leaf, &f, inl, 4, &ni), 0, 0);
    CHECK_STR(f.name, "sym_leaf");
    CHECK_STR(f.module, "symtest");
    CHECK(ends_with(f.file, "tests/workloads/symtest.c"));
    CHECK_NUM(f.line, c.leaf_line, 0);
    CHECK_NUM(sym_user(s, c.pid, c.inl_site, &f, inl, 4, &ni), 0, 0);
    CHECK_STR(f.name, "sym_outer");
    CHECK_NUM(f.line, c.call_line, 0);
    REQUIRE(ni == 1);
    CHECK_STR(inl[0].name, "sym_inlined");
    CHECK(inl[0].kind == FRAME_INLINE);
    CHECK_NUM(inl[0].line, c.inl_line, 0);
    /* the library is linked at 0x40000: vaddr != file offset */
    REQUIRE(c.lib_fn != 0);
    CHECK_NUM(sym_user(s, c.pid, c.lib_fn + 1, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "symlib_fn");
    CHECK_STR(f.module, "libsymtest.so");
    CHECK_NUM(f.offset, 1, 0);
    CHECK(ends_with(f.file, "tests/workloads/libsymtest.c"));
    CHECK_NUM(f.line, c.lib_line, 0);
    /* same binaries through another pid: served from the cache */
    struct child c2;
    REQUIRE(child_start(&c2, exe, lib) == 0);
    struct sym_stats st0, st1;
    sym_stats(s, &st0);
    CHECK_NUM(sym_user(s, c2.pid, c2.lib_fn, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "symlib_fn");
    CHECK_NUM(sym_user(s, c2.pid, c2.leaf, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "sym_leaf");
    sym_stats(s, &st1);
    CHECK_NUM(st1.binaries_read, st0.binaries_read, 0);
    CHECK_NUM(st1.cache_hits, st0.cache_hits + 2, 0);
    child_stop(&c2);
    symbolizer_free(s);
    CHECK_NUM(count_fds(), fds, 0); /* binaries kept open for DWARF are closed */
    child_stop(&c);
}

static int copy_file(const char *from, const char *to, mode_t mode)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    int rc = in >= 0 && out >= 0 ? 0 : -1;
    char buf[65536];
    ssize_t r;
    while (rc == 0 && (r = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)r) != r)
            rc = -1;
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0)
        rc = -1;
    return rc;
}

TEST(sym_user_deleted_binary)
{
    if (!have_workloads())
        return;
    char tmp[64];
    snprintf(tmp, sizeof tmp, "/tmp/symtest-deleted-%d", (int)getpid());
    REQUIRE(copy_file(workload("symtest"), tmp, 0755) == 0);
    struct child c;
    int rc = child_start(&c, tmp, NULL);
    unlink(tmp);
    REQUIRE(rc == 0);
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f;
    CHECK_NUM(sym_user(s, c.pid, c.leaf, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "sym_leaf");
    CHECK_STR(f.module, tmp + 5);
    CHECK_NUM(f.line, c.leaf_line, 0);
    child_stop(&c);
    symbolizer_free(s);
}

/* A fully stripped copy finds symbols and lines in DIR/.build-id/xx/yy.debug. */
/* DIR (a new directory named after tag) holds symtest's debug file under
 * .build-id (objcopy --only-keep-debug with extra_args) and DIR/stripped,
 * symtest without any symbols.  0, or -1 when objcopy/readelf are missing
 * (the test is skipped then). */
static int debug_dir_setup(char *dir, size_t n, const char *tag, const char *extra_args)
{
    if (system("command -v objcopy >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1") != 0) {
        test_skip("objcopy/readelf missing");
        return -1;
    }
    char cmd[4 * PATH_MAX + 1024];
    snprintf(dir, n, "/tmp/symtest-%s-%d", tag, (int)getpid());
    snprintf(cmd, sizeof cmd,
             "set -e; d=%s; rm -rf $d; mkdir -p $d; "
             "id=$(readelf -n %s | sed -n 's/.*Build ID: *//p'); "
             "mkdir -p $d/.build-id/$(echo $id | cut -c1-2); "
             "head -c 16777216 /dev/zero > $d/zeros; "
             "objcopy --only-keep-debug %s %s "
             "$d/.build-id/$(echo $id | cut -c1-2)/$(echo $id | cut -c3-).debug; "
             "objcopy --strip-all %s $d/stripped",
             dir, workload("symtest"), extra_args, workload("symtest"), workload("symtest"));
    return system(cmd) == 0 ? 0 : -2;
}

TEST(sym_user_debug_file_by_build_id)
{
    if (!have_workloads())
        return;
    char dir[64], cmd[128];
    int setup = debug_dir_setup(dir, sizeof dir, "dbg", "");
    if (setup == -1)
        return;
    REQUIRE(setup == 0);
    char exe[128];
    snprintf(exe, sizeof exe, "%s/stripped", dir);
    struct child c;
    REQUIRE(child_start(&c, exe, NULL) == 0);
    /* without the debug dir: only .dynsym, which does not name sym_leaf */
    struct symbolizer *s = symbolizer_new();
    symbolizer_set_debug_dir(s, "/nonexistent");
    struct sym_frame f, inl[2];
    size_t ni;
    CHECK_NUM(sym_user(s, c.pid, c.leaf, &f, NULL, 0, NULL), 1, 0);
    CHECK_CONTAINS(f.name, "stripped+0x");
    symbolizer_free(s);
    s = symbolizer_new();
    symbolizer_set_debug_dir(s, dir);
    CHECK_NUM(sym_user(s, c.pid, c.leaf, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "sym_leaf");
    CHECK_STR(f.module, "stripped");
    CHECK_NUM(f.line, c.leaf_line, 0);
    CHECK_NUM(sym_user(s, c.pid, c.inl_site, &f, inl, 2, &ni), 0, 0);
    CHECK_STR(f.name, "sym_outer");
    CHECK_NUM(ni, 1, 0);
    struct sym_stats st;
    sym_stats(s, &st);
    CHECK_NUM(st.debug_files_read, 1, 0);
    CHECK_NUM(st.debug_dwarf_skipped, 0, 0);
    symbolizer_free(s);
    /* separate DWARF off (a run without a target): the debug file still
     * names the function; no line, no inline frame, and a note says why */
    s = symbolizer_new();
    symbolizer_set_debug_dir(s, dir);
    symbolizer_set_separate_dwarf(s, false);
    CHECK_NUM(sym_user(s, c.pid, c.leaf, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "sym_leaf");
    CHECK_NUM(f.line, 0, 0);
    ni = 7;
    CHECK_NUM(sym_user(s, c.pid, c.inl_site, &f, inl, 2, &ni), 0, 0);
    CHECK_STR(f.name, "sym_outer");
    CHECK_NUM(ni, 0, 0);
    sym_stats(s, &st);
    CHECK_NUM(st.debug_files_read, 1, 0);
    CHECK_NUM(st.debug_dwarf_skipped, 1, 0);
    REQUIRE(st.nnotes >= 1);
    CHECK_CONTAINS(st.notes[st.nnotes - 1], "only in a run with a target");
    symbolizer_free(s);
    child_stop(&c);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* Sections the symbolizer does not use (location lists, macros, frames)
 * are neither inflated nor charged: a debug file with 16 MiB of compressed
 * .debug_loc still fits a 1 MiB budget, and its lines and inline frames
 * still resolve with those sections hidden from libdw. */
static long vm_rss_kib(void)
{
    FILE *fp = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (fp && fgets(line, sizeof line, fp))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1)
            break;
    if (fp)
        fclose(fp);
    return kib;
}

TEST(sym_user_debug_unused_sections_not_inflated)
{
    if (!have_workloads())
        return;
    char dir[64], cmd[256];
    int setup = debug_dir_setup(dir, sizeof dir, "trim", "--add-section .debug_loc=$d/zeros "
                                                         "--compress-debug-sections=zlib");
    if (setup == -1)
        return;
    REQUIRE(setup == 0);
    snprintf(cmd, sizeof cmd, "readelf -S %s/.build-id/*/*.debug | grep -q debug_loc", dir);
    REQUIRE(system(cmd) == 0);
    char exe[128];
    snprintf(exe, sizeof exe, "%s/stripped", dir);
    struct child c;
    REQUIRE(child_start(&c, exe, NULL) == 0);
    sym_budget_set_limit(SYM_POOL_DEBUG, 1u << 20);
    struct symbolizer *s = symbolizer_new();
    symbolizer_set_debug_dir(s, dir);
    struct sym_frame f, inl[2];
    size_t ni;
    long rss0 = vm_rss_kib();
    CHECK_NUM(sym_user(s, c.pid, c.leaf, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "sym_leaf");
    CHECK_NUM(f.line, c.leaf_line, 0);
    CHECK_NUM(sym_user(s, c.pid, c.inl_site, &f, inl, 2, &ni), 0, 0);
    CHECK_STR(f.name, "sym_outer");
    CHECK_NUM(ni, 1, 0);
    /* inflated, the 16 MiB of zeros would be resident */
    CHECK(vm_rss_kib() - rss0 < 8192);
    CHECK(sym_budget_used(SYM_POOL_DEBUG) > 0);
    CHECK(sym_budget_used(SYM_POOL_DEBUG) < (1u << 20));
    struct sym_stats st;
    sym_stats(s, &st);
    CHECK_NUM(st.debug_over_budget, 0, 0);
    symbolizer_free(s);
    sym_budget_set_limit(SYM_POOL_DEBUG, 0);
    child_stop(&c);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
}

/* ---- perf JIT maps ------------------------------------------------------- */

static void perf_map_path(char *buf, size_t n)
{
    snprintf(buf, n, "/tmp/perf-%d.map", (int)getpid());
}

TEST(sym_user_jit_map)
{
    size_t len = 3 * 4096;
    char *code = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(code != MAP_FAILED);
    uint64_t base = (uint64_t)(uintptr_t)code;
    char path[64];
    perf_map_path(path, sizeof path);
    FILE *fp = fopen(path, "w");
    REQUIRE(fp != NULL);
    fprintf(fp, "%" PRIx64 " 100 <script>alert(1)</script>\n", base);
    fprintf(fp, "0x%" PRIx64 " 0x80 ]]>cdata\n", base + 0x100);
    fprintf(fp, "not a perf map line\n");
    fprintf(fp, "%" PRIx64 " 10 LazyCompile:~foo /app/x.js:1\n", base + 0x1000);
    fclose(fp);
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f;
    CHECK_NUM(sym_user(s, getpid(), base + 0x10, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "<script>alert(1)</script>");
    CHECK(f.kind == FRAME_JIT);
    CHECK_STR(f.module, "[jit]");
    CHECK_NUM(f.offset, 0x10, 0);
    CHECK_NUM(sym_user(s, getpid(), base + 0x17f, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "]]>cdata");
    CHECK_NUM(sym_user(s, getpid(), base + 0x1005, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "LazyCompile:~foo /app/x.js:1");
    CHECK_NUM(sym_user(s, getpid(), base + 0x2000, &f, NULL, 0, NULL), 1, 0);
    CHECK_STR(f.name, "[unknown]");
    struct sym_stats st;
    sym_stats(s, &st);
    CHECK_NUM(st.jit_maps_read, 1, 0);
    CHECK_NUM(st.jit_resolved, 3, 0);
    CHECK(st.jit_last_refusal == NULL);
    symbolizer_free(s);
    unlink(path);
    munmap(code, len);
}

/* Resolves an address with a fresh symbolizer; returns stats and the name. */
static void jit_try(uint64_t addr, struct sym_stats *st, struct sym_frame *f)
{
    struct symbolizer *s = symbolizer_new();
    sym_user(s, getpid(), addr, f, NULL, 0, NULL);
    sym_stats(s, st);
    /* copy what the caller reads: the symbolizer owns the strings */
    static char last[256], name[256];
    snprintf(last, sizeof last, "%s", st->jit_last_refusal ? st->jit_last_refusal : "");
    snprintf(name, sizeof name, "%s", f->name);
    st->jit_last_refusal = last;
    st->kernel_note = NULL;
    f->name = name;
    f->module = f->file = NULL;
    symbolizer_free(s);
}

TEST(sym_user_jit_map_refused)
{
    char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(code != MAP_FAILED);
    uint64_t base = (uint64_t)(uintptr_t)code;
    char path[64], real[80];
    perf_map_path(path, sizeof path);
    snprintf(real, sizeof real, "%s.real", path);
    FILE *fp = fopen(real, "w");
    REQUIRE(fp != NULL);
    fprintf(fp, "%" PRIx64 " 1000 planted\n", base);
    fclose(fp);
    struct sym_stats st;
    struct sym_frame f;

    unlink(path);
    REQUIRE(symlink(real, path) == 0);
    jit_try(base + 4, &st, &f);
    CHECK_STR(f.name, "[unknown]");
    CHECK_NUM(st.jit_refused_symlink, 1, 0);
    CHECK_NUM(st.jit_maps_read, 0, 0);
    CHECK_CONTAINS(st.jit_last_refusal, "symlink");
    unlink(path);

    REQUIRE(mkfifo(path, 0600) == 0);
    jit_try(base + 4, &st, &f);
    CHECK_STR(f.name, "[unknown]");
    CHECK_NUM(st.jit_refused_not_regular, 1, 0);
    unlink(path);

    REQUIRE(rename(real, path) == 0);
    REQUIRE(truncate(path, (off_t)SYM_MAX_PERF_MAP + 1) == 0); /* sparse, > 16 MiB */
    jit_try(base + 4, &st, &f);
    CHECK_STR(f.name, "[unknown]");
    CHECK_NUM(st.jit_refused_too_large, 1, 0);
    fp = fopen(path, "w");
    REQUIRE(fp != NULL);
    fprintf(fp, "%" PRIx64 " 1000 planted\n", base);
    fclose(fp);
    jit_try(base + 4, &st, &f); /* sanity: the same file, ours, is accepted */
    CHECK_STR(f.name, "planted");

    if (geteuid() == 0) {
        REQUIRE(chown(path, 65534, 65534) == 0);
        jit_try(base + 4, &st, &f);
        CHECK_STR(f.name, "[unknown]");
        CHECK_NUM(st.jit_refused_owner, 1, 0);
        CHECK_CONTAINS(st.jit_last_refusal, "owned by another user");
    }
    unlink(path);
    munmap(code, 4096);
}

/* ---- corrupt ELF --------------------------------------------------------- */

/* File offset of a function in our own executable. */
static int self_file_offset(uint64_t addr, uint64_t *off, char *exe, size_t exe_n)
{
    struct strbuf sb = STRBUF_INIT;
    int rc = hostfs_read("/proc/self/maps", &sb, 0);
    struct sym_map *m = NULL;
    bool trunc;
    size_t n = rc ? 0 : sym_parse_maps(sb_str(&sb), SYM_MAX_MAPS, &m, &trunc);
    rc = -1;
    for (size_t i = 0; i < n; i++)
        if (addr >= m[i].start && addr < m[i].end && sym_map_is_file(&m[i])) {
            *off = addr - m[i].start + m[i].offset;
            snprintf(exe, exe_n, "%s", m[i].path);
            rc = 0;
        }
    sym_maps_free(m, n);
    sb_free(&sb);
    return rc;
}

/* Maps file (PROT_READ, offset 0) and symbolizes a few addresses in it with a
 * fresh symbolizer; the first frame is returned in *f (name copied). */
static void symbolize_mapped(const char *file, size_t map_len, uint64_t off, char *name, size_t name_n)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    void *p = mmap(NULL, map_len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return;
    uint64_t base = (uint64_t)(uintptr_t)p;
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f, inl[8];
    size_t ni;
    name[0] = '\0';
    if (sym_user(s, getpid(), base + off, &f, inl, 8, &ni) >= 0)
        snprintf(name, name_n, "%s", f.name);
    for (uint64_t o = 0; o < map_len; o += map_len / 7 + 1)
        sym_user(s, getpid(), base + o, &f, inl, 8, &ni);
    symbolizer_free(s);
    munmap(p, map_len);
}

TEST(sym_user_corrupt_elf_never_crashes)
{
    uint64_t off = 0;
    char exe[PATH_MAX];
    REQUIRE(self_file_offset((uint64_t)(uintptr_t)&symtest_self_leaf, &off, exe, sizeof exe) == 0);
    int fd = open(exe, O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    struct stat st;
    REQUIRE(fstat(fd, &st) == 0);
    size_t len = (size_t)st.st_size;
    unsigned char *orig = malloc(len);
    REQUIRE(orig != NULL);
    REQUIRE(pread(fd, orig, len, 0) == (ssize_t)len);
    close(fd);
    char tmp[64], name[256];
    snprintf(tmp, sizeof tmp, "/tmp/symtest-corrupt-%d", (int)getpid());

    /* intact copy: resolves like the original */
    FILE *fp = fopen(tmp, "w");
    REQUIRE(fp && fwrite(orig, 1, len, fp) == len && fclose(fp) == 0);
    symbolize_mapped(tmp, len, off, name, sizeof name);
    CHECK_STR(name, "symtest_self_leaf");

    /* truncated at several offsets (headers, program headers, text, symtab, DWARF) */
    size_t cuts[] = {0, 3, 16, 63, 64, 200, 4096, len / 8, len / 3, len / 2, len * 2 / 3, len - 4096, len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        fp = fopen(tmp, "w");
        REQUIRE(fp && fwrite(orig, 1, cuts[i], fp) == cuts[i] && fclose(fp) == 0);
        symbolize_mapped(tmp, len, off, name, sizeof name);
        CHECK(name[0] != '\0');
    }

    /* byte flips: headers, section headers (at the end) and random places */
    unsigned char *bad = malloc(len);
    REQUIRE(bad != NULL);
    unsigned seed = 12345;
    const char *env = getenv("SYM_FUZZ_ROUNDS"); /* more for a longer soak */
    int rounds = env ? atoi(env) : 24;
    for (int round = 0; round < rounds; round++) {
        memcpy(bad, orig, len);
        for (int k = 0; k < 48; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t pos;
            if (round % 3 == 0)
                pos = (seed >> 8) % 256;              /* ELF and program headers */
            else if (round % 3 == 1)
                pos = len - 1 - (seed >> 8) % 8192;   /* section headers, symtab tail */
            else
                pos = (seed >> 4) % len;
            bad[pos] ^= (unsigned char)(1u << ((seed >> 20) & 7)) | (unsigned char)(seed >> 24);
        }
        fp = fopen(tmp, "w");
        REQUIRE(fp && fwrite(bad, 1, len, fp) == len && fclose(fp) == 0);
        symbolize_mapped(tmp, len, off, name, sizeof name);
        CHECK(name[0] != '\0');
    }
    free(bad);
    free(orig);
    unlink(tmp);
}

/* ---- performance --------------------------------------------------------- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

TEST(sym_user_performance_warm_cache)
{
    /* 10,000 addresses spread over our text and libc's */
    struct strbuf sb = STRBUF_INIT;
    REQUIRE(hostfs_read("/proc/self/maps", &sb, 0) == 0);
    struct sym_map *m = NULL;
    bool trunc;
    size_t n = sym_parse_maps(sb_str(&sb), SYM_MAX_MAPS, &m, &trunc);
    sb_free(&sb);
    enum { N = 10000 };
    uint64_t *addrs = malloc(N * sizeof *addrs);
    REQUIRE(addrs != NULL);
    size_t na = 0;
    unsigned seed = 7;
    for (size_t i = 0; i < n && na < N; i++) {
        if (strcmp(m[i].perms, "r-xp") != 0 || !sym_map_is_file(&m[i]))
            continue;
        if (!ends_with(m[i].path, "/libc.so.6") && !ends_with(m[i].path, "unit-tests"))
            continue;
        for (int k = 0; k < N / 2 && na < N; k++) {
            seed = seed * 1103515245u + 12345u;
            addrs[na++] = m[i].start + (seed >> 4) % (m[i].end - m[i].start);
        }
    }
    sym_maps_free(m, n);
    REQUIRE(na >= N / 2);
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f, inl[8];
    size_t ni, named = 0;
    double t0 = now_ms();
    for (size_t i = 0; i < na; i++)
        named += sym_user(s, getpid(), addrs[i], &f, inl, 8, &ni) == 0;
    double t1 = now_ms();
    for (size_t i = 0; i < na; i++)
        sym_user(s, getpid(), addrs[i], &f, inl, 8, &ni);
    double t2 = now_ms();
    printf("  perf: %zu addresses (%zu named): cold %.1f ms, warm %.2f ms (%.0f ns/address)\n", na,
           named, t1 - t0, t2 - t1, (t2 - t1) * 1e6 / (double)na);
    CHECK(named > na / 2);
    CHECK(t2 - t1 < 100.0); /* milliseconds once warm, even under ASan */
    symbolizer_free(s);
    free(addrs);
}

/* ---- budgets, filesystems, deadlines ------------------------------------ */

TEST(sym_parse_mountinfo_fstype)
{
    const char *t =
        "22 1 252:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
        "25 22 0:22 / /proc rw,nosuid shared:12 - proc proc rw\n"
        "bad line\n"
        "98 22 0:38 / /tmp rw,nosuid,nodev - fuse.sshfs me@host:/x rw,user_id=0\n"
        "99 22 0:39 / /mnt/a\\040b rw master:3 - nfs4 srv:/e rw\n";
    char fs[64];
    CHECK(sym_mountinfo_fstype(t, 252, 1, fs, sizeof fs));
    CHECK_STR(fs, "ext4");
    CHECK(sym_mountinfo_fstype(t, 0, 38, fs, sizeof fs));
    CHECK_STR(fs, "fuse.sshfs");
    CHECK(sym_mountinfo_fstype(t, 0, 39, fs, sizeof fs));
    CHECK_STR(fs, "nfs4");
    CHECK(!sym_mountinfo_fstype(t, 0, 40, fs, sizeof fs));
    CHECK(!sym_mountinfo_fstype(t, 0, 38, fs, 4)); /* does not fit */
    CHECK(sym_fs_of_name("fuse.sshfs") == SYM_FS_REMOTE);
    CHECK(sym_fs_of_name("nfs4") == SYM_FS_REMOTE);
    CHECK(sym_fs_of_name("ext4") == SYM_FS_LOCAL);
    CHECK(sym_fs_of_name("proc") == SYM_FS_PSEUDO);
    CHECK(sym_fs_of_magic(0x9fa0) == SYM_FS_PSEUDO);            /* proc */
    CHECK(sym_fs_of_magic(0x65735546) == SYM_FS_REMOTE);        /* fuse */
    CHECK(sym_fs_of_magic((int64_t)0xEF53) == SYM_FS_LOCAL);    /* ext4 */
    CHECK(sym_fs_of_magic((int64_t)0x01021994) == SYM_FS_LOCAL); /* tmpfs */
    /* the question the DNS and allocation probes ask of a libc's device */
    CHECK(sym_dev_is_remote(t, 0, 38, fs, sizeof fs));
    CHECK_STR(fs, "fuse.sshfs");
    CHECK(sym_dev_is_remote(t, 0, 39, fs, sizeof fs));
    CHECK(!sym_dev_is_remote(t, 252, 1, fs, sizeof fs));
    CHECK(!sym_dev_is_remote(t, 0, 40, fs, sizeof fs)); /* not listed: opened */
    CHECK(!sym_dev_is_remote(NULL, 0, 38, fs, sizeof fs));
}

static void child_writes(void *arg, int fd)
{
    const char *msg = arg;
    (void)!write(fd, msg, strlen(msg));
}

static void child_hangs(void *arg, int fd)
{
    (void)arg;
    (void)fd;
    pause();
}

TEST(sym_run_bounded_deadline)
{
    char *out = NULL;
    long n = sym_run_bounded(child_writes, "hello there", sizeof "hello there", 5, 2000, 0, 0, &out);
    CHECK_NUM(n, 6, 0); /* cut at cap + 1 so that the caller sees there was more */
    CHECK(out && strcmp(out, "hello ") == 0);
    free(out);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    n = sym_run_bounded(child_hangs, NULL, 0, 16, 200, 0, 0, &out);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
    CHECK_NUM(n, -ETIMEDOUT, 0);
    CHECK(out == NULL);
    CHECK(ms >= 190 && ms < 1500);
    /* the stuck server was left behind: the next job gets a new one */
    n = sym_run_bounded(child_writes, "again", sizeof "again", 64, 2000, 0, 0, &out);
    CHECK_NUM(n, 5, 0);
    CHECK(out && strcmp(out, "again") == 0);
    free(out);
}

/* A server that dies mid-job (OOM-killed, or crashed on a hostile file):
 * its output is cut, and must not pass for a whole result. */
static void child_dies_writing(void *arg, int fd)
{
    (void)arg;
    (void)!write(fd, "partial", 7);
    kill(getpid(), SIGKILL);
}

TEST(sym_run_bounded_server_death_is_an_error)
{
    char *out = NULL;
    long n = sym_run_bounded(child_dies_writing, NULL, 0, 64, 2000, 0, 0, &out);
    CHECK_NUM(n, -EIO, 0);
    CHECK(out == NULL);
    n = sym_run_bounded(child_writes, "after", sizeof "after", 64, 2000, 0, 0, &out);
    CHECK_NUM(n, 5, 0);
    CHECK(out && strcmp(out, "after") == 0);
    free(out);
}

static void child_says_pid(void *arg, int fd)
{
    (void)arg;
    pid_t pid = getpid();
    (void)!write(fd, &pid, sizeof pid);
}

/* Jobs run in one server forked once (not a fork per job), never in us, and
 * the server holds none of our descriptors (a lock or bundle directory kept
 * open by a stuck server would outlive the run). */
TEST(sym_run_bounded_one_server)
{
    int nul = open("/dev/null", O_RDONLY);
    int marker = fcntl(nul, F_DUPFD, 100); /* an fd of ours, not CLOEXEC */
    close(nul);
    CHECK(marker >= 100);
    CHECK_NUM(sym_bounded_start(), 0, 0);
    /* a job that misses its deadline: the server forked before marker was
     * opened is left behind, the next job forks one while marker is open */
    char *stuck = NULL;
    CHECK_NUM(sym_run_bounded(child_hangs, NULL, 0, 16, 50, 0, 0, &stuck), -ETIMEDOUT, 0);
    pid_t pids[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        char *out = NULL;
        long n = sym_run_bounded(child_says_pid, NULL, 0, 64, 2000, 0, 0, &out);
        CHECK_NUM(n, (long)sizeof(pid_t), 0);
        if (out && n == (long)sizeof(pid_t))
            memcpy(&pids[i], out, sizeof(pid_t));
        free(out);
    }
    CHECK(pids[0] > 0 && pids[0] != getpid());
    /* a stall key: the job that times out marks it, the next with the same
     * key does not wait out its deadline again */
    CHECK_NUM(sym_run_bounded(child_hangs, NULL, 0, 16, 50, 'T', 77, &stuck), -ETIMEDOUT, 0);
    CHECK(sym_is_stalled('T', 77));
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    CHECK_NUM(sym_run_bounded(child_hangs, NULL, 0, 16, 2000, 'T', 77, &stuck), -ETIMEDOUT, 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    CHECK((double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6 < 100);
    CHECK(pids[1] == pids[0] && pids[2] == pids[0]);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pids[0], marker);
    struct stat st;
    CHECK(stat(path, &st) != 0 && errno == ENOENT);
    close(marker);
}

/* With the debug budget below what the test binary's DWARF costs, its
 * functions keep their symbol-table names, lose file:line, and a note names
 * the binary and why. */
TEST(sym_user_debug_over_budget)
{
    sym_budget_set_limit(SYM_POOL_DEBUG, 4096);
    struct symbolizer *s = symbolizer_new();
    struct sym_frame f;
    uint64_t a = (uint64_t)(uintptr_t)&symtest_self_leaf;
    CHECK_NUM(sym_user(s, getpid(), a, &f, NULL, 0, NULL), 0, 0);
    CHECK_STR(f.name, "symtest_self_leaf");
    CHECK(f.file == NULL);
    struct sym_stats st;
    sym_stats(s, &st);
    CHECK_NUM(st.debug_over_budget, 1, 0);
    bool named = false;
    for (size_t i = 0; i < st.nnotes; i++)
        named |= strstr(st.notes[i], "unit-tests: debug data ") &&
                 strstr(st.notes[i], "over the 4 KiB budget: symbol names only");
    CHECK(named);
    symbolizer_free(s);
    sym_budget_set_limit(SYM_POOL_DEBUG, 0);
    CHECK_NUM(sym_budget_used(SYM_POOL_DEBUG), 0, 0); /* all given back */
    CHECK_NUM(sym_budget_used(SYM_POOL_SYMS), 0, 0);
    /* with the default budget file:line is back */
    s = symbolizer_new();
    CHECK_NUM(sym_user(s, getpid(), a, &f, NULL, 0, NULL), 0, 0);
    CHECK(ends_with(f.file, "tests/unit/test_symbolize.c"));
    symbolizer_free(s);
}

/* Perf maps share one budget: a map whose text and entries do not fit in
 * what is left is refused whole, with a note naming it. */
TEST(sym_user_jit_map_budget)
{
    char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(code != MAP_FAILED);
    uint64_t base = (uint64_t)(uintptr_t)code;
    char path[64];
    perf_map_path(path, sizeof path);
    FILE *fp = fopen(path, "w");
    REQUIRE(fp != NULL);
    fprintf(fp, "%" PRIx64 " 1000 kept_in_budget\n", base);
    for (int i = 0; i < 2000; i++) /* ~50 KiB of text, 2000 entries */
        fprintf(fp, "%x 10 filler_%d\n", 0x100000 + 16 * i, i);
    fclose(fp);
    sym_budget_set_limit(SYM_POOL_JIT, 64 << 10); /* text fits, entries do not */
    struct sym_stats st;
    struct sym_frame f;
    jit_try(base + 4, &st, &f);
    CHECK_STR(f.name, "[unknown]");
    CHECK_NUM(st.jit_refused_budget, 1, 0);
    CHECK_CONTAINS(st.jit_last_refusal, "of the 64 KiB perf map budget");
    sym_budget_set_limit(SYM_POOL_JIT, 32 << 10); /* the text does not fit */
    jit_try(base + 4, &st, &f);
    CHECK_STR(f.name, "[unknown]");
    CHECK_NUM(st.jit_refused_budget, 1, 0);
    sym_budget_set_limit(SYM_POOL_JIT, 0);
    jit_try(base + 4, &st, &f);
    CHECK_STR(f.name, "kept_in_budget");
    CHECK_NUM(sym_budget_used(SYM_POOL_JIT), 0, 0);
    unlink(path);
    munmap(code, 4096);
}
