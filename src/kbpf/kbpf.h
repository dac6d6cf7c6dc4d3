/* src/kbpf/: the BPF runtime the collectors share.  kbpf.c (below),
 * kbtf.c (the kernel BTF read and parsed once for every load of the run),
 * systap.c (one raw_syscalls tap that the syscall and I/O-layer collectors
 * share) and tapslice.c (its time slices), selfcost.c (perfreport's own
 * cost in the kernel, taken out of what it measures). */
/* Helpers shared by the kernel-event BPF collectors (runqlat, biolat,
 * iolayers, syscalls, procevents, tcpevents): target filter ids, hook
 * checks, per-CPU sums, errno names, and turning a kernel log2 histogram
 * into the model's struct hist. */
#ifndef PERFREPORT_KBPF_H
#define PERFREPORT_KBPF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct collect_ctx;
struct hist;

/* tgid / v2 cgroup id to filter on in the kernel (0 = none).  Returns 0, or
 * -errno with err filled when the -c cgroup cannot be resolved. */
int kbpf_target(const struct collect_ctx *ctx, uint32_t *tgid, uint64_t *cgid, char *err,
                size_t n);
/* True when the running kernel's BTF has a tp_btf hook for tracepoint `tp`
 * (a "btf_trace_<tp>" typedef). */
bool kbpf_has_tp_btf(const char *tp);
/* The first of tps[0..n) without a tp_btf hook (all of them without
 * kernel BTF), or NULL when all are there.  Thread-safe; the kernel BTF is
 * parsed once and kept until released, answers are kept for the run. */
const char *kbpf_missing_tp_btf(const char *const *tps, size_t n);
/* Frees the kept kernel BTF (the runner, after the plan and the starts). */
void kbpf_release_vmlinux_btf(void);
/* Test hook PERFREPORT_FORCE_CLASSIC=1: collectors with a tp_btf and a
 * classic-tracepoint version take the classic one, the path of kernels
 * whose BTF lacks the tp_btf hooks (without BTF at all no CO-RE object
 * loads: the probe skips every BPF collector) (tests/e2e/classic.sh). */
bool kbpf_force_classic(void);
/* Marks a hash map that gains a key rarely (an aggregate per process,
 * syscall or connection) to allocate its elements on insert instead of all
 * at creation: a preallocated 64k-entry hash costs ~11 ms of CPU to create
 * here, every run, for entries a quiet host never uses.  Only on kernels
 * from 6.1, whose BPF memory allocator makes that safe in every program
 * type (NMI included); older ones keep the preallocation.  Call between
 * open and load.  Maps written on every event (a start time per blocked
 * thread) stay preallocated. */
struct bpf_map;
void kbpf_alloc_on_insert(struct bpf_map *map);
/* Entries for a preallocated table with a row per thread (a start time per
 * blocked or runnable thread): twice the host's threads plus room for 1,024
 * new ones, as a power of two within [min, max]; max when threads is
 * unknown (<= 0).  A 32,768-entry table cost ~12 ms of CPU to create on the
 * test VM for the ~200 threads of an idle host. */
uint32_t kbpf_per_thread_entries(long threads, uint32_t min, uint32_t max);
/* The host's threads now (/proc/loadavg), or -1. */
long kbpf_host_threads(void);
/* Fills, on every CPU we may run on, the kernel's cache of free elements of
 * maps that allocate on insert.  That cache starts with one element per CPU
 * for elements over 256 bytes (a stack store's are 1 KiB) and is refilled
 * from irq_work once a program takes one; a perf_event program (NMI) that
 * inserts two stacks in one sample finds it empty the first time and loses
 * the second.  One insert and delete from each CPU starts the refill before
 * the window.  Call after load, before the programs run; a map still
 * preallocated, or not keyed by a u32, is left alone. */
void kbpf_warm_alloc(struct bpf_map *map);
/* Shrinks a map this run never writes (the per-thread tables of a targeted
 * run, the followed processes of a command) to one entry: a preallocated
 * table of 8,192 costs its creation every run for nothing.  Call between
 * open and load. */
void kbpf_map_unused(struct bpf_map *map);
/* True when tracefs lists events/<cat>/<name>. */
bool kbpf_has_tracepoint(const char *cat, const char *name);
/* Adds log2 slots (slot i = [2^i, 2^(i+1)), slot 0 also 0) into h, and the
 * sum/max when known (sum/max < 0 = unknown). */
void kbpf_hist_add(struct hist *h, const uint64_t *slots, size_t nslots, double sum, double max);
struct khist;
/* A histogram as the programs aggregate it (bpf/khist.h), sum and max known. */
void kbpf_khist_add(struct hist *h, const struct khist *k);
/* A walk over every entry of a BPF map by fd:
 *     struct kbpf_walk w = KBPF_WALK_INIT(fd);
 *     while (kbpf_walk_next(&w, &key, sizeof key, &val)) ...
 * The walk keeps its own copy of the last key, so the body may change key.
 * Entries deleted between the key and the lookup are skipped. */
#define KBPF_WALK_MAX_KEY 256
struct kbpf_walk {
    int fd;
    bool started;
    unsigned char prev[KBPF_WALK_MAX_KEY];
};
#define KBPF_WALK_INIT(map_fd) ((struct kbpf_walk){.fd = (map_fd)})
/* Fills key (ksz bytes, at most KBPF_WALK_MAX_KEY) and val (the map's value
 * size) with the next entry; false at the end or on a read error.  val NULL:
 * the keys alone, no entry looked up. */
bool kbpf_walk_next(struct kbpf_walk *w, void *key, size_t ksz, void *val);
/* Every entry of a BPF map appended to a growing array (*arrp holding *n
 * of *cap elements of esz bytes, as xgrow keeps it): row() fills the new
 * element from the entry's key (ksz bytes, at most KBPF_WALK_MAX_KEY) and
 * value (vsz bytes, the map's value size) and returns false to leave it
 * out.  Entries deleted meanwhile are skipped.  How many were appended. */
struct kbpf_drain {
    int fd;
    size_t ksz, vsz, esz;
    bool (*row)(const void *key, const void *val, void *elem, void *ctx);
    void *ctx; /* row()'s */
};
size_t kbpf_drain(const struct kbpf_drain *d, void *arrp, size_t *n, size_t *cap);
/* Sum of one per-CPU counter slot; 0 on a read error. */
uint64_t kbpf_percpu_sum(int map_fd, uint32_t key);

struct bpf_map;
/* Whether tp_btf programs can be used (kernel BTF present) or else classic
 * tracepoint `cat/name` exists under tracefs; reason set when neither. */
bool kbpf_can_trace(const char *cat, const char *name, char *reason, size_t n);
int kbpf_ncpus(void); /* possible CPUs, as libbpf counts them (>= 1) */
/* Reads per-CPU value `key` of `map` (value size vsz, a multiple of 8) and
 * sums it field by field as u64 into out (vsz bytes).  0 or -errno. */
int kbpf_percpu_sum_struct(const struct bpf_map *map, const void *key, size_t ksz, void *out,
                           size_t vsz);
/* "ENOENT" for 2; "E<n>" when glibc has no name. */
void kbpf_errno_name(int e, char *buf, size_t n);
struct bpf_program;
struct bpf_link;
struct perf_event_attr;
/* Opens the sampling event *attr on every online CPU and attaches prog to
 * each, left disabled (sampling starts with the window: the caller's begin
 * enables them).  fds[cpu] and links[cpu] (ncpu long; fds preset to -1) get
 * what opened; a CPU that went offline since the list was read is skipped.
 * Returns how many CPUs are attached; *last_err is the last errno seen. */
int kbpf_attach_per_cpu(struct bpf_program *prog, const struct perf_event_attr *attr, int ncpu,
                        int *fds, struct bpf_link **links, int *last_err);
/* Threads of a process from /proc/PID/status, at least 1; 0 when gone. */
unsigned kbpf_proc_threads(int pid);
#endif
