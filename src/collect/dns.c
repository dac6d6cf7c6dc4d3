/* Collector "dns": how long the C library's resolver functions take, per
 * process and per looked-up name, through uprobes on getaddrinfo, the
 * gethostbyname family and getnameinfo (bpf/dns.bpf.c).  The probes go on
 * every C library the host's processes map (a container's libc is another
 * file), opened by descriptor and attached through /proc/self/fd, so the
 * file probed is the one mapped, never a path an attacker swapped since. */
#include "dns.h"
#include "collector.h"
#include "../kbpf/kbpf.h"
#include "../kbpf/libc_find.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../util/clock.h"
#include "../util/hostfs.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "dns.skel.h"
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <gelf.h>
#include <libelf.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/bpf.h>
#include <math.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DNS_MAX_LIBCS 16     /* distinct C library files probed */
/* A lookup's cost with the probes on: ~58 us on the 2-CPU test VM
 * (bench/dns_bench.sh, 2026-11-26: four probe hits per glibc getaddrinfo) */
#define DNS_COST_NS 58000.0
#define DNS_GUARD_PCT 1.0    /* of the host's CPU, estimated, before detaching */
#define DNS_MAX_PIDS 8192    /* processes whose maps are read for them */
#define DNS_MAPS_MAX (4u << 20)
#define DNS_TOP_NAMES 20     /* rows of the slowest-names table */
#define DNS_TOP_HISTS 4      /* processes with a histogram of their own */

static const char *const func_names[DNS_NFUNCS] = {
    "getaddrinfo", "gethostbyname", "gethostbyname2", "gethostbyname_r", "gethostbyname2_r",
    "getnameinfo"};

const char *dns_func_name(unsigned f) { return f < DNS_NFUNCS ? func_names[f] : "?"; }

void dns_code_name(unsigned func, int32_t code, char *buf, size_t n, const char **meaning)
{
    static const struct {
        int code;
        const char *name, *meaning;
    } eai[] = {
        {EAI_BADFLAGS, "EAI_BADFLAGS", "bad flags"},
        {EAI_NONAME, "EAI_NONAME", "name not known (NXDOMAIN or not in the hosts file)"},
        {EAI_AGAIN, "EAI_AGAIN", "temporary failure (no answer from a nameserver)"},
        {EAI_FAIL, "EAI_FAIL", "permanent failure (SERVFAIL or a refused query)"},
        {EAI_FAMILY, "EAI_FAMILY", "address family not supported"},
        {EAI_SOCKTYPE, "EAI_SOCKTYPE", "socket type not supported"},
        {EAI_SERVICE, "EAI_SERVICE", "service not known"},
        {EAI_MEMORY, "EAI_MEMORY", "out of memory"},
        {EAI_SYSTEM, "EAI_SYSTEM", "system error (see errno)"},
        {EAI_OVERFLOW, "EAI_OVERFLOW", "buffer too small"},
        {EAI_NODATA, "EAI_NODATA", "the name has no address (NODATA)"},
        {EAI_ADDRFAMILY, "EAI_ADDRFAMILY", "no address in the requested family"},
    };
    const char *m = NULL;
    if (code == DNS_ST_NULL) {
        snprintf(buf, n, "NULL result");
        m = "failed; h_errno is not visible from outside the process";
    } else if (func == DNS_GETADDRINFO || func == DNS_GETNAMEINFO) {
        snprintf(buf, n, "EAI %d", (int)code);
        for (size_t i = 0; i < ARRAY_LEN(eai); i++)
            if (eai[i].code == code) {
                snprintf(buf, n, "%s", eai[i].name);
                m = eai[i].meaning;
            }
    } else {
        kbpf_errno_name(code, buf, n);
        if (code == ERANGE)
            m = "the caller's buffer was too small (it usually retries)";
    }
    if (meaning)
        *meaning = m;
}

/* ---- finding the C libraries ---------------------------------------------- */

struct libc_file {
    int fd;
    dev_t dev;
    ino_t ino;
    char path[256]; /* as the first process that maps it names it */
    pid_t pid;      /* that process; 0 = the host's own */
    uid_t uid;      /* the file's owner */
    uint64_t off[DNS_NFUNCS]; /* the resolver functions' file offsets (0: absent) */
    unsigned attached; /* functions attached */
};

struct libc_set {
    struct libc_file f[DNS_MAX_LIBCS];
    size_t n;
    size_t skipped; /* distinct files past DNS_MAX_LIBCS */
    size_t remote;  /* mappings of files on FUSE or network filesystems, not opened */
};

static void libc_set_close(struct libc_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->f[i].fd >= 0)
            close(s->f[i].fd);
    s->n = 0;
}

/* Keeps fd (taken) unless the same file is already in s or it has none of
 * the resolver functions (a file named like libc is not one: a user can
 * bind-mount any root-owned library at such a name to take a slot). */
static void libc_add(struct libc_set *s, int fd, const char *path, pid_t pid)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return;
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->f[i].dev == st.st_dev && s->f[i].ino == st.st_ino) {
            close(fd);
            return;
        }
    uint64_t off[DNS_NFUNCS];
    if (!dns_func_offsets(fd, off)) {
        close(fd);
        return;
    }
    struct libc_file *f = NULL;
    if (s->n == DNS_MAX_LIBCS) {
        /* Root's files first: any user can map copies of libc of their own
         * to fill the slots before a container's (root-owned) one is met. */
        for (size_t i = 0; i < s->n && !f && st.st_uid == 0; i++)
            if (s->f[i].uid != 0)
                f = &s->f[i];
        s->skipped++;
        if (!f) {
            close(fd);
            return;
        }
        close(f->fd);
    } else {
        f = &s->f[s->n++];
    }
    memset(f, 0, sizeof *f);
    f->fd = fd;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    f->uid = st.st_uid;
    memcpy(f->off, off, sizeof f->off);
    f->pid = pid;
    snprintf(f->path, sizeof f->path, "%s", path);
}

/* Seen (device, inode) pairs of the maps, so each file is opened once. */
struct seen_maps {
    char dev[DNS_MAX_LIBCS * 16][16];
    uint64_t ino[DNS_MAX_LIBCS * 16];
    size_t n;
};

static bool seen_before(const struct seen_maps *s, const struct libc_map *m)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->ino[i] == m->inode && strcmp(s->dev[i], m->dev) == 0)
            return true;
    return false;
}

/* Only files opened are marked: one a process could not give us (it
 * exited) is tried again through the next process that maps it. */
static void mark_seen(struct seen_maps *s, const struct libc_map *m)
{
    if (s->n < ARRAY_LEN(s->ino)) {
        s->ino[s->n] = m->inode;
        snprintf(s->dev[s->n], sizeof s->dev[0], "%s", m->dev);
        s->n++;
    }
}

/* The C libraries process pid maps, into set (first=true: stop at the
 * first one found, the plan's question).  Returns how many it found. */
static size_t scan_pid(pid_t pid, struct libc_set *set, struct seen_maps *seen, bool first)
{
    struct libc_scan sc;
    size_t found = 0;
    if (libc_scan_open(&sc, pid, DNS_MAPS_MAX) != 0)
        return 0;
    struct libc_map m;
    while (libc_scan_next(&sc, &m)) {
        found++;
        if (first)
            break;
        if (libc_scan_remote(&sc, &m)) {
            set->remote++;
        } else if (!seen_before(seen, &m)) {
            int fd = libc_open_mapped(pid, &m);
            if (fd >= 0) {
                mark_seen(seen, &m);
                libc_add(set, fd, m.path, pid);
            }
        }
    }
    libc_scan_close(&sc);
    return found;
}

/* The host's own C library, for programs started during the window. */
static const char *const host_libcs[] = {
    "/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/lib64/libc.so.6",
    "/usr/lib/libc.so.6", "/lib/libc.so.6", "/lib/ld-musl-x86_64.so.1", "/lib/ld-musl-aarch64.so.1"};

static int open_host_libc(const char **which)
{
    for (size_t i = 0; i < ARRAY_LEN(host_libcs); i++) {
        char path[4096];
        if (hostfs_path(path, sizeof path, host_libcs[i]) != 0)
            continue;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd >= 0) {
            *which = host_libcs[i];
            return fd;
        }
    }
    return -1;
}

static bool is_pid_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* Every C library of the target (-p) or of the host into set; first: only
 * whether there is one (nothing opened but the host's, nothing kept).
 * Returns how many were found. */
static size_t find_libcs(pid_t target, struct libc_set *set, bool first)
{
    struct seen_maps seen = {.n = 0};
    if (target > 0)
        return scan_pid(target, set, &seen, first);
    size_t found = 0;
    const char *which = NULL;
    int fd = open_host_libc(&which);
    if (fd >= 0) {
        found++;
        if (first) {
            close(fd);
            return found;
        }
        libc_add(set, fd, which, 0);
    }
    DIR *d = hostfs_opendir("/proc");
    if (!d)
        return found;
    size_t pids = 0;
    struct dirent *de;
    while ((de = readdir(d)) && pids < DNS_MAX_PIDS) {
        if (!is_pid_name(de->d_name))
            continue;
        long pid = strtol(de->d_name, NULL, 10);
        if (pid <= 0 || pid == (long)getpid())
            continue;
        pids++;
        found += scan_pid((pid_t)pid, set, &seen, first);
        if (first && found)
            break;
    }
    closedir(d);
    return found;
}

/* ---- the model -------------------------------------------------------------- */

static double ms(double us) { return isfinite(us) ? us / 1000.0 : NAN; }

void dns_name_text(const struct dns_name_key *k, char *buf, size_t n)
{
    if (!n)
        return;
    if (!k->raw) {
        size_t len = strnlen(k->name, DNS_NAME_LEN);
        if (len >= DNS_NAME_LEN - 1)
            snprintf(buf, n, "%.*s...", (int)len, k->name);
        else
            snprintf(buf, n, "%.*s", (int)len, k->name);
        return;
    }
    uint16_t fam;
    memcpy(&fam, k->name, sizeof fam);
    char a[INET6_ADDRSTRLEN];
    if (fam == AF_INET && inet_ntop(AF_INET, k->name + 4, a, sizeof a))
        snprintf(buf, n, "%s", a);
    else if (fam == AF_INET6 && inet_ntop(AF_INET6, k->name + 8, a, sizeof a))
        snprintf(buf, n, "%s", a);
    else
        snprintf(buf, n, "(address family %u)", (unsigned)fam);
}

static void proc_hist(struct hist *h, const struct dns_proc *p) { kbpf_khist_add(h, &p->lat); }

static uint64_t proc_calls(const struct dns_proc *p)
{
    uint64_t n = 0;
    for (int i = 0; i < DNS_NFUNCS; i++)
        n += p->calls[i];
    return n;
}

static double proc_p99(const struct dns_proc *p)
{
    struct hist h = {.sum = NAN, .max = NAN};
    proc_hist(&h, p);
    return hist_percentile(&h, 0.99);
}

static int cmp_proc(const void *a, const void *b)
{
    const struct dns_proc_rec *x = a, *y = b;
    double px = proc_p99(&x->v), py = proc_p99(&y->v);
    if (isnan(px) != isnan(py))
        return isnan(px) ? 1 : -1;
    if (px != py && !isnan(px))
        return px > py ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int cmp_name(const void *a, const void *b)
{
    const struct dns_name_rec *x = a, *y = b;
    if (x->v.max_us != y->v.max_us)
        return x->v.max_us > y->v.max_us ? -1 : 1;
    if (x->k.tgid != y->k.tgid)
        return x->k.tgid < y->k.tgid ? -1 : 1;
    return memcmp(x->k.name, y->k.name, DNS_NAME_LEN);
}

static int cmp_err(const void *a, const void *b)
{
    const struct dns_err_rec *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    if (x->k.tgid != y->k.tgid)
        return x->k.tgid < y->k.tgid ? -1 : 1;
    if (x->k.func != y->k.func)
        return x->k.func < y->k.func ? -1 : 1;
    return x->k.code < y->k.code ? -1 : x->k.code > y->k.code;
}

/* comm of pid from the drained processes ("?" when its entry was lost). */
static void comm_of(const struct dns_proc_rec *procs, size_t np, uint32_t pid, char *buf,
                    size_t n)
{
    for (size_t i = 0; i < np; i++)
        if (procs[i].pid == pid) {
            snprintf(buf, n, "%.*s", (int)sizeof procs[i].v.comm, procs[i].v.comm);
            return;
        }
    snprintf(buf, n, "?");
}

void dns_fill(struct report *r, struct dns_proc_rec *procs, size_t np, struct dns_err_rec *errs,
              size_t ne, struct dns_name_rec *names, size_t nn, const char *libcs)
{
    static const char bypass[] =
        "Statically linked programs and Go programs (Go's own resolver) do not call the C "
        "library and are not seen.";
    if (np > 1)
        qsort(procs, np, sizeof *procs, cmp_proc);
    if (nn > 1)
        qsort(names, nn, sizeof *names, cmp_name);
    if (ne > 1)
        qsort(errs, ne, sizeof *errs, cmp_err);

    struct hist *all = report_hist(r, NM_DNSLAT, "DNS lookup latency, every process (C library)",
                                   "us", "dns");
    struct table *pt = report_table(r, NM_DNS_PROCS, "DNS lookups by process", "dns");
    static const struct col_spec proc_cols[] = {
        {"comm", "Process", "", 0},   {"pid", "PID", "", 0},
        {"lookups", "Lookups", "", 0}, {"failed", "Failed", "", 0},
        {"p50_ms", "p50", "ms", 1},  {"p99_ms", "p99", "ms", 1},
        {"max_ms", "Max", "ms", 1},  {"functions", "Functions", "", 0},
    };
    table_add_cols(pt, proc_cols, ARRAY_LEN(proc_cols));
    uint64_t lookups = 0, failed = 0;
    double worst_max = NAN;
    for (size_t i = 0; i < np; i++) {
        const struct dns_proc *p = &procs[i].v;
        uint64_t calls = proc_calls(p);
        if (!calls)
            continue;
        struct hist h = {.sum = NAN, .max = NAN};
        proc_hist(&h, p);
        kbpf_khist_add(all, &p->lat);
        lookups += calls;
        failed += p->fails;
        char comm[32];
        snprintf(comm, sizeof comm, "%.*s", (int)sizeof p->comm, p->comm);
        size_t row = table_add_row(pt);
        table_set_str(pt, row, "comm", comm);
        table_set_num(pt, row, "pid", procs[i].pid);
        table_set_num(pt, row, "lookups", (double)calls);
        table_set_num(pt, row, "failed", (double)p->fails);
        table_set_num(pt, row, "p50_ms", ms(hist_percentile(&h, 0.5)));
        table_set_num(pt, row, "p99_ms", ms(hist_percentile(&h, 0.99)));
        table_set_num(pt, row, "max_ms", ms(h.max));
        if (isnan(worst_max) || ms(h.max) > worst_max)
            worst_max = ms(h.max);
        struct strbuf fs = STRBUF_INIT;
        for (int f = 0; f < DNS_NFUNCS; f++)
            if (p->calls[f])
                sb_addf(&fs, "%s%s %llu", fs.len ? ", " : "", func_names[f],
                        (unsigned long long)p->calls[f]);
        table_set_str(pt, row, "functions", sb_str(&fs));
        sb_free(&fs);
        if (row < DNS_TOP_HISTS) {
            char name[64], title[96];
            snprintf(name, sizeof name, NMF_DNSLAT_PID, (size_t)procs[i].pid);
            snprintf(title, sizeof title, "DNS lookup latency of %s (pid %u)", comm,
                     (unsigned)procs[i].pid);
            kbpf_khist_add(report_hist(r, name, title, "us", "dns"), &p->lat);
        }
    }
    struct strbuf note = STRBUF_INIT;
    sb_addf(&note, "Time inside getaddrinfo, gethostbyname, gethostbyname2, gethostbyname_r, "
                   "gethostbyname2_r and getnameinfo, from uprobes on %s; p50/p99 from log2 "
                   "histograms (interpolated inside a power-of-two bucket, at most the max). ",
            libcs && *libcs ? libcs : "the C library");
    sb_add(&note, bypass);
    table_set_note(pt, sb_str(&note));
    sb_free(&note);

    struct table *nt = report_table(r, NM_DNS_NAMES, "Slowest names looked up", "dns");
    static const struct col_spec name_cols[] = {
        {"comm", "Process", "", 0},    {"pid", "PID", "", 0},       {"name", "Name", "", 0},
        {"lookups", "Lookups", "", 0}, {"failed", "Failed", "", 0}, {"avg_ms", "Average", "ms", 1},
        {"max_ms", "Max", "ms", 1},
    };
    table_add_cols(nt, name_cols, ARRAY_LEN(name_cols));
    for (size_t i = 0; i < nn && i < DNS_TOP_NAMES; i++) {
        const struct dns_name_rec *e = &names[i];
        if (!e->v.calls)
            continue;
        char comm[32], name[DNS_NAME_LEN + 8];
        comm_of(procs, np, e->k.tgid, comm, sizeof comm);
        dns_name_text(&e->k, name, sizeof name);
        size_t row = table_add_row(nt);
        table_set_str(nt, row, "comm", comm);
        table_set_num(nt, row, "pid", e->k.tgid);
        table_set_str(nt, row, "name", name);
        table_set_num(nt, row, "lookups", (double)e->v.calls);
        table_set_num(nt, row, "failed", (double)e->v.fails);
        table_set_num(nt, row, "avg_ms", ms((double)e->v.sum_us / (double)e->v.calls));
        table_set_num(nt, row, "max_ms", ms((double)e->v.max_us));
    }
    if (nn > DNS_TOP_NAMES) {
        char s[160];
        snprintf(s, sizeof s, "The %d slowest of %zu (process, name) pairs; names longer than "
                              "%d bytes end in '...'.", DNS_TOP_NAMES, nn, DNS_NAME_LEN - 1);
        table_set_note(nt, s);
    }

    struct table *ft = report_table(r, NM_DNS_FAILURES, "Failed lookups by code", "dns");
    static const struct col_spec fail_cols[] = {
        {"comm", "Process", "", 0}, {"pid", "PID", "", 0},       {"function", "Function", "", 0},
        {"code", "Code", "", 0},    {"meaning", "Meaning", "", 0}, {"count", "Count", "", 0},
    };
    table_add_cols(ft, fail_cols, ARRAY_LEN(fail_cols));
    for (size_t i = 0; i < ne; i++) {
        const struct dns_err_rec *e = &errs[i];
        char comm[32], code[48];
        const char *meaning = NULL;
        comm_of(procs, np, e->k.tgid, comm, sizeof comm);
        dns_code_name(e->k.func, e->k.code, code, sizeof code, &meaning);
        size_t row = table_add_row(ft);
        table_set_str(ft, row, "comm", comm);
        table_set_num(ft, row, "pid", e->k.tgid);
        table_set_str(ft, row, "function", dns_func_name(e->k.func));
        table_set_str(ft, row, "code", code);
        if (meaning)
            table_set_str(ft, row, "meaning", meaning);
        table_set_num(ft, row, "count", (double)e->n);
    }

    report_metric(r, NM_DNS_LOOKUPS, "DNS lookups through the C library", "", "dns",
                  (double)lookups);
    report_metric(r, NM_DNS_FAILED_LOOKUPS, "Failed DNS lookups", "", "dns", (double)failed);
    if (all->count) {
        report_metric(r, NM_DNS_P99_MS, "DNS lookup p99 (every process)", "ms", "dns",
                      ms(hist_percentile(all, 0.99)));
        report_metric(r, NM_DNS_MAX_MS, "Slowest DNS lookup", "ms", "dns", worst_max);
    }
}

/* ---- the collector -------------------------------------------------------- */

struct dns_state {
    struct dns_bpf *skel;
    struct libc_set libcs;
    bool multi;             /* uprobe_multi links (else one perf-event uprobe each) */
    int *fds;               /* the links' descriptors, closed in drop_links */
    size_t nfds, capfds;
    struct bpf_link **links; /* perf-event uprobes */
    size_t nlinks, caplinks;
    unsigned failed_attach; /* functions a libc lacks or that did not attach */
    double attach_ms;       /* time spent attaching */
    /* the cost guard (dns_tick) */
    uint64_t last_calls;    /* lookups counted by the last tick */
    double last_s;          /* its clock, NAN before the first */
    double detached_at_s;   /* window time the guard detached the probes, NAN if not */
    double detached_pct;    /* the estimated share of the host's CPU then */
    /* `-- CMD`: the probes went on the C library of perfreport's image (the
     * command had not exec'd); the ticks after check the program's own. */
    bool cmd_pending;       /* not checked yet */
    bool cmd_missed_once;   /* a tick saw it map no libc yet */
    bool cmd_no_libc;       /* it maps none: static, or Go */
    unsigned cmd_added;     /* its own libc files probed once it ran */
};

static bool uprobes_supported(void)
{
    return hostfs_exists("/sys/bus/event_source/devices/uprobe/type") ||
           hostfs_exists("/sys/kernel/tracing/uprobe_events") ||
           hostfs_exists("/sys/kernel/debug/tracing/uprobe_events");
}

static bool dns_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    if (!uprobes_supported()) {
        snprintf(reason, n, "the kernel has no uprobes (no uprobe PMU, no uprobe_events in "
                            "tracefs)");
        return false;
    }
    struct libc_set set = {.n = 0};
    pid_t pid = ctx->cfg ? ctx->cfg->pid : 0;
    if (!find_libcs(pid, &set, true)) {
        if (pid > 0)
            snprintf(reason, n, "pid %d maps no C library (statically linked or a Go "
                                "program): its lookups bypass the probes", (int)pid);
        else
            snprintf(reason, n, "no C library found (none at the usual paths, none mapped "
                                "by a process)");
        return false;
    }
    return true;
}

static void dns_destroy(void *state)
{
    struct dns_state *st = state;
    if (!st)
        return;
    for (size_t i = 0; i < st->nlinks; i++)
        bpf_link__destroy(st->links[i]);
    free(st->links);
    for (size_t i = 0; i < st->nfds; i++)
        close(st->fds[i]);
    free(st->fds);
    dns_bpf__destroy(st->skel);
    libc_set_close(&st->libcs);
    free(st);
}

static void keep_link(struct dns_state *st, struct bpf_link *l)
{
    xgrow(&st->links, &st->caplinks, st->nlinks + 1, sizeof *st->links);
    st->links[st->nlinks++] = l;
}

unsigned dns_func_offsets(int fd, uint64_t off[DNS_NFUNCS])
{
    memset(off, 0, DNS_NFUNCS * sizeof *off);
    if (elf_version(EV_CURRENT) == EV_NONE)
        return 0;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!elf)
        return 0;
    unsigned found = 0;
    static const Elf64_Word kinds[] = {SHT_DYNSYM, SHT_SYMTAB};
    for (size_t k = 0; k < ARRAY_LEN(kinds) && found < DNS_NFUNCS; k++) {
        Elf_Scn *scn = NULL;
        while ((scn = elf_nextscn(elf, scn))) {
            GElf_Shdr sh;
            if (!gelf_getshdr(scn, &sh) || sh.sh_type != kinds[k] || !sh.sh_entsize)
                continue;
            Elf_Data *d = elf_getdata(scn, NULL);
            if (!d)
                continue;
            size_t nsym = sh.sh_size / sh.sh_entsize;
            for (size_t i = 0; i < nsym; i++) {
                GElf_Sym sym;
                if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
                    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
                    continue;
                const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
                if (!name)
                    continue;
                size_t nl = strcspn(name, "@");
                for (int f = 0; f < DNS_NFUNCS; f++) {
                    if (off[f] || strlen(func_names[f]) != nl ||
                        strncmp(name, func_names[f], nl) != 0)
                        continue;
                    GElf_Shdr ts;
                    Elf_Scn *text = elf_getscn(elf, sym.st_shndx);
                    if (text && gelf_getshdr(text, &ts) && sym.st_value >= ts.sh_addr &&
                        sym.st_value - ts.sh_addr < ts.sh_size) {
                        off[f] = sym.st_value - ts.sh_addr + ts.sh_offset;
                        found++;
                    }
                }
            }
        }
    }
    elf_end(elf);
    return found;
}

/* BPF_LINK_CREATE for a uprobe_multi link, in the kernel's layout (Linux
 * 6.6; the installed uapi headers predate it). */
#define DNS_TRACE_UPROBE_MULTI 48
#define DNS_F_UPROBE_MULTI_RETURN 1u
struct uprobe_multi_attr {
    uint32_t prog_fd, target_fd, attach_type, flags;
    uint64_t path, offsets, ref_ctr_offsets, cookies;
    uint32_t cnt, um_flags, pid, pad;
};

static int uprobe_multi_link(int prog_fd, const char *path, const uint64_t *offs,
                             const uint64_t *cookies, uint32_t cnt, bool ret, uint32_t pid)
{
    struct uprobe_multi_attr a;
    memset(&a, 0, sizeof a);
    a.prog_fd = (uint32_t)prog_fd;
    a.attach_type = DNS_TRACE_UPROBE_MULTI;
    a.path = (uint64_t)(uintptr_t)path;
    a.offsets = (uint64_t)(uintptr_t)offs;
    a.cookies = (uint64_t)(uintptr_t)cookies;
    a.cnt = cnt;
    a.um_flags = ret ? DNS_F_UPROBE_MULTI_RETURN : 0;
    a.pid = pid;
    int fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof a);
    return fd < 0 ? -errno : fd;
}

static void keep_fd(struct dns_state *st, int fd)
{
    xgrow(&st->fds, &st->capfds, st->nfds + 1, sizeof *st->fds);
    st->fds[st->nfds++] = fd;
}

/* Every function of one C library file under two uprobe_multi links
 * (entries, returns), the attach cookie naming the function; pid > 0
 * limits them to that process.  How many functions are probed. */
static unsigned attach_libc_multi(struct dns_state *st, struct libc_file *f, uint32_t pid)
{
    const uint64_t *all = f->off; /* read when the file was taken (libc_add) */
    uint64_t offs[DNS_NFUNCS], cookies[DNS_NFUNCS];
    uint32_t cnt = 0;
    for (int i = 0; i < DNS_NFUNCS; i++)
        if (all[i]) {
            offs[cnt] = all[i];
            cookies[cnt++] = (uint64_t)i;
        }
    st->failed_attach += DNS_NFUNCS - cnt;
    if (!cnt)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", f->fd);
    /* the return probes first: an entry without one would leave a call
     * open in the per-thread map */
    int rfd = uprobe_multi_link(bpf_program__fd(st->skel->progs.dns_return), path, offs, cookies,
                                cnt, true, pid);
    if (rfd < 0)
        return 0;
    int efd = uprobe_multi_link(bpf_program__fd(st->skel->progs.dns_entry), path, offs, cookies,
                                cnt, false, pid);
    if (efd < 0) {
        close(rfd);
        return 0;
    }
    keep_fd(st, rfd);
    keep_fd(st, efd);
    return cnt;
}

/* The same with one perf-event uprobe per function and direction (kernels
 * before 6.6).  How many functions got both. */
static unsigned attach_libc_single(struct dns_state *st, struct libc_file *f)
{
    struct dns_bpf *s = st->skel;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", f->fd);
    unsigned ok = 0;
    for (int i = 0; i < DNS_NFUNCS; i++) {
        LIBBPF_OPTS(bpf_uprobe_opts, eo, .func_name = func_names[i], .retprobe = false,
                    .bpf_cookie = (uint64_t)i);
        LIBBPF_OPTS(bpf_uprobe_opts, ro, .func_name = func_names[i], .retprobe = true);
        struct bpf_link *rl = bpf_program__attach_uprobe_opts(s->progs.dns_return, -1, path, 0,
                                                              &ro);
        if (!rl) {
            st->failed_attach++;
            continue;
        }
        struct bpf_link *el = bpf_program__attach_uprobe_opts(s->progs.dns_entry, -1, path, 0,
                                                              &eo);
        if (!el) {
            bpf_link__destroy(rl);
            st->failed_attach++;
            continue;
        }
        keep_link(st, rl);
        keep_link(st, el);
        ok++;
    }
    return ok;
}

/* Opens and loads the programs for multi or single links.  0 or -errno. */
static int load_progs(struct dns_state *st, bool multi, uint32_t tgid, uint64_t cgid)
{
    st->skel = dns_bpf__open();
    if (!st->skel)
        return errno ? -errno : -ENOMEM;
    struct dns_bpf *s = st->skel;
    s->rodata->targ_tgid = tgid;
    s->rodata->targ_cgid = cgid;
    s->rodata->self_tgid = (uint32_t)getpid();
    kbpf_alloc_on_insert(s->maps.calls); /* a lookup in flight: rare, ~58 us each traced */
    kbpf_alloc_on_insert(s->maps.procs);
    kbpf_alloc_on_insert(s->maps.errs);
    kbpf_alloc_on_insert(s->maps.names);
    if (multi) {
        bpf_program__set_expected_attach_type(s->progs.dns_entry, DNS_TRACE_UPROBE_MULTI);
        bpf_program__set_expected_attach_type(s->progs.dns_return, DNS_TRACE_UPROBE_MULTI);
    }
    int rc = dns_bpf__load(s);
    if (rc == 0 && !s->bss)
        rc = -EOPNOTSUPP; /* the recording switch needs the mmapped .bss */
    st->multi = multi;
    return rc < 0 ? rc : -rc;
}

static unsigned attach_all(struct dns_state *st, uint32_t tgid)
{
    unsigned total = 0;
    st->failed_attach = 0;
    for (size_t i = 0; i < st->libcs.n; i++) {
        struct libc_file *f = &st->libcs.f[i];
        f->attached = st->multi ? attach_libc_multi(st, f, tgid) : attach_libc_single(st, f);
        total += f->attached;
    }
    return total;
}

static int dns_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct dns_state *st = xcalloc(1, sizeof *st);
    st->last_s = NAN;
    st->detached_at_s = NAN;
    *state = st;
    uint32_t tgid;
    uint64_t cgid;
    int rc = kbpf_target(ctx, &tgid, &cgid, err, n);
    if (rc)
        return rc;
    find_libcs(tgid, &st->libcs, false);
    if (!st->libcs.n) {
        snprintf(err, n, "no C library could be opened");
        return -ENOENT;
    }
    /* uprobe_multi first: one wait per link at the end, where single
     * uprobes wait once each (see drop_links); kernels before 6.6 refuse
     * its attach type at load or at attach, and get single uprobes */
    bool multi = !kbpf_force_classic();
    double t0 = mono_ms();
    rc = load_progs(st, multi, tgid, cgid);
    unsigned total = rc == 0 ? attach_all(st, tgid) : 0;
    if (multi && !total) {
        dns_bpf__destroy(st->skel);
        st->skel = NULL;
        rc = load_progs(st, false, tgid, cgid);
        total = rc == 0 ? attach_all(st, tgid) : 0;
    }
    if (rc) {
        char e[128];
        libbpf_strerror(rc, e, sizeof e);
        snprintf(err, n, "load dns BPF: %s", e);
        return rc;
    }
    for (size_t i = 0; i < st->libcs.n; i++) {
        /* attached uprobes hold the inode: the descriptor is done */
        close(st->libcs.f[i].fd);
        st->libcs.f[i].fd = -1;
    }
    st->attach_ms = mono_ms() - t0;
    st->cmd_pending = ctx->cfg->follow_children && ctx->cfg->pid > 0;
    if (!total) {
        snprintf(err, n, "no resolver function of %zu C librar%s could be probed", st->libcs.n,
                 st->libcs.n == 1 ? "y" : "ies");
        return -ENOENT;
    }
    return 0;
}

static int dns_begin(struct collect_ctx *ctx, void *state)
{
    struct dns_state *st = state;
    st->skel->bss->recording = true;
    st->last_s = collect_clock_s(ctx);
    st->last_calls = 0;
    return 0;
}

static void drop_links(struct dns_state *st);

/* Lookups seen so far, every process: those counted per process, and
 * those the full maps could not count (drops 0 and 1), which paid for the
 * probes all the same -- a storm of short-lived resolving processes must
 * not hide from the guard by filling the process map. */
static uint64_t lookups_so_far(struct dns_state *st)
{
    uint64_t total = 0;
    struct dns_proc_rec pr;
    struct kbpf_walk w = KBPF_WALK_INIT(bpf_map__fd(st->skel->maps.procs));
    while (kbpf_walk_next(&w, &pr.pid, sizeof pr.pid, &pr.v))
        total += proc_calls(&pr.v);
    int dfd = bpf_map__fd(st->skel->maps.drops);
    total += kbpf_percpu_sum(dfd, 0) + kbpf_percpu_sum(dfd, 1);
    return total;
}

/* The probes are on every process's resolver: a host resolving names in a
 * hot loop (from /etc/hosts or a local cache) would pay DNS_COST_NS per
 * lookup for the whole window.  Each tick estimates that cost from the
 * lookup rate; past DNS_GUARD_PCT of the host's CPU the probes detach
 * themselves (what was counted stays in the report, which says so). */
/* The command's own C libraries once it runs (see cmd_pending): those not
 * probed yet are added and probed, within DNS_MAX_LIBCS; none on two ticks
 * in a row (the dynamic loader maps libc just after exec) is a static or Go
 * program, which the report says. */
static void check_command(struct dns_state *st, pid_t pid)
{
    if (!hostfs_pid_runs_other_program((int)pid))
        return; /* not exec'd yet, or gone */
    struct libc_set found = {.n = 0};
    struct seen_maps seen = {.n = 0};
    if (!scan_pid(pid, &found, &seen, false)) {
        if (st->cmd_missed_once)
            st->cmd_no_libc = true, st->cmd_pending = false;
        st->cmd_missed_once = true;
        return;
    }
    st->cmd_pending = false;
    st->libcs.remote += found.remote;
    for (size_t i = 0; i < found.n; i++) {
        struct libc_file *f = &found.f[i];
        bool have = false;
        for (size_t k = 0; k < st->libcs.n && !have; k++)
            have = st->libcs.f[k].dev == f->dev && st->libcs.f[k].ino == f->ino;
        if (have)
            continue;
        if (st->libcs.n == DNS_MAX_LIBCS) {
            st->libcs.skipped++;
            continue;
        }
        struct libc_file *t = &st->libcs.f[st->libcs.n++];
        *t = *f;
        f->fd = -1; /* moved */
        t->attached = st->multi ? attach_libc_multi(st, t, (uint32_t)pid) : attach_libc_single(st, t);
        st->cmd_added += t->attached > 0;
        close(t->fd); /* attached uprobes hold the inode */
        t->fd = -1;
    }
    libc_set_close(&found);
}

static int dns_tick(struct collect_ctx *ctx, void *state)
{
    struct dns_state *st = state;
    if (!isnan(st->detached_at_s) || (!st->nlinks && !st->nfds))
        return 0;
    if (st->cmd_pending)
        check_command(st, ctx->cfg->pid);
    double now = collect_clock_s(ctx);
    uint64_t calls = lookups_so_far(st);
    double dt = now - st->last_s;
    if (!(dt > 0))
        return 0;
    double rate = (double)(calls - st->last_calls) / dt;
    st->last_calls = calls;
    st->last_s = now;
    double pct = 100.0 * rate * DNS_COST_NS / 1e9 / kbpf_ncpus();
    if (pct <= DNS_GUARD_PCT)
        return 0;
    drop_links(st);
    st->detached_at_s = ctx->now_s;
    st->detached_pct = pct;
    return 0;
}

static int dns_end(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct dns_state *st = state;
    st->skel->bss->recording = false;
    return 0;
}

/* Closing a uprobe waits for the kernel to unregister it (grace periods,
 * under a lock the closes partly share): on the loaded 2-CPU test VM the 12
 * single uprobes of one libc took 0.95-1.1 s closed in a row and 0.47-0.69 s
 * closed from threads of their own; its two uprobe_multi links ~0.1 s.  A
 * thread that cannot be started closes its share itself. */
#define DNS_DETACH_THREADS 16
struct detach_job {
    struct bpf_link **links;
    size_t n, first, step;
};

static void *detach_some(void *arg)
{
    struct detach_job *j = arg;
    for (size_t i = j->first; i < j->n; i += j->step) {
        bpf_link__destroy(j->links[i]);
        j->links[i] = NULL;
    }
    return NULL;
}

/* uprobe_multi links: one wait each, two per C library. */
static void close_fds(struct dns_state *st)
{
    for (size_t i = 0; i < st->nfds; i++)
        close(st->fds[i]);
    st->nfds = 0;
}

static void drop_links(struct dns_state *st)
{
    close_fds(st);
    size_t nt = st->nlinks < DNS_DETACH_THREADS ? st->nlinks : DNS_DETACH_THREADS;
    pthread_t th[DNS_DETACH_THREADS];
    struct detach_job jobs[DNS_DETACH_THREADS];
    bool started[DNS_DETACH_THREADS] = {false};
    for (size_t t = 0; t < nt; t++) {
        jobs[t] = (struct detach_job){st->links, st->nlinks, t, nt};
        started[t] = pthread_create(&th[t], NULL, detach_some, &jobs[t]) == 0;
    }
    for (size_t t = 0; t < nt; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            detach_some(&jobs[t]);
    }
    st->nlinks = 0;
}

static int dns_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    (void)err;
    (void)n;
    struct dns_state *st = state;
    struct dns_bpf *s = st->skel;
    double t0 = mono_ms();
    drop_links(st); /* a no-op after the guard's */
    double detach_ms = mono_ms() - t0;

    struct dns_proc_rec *procs = NULL;
    struct dns_err_rec *errs = NULL;
    struct dns_name_rec *names = NULL;
    size_t np = 0, cp = 0, ne = 0, ce = 0, nn = 0, cn = 0;
    int fd = bpf_map__fd(s->maps.procs);
    struct dns_proc_rec pr;
    struct kbpf_walk w = KBPF_WALK_INIT(fd);
    while (kbpf_walk_next(&w, &pr.pid, sizeof pr.pid, &pr.v)) {
        xgrow(&procs, &cp, np + 1, sizeof *procs);
        procs[np++] = pr;
    }
    struct dns_err_rec er;
    w = KBPF_WALK_INIT(bpf_map__fd(s->maps.errs));
    while (kbpf_walk_next(&w, &er.k, sizeof er.k, &er.n)) {
        xgrow(&errs, &ce, ne + 1, sizeof *errs);
        errs[ne++] = er;
    }
    struct dns_name_rec nr;
    _Static_assert(sizeof nr.k <= KBPF_WALK_MAX_KEY, "dns name key larger than a walk holds");
    w = KBPF_WALK_INIT(bpf_map__fd(s->maps.names));
    while (kbpf_walk_next(&w, &nr.k, sizeof nr.k, &nr.v)) {
        xgrow(&names, &cn, nn + 1, sizeof *names);
        names[nn++] = nr;
    }

    struct strbuf which = STRBUF_INIT;
    for (size_t i = 0; i < st->libcs.n; i++) {
        const struct libc_file *f = &st->libcs.f[i];
        if (!f->attached)
            continue;
        if (which.len)
            sb_add(&which, ", ");
        sb_add(&which, f->path);
        if (f->pid)
            sb_addf(&which, " (as pid %d maps it)", (int)f->pid);
    }
    if (st->cmd_no_libc)
        sb_addf(&which, "; the command (pid %d) maps no C library once it runs (statically "
                        "linked, or Go): its lookups are not seen", (int)ctx->cfg->pid);
    else if (st->cmd_added)
        sb_addf(&which, "; the command (pid %d) maps a C library of its own, probed once it "
                        "ran (lookups before that are not seen)", (int)ctx->cfg->pid);
    if (!isnan(st->detached_at_s))
        sb_addf(&which, "; the probes detached themselves %.1f s into the window: the lookup "
                        "rate would have cost ~%.1f%% of the host's CPU (~%.0f us a lookup; "
                        "guard %.0f%%), so later lookups are not counted",
                st->detached_at_s, st->detached_pct, DNS_COST_NS / 1e3, DNS_GUARD_PCT);
    dns_fill(ctx->r, procs, np, errs, ne, names, nn, sb_str(&which));
    free(procs);
    free(errs);
    free(names);

    struct ledger_entry *e = report_ledger(ctx->r, "dns", NULL);
    int dfd = bpf_map__fd(s->maps.drops);
    static const char *const what[] = {
        "lookups not timed (per-thread map full)", "lookups lost (process map full)",
        "failures not counted by code (map full)", "lookups without a name row (name map full)",
        "names cut to their first bytes", "calls whose return was never seen"};
    for (uint32_t k = 0; k < ARRAY_LEN(what); k++) {
        uint64_t v = kbpf_percpu_sum(dfd, k);
        if (v)
            ledger_note(e, "%llu %s", (unsigned long long)v, what[k]);
    }
    if (st->libcs.remote)
        ledger_note(e, "%zu C library mappings on FUSE or network filesystems not opened (an "
                    "open there may never end)", st->libcs.remote);
    if (st->libcs.skipped)
        ledger_note(e, "%zu more C library files not probed (at most %d; root's files before "
                    "other users')", st->libcs.skipped, DNS_MAX_LIBCS);
    if (st->failed_attach)
        ledger_note(e, "%u function probes not attached (absent from a C library)",
                    st->failed_attach);
    ledger_note(e, "%s on %s; attached in %.1f ms, detached in %.1f ms, drained in %.1f ms",
                st->multi ? "uprobe_multi links" : "single uprobes", sb_str(&which),
                st->attach_ms, detach_ms, mono_ms() - t0 - detach_ms);
    sb_free(&which);
    return 0;
}

const struct collector collector_dns = {
    .name = "dns",
    .title = "DNS lookup latency (uprobes on the C library's resolver)",
    .needs_bpf = true,
    .can_run = dns_can_run,
    .start = dns_start,
    .tick = dns_tick,
    .begin = dns_begin,
    .end = dns_end,
    .stop = dns_stop,
    .destroy = dns_destroy,
};
