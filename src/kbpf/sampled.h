/* One BPF program on a sampled software perf event on every CPU: the
 * skeleton the CPU profile (cpu-clock) and the page-fault profile
 * (page-faults) share.  The events are opened and attached disabled,
 * enabled for the window and detached at its end. */
#ifndef PERFREPORT_KBPF_SAMPLED_H
#define PERFREPORT_KBPF_SAMPLED_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bpf_link;
struct bpf_program;

struct kbpf_sampled {
    int ncpu;                /* possible CPUs */
    int attached;            /* CPUs sampled */
    struct bpf_link **links; /* owned, ncpu entries (NULL where none) */
    int *fds;                /* perf event fds, -1 where none */
};

/* Counts the possible CPUs (at most 4096) and makes the tables: 0, or
 * -EINVAL with err set. */
int kbpf_sampled_init(struct kbpf_sampled *s, char *err, size_t n);
/* Opens the software event config (PERF_COUNT_SW_*) at hz samples a second
 * on every online CPU and attaches prog to each, disabled.  0, or -errno
 * with err "no WHAT could be sampled: ..." when no CPU could be. */
int kbpf_sampled_attach(struct kbpf_sampled *s, struct bpf_program *prog, uint64_t config,
                        uint64_t hz, const char *what, char *err, size_t n);
/* Enables the attached events (their counts reset first when reset): 0, or
 * the last -errno. */
int kbpf_sampled_enable(struct kbpf_sampled *s, bool reset);
/* Disables the attached events and returns the sum of their counts (every
 * event, sampled or not). */
uint64_t kbpf_sampled_disable(struct kbpf_sampled *s);
/* Detaches: a perf_event link owns its event fd and closes it. */
void kbpf_sampled_detach(struct kbpf_sampled *s);
/* Detaches and frees the tables. */
void kbpf_sampled_free(struct kbpf_sampled *s);
/* out[k] = the sum over the CPUs of per-CPU array map fd's slot k, for k <
 * nkeys: 0, or -errno of the first failed lookup. */
int kbpf_sampled_stats(const struct kbpf_sampled *s, int fd, uint32_t nkeys, uint64_t *out);

struct collect_ctx;
/* The v2 cgroup id of -c (ctx->cfg->cgroup) for a BPF filter: true with
 * *cgid and *scope ("cgroup /x", malloc'd) set; false with *note (malloc'd)
 * saying why `what` ("the CPU profile") is system-wide instead. */
bool kbpf_sampled_cgroup_filter(const struct collect_ctx *ctx, const char *what,
                                uint64_t *cgid, char **scope, char **note);
#endif
