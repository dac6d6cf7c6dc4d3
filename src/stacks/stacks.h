/* src/stacks/: stacks from BPF maps to named frames for the collectors:
 * stacks.c (below; the run's one symbolizer and a resolver per collector),
 * stack_prefetch.c (names stacks during the window, while their processes'
 * maps exist), stack_top.c (a stack map's heaviest rows as a table),
 * proc_labels.c (a process's cgroup and container, the labels of its
 * samples in the pprof export). */
/* BPF stack ids -> profile frames.
 *
 * BPF programs store stacks with bpf_get_stackid() into a
 * BPF_MAP_TYPE_STACK_TRACE map, or with ss_get() into a stack store
 * (bpf/stackstore.h), and aggregate counts under keys holding the ids;
 * after the window the collector passes each aggregated key here.  The
 * resolver reads each stack once from the map, symbolizes it once and
 * caches the frames (one id is shared by many keys).
 *
 * Ownership: the resolver owns only its caches.  The symbolizer and the map
 * fd stay the caller's and must outlive the resolver (frame names point into
 * the symbolizer).  One resolver is used by one thread at a time; resolvers
 * on different threads may share a symbolizer (every call into it holds
 * stacks_sym_lock()). */
#ifndef PERFREPORT_STACKS_H
#define PERFREPORT_STACKS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbolizer;
struct profile;
struct stack_resolver;

/* A stack id meaning "no stack expected here" (the kernel stack of a sample
 * taken in user mode, the user stack of a kernel thread): adds no frame and
 * counts as nothing missing.  BPF programs store it in their s32 id fields. */
#define STACK_ID_NONE INT32_MIN

/* Why a stack is missing. */
enum stack_miss {
    STACK_MISS_FAULT = 0, /* -EFAULT: the stack could not be read */
    STACK_MISS_COLLISION, /* -EEXIST: hash collision with another stack */
    STACK_MISS_FULL,      /* -ENOMEM / -E2BIG: stack map or store full */
    STACK_MISS_GONE,      /* the id was not found in the map when read */
    STACK_MISS_OTHER,     /* any other negative value */
    STACK_MISS_COUNT
};
const char *stack_miss_name(enum stack_miss m); /* "unreadable" "hash collision" ... */

struct stack_stats {
    /* samples (sum of counts) whose user/kernel stack was missing, by reason */
    uint64_t missing_user[STACK_MISS_COUNT];
    uint64_t missing_kernel[STACK_MISS_COUNT];
    uint64_t stacks_read;    /* map lookups of distinct stack ids */
    uint64_t stacks_cached;  /* adds served from the cache */
    uint64_t truncated;      /* stacks that filled every slot (may be cut) */
    uint64_t frames_resolved, frames_unresolved; /* addresses resolved into cached stacks
                                                  * (a collapsed run counts each) */
};

/* How a collector's stacks are read (stack_resolver_new's opts, or'ed). */
enum stack_opts {
    /* user stack ids are cached per (tgid, id): the map hashes addresses
     * only, so two processes may share one id */
    STACKS_USER_PER_PID = 1 << 0,
    /* kernel stacks taken inside a tracepoint program: the frames of the
     * tracing that took them (bpf_prog_*, bpf_trace_run*, __traceiter_*)
     * are dropped from their tip, where they would top every stack */
    STACKS_TRIM_TRACING = 1 << 1,
};

/* stackmap_fd: a STACK_TRACE map (value = array of __u64 addresses, leaf
 * first, 0-terminated when shorter than the value) or a stack store (the
 * same frames, then the hash: struct ss_stack); opts: enum stack_opts. */
struct stack_resolver *stack_resolver_new(struct symbolizer *sym, int stackmap_fd,
                                          unsigned opts);

/* True for a kernel frame of the tracing machinery that runs a BPF program
 * on a tracepoint and takes its stack. */
bool stack_frame_is_tracing(const char *name);
void stack_resolver_free(struct stack_resolver *sr);

/* Adds `count` to profile p for one aggregated sample: root-first frames =
 * process frame (kind FRAME_PROCESS, the comm), then user frames (inline
 * frames expanded, kind FRAME_INLINE), then kernel frames.  kstack_id /
 * ustack_id < 0 mean "no stack": a negative errno from bpf_get_stackid
 * becomes one frame "[missing user stack]" / "[missing kernel stack]"
 * (kind FRAME_UNKNOWN) counted in the stats by reason; STACK_ID_NONE adds
 * nothing.  A stack that filled every slot gets a "[truncated]" frame on its
 * root side.  comm NULL or empty becomes "[unknown]".  Returns 0 or -errno. */
int stack_resolver_add(struct stack_resolver *sr, struct profile *p, uint32_t tgid,
                       const char *comm, int64_t kstack_id, int64_t ustack_id, uint64_t count);
/* The same for one thread's samples: its tid goes into the pprof label
 * (stack_resolver_add's stacks are labelled with thread 0, unknown). */
int stack_resolver_add_thread(struct stack_resolver *sr, struct profile *p, uint32_t tgid,
                              uint32_t tid, const char *comm, int64_t kstack_id,
                              int64_t ustack_id, uint64_t count);
/* The profile node where the stack of the last stack_resolver_add*() or
 * stack_resolver_label() call ended (PROFILE_NONE before any). */
uint32_t stack_resolver_last_leaf(const struct stack_resolver *sr);
/* What stack_resolver_add also notes for the pprof export (profile_sites.h),
 * besides the frames' addresses, mappings and lines: that count of the
 * stack ending in leaf came from process tgid (thread tid, 0 unknown) named
 * comm, with its cgroup as read while it lived (stack_resolver_prefetch) or
 * now.  For stacks a collector adds itself. */
void stack_resolver_label(struct stack_resolver *sr, struct profile *p, uint32_t leaf,
                          uint32_t tgid, uint32_t tid, const char *comm, uint64_t count);

void stack_resolver_stats(const struct stack_resolver *sr, struct stack_stats *out);

/* One aggregated row whose stacks a collector wants as frame names (to
 * classify or summarise it) rather than as a profile. */
struct stack_row {
    uint32_t tgid;
    int64_t kstack_id, ustack_id; /* as for stack_resolver_add */
    bool skip;                    /* leave this row out */
};
/* Called once per resolved row with its frames leaf first (the process frame
 * left out); names and kinds are valid during the call only. */
typedef void (*stack_row_fn)(void *ctx, size_t row, const char *const *names,
                             const uint8_t *kinds, size_t n);
/* Resolves every row (stack ids shared between rows are resolved once) and
 * calls fn for each.  Returns 0, or the first -errno of stack_resolver_add;
 * rows resolved before it are still reported. */
int stack_resolver_rows(struct stack_resolver *sr, const struct stack_row *rows, size_t nrows,
                        stack_row_fn fn, void *ctx);

/* Reads and symbolizes both stacks into the cache without adding anything,
 * so that it can be done during the window while the process still exists
 * (ids never change meaning: the BPF side must not use
 * BPF_F_REUSE_STACKID).  Returns how many stacks were newly resolved. */
int stack_resolver_prefetch(struct stack_resolver *sr, uint32_t tgid, int64_t kstack_id,
                            int64_t ustack_id);

/* Module (binary basename, "[kernel]"...) of the first resolved frame named
 * `name` with that kind, or NULL.  Valid until the symbolizer is freed. */
const char *stack_resolver_module(const struct stack_resolver *sr, const char *name, int kind);

/* One symbolizer shared by the collectors of a run that have stacks
 * (profile, offcpu, futex): kallsyms and per-binary caches are read once,
 * not once per collector.  stacks_sym_acquire() takes a reference (at a
 * collector's start); stacks_sym_prewarm() (the runner, once the window is
 * open) starts loading kallsyms on a background thread, so that the work
 * happens during the window instead of after it, and not during the start,
 * whose BPF loads it would slow on a small host; stacks_sym_get() waits for
 * that (or loads kallsyms itself when called first) and returns the
 * symbolizer;
 * stacks_sym_release() drops a reference and frees it at zero (names it
 * gave are then gone: models copy them).  All three are thread-safe.  The
 * symbolizer itself is not: a collector calling into it directly (not
 * through a resolver) holds stacks_sym_lock() around the calls.
 * cfg: the run's collector config (the same for every collector); a run
 * without a target (-p, -c, -- CMD) reads no DWARF from separate debug
 * files (symbolizer_set_separate_dwarf). */
struct collect_config;
void stacks_sym_acquire(const struct collect_config *cfg);
/* No-op when no collector holds a reference or it ran already. */
void stacks_sym_prewarm(void);
struct symbolizer *stacks_sym_get(void);
void stacks_sym_release(void);
void stacks_sym_lock(void);
void stacks_sym_unlock(void);

/* Copies the symbolizer's refusal notes (binaries without DWARF, perf maps
 * refused, files that did not answer) into a collector's ledger entry
 * (takes stacks_sym_lock()). */
struct ledger_entry;
void stacks_note_symbolizer(struct ledger_entry *led, const struct symbolizer *sym);
/* The ledger note of a collector that resolved nkeys aggregated keys with a
 * resolver whose stats are ss: keys, stacks read, frames resolved and not,
 * the symbolizer's binaries and processes' maps read (and failed), its note
 * on kernel symbols, then stacks_note_symbolizer's refusals. */
void stacks_note_resolution(struct ledger_entry *led, const struct symbolizer *sym, size_t nkeys,
                            const struct stack_stats *ss);

/* Names addresses a collector read itself, not through a stack map (the
 * stacks of tasks blocked since before the window): uaddr in process tgid
 * (0: none) and kaddr[0..nk-1] in the kernel, each the address to look up
 * (a return address less one).  *uname receives the user frame's name when
 * a symbol names it (NULL otherwise) and *ukind its kind; kname[i] the
 * kernel frames' names.  Names stay valid while the caller holds its
 * stacks_sym_acquire() reference.  Takes stacks_sym_lock(). */
void stacks_name_addrs(struct symbolizer *sym, uint32_t tgid, uint64_t uaddr, const char **uname,
                       uint8_t *ukind, const uint64_t *kaddr, size_t nk, const char **kname);
#endif
