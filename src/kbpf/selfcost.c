/* perfreport's BPF programs' run time, from /proc/self/fdinfo. */
#include "selfcost.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PROGS 256 /* distinct programs remembered for de-duplication */

/* The value after "key:" at the start of a line of text, or NULL. */
static const char *field(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp(p, key, kl) == 0 && p[kl] == ':')
            return p + kl + 1;
    return NULL;
}

static bool u64_field(const char *text, const char *key, uint64_t *v)
{
    const char *p = field(text, key);
    if (!p)
        return false;
    while (*p == ' ' || *p == '\t')
        p++;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(p, &end, 10);
    if (errno || end == p || (*end && *end != '\n'))
        return false;
    *v = x;
    return true;
}

bool selfcost_parse_fdinfo(const char *text, uint32_t *prog_id, uint64_t *run_ns, uint64_t *runs)
{
    uint64_t id = 0;
    *prog_id = 0;
    *run_ns = *runs = 0;
    /* prog_type and prog_tag are in every program's fdinfo (since 4.10) */
    if (!field(text, "prog_type") || !field(text, "prog_tag"))
        return false;
    if (u64_field(text, "prog_id", &id) && id <= UINT32_MAX)
        *prog_id = (uint32_t)id;
    (void)u64_field(text, "run_time_ns", run_ns);
    (void)u64_field(text, "run_cnt", runs);
    return true;
}

static bool stats_enabled(void)
{
    int fd = open("/proc/sys/kernel/bpf_stats_enabled", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char c = 0;
    bool on = read(fd, &c, 1) == 1 && c == '1';
    close(fd);
    return on;
}

int selfcost_bpf(struct bpf_cost *out)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -errno;
    int dfd = dirfd(d);
    int infofd = open("/proc/self/fdinfo", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (infofd < 0) {
        int e = errno;
        closedir(d);
        return -e;
    }
    uint32_t seen[MAX_PROGS];
    unsigned nseen = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char link[64];
        ssize_t ln = readlinkat(dfd, de->d_name, link, sizeof link - 1);
        if (ln <= 0)
            continue;
        link[ln] = '\0';
        if (strcmp(link, "anon_inode:bpf-prog") != 0)
            continue;
        int f = openat(infofd, de->d_name, O_RDONLY | O_CLOEXEC);
        if (f < 0)
            continue;
        char text[2048];
        ssize_t n = read(f, text, sizeof text - 1);
        close(f);
        if (n <= 0)
            continue;
        text[n] = '\0';
        uint32_t id;
        uint64_t ns, runs;
        if (!selfcost_parse_fdinfo(text, &id, &ns, &runs))
            continue;
        bool dup = false;
        for (unsigned i = 0; i < nseen && !dup; i++)
            dup = id && seen[i] == id;
        if (dup)
            continue;
        if (id && nseen < MAX_PROGS)
            seen[nseen++] = id;
        out->progs++;
        out->run_ns += ns;
        out->runs += runs;
    }
    close(infofd);
    closedir(d);
    /* BPF_ENABLE_STATS (an fd that holds them on) does not show in the
     * sysctl: counted runs say so too */
    out->stats_on = out->runs > 0 || stats_enabled();
    return 0;
}
