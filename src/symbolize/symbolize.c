/* Symbolizer: kallsyms for kernel frames; /proc/PID/maps + libelf symbol
 * tables + libdw line/inline info for user frames; perf JIT maps.
 *
 * Everything a binary contributes is read once per run and cached by device
 * and inode (and build-id, so one library seen through several mount
 * namespaces is read once).  Files are read with pread (ELF_C_READ), never
 * mmap: a hostile owner truncating a binary under us must not SIGBUS us. */
#include "symbolize.h"
#include "sym_parse.h"
#include "sym_guard.h"
#include "demangle.h"
#include "../util/hostfs.h"
#include "../util/mapfile.h"
#include "../util/strbuf.h"
#include "../util/hash.h"
#include "../util/xalloc.h"
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define MAX_PHDRS 512
#define MAX_OPEN_DWARF 256      /* binaries kept open for line lookups (fds) */
#define MAX_ADDR_CACHE 4000000u /* cached per-address results */
#define MAX_INLINE_DEPTH 64     /* DIE nesting walked per address */
#define MAX_DIE_VISITS 200000   /* DIEs visited per address (corrupt DWARF) */
#define MAX_CU_SCAN 100000      /* CUs scanned when .debug_aranges misses */
#define MAX_MAPS_BYTES (64u << 20)
#define MAX_KALLSYMS_BYTES (64u << 20)
#define SIZELESS_REACH 0x10000 /* how far a symbol without size may cover */
#define INIT_PIDNS_INO 4026531836u /* PROC_PID_INIT_INO */

/* ---- small hash map: (a, b) -> size_t ----------------------------------- */

struct pent {
    uint64_t a, b;
    size_t v;
    bool used;
};
struct pmap {
    struct pent *e;
    size_t cap, n;
};

static size_t *pmap_get(const struct pmap *m, uint64_t a, uint64_t b)
{
    if (!m->cap)
        return NULL;
    for (size_t i = hash_pair(a, b) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->e[i].used)
            return NULL;
        if (m->e[i].a == a && m->e[i].b == b)
            return &m->e[i].v;
    }
}

static void pmap_put(struct pmap *m, uint64_t a, uint64_t b, size_t v)
{
    if ((m->n + 1) * 10 > m->cap * 7) {
        struct pmap g = {xcalloc(m->cap ? m->cap * 2 : 64, sizeof *g.e), m->cap ? m->cap * 2 : 64, 0};
        for (size_t i = 0; i < m->cap; i++)
            if (m->e[i].used)
                pmap_put(&g, m->e[i].a, m->e[i].b, m->e[i].v);
        free(m->e);
        *m = g;
    }
    size_t i = hash_pair(a, b) & (m->cap - 1);
    while (m->e[i].used && !(m->e[i].a == a && m->e[i].b == b))
        i = (i + 1) & (m->cap - 1);
    if (!m->e[i].used)
        m->n++;
    m->e[i] = (struct pent){a, b, v, true};
}

/* ---- state -------------------------------------------------------------- */

struct seg {
    uint64_t off, filesz, vaddr;
};

struct bsym {
    uint64_t addr, size;
    uint32_t name; /* offset into bin.strs */
    uint8_t bind;
};

/* Address ranges of a CU's top-level scopes (functions), sorted, so each
 * lookup starts at the right function instead of walking the CU's DIEs. */
struct cu_fn {
    uint64_t lo, hi;
    Dwarf_Off off;
};
struct cu_index {
    struct cu_fn *fns;
    size_t n;
};

struct bin {
    size_t id;
    unsigned char build_id[64];
    size_t build_id_len;
    struct seg *segs;
    size_t nsegs;
    struct bsym *syms;
    size_t nsyms, syms_cap;
    char *strs;
    size_t strs_len, strs_cap;
    bool has_symtab;
    struct cu_index *cus; /* per-CU top-level scope index, built on first use */
    size_t ncus, cus_cap;
    struct pmap cu_idx; /* (CU offset, 0) -> index in cus */
    uint64_t charged_syms, charged_debug; /* taken from SYM_POOL_SYMS / _DEBUG */
    int fd, dbg_fd; /* kept open only while dw needs them */
    Elf *elf, *dbg_elf;
    /* DWARF begins on first need (dwarf_begin_elf inflates every compressed
     * debug section of the file at once, libc6-dbg's included): dw_src is
     * the admitted file it will come from, dw the descriptor once begun. */
    Elf *dw_src;
    bool dw_tried;
    bool dw_skipped; /* counted in debug_dwarf_skipped */
    Dwarf *dw;
};

static bool in_our_mnt_ns(int pid);

struct proc {
    int pid;
    bool gone;
    bool exited;       /* gone because it exited (or is in another pid namespace) */
    bool our_mnt_ns;   /* in our mount namespace when its maps were read */
    const char *label; /* for gone/unreadable pids */
    struct sym_map *maps;
    size_t nmaps;
    struct bin **mbin;    /* per mapping: resolved binary */
    unsigned char *mdone; /* per mapping: lookup attempted */
    const char **mmod;    /* per mapping: interned basename */
    struct sym_mapping **mmapping; /* per mapping: made on first use, owned by the symbolizer */
    bool jit_tried;
    struct jit_sym *jit;
    size_t njit;
    char *jit_text;
    uint64_t jit_charged; /* bytes taken from SYM_POOL_JIT */
    char *mountinfo;      /* /proc/PID/mountinfo, read on first need */
    bool mountinfo_tried;
};

struct inl_ent {
    const char *name, *file;
    int line;
};

struct addr_res {
    const char *name; /* NULL: no symbol */
    uint64_t sym_addr;
    const char *file;
    int line;
    size_t inl_first, n_inl;
    bool dwarf_done; /* file, line and inlines looked up (or none to look up) */
};

struct symbolizer {
    char *debug_dir;
    bool no_separate_dwarf; /* symbolizer_set_separate_dwarf(false) */
    /* interned strings */
    char **istr;
    size_t istr_cap, istr_n;
    /* kernel */
    bool k_loaded, k_hidden;
    char *k_text;
    struct ksym *ksyms;
    size_t nksyms;
    char *kernel_note;
    /* user */
    struct proc **procs;
    size_t nprocs, procs_cap;
    struct pmap pid_idx;
    struct bin **bins;
    size_t nbins, bins_cap;
    struct pmap bin_idx; /* (dev, ino) -> bin index + 1; 0 = failed */
    size_t open_dwarf;
    struct addr_res *res;
    size_t nres, res_cap;
    struct pmap res_idx; /* (bin id, vaddr) -> res index */
    /* (bin id or DM_KERNEL, symbol index) -> the name to show (as
     * uintptr_t): its demangled form, interned, or the raw name when it did
     * not demangle; each mangled symbol goes to the demangler once */
    struct pmap dm_idx;
    struct inl_ent *inls;
    size_t ninls, inls_cap;
    struct sym_mapping **mappings; /* every one handed out, freed at the end */
    size_t nmappings, mappings_cap;
    int init_pidns; /* -1 unknown, 0 no, 1 yes */
    char *jit_last_refusal;
    char *notes[SYM_MAX_NOTES];
    size_t nnotes;
    struct sym_stats st;
};

/* ---- interning ---------------------------------------------------------- */

static const char *intern_n(struct symbolizer *s, const char *str, size_t n)
{
    if ((s->istr_n + 1) * 10 > s->istr_cap * 7) {
        size_t ncap = s->istr_cap ? s->istr_cap * 2 : 256;
        char **ne = xcalloc(ncap, sizeof *ne);
        for (size_t i = 0; i < s->istr_cap; i++) {
            char *e = s->istr[i];
            if (!e)
                continue;
            size_t j = hash_bytes(e, strlen(e)) & (ncap - 1);
            while (ne[j])
                j = (j + 1) & (ncap - 1);
            ne[j] = e;
        }
        free(s->istr);
        s->istr = ne;
        s->istr_cap = ncap;
    }
    size_t j = hash_bytes(str, n) & (s->istr_cap - 1);
    for (; s->istr[j]; j = (j + 1) & (s->istr_cap - 1))
        if (strncmp(s->istr[j], str, n) == 0 && s->istr[j][n] == '\0')
            return s->istr[j];
    s->istr[j] = xstrndup(str, n);
    s->istr_n++;
    return s->istr[j];
}

static const char *intern(struct symbolizer *s, const char *str)
{
    return intern_n(s, str, strlen(str));
}

static const char *internf(struct symbolizer *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static const char *internf(struct symbolizer *s, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return intern(s, buf);
}

/* The name to show for symbol `idx` of bin `bin_id` (DM_KERNEL: kallsyms):
 * demangled when it is a mangled C++ or Rust name, else `raw` itself. */
#define DM_KERNEL UINT64_MAX
static const char *shown_name(struct symbolizer *s, uint64_t bin_id, size_t idx, const char *raw)
{
    if (!sym_is_mangled(raw))
        return raw;
    size_t *hit = pmap_get(&s->dm_idx, bin_id, idx);
    if (hit)
        return (const char *)(uintptr_t)*hit;
    char buf[SYM_DEMANGLE_OUT_MAX + 1];
    const char *name = sym_demangle(raw, buf, sizeof buf) ? intern(s, buf) : raw;
    pmap_put(&s->dm_idx, bin_id, idx, (size_t)(uintptr_t)name);
    return name;
}

/* ---- life cycle --------------------------------------------------------- */

struct symbolizer *symbolizer_new(void)
{
    struct symbolizer *s = xcalloc(1, sizeof *s);
    s->debug_dir = xstrdup("/usr/lib/debug");
    s->init_pidns = -1;
    elf_version(EV_CURRENT);
    return s;
}

void symbolizer_set_separate_dwarf(struct symbolizer *s, bool on)
{
    if (s)
        s->no_separate_dwarf = !on;
}

void symbolizer_set_debug_dir(struct symbolizer *s, const char *dir)
{
    if (!s || !dir)
        return;
    free(s->debug_dir);
    s->debug_dir = xstrdup(dir);
}

static void bin_close_files(struct bin *b)
{
    if (b->dw)
        dwarf_end(b->dw);
    if (b->dbg_elf)
        elf_end(b->dbg_elf);
    if (b->elf)
        elf_end(b->elf);
    if (b->dbg_fd >= 0)
        close(b->dbg_fd);
    if (b->fd >= 0)
        close(b->fd);
    b->dw = NULL;
    b->dw_src = NULL;
    b->elf = b->dbg_elf = NULL;
    b->fd = b->dbg_fd = -1;
}

static void bin_free(struct bin *b)
{
    if (!b)
        return;
    bin_close_files(b);
    sym_budget_put(SYM_POOL_SYMS, b->charged_syms);
    sym_budget_put(SYM_POOL_DEBUG, b->charged_debug);
    for (size_t i = 0; i < b->ncus; i++)
        free(b->cus[i].fns);
    free(b->cus);
    free(b->cu_idx.e);
    free(b->segs);
    free(b->syms);
    free(b->strs);
    free(b);
}

static void proc_free(struct proc *p)
{
    if (!p)
        return;
    sym_maps_free(p->maps, p->nmaps);
    free(p->mbin);
    free(p->mdone);
    free(p->mmod);
    free(p->mmapping);
    free(p->jit);
    free(p->jit_text);
    free(p->mountinfo);
    sym_budget_put(SYM_POOL_JIT, p->jit_charged);
    free(p);
}

void symbolizer_free(struct symbolizer *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nprocs; i++)
        proc_free(s->procs[i]);
    free(s->procs);
    free(s->pid_idx.e);
    for (size_t i = 0; i < s->nbins; i++)
        bin_free(s->bins[i]);
    free(s->bins);
    free(s->bin_idx.e);
    free(s->res);
    free(s->res_idx.e);
    free(s->dm_idx.e);
    free(s->inls);
    for (size_t i = 0; i < s->nmappings; i++)
        free(s->mappings[i]);
    free(s->mappings);
    for (size_t i = 0; i < s->istr_cap; i++)
        free(s->istr[i]);
    free(s->istr);
    free(s->k_text);
    free(s->ksyms);
    free(s->kernel_note);
    free(s->jit_last_refusal);
    for (size_t i = 0; i < s->nnotes; i++)
        free(s->notes[i]);
    free(s->debug_dir);
    free(s);
}

void sym_stats(const struct symbolizer *s, struct sym_stats *out)
{
    if (!out)
        return;
    if (!s) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = s->st;
    out->kernel_note = s->kernel_note;
    out->jit_last_refusal = s->jit_last_refusal;
    out->notes = (const char *const *)s->notes;
    out->nnotes = s->nnotes;
}

/* Records why something was refused, for the collector's ledger. */
static void add_note(struct symbolizer *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(struct symbolizer *s, const char *fmt, ...)
{
    if (s->nnotes >= SYM_MAX_NOTES) {
        s->st.notes_dropped++;
        return;
    }
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    s->notes[s->nnotes++] = xstrdup(buf);
}

/* "1.0 GiB", "20 MiB", "512 KiB", "100 B" */
static const char *fmt_bytes(char *buf, size_t n, uint64_t v)
{
    if (v >= (1ull << 30))
        snprintf(buf, n, "%.1f GiB", (double)v / (double)(1ull << 30));
    else if (v >= (1ull << 20))
        snprintf(buf, n, "%.0f MiB", (double)v / (double)(1ull << 20));
    else if (v >= 1024)
        snprintf(buf, n, "%.0f KiB", (double)v / 1024.0);
    else
        snprintf(buf, n, "%llu B", (unsigned long long)v);
    return buf;
}

/* ---- kernel ------------------------------------------------------------- */

static void load_kallsyms(struct symbolizer *s)
{
    s->k_loaded = true;
    struct strbuf sb = STRBUF_INIT;
    int rc = hostfs_read("/proc/kallsyms", &sb, MAX_KALLSYMS_BYTES);
    if (rc) {
        sb_free(&sb);
        s->k_hidden = true;
        s->kernel_note = xasprintf("cannot read /proc/kallsyms (%s); kernel frames are shown as [kernel]",
                                   strerror(-rc));
        return;
    }
    s->k_text = sb_detach(&sb);
    bool zero = false;
    s->nksyms = sym_parse_kallsyms(s->k_text, &s->ksyms, &zero);
    s->st.kernel_symbols = s->nksyms;
    if (!s->nksyms || zero) {
        s->k_hidden = true;
        s->kernel_note = xstrdup(s->nksyms ? "/proc/kallsyms addresses are hidden (kernel.kptr_restrict or "
                                             "no CAP_SYSLOG); kernel frames are shown as [kernel]"
                                           : "/proc/kallsyms is empty; kernel frames are shown as [kernel]");
    }
}

int sym_kernel(struct symbolizer *s, uint64_t addr, struct sym_frame *out)
{
    if (!s || !out)
        return -EINVAL;
    memset(out, 0, sizeof *out);
    out->kind = FRAME_KERNEL;
    out->offset = addr;
    if (!s->k_loaded)
        load_kallsyms(s);
    if (s->k_hidden) {
        out->name = "[kernel]";
        out->module = "[kernel]";
        s->st.kernel_unresolved++;
        return 1;
    }
    long i = sym_kallsyms_find(s->ksyms, s->nksyms, addr);
    if (i < 0) {
        out->name = "[unknown]";
        s->st.kernel_unresolved++;
        return 1;
    }
    const struct ksym *k = &s->ksyms[i];
    out->name = shown_name(s, DM_KERNEL, (size_t)i, k->name); /* Rust in the kernel: v0 names */
    out->module = k->module ? k->module : "[kernel]";
    out->offset = addr - k->addr;
    s->st.kernel_resolved++;
    return 0;
}

/* ---- processes ---------------------------------------------------------- */

static bool in_init_pidns(struct symbolizer *s)
{
    if (s->init_pidns < 0) {
        char link[64];
        s->init_pidns = 1;
        if (hostfs_readlink("/proc/self/ns/pid", link, sizeof link) > 0) {
            char want[64];
            snprintf(want, sizeof want, "pid:[%u]", INIT_PIDNS_INO);
            s->init_pidns = strcmp(link, want) == 0;
        }
    }
    return s->init_pidns == 1;
}

static struct proc *get_proc(struct symbolizer *s, int pid)
{
    size_t *ix = pmap_get(&s->pid_idx, (uint64_t)(unsigned)pid, 0);
    if (ix)
        return s->procs[*ix];
    struct proc *p = xcalloc(1, sizeof *p);
    p->pid = pid;
    struct strbuf sb = STRBUF_INIT;
    int rc = pid > 0 ? hostfs_readf(&sb, MAX_MAPS_BYTES, "/proc/%d/maps", pid) : -ESRCH;
    if (rc == 0) {
        bool trunc = false;
        p->nmaps = sym_parse_maps(sb_str(&sb), SYM_MAX_MAPS, &p->maps, &trunc);
        if (trunc)
            s->st.maps_truncated++;
        s->st.pids_read++;
    }
    sb_free(&sb);
    if (rc == 0 && p->nmaps) {
        p->our_mnt_ns = in_our_mnt_ns(pid);
        p->mbin = xcalloc(p->nmaps, sizeof *p->mbin);
        p->mdone = xcalloc(p->nmaps, 1);
        p->mmod = xcalloc(p->nmaps, sizeof *p->mmod);
        p->mmapping = xcalloc(p->nmaps, sizeof *p->mmapping);
    } else if (rc == 0 || rc == -ENOENT || rc == -ESRCH) {
        /* No maps (or an empty one: a zombie has released its memory). */
        p->gone = true;
        p->exited = true;
        s->st.pids_gone++;
        p->label = in_init_pidns(s) ? internf(s, "[pid %d exited]", pid)
                                    : internf(s, "[pid %d exited or in another pid namespace]", pid);
    } else {
        p->gone = true;
        p->label = internf(s, "[pid %d unreadable: %s]", pid, strerror(-rc));
    }
    xgrow(&s->procs, &s->procs_cap, s->nprocs + 1, sizeof *s->procs);
    s->procs[s->nprocs] = p;
    pmap_put(&s->pid_idx, (uint64_t)(unsigned)pid, 0, s->nprocs);
    s->nprocs++;
    return p;
}

const char *sym_exited_label(struct symbolizer *s, int pid, const char *comm)
{
    if (!s || !comm || !*comm)
        return NULL;
    size_t *ix = pmap_get(&s->pid_idx, (uint64_t)(unsigned)pid, 0);
    if (!ix || !s->procs[*ix]->exited)
        return NULL;
    /* a comm is at most 15 bytes from the kernel; a longer one is cut */
    return in_init_pidns(s) ? internf(s, "[%.64s exited]", comm)
                            : internf(s, "[%.64s exited or in another pid namespace]", comm);
}

static long find_map(const struct proc *p, uint64_t addr)
{
    size_t lo = 0, hi = p->nmaps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->maps[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr >= p->maps[lo - 1].end)
        return -1;
    return (long)(lo - 1);
}

static const char *map_module(struct symbolizer *s, struct proc *p, size_t mi)
{
    if (!p->mmod[mi]) {
        const char *path = p->maps[mi].path;
        const char *base = strrchr(path, '/');
        p->mmod[mi] = intern(s, base && base[1] ? base + 1 : path);
    }
    return p->mmod[mi];
}

/* ---- opening binaries --------------------------------------------------- */

/* Whether pid shares our mount namespace (the real host only: below --root
 * a path is not the process's). */
static bool in_our_mnt_ns(int pid)
{
    char path[64];
    struct stat a, b;
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", pid);
    return hostfs_is_real() && stat(path, &a) == 0 && stat("/proc/self/ns/mnt", &b) == 0 &&
           a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/* Opens the file behind a mapping: /proc/PID/map_files first (works for
 * deleted or replaced files and other mount namespaces), else the maps path
 * resolved inside /proc/PID/root and never outside it.  The inode must match
 * what maps says, so a replaced file is never read in place of the mapped one. */
static int open_mapping(int pid, bool our_mnt_ns, const struct sym_map *m)
{
    int fd = mapfile_open(pid, m->start, m->end, m->deleted ? NULL : m->path);
    /* A process that has exited since its maps were read (a short command
     * under `perfreport -- CMD`) has neither: in our mount namespace its
     * path names the same file, if device and inode still say so. */
    bool by_path = false;
    if (fd < 0 && !m->deleted && our_mnt_ns && m->path[0] == '/') {
        fd = mapfile_open_path(m->path); /* no symlink: the user may have planted one */
        by_path = true;
    }
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != m->inode ||
        (by_path && (major(st.st_dev) != m->dev_major || minor(st.st_dev) != m->dev_minor))) {
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- reading ELF -------------------------------------------------------- */

static void read_build_id(Elf *elf, struct bin *b)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d)
            continue;
        size_t off = 0, name_off, desc_off;
        GElf_Nhdr nh;
        while (off < d->d_size && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
                nh.n_descsz <= sizeof b->build_id && name_off + 4 <= d->d_size &&
                desc_off + nh.n_descsz <= d->d_size &&
                memcmp((char *)d->d_buf + name_off, "GNU", 4) == 0) {
                memcpy(b->build_id, (char *)d->d_buf + desc_off, nh.n_descsz);
                b->build_id_len = nh.n_descsz;
                return;
            }
        }
    }
}

static void read_segments(Elf *elf, struct bin *b)
{
    size_t n = 0;
    if (elf_getphdrnum(elf, &n) != 0)
        return;
    if (n > MAX_PHDRS)
        n = MAX_PHDRS;
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        xgrow(&b->segs, &cap, b->nsegs + 1, sizeof *b->segs);
        b->segs[b->nsegs++] = (struct seg){ph.p_offset, ph.p_filesz, ph.p_vaddr};
    }
}

/* Adds function symbols of every SHT_SYMTAB/SHT_DYNSYM section (want_dynsym
 * false: symtab only).  A table and its strings are read only when neither is
 * compressed (libelf would hand us the raw stream), each is at most
 * SYM_MAX_SYMTAB bytes, and twice their size (libelf's copy while reading,
 * ours kept) fits in SYM_POOL_SYMS; b->charged_syms keeps what was taken.  what
 * names the binary in notes. */
static void read_symbols(struct symbolizer *s, Elf *elf, struct bin *b, bool want_dynsym,
                         const char *what)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh, strsh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type != SHT_SYMTAB && !(want_dynsym && sh.sh_type == SHT_DYNSYM))
            continue;
        Elf_Scn *strscn = elf_getscn(elf, sh.sh_link);
        if (!strscn || !gelf_getshdr(strscn, &strsh) || strsh.sh_type != SHT_STRTAB)
            continue;
        const char *tab = sh.sh_type == SHT_SYMTAB ? ".symtab" : ".dynsym";
        char b1[32], b2[32];
        if ((sh.sh_flags | strsh.sh_flags) & SHF_COMPRESSED) {
            s->st.symtabs_refused++;
            add_note(s, "%s: %s is compressed: not read", what, tab);
            continue;
        }
        if (sh.sh_size > SYM_MAX_SYMTAB || strsh.sh_size > SYM_MAX_SYMTAB) {
            s->st.symtabs_refused++;
            add_note(s, "%s: %s of %s with %s of names, over the %s cap per table: not read",
                     what, tab, fmt_bytes(b1, sizeof b1, sh.sh_size),
                     fmt_bytes(b2, sizeof b2, strsh.sh_size),
                     fmt_bytes((char[32]){0}, 32, SYM_MAX_SYMTAB));
            continue;
        }
        uint64_t cost = 2 * (sh.sh_size + strsh.sh_size);
        if (!sym_budget_take(SYM_POOL_SYMS, cost)) {
            s->st.symtabs_refused++;
            add_note(s, "%s: %s needs %s, over what is left of the %s symbol data budget: not read",
                     what, tab, fmt_bytes(b1, sizeof b1, cost),
                     fmt_bytes(b2, sizeof b2, sym_budget_limit(SYM_POOL_SYMS)));
            continue;
        }
        b->charged_syms += cost;
        Elf_Data *d = elf_getdata(scn, NULL);
        Elf_Data *sd = elf_getdata(strscn, NULL);
        if (!d || !sd || !sd->d_buf || !sd->d_size || sd->d_size > UINT32_MAX - b->strs_len - 1)
            continue;
        size_t entsz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
        if (!entsz)
            continue;
        if (sh.sh_type == SHT_SYMTAB)
            b->has_symtab = true;
        size_t base = b->strs_len;
        xgrow(&b->strs, &b->strs_cap, base + sd->d_size + 1, 1);
        memcpy(b->strs + base, sd->d_buf, sd->d_size);
        b->strs[base + sd->d_size] = '\0';
        b->strs_len = base + sd->d_size + 1;
        size_t count = d->d_size / entsz;
        for (size_t i = 0; i < count; i++) {
            GElf_Sym sym;
            if (!gelf_getsym(d, (int)i, &sym))
                break;
            int type = GELF_ST_TYPE(sym.st_info);
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
                !sym.st_value || sym.st_name == 0 || sym.st_name >= sd->d_size)
                continue;
            if (b->nsyms >= SYM_MAX_SYMS) {
                s->st.symbols_capped++;
                return;
            }
            xgrow(&b->syms, &b->syms_cap, b->nsyms + 1, sizeof *b->syms);
            b->syms[b->nsyms++] = (struct bsym){sym.st_value, sym.st_size,
                                                (uint32_t)(base + sym.st_name),
                                                (uint8_t)GELF_ST_BIND(sym.st_info)};
        }
    }
}

static int bind_rank(uint8_t bind)
{
    return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

/* Among aliases the first after sorting is shown: sized before sizeless,
 * fewer leading underscores ("getpid" over "__getpid"), global before weak
 * before local, then by name so the choice is stable. */
static int bsym_cmp(const void *pa, const void *pb, void *ctx)
{
    const struct bsym *x = pa, *y = pb;
    const char *strs = ctx;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if ((x->size > 0) != (y->size > 0))
        return x->size > 0 ? -1 : 1;
    const char *nx = strs + x->name, *ny = strs + y->name;
    int ux = 0, uy = 0;
    while (nx[ux] == '_')
        ux++;
    while (ny[uy] == '_')
        uy++;
    if (ux != uy)
        return ux - uy;
    if (bind_rank(x->bind) != bind_rank(y->bind))
        return bind_rank(x->bind) - bind_rank(y->bind);
    return strcmp(nx, ny);
}

/* The next section after scn that has contents (not SHT_NOBITS), its
 * header in *sh and its name in *name (NULL when unnamed); NULL at the end.
 * shstrndx from elf_getshdrstrndx. */
static Elf_Scn *next_section(Elf *elf, size_t shstrndx, Elf_Scn *scn, GElf_Shdr *sh,
                             const char **name)
{
    while ((scn = elf_nextscn(elf, scn))) {
        if (!gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
            continue;
        *name = elf_strptr(elf, shstrndx, sh->sh_name);
        return scn;
    }
    return NULL;
}

static bool has_debug_info(Elf *elf)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return false;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    const char *name;
    while ((scn = next_section(elf, shstrndx, scn, &sh, &name)))
        if (name && (strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0))
            return true;
    return false;
}

/* Debug sections the symbolizer never asks libdw about: location lists,
 * macros, call frames, name indexes.  dwarf_begin_elf() would read and
 * inflate them whole with the rest (libc6-dbg's .debug_loclists: 1.4 MB,
 * 11 % of its inflating); dwarf_trim() hides them from it. */
static bool dwarf_unused(const char *name)
{
    static const char *const unused[] = {"loc",         "loclists",    "macro",
                                         "macinfo",     "frame",       "pubnames",
                                         "pubtypes",    "gnu_pubnames", "gnu_pubtypes",
                                         "names",       "types",       "cu_index",
                                         "tu_index"};
    const char *base = strncmp(name, ".debug_", 7) == 0    ? name + 7
                       : strncmp(name, ".zdebug_", 8) == 0 ? name + 8
                                                           : NULL;
    if (!base)
        return false;
    for (size_t i = 0; i < sizeof unused / sizeof unused[0]; i++)
        if (strcmp(base, unused[i]) == 0)
            return true;
    return false;
}

/* Marks the unused debug sections of elf (read with ELF_C_READ: the
 * section headers are our memory, the file is untouched) SHT_NOBITS, which
 * dwarf_begin_elf() skips. */
static void dwarf_trim(Elf *elf)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    const char *name;
    while ((scn = next_section(elf, shstrndx, scn, &sh, &name))) {
        if (name && dwarf_unused(name)) {
            sh.sh_type = SHT_NOBITS;
            (void)gelf_update_shdr(scn, &sh); /* if it fails, libdw reads it: only slower */
        }
    }
}

/* Bytes libdw will hold once dwarf_begin_elf() has run on this file: it
 * reads every debug section it is shown (dwarf_trim) and inflates the
 * compressed ones whole.  The
 * inflated sizes come from the compression headers, read with pread
 * (elf_getdata would read the whole raw section first).  *inflated gets the
 * inflated part.  False when a header cannot be read or the file's byte
 * order is not ours (no DWARF then). */
static bool debug_cost(Elf *elf, int fd, uint64_t *total, uint64_t *inflated)
{
    *total = *inflated = 0;
    size_t shstrndx;
    struct stat st;
    const char *ident = elf_getident(elf, NULL);
    if (!ident || elf_getshdrstrndx(elf, &shstrndx) != 0 || fstat(fd, &st) != 0)
        return false;
    bool le = ident[EI_DATA] == ELFDATA2LSB;
    if (le != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__))
        return false;
    bool is64 = ident[EI_CLASS] == ELFCLASS64;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    const char *name;
    while ((scn = next_section(elf, shstrndx, scn, &sh, &name))) {
        if (!name || (strncmp(name, ".debug", 6) != 0 && strncmp(name, ".zdebug", 7) != 0) ||
            dwarf_unused(name))
            continue;
        if (sh.sh_offset > (uint64_t)st.st_size || sh.sh_size > (uint64_t)st.st_size - sh.sh_offset)
            return false;
        *total += sh.sh_size;
        uint64_t raw = 0;
        if (sh.sh_flags & SHF_COMPRESSED) {
            unsigned char h[24];
            size_t hl = is64 ? 24 : 12;
            if (sh.sh_size < hl || pread(fd, h, hl, (off_t)sh.sh_offset) != (ssize_t)hl)
                return false;
            if (is64) {
                memcpy(&raw, h + 8, 8);
            } else {
                uint32_t r32;
                memcpy(&r32, h + 4, 4);
                raw = r32;
            }
        } else if (strncmp(name, ".zdebug", 7) == 0) {
            /* GNU style: "ZLIB" and the inflated size, 8 bytes big-endian */
            unsigned char h[12];
            if (sh.sh_size < 12 || pread(fd, h, 12, (off_t)sh.sh_offset) != 12 ||
                memcmp(h, "ZLIB", 4) != 0)
                return false;
            for (int i = 4; i < 12; i++)
                raw = raw << 8 | h[i];
        }
        if (raw > UINT64_MAX / 2 - *total)
            return false;
        *total += raw;
        *inflated += raw;
    }
    return true;
}

/* Takes the DWARF cost of elf (fd) from SYM_POOL_DEBUG.  When it does not
 * fit, notes it naming the binary and returns false: the binary keeps its
 * symbol-table names only. */
static bool debug_admit(struct symbolizer *s, Elf *elf, int fd, struct bin *b, const char *what)
{
    uint64_t total, inflated;
    char b1[32], b2[32], b3[32];
    if (!debug_cost(elf, fd, &total, &inflated)) {
        s->st.debug_over_budget++;
        add_note(s, "%s: debug sections unreadable or in a foreign byte order: symbol names only",
                 what);
        return false;
    }
    if (sym_budget_take(SYM_POOL_DEBUG, total)) {
        b->charged_debug += total;
        return true;
    }
    s->st.debug_over_budget++;
    uint64_t limit = sym_budget_limit(SYM_POOL_DEBUG);
    if (total > limit)
        add_note(s, "%s: debug data %s%s, over the %s budget: symbol names only", what,
                 fmt_bytes(b1, sizeof b1, inflated ? inflated : total),
                 inflated ? " decompressed" : "", fmt_bytes(b2, sizeof b2, limit));
    else
        add_note(s, "%s: debug data %s, over what is left (%s) of the %s budget: symbol names only",
                 what, fmt_bytes(b1, sizeof b1, total),
                 fmt_bytes(b3, sizeof b3, limit - sym_budget_used(SYM_POOL_DEBUG)),
                 fmt_bytes(b2, sizeof b2, limit));
    return false;
}

/* Separate debug file by build-id: DIR/.build-id/ab/cdef....debug */
static void open_debug_file(struct symbolizer *s, struct bin *b, const char *what)
{
    if (!b->build_id_len || !s->debug_dir || !*s->debug_dir)
        return;
    char hex[2 * sizeof b->build_id + 1];
    for (size_t i = 0; i < b->build_id_len; i++)
        snprintf(hex + 2 * i, 3, "%02x", b->build_id[i]);
    char path[PATH_MAX];
    int w = snprintf(path, sizeof path, "%s/.build-id/%.2s/%s.debug", s->debug_dir, hex, hex + 2);
    if (w < 0 || (size_t)w >= sizeof path)
        return;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return;
    struct stat st;
    Elf *e = NULL;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        e = elf_begin(fd, ELF_C_READ, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF) {
        if (e)
            elf_end(e);
        close(fd);
        return;
    }
    struct bin check = {.fd = -1};
    read_build_id(e, &check);
    if (check.build_id_len != b->build_id_len ||
        memcmp(check.build_id, b->build_id, b->build_id_len) != 0) {
        elf_end(e);
        close(fd);
        return;
    }
    s->st.debug_files_read++;
    if (!b->has_symtab)
        read_symbols(s, e, b, false, what);
    if (debug_admit(s, e, fd, b, what)) {
        b->dw_src = b->dbg_elf = e;
        b->dbg_fd = fd;
    } else {
        elf_end(e);
        close(fd);
    }
}

static struct bin *find_by_build_id(struct symbolizer *s, const struct bin *b)
{
    if (!b->build_id_len)
        return NULL;
    for (size_t i = 0; i < s->nbins; i++)
        if (s->bins[i]->build_id_len == b->build_id_len &&
            memcmp(s->bins[i]->build_id, b->build_id, b->build_id_len) == 0)
            return s->bins[i];
    return NULL;
}

/* True when the file behind m lives on a FUSE or network filesystem (by its
 * device in the process's mountinfo, which procfs answers without asking the
 * filesystem): opening it could block for good, so it is not read. */
static bool on_remote_fs(struct proc *p, const struct sym_map *m, char *fstype, size_t n)
{
    if (!p->mountinfo_tried) {
        p->mountinfo_tried = true;
        struct strbuf sb = STRBUF_INIT;
        if (hostfs_readf(&sb, 0, "/proc/%d/mountinfo", p->pid) == 0)
            p->mountinfo = sb_detach(&sb);
        sb_free(&sb);
    }
    return sym_dev_is_remote(p->mountinfo, m->dev_major, m->dev_minor, fstype, n);
}

/* The binary behind mapping mi, read once per run; NULL when unreadable. */
static struct bin *map_bin(struct symbolizer *s, struct proc *p, size_t mi)
{
    if (p->mdone[mi])
        return p->mbin[mi];
    p->mdone[mi] = 1;
    const struct sym_map *m = &p->maps[mi];
    uint64_t dev = makedev(m->dev_major, m->dev_minor);
    size_t *ix = pmap_get(&s->bin_idx, dev, m->inode);
    if (ix) {
        s->st.cache_hits++;
        return p->mbin[mi] = *ix ? s->bins[*ix - 1] : NULL;
    }
    char fstype[64];
    if (on_remote_fs(p, m, fstype, sizeof fstype)) {
        s->st.binaries_remote++;
        add_note(s, "%s: on a %s filesystem, which may never answer: not read", m->path, fstype);
        pmap_put(&s->bin_idx, dev, m->inode, 0);
        return NULL;
    }
    int fd = open_mapping(p->pid, p->our_mnt_ns, m);
    Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        if (elf)
            elf_end(elf);
        if (fd >= 0)
            close(fd);
        s->st.binaries_failed++;
        pmap_put(&s->bin_idx, dev, m->inode, 0);
        return NULL;
    }
    struct bin *b = xcalloc(1, sizeof *b);
    b->fd = b->dbg_fd = -1;
    read_build_id(elf, b);
    struct bin *same = find_by_build_id(s, b);
    if (same) {
        elf_end(elf);
        close(fd);
        free(b);
        s->st.cache_hits++;
        pmap_put(&s->bin_idx, dev, m->inode, same->id + 1);
        return p->mbin[mi] = same;
    }
    s->st.binaries_read++;
    b->id = s->nbins;
    read_segments(elf, b);
    read_symbols(s, elf, b, true, m->path);
    if (s->open_dwarf < MAX_OPEN_DWARF) {
        bool refused = false;
        if (has_debug_info(elf)) {
            refused = !debug_admit(s, elf, fd, b, m->path);
            if (!refused) {
                b->dw_src = b->elf = elf;
                b->fd = fd;
            }
        }
        if (!b->dw_src && !refused)
            open_debug_file(s, b, m->path);
        if (b->dw_src)
            s->open_dwarf++;
    }
    if (b->elf != elf) {
        elf_end(elf);
        close(fd);
    }
    if (b->nsyms > 1)
        qsort_r(b->syms, b->nsyms, sizeof *b->syms, bsym_cmp, b->strs);
    xgrow(&s->bins, &s->bins_cap, s->nbins + 1, sizeof *s->bins);
    s->bins[s->nbins++] = b;
    pmap_put(&s->bin_idx, dev, m->inode, b->id + 1);
    return p->mbin[mi] = b;
}

/* File offset -> ELF virtual address through the PT_LOAD that holds it. */
static bool file_to_vaddr(const struct bin *b, uint64_t off, uint64_t *vaddr)
{
    for (size_t i = 0; i < b->nsegs; i++) {
        const struct seg *g = &b->segs[i];
        if (off >= g->off && off - g->off < g->filesz) {
            *vaddr = g->vaddr + (off - g->off);
            return true;
        }
    }
    return false;
}

static long find_sym(const struct bin *b, uint64_t vaddr)
{
    size_t lo = 0, hi = b->nsyms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->syms[mid].addr <= vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return -1;
    size_t i = lo - 1;
    while (i > 0 && b->syms[i - 1].addr == b->syms[i].addr)
        i--;
    const struct bsym *c = &b->syms[i];
    if (c->size ? vaddr - c->addr < c->size : vaddr - c->addr < SIZELESS_REACH)
        return (long)i;
    /* A sized symbol further down may still enclose vaddr (nested symbols). */
    for (size_t k = 0; k < 16 && k < i; k++) {
        const struct bsym *e = &b->syms[i - 1 - k];
        if (e->size && vaddr - e->addr < e->size) {
            size_t j = i - 1 - k;
            while (j > 0 && b->syms[j - 1].addr == e->addr)
                j--;
            return (long)j;
        }
    }
    return -1;
}

/* ---- DWARF -------------------------------------------------------------- */

static bool find_cu(Dwarf *dw, uint64_t vaddr, Dwarf_Die *cu)
{
    if (dwarf_addrdie(dw, vaddr, cu))
        return true;
    Dwarf_Off off = 0, next;
    size_t hsize;
    for (int n = 0; n < MAX_CU_SCAN && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0;
         n++, off = next) {
        if (dwarf_offdie(dw, off + hsize, cu) && dwarf_haspc(cu, vaddr) > 0)
            return true;
    }
    return false;
}

static bool is_scope(int tag)
{
    return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
           tag == DW_TAG_lexical_block || tag == DW_TAG_try_block || tag == DW_TAG_catch_block ||
           tag == DW_TAG_with_stmt || tag == DW_TAG_entry_point;
}

static const char *call_file(Dwarf_Die *die, Dwarf_Files *files, size_t nfiles, int *line)
{
    Dwarf_Attribute at;
    Dwarf_Word v;
    *line = 0;
    if (dwarf_attr(die, DW_AT_call_line, &at) && dwarf_formudata(&at, &v) == 0 && v <= INT_MAX)
        *line = (int)v;
    if (files && dwarf_attr(die, DW_AT_call_file, &at) && dwarf_formudata(&at, &v) == 0 &&
        v < nfiles)
        return dwarf_filesrc(files, v, NULL, NULL);
    return NULL;
}

static int cu_fn_cmp(const void *a, const void *b)
{
    const struct cu_fn *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static const struct cu_index *cu_index(struct bin *b, Dwarf_Die *cu)
{
    Dwarf_Off cu_off = dwarf_dieoffset(cu);
    size_t *ix = pmap_get(&b->cu_idx, cu_off, 0);
    if (ix)
        return &b->cus[*ix];
    struct cu_index ci = {NULL, 0};
    size_t cap = 0;
    Dwarf_Die child;
    int visits = 0;
    if (dwarf_child(cu, &child) == 0) {
        do {
            if (!is_scope(dwarf_tag(&child)))
                continue;
            Dwarf_Addr base, lo, hi;
            ptrdiff_t it = 0;
            int guard = 0;
            while (guard++ < 4096 && (it = dwarf_ranges(&child, it, &base, &lo, &hi)) > 0) {
                if (hi <= lo)
                    continue;
                xgrow(&ci.fns, &cap, ci.n + 1, sizeof *ci.fns);
                ci.fns[ci.n++] = (struct cu_fn){lo, hi, dwarf_dieoffset(&child)};
            }
        } while (++visits < MAX_DIE_VISITS && dwarf_siblingof(&child, &child) == 0);
    }
    if (ci.n > 1)
        qsort(ci.fns, ci.n, sizeof *ci.fns, cu_fn_cmp);
    xgrow(&b->cus, &b->cus_cap, b->ncus + 1, sizeof *b->cus);
    b->cus[b->ncus] = ci;
    pmap_put(&b->cu_idx, cu_off, 0, b->ncus);
    return &b->cus[b->ncus++];
}

/* Top-level scope of the CU containing vaddr. */
static bool cu_find_fn(struct bin *b, Dwarf_Die *cu, uint64_t vaddr, Dwarf_Die *out)
{
    const struct cu_index *ci = cu_index(b, cu);
    size_t lo = 0, hi = ci->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ci->fns[mid].lo <= vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t k = 0; k < 32 && k < lo; k++) {
        const struct cu_fn *f = &ci->fns[lo - 1 - k];
        if (vaddr < f->hi)
            return dwarf_offdie(b->dw, f->off, out) != NULL;
    }
    return false;
}

/* Fills line info and inline frames for vaddr.  Walks the DIE tree down the
 * scopes containing vaddr iteratively, with caps on depth and DIEs visited. */
static void dwarf_resolve(struct symbolizer *s, struct bin *b, uint64_t vaddr, struct addr_res *r)
{
    Dwarf_Die cu;
    if (!find_cu(b->dw, vaddr, &cu))
        return;
    Dwarf_Line *ln = dwarf_getsrc_die(&cu, vaddr);
    const char *file = NULL;
    int line = 0;
    if (ln) {
        file = dwarf_linesrc(ln, NULL, NULL);
        if (dwarf_lineno(ln, &line) != 0)
            line = 0;
    }
    Dwarf_Die chain[MAX_INLINE_DEPTH];
    int depth = 0, visits = 0;
    Dwarf_Die cur;
    if (cu_find_fn(b, &cu, vaddr, &cur))
        chain[depth++] = cur;
    while (depth > 0 && depth < MAX_INLINE_DEPTH && visits < MAX_DIE_VISITS) {
        Dwarf_Die child;
        if (dwarf_child(&cur, &child) != 0)
            break;
        bool found = false;
        do {
            if (++visits >= MAX_DIE_VISITS)
                break;
            if (is_scope(dwarf_tag(&child)) && dwarf_haspc(&child, vaddr) > 0) {
                found = true;
                break;
            }
        } while (dwarf_siblingof(&child, &child) == 0);
        if (!found)
            break;
        chain[depth++] = child;
        cur = child;
    }
    Dwarf_Files *files = NULL;
    size_t nfiles = 0;
    if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0)
        files = NULL;
    /* Innermost inline runs at the line table's line; each outer frame at the
     * call site of the inline nested in it. */
    const char *cur_file = file;
    int cur_line = line;
    r->inl_first = s->ninls;
    for (int i = depth - 1; i >= 0; i--) {
        if (dwarf_tag(&chain[i]) != DW_TAG_inlined_subroutine)
            continue;
        const char *name = dwarf_diename(&chain[i]);
        xgrow(&s->inls, &s->inls_cap, s->ninls + 1, sizeof *s->inls);
        s->inls[s->ninls++] = (struct inl_ent){name ? name : "[inlined]", cur_file, cur_line};
        r->n_inl++;
        cur_file = call_file(&chain[i], files, nfiles, &cur_line);
    }
    r->file = cur_file;
    r->line = cur_line;
}

/* The binary's DWARF, begun on first need; NULL when it has none. */
static Dwarf *bin_dwarf(struct bin *b)
{
    if (!b->dw && b->dw_src && !b->dw_tried) {
        b->dw_tried = true;
        dwarf_trim(b->dw_src);
        b->dw = dwarf_begin_elf(b->dw_src, DWARF_C_READ, NULL);
    }
    return b->dw;
}

/* vaddr in b -> its symbol, and with want_dwarf its file, line and inline
 * frames (looked up on a cached entry that lacks them). */
static const struct addr_res *resolve_vaddr(struct symbolizer *s, struct bin *b, uint64_t vaddr,
                                            bool want_dwarf)
{
    if (want_dwarf && s->no_separate_dwarf && b->dw_src && b->dw_src == b->dbg_elf) {
        want_dwarf = false;
        if (!b->dw_skipped) {
            b->dw_skipped = true;
            if (!s->st.debug_dwarf_skipped++)
                add_note(s, "lines and inline frames from separate debug files (%s) are read "
                            "only in a run with a target (-p, -c or -- CMD): without one, "
                            "such libraries are named from their symbol tables",
                         s->debug_dir);
        }
    }
    size_t *ix = pmap_get(&s->res_idx, b->id, vaddr);
    if (ix) {
        s->st.addr_cache_hits++;
        struct addr_res *c = &s->res[*ix];
        if (want_dwarf && !c->dwarf_done) {
            c->dwarf_done = true;
            if (bin_dwarf(b))
                dwarf_resolve(s, b, vaddr, c);
        }
        return c;
    }
    struct addr_res r;
    memset(&r, 0, sizeof r);
    long si = find_sym(b, vaddr);
    if (si >= 0) {
        r.name = shown_name(s, b->id, (size_t)si, b->strs + b->syms[si].name);
        r.sym_addr = b->syms[si].addr;
    }
    if (want_dwarf) {
        r.dwarf_done = true;
        if (bin_dwarf(b))
            dwarf_resolve(s, b, vaddr, &r);
    }
    if (s->nres >= MAX_ADDR_CACHE) {
        /* Past the cap the last slot is reused: correct, just not cached. */
        s->res[s->nres - 1] = r;
        return &s->res[s->nres - 1];
    }
    xgrow(&s->res, &s->res_cap, s->nres + 1, sizeof *s->res);
    s->res[s->nres] = r;
    pmap_put(&s->res_idx, b->id, vaddr, s->nres);
    return &s->res[s->nres++];
}

/* ---- perf JIT maps ------------------------------------------------------ */

static void jit_refuse(struct symbolizer *s, int pid, uint64_t *counter, const char *why)
{
    (*counter)++;
    free(s->jit_last_refusal);
    s->jit_last_refusal = xasprintf("pid %d: /tmp/perf-%d.map: %s", pid, pid, why);
}

/* Reads Uid (real, effective) and the innermost NSpid from /proc/PID/status. */
static void read_status(int pid, long *ruid, long *euid, int *nspid)
{
    *ruid = *euid = -1;
    *nspid = pid;
    struct strbuf sb = STRBUF_INIT;
    if (hostfs_readf(&sb, 0, "/proc/%d/status", pid) == 0) {
        const char *t = sb_str(&sb);
        const char *u = strstr(t, "\nUid:");
        if (u)
            sscanf(u + 5, "%ld %ld", ruid, euid);
        const char *n = strstr(t, "\nNSpid:");
        if (n) {
            n += 7;
            const char *end = n + strcspn(n, "\n");
            int v;
            char *q;
            for (const char *c = n; c < end;) {
                long x = strtol(c, &q, 10);
                if (q == c)
                    break;
                v = (int)x;
                *nspid = v;
                c = q;
            }
        }
    }
    sb_free(&sb);
}

/* What a perf map read on the helper thread found. */
enum jit_outcome {
    JIT_ABSENT,      /* no map (or no /tmp): nothing to say */
    JIT_READ,        /* text holds the map */
    JIT_SYMLINK,
    JIT_NOT_REGULAR,
    JIT_PSEUDO_FS,
    JIT_OWNER,
    JIT_TOO_LARGE,
    JIT_OVER_BUDGET,
    JIT_ERROR,       /* err holds the errno */
};

/* One perf map read: inputs set by load_jit in the parent, read by the
 * child (jit_child). */
struct jit_job {
    char root[PATH_MAX]; /* /proc/PID/root under the hostfs root */
    char name[64];       /* perf-NSPID.map */
    long ruid, euid;
    size_t max;          /* bytes that may be kept */
};

/* What the child writes first, then the map's bytes when out is JIT_READ. */
struct jit_head {
    int32_t out, err;
};

static void put_head(int fd, int out, int err)
{
    struct jit_head h = {out, err};
    /* a short write (the caller gave up) shows as no head at all */
    (void)!write(fd, &h, sizeof h);
}

/* "/proc/self/fd/N" without stdio (async-signal-safe) */
static void fd_path(char *buf, int n)
{
    char d[16];
    int k = 0;
    do {
        d[k++] = (char)('0' + n % 10);
        n /= 10;
    } while (n && k < (int)sizeof d);
    memcpy(buf, "/proc/self/fd/", 14);
    for (int i = 0; i < k; i++)
        buf[14 + i] = d[k - 1 - i];
    buf[14 + k] = '\0';
}

/* In the bounded-job server (async-signal-safe calls only, closing what it
 * opens): /tmp/perf-NSPID.map in the process's root, no symlink anywhere on
 * the way, looked at through an O_PATH descriptor first (opening a
 * pseudo-file for reading can have side effects: /proc/kmsg consumes the
 * kernel log), so that only a regular file on a real filesystem, owned by the
 * process's real or effective uid and small enough is reopened for reading,
 * and it must still be the same file then.  A FUSE /tmp that never answers
 * blocks there, not in perfreport. */
static void jit_read(const struct jit_job *j, int pfd, int out)
{
    struct stat st, st2;
    struct statfs sfs;
    if (fstat(pfd, &st) < 0 || fstatfs(pfd, &sfs) < 0) {
        put_head(out, JIT_ERROR, errno);
        return;
    }
    if (S_ISLNK(st.st_mode)) {
        put_head(out, JIT_SYMLINK, 0);
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        put_head(out, JIT_NOT_REGULAR, 0);
        return;
    }
    if (sym_fs_of_magic((int64_t)sfs.f_type) == SYM_FS_PSEUDO) {
        put_head(out, JIT_PSEUDO_FS, 0);
        return;
    }
    if ((long)st.st_uid != j->ruid && (long)st.st_uid != j->euid) {
        put_head(out, JIT_OWNER, 0);
        return;
    }
    if (st.st_size > (off_t)SYM_MAX_PERF_MAP) {
        put_head(out, JIT_TOO_LARGE, 0);
        return;
    }
    if ((uint64_t)st.st_size >= j->max) {
        put_head(out, JIT_OVER_BUDGET, 0);
        return;
    }
    /* our own O_PATH descriptor, reopened: no name lookup any more */
    char path[32];
    fd_path(path, pfd);
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        put_head(out, JIT_ERROR, errno);
        return;
    }
    if (fstat(fd, &st2) < 0) {
        put_head(out, JIT_ERROR, errno);
    } else if (st2.st_dev != st.st_dev || st2.st_ino != st.st_ino || !S_ISREG(st2.st_mode)) {
        put_head(out, JIT_NOT_REGULAR, 0);
    } else {
        put_head(out, JIT_READ, 0);
        /* the caller keeps at most max bytes and sees when there were more */
        char buf[65536];
        size_t total = 0;
        while (total <= j->max) {
            ssize_t r = read(fd, buf, sizeof buf);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0 || write(out, buf, (size_t)r) != r)
                break;
            total += (size_t)r;
        }
    }
    close(fd);
}

static void jit_child(void *arg, int out)
{
    const struct jit_job *j = arg;
    int rootfd = open(j->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return;
    int tmpfd = openat(rootfd, "tmp", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (tmpfd < 0) {
        if (errno == ELOOP || errno == ENOTDIR)
            put_head(out, JIT_SYMLINK, 0);
        close(rootfd);
        return;
    }
    int pfd = openat(tmpfd, j->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (pfd < 0) {
        if (errno != ENOENT)
            put_head(out, JIT_ERROR, errno);
    } else {
        jit_read(j, pfd, out);
        close(pfd);
    }
    close(tmpfd);
    close(rootfd);
}

/* Mount namespace inode of pid (0 unknown): processes sharing it share /tmp. */
static uint64_t mntns_of(int pid)
{
    char rel[64], path[PATH_MAX];
    struct stat st;
    snprintf(rel, sizeof rel, "/proc/%d/ns/mnt", pid);
    if (hostfs_path(path, sizeof path, rel) != 0 || stat(path, &st) != 0)
        return 0;
    return (uint64_t)st.st_ino;
}

/* Loads the process's perf map once: read by a child with a deadline (its
 * /tmp may be a FUSE or network mount that never answers), kept only within
 * what is left of SYM_POOL_JIT (bytes read and entries). */
static void load_jit(struct symbolizer *s, struct proc *p)
{
    p->jit_tried = true;
    char b1[32], b2[32];
    uint64_t ns = mntns_of(p->pid);
    if (ns && sym_is_stalled('N', ns)) {
        s->st.jit_stalled++;
        add_note(s, "pid %d: /tmp did not answer earlier: perf map not read", p->pid);
        return;
    }
    struct jit_job j;
    memset(&j, 0, sizeof j);
    int nspid;
    read_status(p->pid, &j.ruid, &j.euid, &nspid);
    char rel[64];
    snprintf(rel, sizeof rel, "/proc/%d/root", p->pid);
    if (hostfs_path(j.root, sizeof j.root, rel) != 0)
        return;
    snprintf(j.name, sizeof j.name, "perf-%d.map", nspid);
    uint64_t limit = sym_budget_limit(SYM_POOL_JIT), used = sym_budget_used(SYM_POOL_JIT);
    uint64_t want = limit > used ? limit - used : 0;
    if (want > (uint64_t)SYM_MAX_PERF_MAP + 1)
        want = (uint64_t)SYM_MAX_PERF_MAP + 1;
    if (want < 2 || !sym_budget_take(SYM_POOL_JIT, want))
        want = 0;
    /* with nothing left, still look, to say what was refused */
    j.max = want ? (size_t)want : 1;
    char *res = NULL;
    long n = sym_run_bounded(jit_child, &j, sizeof j, sizeof(struct jit_head) + j.max,
                             SYM_IO_DEADLINE_MS, 'N', ns, &res);
    struct jit_head h = {JIT_ABSENT, 0};
    if (n >= (long)sizeof h)
        memcpy(&h, res, sizeof h);
    char *text = res ? res + sizeof h : NULL;
    size_t len = n >= (long)sizeof h ? (size_t)n - sizeof h : 0;
    uint64_t keep = 0;
    if (n == -ETIMEDOUT) { /* ns marked stalled by sym_run_bounded */
        s->st.jit_stalled++;
        add_note(s, "pid %d: /tmp/%s: /tmp did not answer within %d ms "
                    "(unresponsive filesystem): perf map not read",
                 p->pid, j.name, SYM_IO_DEADLINE_MS);
        h.out = JIT_ABSENT;
    } else if (n < 0) {
        jit_refuse(s, p->pid, &s->st.jit_stalled,
                   n == -EBUSY ? "too many reads already stuck on unresponsive filesystems"
                               : strerror((int)-n));
        add_note(s, "%s", s->jit_last_refusal);
        h.out = JIT_ABSENT;
    } else if (h.out == JIT_READ && len >= j.max) {
        h.out = len > SYM_MAX_PERF_MAP ? JIT_TOO_LARGE : JIT_OVER_BUDGET;
    }
    switch ((enum jit_outcome)h.out) {
    case JIT_ABSENT:
        break;
    case JIT_SYMLINK:
        jit_refuse(s, p->pid, &s->st.jit_refused_symlink, "symlink");
        break;
    case JIT_NOT_REGULAR:
        jit_refuse(s, p->pid, &s->st.jit_refused_not_regular, "not a regular file");
        break;
    case JIT_PSEUDO_FS:
        jit_refuse(s, p->pid, &s->st.jit_refused_fs,
                   "on a pseudo filesystem (procfs, sysfs...): not read");
        break;
    case JIT_OWNER:
        jit_refuse(s, p->pid, &s->st.jit_refused_owner, "owned by another user");
        break;
    case JIT_TOO_LARGE:
        jit_refuse(s, p->pid, &s->st.jit_refused_too_large, "larger than 16 MiB");
        break;
    case JIT_OVER_BUDGET: {
        char why[160];
        snprintf(why, sizeof why, "over what is left (%s) of the %s perf map budget: not read",
                 fmt_bytes(b1, sizeof b1, want), fmt_bytes(b2, sizeof b2, limit));
        jit_refuse(s, p->pid, &s->st.jit_refused_budget, why);
        break;
    }
    case JIT_ERROR:
        jit_refuse(s, p->pid, &s->st.jit_refused_other, strerror(h.err));
        break;
    case JIT_READ: {
        if (!want) /* an empty file, read with no budget left: nothing to keep */
            break;
        /* entries are kept too: they must fit in what is left after the text */
        size_t room = want > len + 1 ? (want - len - 1) / (2 * sizeof(struct jit_sym)) : 0;
        bool trunc = false;
        p->njit = sym_parse_perf_map_max(text, room, &p->jit, &trunc);
        if (trunc) {
            free(p->jit);
            p->jit = NULL;
            p->njit = 0;
            char why[160];
            snprintf(why, sizeof why,
                     "more entries than fit in what is left (%s) of the %s perf map budget: "
                     "not read",
                     fmt_bytes(b1, sizeof b1, want), fmt_bytes(b2, sizeof b2, limit));
            jit_refuse(s, p->pid, &s->st.jit_refused_budget, why);
            add_note(s, "%s", s->jit_last_refusal);
            break;
        }
        /* the text moves to the front of the buffer the entries point into */
        memmove(res, text, len + 1);
        for (size_t k = 0; k < p->njit; k++)
            p->jit[k].name -= sizeof h;
        p->jit_text = res;
        res = NULL;
        keep = len + 1 + 2 * p->njit * sizeof(struct jit_sym);
        s->st.jit_maps_read++;
        break;
    }
    default:
        jit_refuse(s, p->pid, &s->st.jit_refused_other, "bad answer from the reader");
        break;
    }
    if (h.out != JIT_ABSENT && h.out != JIT_READ)
        add_note(s, "%s", s->jit_last_refusal);
    if (want)
        sym_budget_put(SYM_POOL_JIT, want - keep);
    p->jit_charged = keep;
    free(res);
}

/* ---- user frames -------------------------------------------------------- */

/* The mapping mi of p as frames carry it (b: its binary, for the build-id;
 * NULL when unreadable), made once. */
static const struct sym_mapping *map_mapping(struct symbolizer *s, struct proc *p, size_t mi,
                                             const struct bin *b)
{
    if (p->mmapping[mi])
        return p->mmapping[mi];
    const struct sym_map *m = &p->maps[mi];
    struct sym_mapping *sm = xcalloc(1, sizeof *sm);
    sm->path = intern(s, m->path);
    if (b && b->build_id_len) {
        char hex[2 * sizeof b->build_id + 1];
        for (size_t i = 0; i < b->build_id_len; i++)
            snprintf(hex + 2 * i, 3, "%02x", b->build_id[i]);
        sm->build_id = intern(s, hex);
    }
    sm->start = m->start;
    sm->end = m->end;
    sm->offset = m->offset;
    xgrow(&s->mappings, &s->mappings_cap, s->nmappings + 1, sizeof *s->mappings);
    s->mappings[s->nmappings++] = sm;
    return p->mmapping[mi] = sm;
}

static int user_frame(struct symbolizer *s, int pid, uint64_t addr, struct sym_frame *out,
                      struct sym_frame *inl, size_t max_inline, size_t *n_inline, bool want_dwarf)
{
    if (n_inline)
        *n_inline = 0;
    if (!s || !out || (max_inline && !inl))
        return -EINVAL;
    memset(out, 0, sizeof *out);
    out->offset = addr;
    struct proc *p = get_proc(s, pid);
    if (p->gone) {
        out->name = p->label;
        out->kind = FRAME_UNKNOWN;
        s->st.user_unresolved++;
        return 1;
    }
    long mi = find_map(p, addr);
    if (mi >= 0 && sym_map_is_file(&p->maps[mi])) {
        const struct sym_map *m = &p->maps[mi];
        const char *module = map_module(s, p, (size_t)mi);
        struct bin *b = map_bin(s, p, (size_t)mi);
        const struct sym_mapping *mapping = map_mapping(s, p, (size_t)mi, b);
        uint64_t off = addr - m->start + m->offset, vaddr = off;
        out->kind = FRAME_USER;
        out->module = module;
        out->addr = addr;
        out->mapping = mapping;
        if (b && file_to_vaddr(b, off, &vaddr)) {
            const struct addr_res *r = resolve_vaddr(s, b, vaddr, want_dwarf);
            if (r->name) {
                out->name = r->name;
                out->offset = vaddr - r->sym_addr;
                out->file = r->file;
                out->line = r->line;
                size_t n = r->n_inl < max_inline ? r->n_inl : max_inline;
                for (size_t i = 0; i < n; i++) {
                    const struct inl_ent *e = &s->inls[r->inl_first + i];
                    inl[i] = (struct sym_frame){e->name, module, e->file, e->line, FRAME_INLINE, 0,
                                                addr, mapping};
                }
                if (n_inline)
                    *n_inline = n;
                s->st.user_resolved++;
                return 0;
            }
        }
        out->name = internf(s, "%s+0x%" PRIx64, module, vaddr);
        out->offset = vaddr;
        s->st.user_unresolved++;
        return 1;
    }
    /* The kernel's own mappings hold no JIT code: no perf map to look for
     * (a look forks a child, see load_jit; every process sampled in a
     * vDSO clock_gettime() cost one) */
    bool kernel_map = mi >= 0 && sym_map_is_kernel_special(&p->maps[mi]);
    if (!p->jit_tried && !kernel_map)
        load_jit(s, p);
    long j = kernel_map ? -1 : sym_perf_map_find(p->jit, p->njit, addr);
    if (j >= 0) {
        out->name = p->jit[j].name;
        out->module = "[jit]";
        out->kind = FRAME_JIT;
        out->offset = addr - p->jit[j].start;
        s->st.jit_resolved++;
        return 0;
    }
    s->st.user_unresolved++;
    if (mi >= 0 && p->maps[mi].path[0] == '[') {
        const struct sym_map *m = &p->maps[mi];
        out->module = map_module(s, p, (size_t)mi);
        out->name = internf(s, "%s+0x%" PRIx64, out->module, addr - m->start);
        out->offset = addr - m->start;
        out->kind = FRAME_USER;
        return 1;
    }
    out->name = "[unknown]";
    out->kind = FRAME_UNKNOWN;
    return 1;
}

int sym_user(struct symbolizer *s, int pid, uint64_t addr, struct sym_frame *out,
             struct sym_frame *inl, size_t max_inline, size_t *n_inline)
{
    return user_frame(s, pid, addr, out, inl, max_inline, n_inline, true);
}

int sym_user_name(struct symbolizer *s, int pid, uint64_t addr, struct sym_frame *out)
{
    return user_frame(s, pid, addr, out, NULL, 0, NULL, false);
}
