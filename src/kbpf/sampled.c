/* A sampled perf event on every CPU with a BPF program (sampled.h). */
#include "sampled.h"
#include "kbpf.h"
#include "../util/xalloc.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define SAMPLED_MAX_CPUS 4096

int kbpf_sampled_init(struct kbpf_sampled *s, char *err, size_t n)
{
    *s = (struct kbpf_sampled){.ncpu = libbpf_num_possible_cpus()};
    if (s->ncpu <= 0 || s->ncpu > SAMPLED_MAX_CPUS) {
        snprintf(err, n, "cannot count possible CPUs");
        return -EINVAL;
    }
    s->links = xcalloc((size_t)s->ncpu, sizeof *s->links);
    s->fds = xcalloc((size_t)s->ncpu, sizeof *s->fds);
    for (int i = 0; i < s->ncpu; i++)
        s->fds[i] = -1;
    return 0;
}

int kbpf_sampled_attach(struct kbpf_sampled *s, struct bpf_program *prog, uint64_t config,
                        uint64_t hz, const char *what, char *err, size_t n)
{
    /* every other field 0: exclude_kernel too (a page fault taken in
     * kernel mode, copy_to_user, counts) */
    struct perf_event_attr a = {.size = sizeof a, .type = PERF_TYPE_SOFTWARE, .config = config,
                                .freq = 1, .sample_freq = hz};
    int last_err;
    s->attached = kbpf_attach_per_cpu(prog, &a, s->ncpu, s->fds, s->links, &last_err);
    if (!s->attached) {
        snprintf(err, n, "no %s could be sampled: perf_event_open/attach: %s", what,
                 strerror(last_err ? last_err : ENODEV));
        return -(last_err ? last_err : ENODEV);
    }
    return 0;
}

int kbpf_sampled_enable(struct kbpf_sampled *s, bool reset)
{
    int rc = 0;
    for (int i = 0; i < s->ncpu; i++)
        if (s->links[i] && ((reset && ioctl(s->fds[i], PERF_EVENT_IOC_RESET, 0) != 0) ||
                            ioctl(s->fds[i], PERF_EVENT_IOC_ENABLE, 0) != 0))
            rc = -errno;
    return rc;
}

uint64_t kbpf_sampled_disable(struct kbpf_sampled *s)
{
    uint64_t sum = 0;
    for (int i = 0; s->links && i < s->ncpu; i++) {
        if (!s->links[i])
            continue;
        (void)ioctl(s->fds[i], PERF_EVENT_IOC_DISABLE, 0);
        uint64_t v;
        if (read(s->fds[i], &v, sizeof v) == (ssize_t)sizeof v)
            sum += v;
    }
    return sum;
}

void kbpf_sampled_detach(struct kbpf_sampled *s)
{
    for (int i = 0; s->links && i < s->ncpu; i++) {
        /* a perf_event link owns its event fd and closes it: closing it
         * again could close another thread's newly opened file */
        if (s->links[i])
            bpf_link__destroy(s->links[i]);
        else if (s->fds[i] >= 0)
            close(s->fds[i]);
        s->links[i] = NULL;
        s->fds[i] = -1;
    }
}

void kbpf_sampled_free(struct kbpf_sampled *s)
{
    kbpf_sampled_detach(s);
    free(s->links);
    free(s->fds);
    s->links = NULL;
    s->fds = NULL;
}

int kbpf_sampled_stats(const struct kbpf_sampled *s, int fd, uint32_t nkeys, uint64_t *out)
{
    uint64_t *v = xcalloc((size_t)s->ncpu, sizeof *v);
    int rc = 0;
    for (uint32_t k = 0; k < nkeys && rc == 0; k++) {
        out[k] = 0;
        rc = bpf_map_lookup_elem(fd, &k, v) ? -errno : 0;
        for (int i = 0; rc == 0 && i < s->ncpu; i++)
            out[k] += v[i];
    }
    free(v);
    return rc;
}
