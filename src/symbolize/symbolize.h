/* Turns stack addresses captured by BPF into frame names.
 *
 * One symbolizer per run: every cache (kallsyms, per-pid maps, per-binary
 * symbols and DWARF, per-address results, perf JIT maps) lives in it and is
 * released by symbolizer_free().  Every string a frame points to is owned by
 * the symbolizer and stays valid until symbolizer_free().  Host-controlled
 * text (symbol names, paths, JIT names) is returned as-is; renderers escape.
 *
 * Addresses are looked up exactly as given.  For return addresses (every
 * frame of a stack except the sampled leaf) pass addr - 1 so that the call
 * instruction, not the next line or function, is named.
 *
 * Not thread-safe: one thread uses one symbolizer. */
#ifndef PERFREPORT_SYMBOLIZE_H
#define PERFREPORT_SYMBOLIZE_H
#include "../model/frame_kind.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbolizer;

/* A file mapped into a process, as the frames found in it carry it (for
 * pprof's Mapping): owned by the symbolizer, one per mapping of a process. */
struct sym_mapping {
    const char *path;     /* as /proc/PID/maps names it */
    const char *build_id; /* the GNU build-id note in lower-case hex, or NULL */
    uint64_t start, end;  /* the address range in that process */
    uint64_t offset;      /* file offset mapped at start */
};

struct sym_frame {
    const char *name;   /* never NULL: symbol, or a label such as "libc.so.6+0x1f00",
                           "[unknown]", "[kernel]", "[pid 123 exited]" */
    const char *module; /* basename of the binary, "[kernel]", "[ext4]", "[jit]";
                           NULL when unknown */
    const char *file;   /* source file from DWARF, or NULL */
    int line;           /* source line, 0 when unknown */
    enum frame_kind kind;
    uint64_t offset;    /* address - symbol start; for module+0x labels the
                           offset inside the module (ELF virtual address) */
    /* user frames in a mapped file (inline frames too): the address looked
     * up and its mapping; 0 and NULL otherwise */
    uint64_t addr;
    const struct sym_mapping *mapping;
};

struct sym_stats {
    uint64_t binaries_read;     /* ELF files opened and parsed (each once per run) */
    uint64_t binaries_failed;   /* mappings whose file could not be opened or parsed */
    uint64_t debug_files_read;  /* separate debug files found by build-id */
    uint64_t cache_hits;        /* mapping -> binary lookups served by the cache */
    uint64_t addr_cache_hits;   /* addresses answered from the per-address cache */
    uint64_t user_resolved, user_unresolved;
    uint64_t kernel_resolved, kernel_unresolved;
    uint64_t jit_resolved;
    uint64_t pids_read;         /* /proc/PID/maps parsed */
    uint64_t pids_gone;         /* pids exited or not visible from here */
    uint64_t maps_truncated;    /* pids whose maps hit SYM_MAX_MAPS */
    uint64_t symbols_capped;    /* binaries whose symbol count hit SYM_MAX_SYMS */
    uint64_t kernel_symbols;    /* kallsyms entries loaded */
    uint64_t jit_maps_read;
    /* perf maps refused, by reason */
    uint64_t jit_refused_symlink, jit_refused_not_regular, jit_refused_owner,
        jit_refused_too_large, jit_refused_other;
    uint64_t jit_refused_fs;      /* on a pseudo filesystem (procfs, sysfs...) */
    uint64_t jit_refused_budget;  /* over what is left of SYM_JIT_BUDGET */
    uint64_t jit_stalled;         /* /tmp did not answer within the deadline */
    uint64_t debug_over_budget;   /* binaries read without DWARF: debug data over budget */
    uint64_t debug_dwarf_skipped; /* binaries named from a separate debug file whose DWARF
                                   * was not read (symbolizer_set_separate_dwarf) */
    uint64_t symtabs_refused;     /* symbol tables compressed or over budget */
    uint64_t binaries_remote;     /* binaries on FUSE/network filesystems: not read */
    const char *jit_last_refusal; /* "pid 12: /tmp/perf-12.map: symlink" or NULL */
    /* What was refused and why, naming the binary or map, for the ledger:
     * at most SYM_MAX_NOTES; notes_dropped counts the rest.  Owned by the
     * symbolizer. */
    const char *const *notes;
    size_t nnotes;
    uint64_t notes_dropped;
    const char *kernel_note;      /* why kernel frames are not named, or NULL */
};

#define SYM_MAX_MAPS 65536u            /* maps lines kept per pid */
#define SYM_MAX_SYMS 4000000u          /* function symbols kept per binary */
#define SYM_MAX_PERF_MAP (16u << 20)   /* bytes of one /tmp/perf-PID.map */
#define SYM_MAX_SYMTAB (16u << 20)     /* bytes of one symbol or string table */
#define SYM_MAX_NOTES 32u              /* refusal notes kept per symbolizer */

struct symbolizer *symbolizer_new(void);
void symbolizer_free(struct symbolizer *s);

/* Directory holding .build-id/xx/yyyy.debug files ("/usr/lib/debug" by
 * default; a host path, not under the hostfs root).  Copied. */
void symbolizer_set_debug_dir(struct symbolizer *s, const char *dir);

/* Whether file:line and inline frames may come from the DWARF of separate
 * debug files (on by default).  Names come from their symbol tables either
 * way; a binary's own DWARF is read either way.  Beginning libc6-dbg's DWARF
 * inflates 8.6 MB, ~100 ms of CPU on the test VM (2026-11-26), and any
 * process blocked in libc during a window asks for it; a run without a
 * target turns this off, a run with one keeps it for the target's
 * libraries. */
void symbolizer_set_separate_dwarf(struct symbolizer *s, bool on);

/* Kernel address -> frame.  Returns 0 when named from kallsyms, 1 when only
 * a label ("[kernel]", "[unknown]") was produced, -EINVAL on bad arguments. */
int sym_kernel(struct symbolizer *s, uint64_t addr, struct sym_frame *out);

/* User address of process pid -> frame.  When DWARF describes inlined calls
 * at addr, inl[0..*n_inline-1] receive them innermost first (kind
 * FRAME_INLINE), so a leaf-first stack reads inl[0], inl[1], ..., out; each
 * frame's file:line is where it was executing (for outer frames: the call
 * site).  inl may be NULL when max_inline is 0.  Returns 0 when named from a
 * symbol (ELF or JIT), 1 when only a label was produced, -EINVAL on bad
 * arguments.  out is always filled on 0 and 1. */
int sym_user(struct symbolizer *s, int pid, uint64_t addr, struct sym_frame *out,
             struct sym_frame *inl, size_t max_inline, size_t *n_inline);

/* As sym_user for the name only: the binary's DWARF is not read for it
 * (file and line are filled only when an earlier lookup found them; no
 * inline frames).  For perfreport's own stacks. */
int sym_user_name(struct symbolizer *s, int pid, uint64_t addr, struct sym_frame *out);

/* For a process that sym_user found gone because it exited (its frames read
 * "[pid N exited]"): one label for its whole user stack named by its comm,
 * "[comm exited]", the same for every process of that name so that their
 * stacks merge.  NULL when pid was not looked up or is not known to have
 * exited. */
const char *sym_exited_label(struct symbolizer *s, int pid, const char *comm);

void sym_stats(const struct symbolizer *s, struct sym_stats *out);
#endif
