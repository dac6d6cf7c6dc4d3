/* The thresholds table: defaults as data, strict override file, and the
 * helpers that judge a number against a row. */
#include "analyze.h"
#include "analyze_internal.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct thr_def {
    const char *id, *title, *unit;
    double warn, crit;
    bool lower_is_worse;
};

/* warn/crit: a value AT the number fires ("≥", or "≤" when lower is worse). */
static const struct thr_def defaults[] = {
    /* perf-mcp USE table: below 70 % there is headroom for bursts; past 90 %
     * queueing delay grows steeply.  Busy excludes iowait and steal. */
    {"cpu.util_pct", "CPU utilisation (busy, without iowait/steal)", "%", 70, 90, false},
    /* One runnable task waiting per CPU means work waits for a CPU; two means
     * every task waits about as long as it runs. */
    {"cpu.runq_per_cpu", "Run queue per CPU (waiting tasks)", "per CPU", 1, 2, false},
    /* A few % steal is normal on shared hosts; 5 % is felt by latency-bound
     * services; 15 % means the VM is short of real CPU. */
    {"cpu.steal_pct", "CPU steal (taken by the hypervisor)", "%", 5, 15, false},
    /* softirq is mostly network and block completion work; past 10 % of all
     * CPU time it is a packet/interrupt storm, 25 % eats whole CPUs. */
    {"cpu.softirq_pct", "CPU time in soft interrupts", "%", 10, 25, false},

    /* Hardware counters (judged only when a PMU counted enough cycles).
     * perf stat: IPC above 0.4 is fine for most server code, below 0.2 the
     * CPU mostly waits (on memory, with a high miss ratio). */
    {"hw.ipc", "Instructions per cycle (all CPUs)", "", 0.4, 0.2, true},
    /* Cache misses of cache references (last level): a fifth missing means
     * the working set spills out of the cache; half, it streams from RAM. */
    {"hw.cache_miss_pct", "Cache misses of cache references", "%", 20, 50, false},
    /* perf stat colours branch misses from 5 %; past 10 % each one costs a
     * pipeline flush often enough to dominate. */
    {"hw.branch_miss_pct", "Branch misses of branch instructions", "%", 5, 10, false},

    /* perf-mcp: available below 20 % is light pressure, below 10 % the page
     * cache is gone and reclaim hurts. */
    {"mem.available_pct", "Memory available", "%", 20, 10, true},
    /* Each major fault is a synchronous disk read; 100/s costs a disk's worth
     * of latency every second, 1000/s is thrashing. */
    {"mem.pgmajfault_per_s", "Major page faults", "/s", 100, 1000, false},
    /* Direct reclaim stalls the allocating task itself; short bursts happen
     * during big file copies, sustained 10k pages/s (40 MiB/s) hurts. */
    {"mem.pgscan_direct_per_s", "Direct reclaim scans", "pages/s", 100, 10000, false},
    /* Any OOM kill in the window is critical (design §6). */
    {"mem.oom_kill", "OOM kills in the window", "", 1, 1, false},
    /* perf-mcp USE table.  Used swap alone is only old pages; see memory.swap. */
    {"swap.used_pct", "Swap used", "%", 10, 50, false},
    /* A trickle of swap-out is housekeeping; 10 pages/s sustained means the
     * working set does not fit, 1000 pages/s (4 MiB/s) is thrashing. */
    {"swap.pages_per_s", "Swap traffic (in + out)", "pages/s", 10, 1000, false},

    /* perf-mcp USE table for disks. */
    {"disk.util_pct", "Disk utilisation (busy time)", "%", 60, 80, false},
    {"disk.aqu_sz", "Disk queue depth (average in flight)", "", 2, 8, false},
    /* Generic latency row, used when the device class is unknown. */
    {"disk.await_ms", "Disk latency (await)", "ms", 20, 50, false},
    /* Latency by device class (perf-mcp I/O reference table). */
    {"disk.await_ms.nvme", "Disk latency, NVMe", "ms", 5, 20, false},
    {"disk.await_ms.ssd", "Disk latency, SATA/SAS SSD", "ms", 15, 50, false},
    {"disk.await_ms.hdd", "Disk latency, rotating disk", "ms", 30, 100, false},
    {"disk.await_ms.network", "Disk latency, network block device", "ms", 20, 100, false},
    /* virtio: unknown backing store; the generic row is a fair guess. */
    {"disk.await_ms.virtio", "Disk latency, virtio", "ms", 20, 50, false},

    /* perf-mcp: any sustained drop is suspicious, 100/s is critical. */
    {"net.drops_per_s", "Network packet drops (all interfaces)", "/s", 1, 100, false},
    /* perf-mcp USE table: 1 % of segments retransmitted already cuts TCP
     * throughput; 5 % means a lossy path. */
    {"tcp.retrans_pct", "TCP segments retransmitted", "%", 1, 5, false},
    /* Each overflow is a connection dropped at accept(); even one in a short
     * window means a server falls behind; 100 is a visible outage. */
    {"tcp.listen_overflows", "Listen queue overflows in the window", "", 1, 100, false},
    /* Resets are routine at connection teardown; tens per second is a storm
     * of refused/aborted connections, perf-mcp calls 1000/s critical. */
    {"tcp.resets_per_s", "TCP resets sent", "/s", 50, 1000, false},
    /* UDP datagrams dropped because a socket's receive buffer was full: a
     * handful in a window is noise; the share of datagrams lost judges the
     * harm, as retransmits do for TCP (1 % lost is felt, 5 % is a loss the
     * protocol above cannot hide). */
    {"udp.rcvbuf_drops", "UDP receive-buffer drops in the window", "", 10, 1000, false},
    {"udp.rcvbuf_drop_pct", "UDP datagrams dropped for a full receive buffer", "%", 1, 5, false},

    /* perf-mcp PSI guidance, share of the window with some / all tasks stalled. */
    {"psi.some_pct", "PSI some (share of time some tasks stalled)", "%", 10, 25, false},
    {"psi.full_pct", "PSI full (share of time all tasks stalled)", "%", 5, 15, false},

    /* perf-mcp container table: past 80 % of the limit reclaim starts biting. */
    {"cgroup.mem_pct", "cgroup memory use of its limit", "%", 80, 90, false},
    /* Throttled time relative to CPU used: 1 % is felt as tail latency,
     * design §6 calls more than 5 % severe. */
    {"cgroup.throttled_pct", "cgroup CPU throttled time / CPU used", "%", 1, 5, false},
    /* A cgroup's I/O in one interval as a share of its I/O limit: the
     * kernel lets throttled I/O through in slices, so a cgroup held at its
     * limit reads 95-100 %; at 90 % the limit sets the pace. */
    {"cgroup.io_limit_use_pct", "cgroup I/O rate of its limit, per interval", "%", 90, 100,
     false},
    /* Share of the window's intervals at that limit: a burst that meets it
     * for an interval or two (up to ~1 s of a 4 s window) is smoothed by the
     * limit as meant; a third of the window is a workload it holds back. */
    {"cgroup.io_at_limit_pct", "Share of the window a cgroup's I/O ran at its limit", "%", 30,
     60, false},
    /* The harm of a limit that holds: the time the cgroup's tasks waited for
     * I/O (PSI io some inside it), with the host PSI's levels. */
    {"cgroup.io_wait_pct", "Time a throttled cgroup's tasks waited for I/O", "%", 10, 25, false},
    /* A cgroup's anonymous memory (not page cache) growing: as for
     * allocations, 64 KiB/s is 5.4 GiB a day; slower is not judged. */
    {"cgroup.mem_growth_kib_per_s", "cgroup anonymous memory growth", "KiB/s", 64, 1024, false},
    /* Steadiness, as for allocations: risen in most intervals, not a jump or
     * the sawtooth of short-lived processes. */
    {"cgroup.mem_rise_pct", "Intervals in which a cgroup's anonymous memory rose", "%", 70, 90,
     false},
    /* The harm of steady growth: time until it fills the cgroup's limit (or
     * the host's available memory).  Within an hour someone must act today;
     * within 10 minutes the OOM killer comes before a person can. */
    {"cgroup.mem_full_min", "Minutes until a growing cgroup's memory runs out", "min", 60, 10,
     true},

    /* Allocations (-p, uprobes): memory allocated in the window and not freed,
     * growing steadily; 64 KiB/s is 5.4 GiB a day, 1 MiB/s exhausts a
     * typical host within hours. */
    {"alloc.not_freed_growth_kib_per_s", "Not-freed allocations growth", "KiB/s", 64, 1024, false},
    /* A slope through noise is not a leak: the not-freed bytes must rise in
     * most intervals (warn), not jump once; the leak finding needs it. */
    {"alloc.not_freed_rise_pct", "Intervals in which not-freed allocations rose", "%", 70, 90,
     false},
    /* malloc/free-family calls per second while traced: at ~100 ns each 20k/s
     * is 0.2 % of a CPU in the allocator alone, 200k/s 2 % plus its cache
     * misses; traced, the rate is lower than untraced. */
    {"alloc.calls_per_s", "Allocation calls (traced)", "/s", 20000, 200000, false},
    /* A process's resident memory growing steadily (see memory.growth): how
     * soon it would take all the memory available at its slope.  Within the
     * hour someone must act today; within ten minutes the OOM killer comes
     * before anyone can. */
    {"memory.growth_exhaust_min", "Time until a steadily growing process takes the available "
                                  "memory", "min", 60, 10, true},
    /* Near the limit, the next burst fails with EMFILE/ENFILE. */
    {"fd.pct", "Process file descriptors of its limit", "%", 70, 90, false},
    {"fd.system_pct", "System file handles of fs.file-max", "%", 70, 90, false},
    /* One new descriptor per second held for the whole window is a leak
     * pattern; ten per second exhausts a 65k limit within two hours. */
    {"fd.growth_per_min", "Process file descriptor growth", "/min", 60, 600, false},
    /* A task in uninterruptible sleep (D) cannot even be killed.  A disk I/O
     * keeps it there for milliseconds, a saturated disk for some hundreds;
     * one wait of seconds means what it waits for does not answer (a hung
     * mount, a dead device).  The longest single wait seen, from tick to
     * tick: a lower bound.  Stuck through the whole window is critical too. */
    {"proc.dstate_wait_s", "Longest single uninterruptible (D) wait of a task", "s", 2, 10, false},
    /* Run-queue latency p99 (BPF runqlat): an idle host stays below 100 us; 5 ms
     * is a whole scheduler slice of waiting in 1 of 100 wakeups, which
     * interactive and request/response work notices; 20 ms means tasks
     * regularly wait several slices (heavy CPU oversubscription). */
    {"sched.runq_p99_us", "Run-queue latency p99 (wakeup to running)", "us", 5000, 20000, false},
    /* Share of page lookups by read() served from the page cache: below 90 %
     * one read in ten goes to the disk; below 70 % the working set clearly
     * does not fit.  Judged only with at least 1000 lookups in the window. */
    {"io.cache_hit_pct", "Read page-cache hit rate", "%", 90, 70, true},
    /* One thread of a -p target running or runnable (CPU plus run-queue
     * wait) nearly all the window: a single thread cannot go faster than one
     * CPU, whatever the host has free. */
    {"threads.hot_cpu_pct", "Busiest thread of the target running or runnable", "% of window", 80,
     95, false},
    /* Share of the window another thread of that process spent in futex or
     * pipe waits (waiting for work or a lock from the busy one). */
    {"threads.peer_wait_pct", "Time another thread waited on futexes or pipes", "%", 50, 80,
     false},
    /* Synchronous I/O calls per second (fsync family, O_SYNC/O_DSYNC
     * writes): each forces a device cache flush; tens per second already
     * dominate a small disk's IOPS budget. */
    {"io.fsync_per_s", "Synchronous I/O calls (fsync family, O_SYNC/O_DSYNC writes)", "/s", 10,
     100, false},
    /* Share of the window one process spent blocked in synchronous I/O calls. */
    {"io.fsync_time_pct", "Time a process spent in synchronous I/O calls", "%", 10, 50, false},

    /* A busy server makes ~10k syscalls/s; 50k/s from one process is a
     * tight loop of small calls (a CPU's worth of kernel entries at ~1 µs
     * each is 5 %); 200k/s is a process doing little but syscalls. */
    {"syscall.proc_per_s", "Syscalls per second of one process", "/s", 50000, 200000, false},
    /* Failed calls of every kind: past this rate the report lists them (as
     * information: a rate is no harm; errors that lose or refuse work are
     * judged by the two rows below). */
    {"syscall.errors_per_s", "Failed syscalls (all processes)", "/s", 100, 1000, false},
    /* Share of one process's calls failing with an error that loses work
     * (EIO, ENOSPC, EMFILE...: syscall_errnos.c).  Each one is a write not
     * made or a connection not accepted: one in 10,000 calls is already
     * felt, one in a hundred is an outage of that path. */
    {"syscall.lost_pct", "Calls of a process failing with lost work (EIO, ENOSPC, EMFILE...)",
     "%", 0.01, 1, false},
    /* Share of one process's calls refused by a peer, a route or a
     * permission (ECONNREFUSED, EPIPE, EACCES...), at 1/s or more: a client
     * whose every twentieth call is refused retries visibly; a quarter is a
     * dependency that is down. */
    {"syscall.refused_pct", "Calls of a process refused (ECONNREFUSED, EACCES...)", "%", 5, 25,
     false},
    /* With --baseline: an error that is no expected answer and did not
     * occur in the baseline run, at 1/s or more, by its share of the
     * process's calls: something changed (a deploy, a configuration). */
    {"syscall.new_errno_pct", "Calls of a process failing with an error new since the baseline",
     "%", 1, 10, false},
    /* Shells and cron start a few programs per second; past 20/s the
     * report lists who starts them (information: a rate is no harm). */
    {"proc.exec_per_s", "Programs executed per second", "/s", 20, 100, false},
    /* What process churn costs: the CPU spent starting processes that
     * lived under 1 s (each one's CPU up to 5 ms: fork, exec, the dynamic
     * linker), as a share of the host's CPUs.  A script starting a tool
     * every few ms costs a tenth of a 2-CPU host; a third is a host busy
     * starting programs. */
    {"proc.churn_cpu_pct", "CPU spent starting short-lived processes (share of all CPUs)", "%",
     10, 30, false},
    /* Retransmits counted by the tracepoint, used when the /proc share of
     * segments cannot judge them (another network namespace): a healthy
     * host retransmits now and then; 5/s sustained is a lossy connection. */
    {"tcp.retrans_per_s", "TCP retransmits seen by the tracepoint", "/s", 5, 50, false},
    /* One process's p99 DNS lookup time through the C library.  A cached
     * answer (nscd, systemd-resolved, a local dnsmasq) takes well under
     * 1 ms, a resolver in the same network 1-20 ms, an uncached recursion
     * across the internet some tens of ms: 100 ms at p99 is a slow or
     * distant resolver, or lookups that go to it although they could be
     * cached, and it adds to every request that resolves.  1 s is no
     * slow answer but a lost one: glibc retries after resolv.conf's timeout
     * (5 s by default, 1 s at the least), or a dead first nameserver. */
    {"dns.latency_ms", "DNS lookup time of one process (p99)", "ms", 100, 1000, false},
    /* One function's self share of the non-idle on-CPU samples: a healthy
     * profile spreads (< 30 %); past 50 % one hot loop owns the CPU. */
    {"profile.hotspot_pct", "Hottest function's share of on-CPU samples", "%", 30, 50, false},

    /* -p target blocked in one wait class (per-thread share of the window):
     * past half, that wait is where the request time goes; past 80 % the
     * process barely runs at all. */
    {"offcpu.target_wait_pct", "Target blocked in one wait class (per thread)", "%", 50, 80, false},
    /* Futex wait that looks like contention, per thread: a fifth of the
     * time lost to waiting on a lock already costs a fifth of the
     * parallelism; past half the lock serialises the process. */
    {"lock.wait_pct", "Lock (futex) wait of a process's thread time", "%", 20, 50, false},
};

enum severity thr_level(const struct threshold *t, double v)
{
    if (!t || isnan(v))
        return SEV_NONE;
    if (t->lower_is_worse) {
        if (v <= t->crit)
            return SEV_CRITICAL;
        if (v <= t->warn)
            return SEV_WARNING;
    } else {
        if (v >= t->crit)
            return SEV_CRITICAL;
        if (v >= t->warn)
            return SEV_WARNING;
    }
    return SEV_NONE;
}

double thr_excess(const struct threshold *t, double v)
{
    if (thr_level(t, v) == SEV_NONE)
        return 0;
    double past = t->lower_is_worse ? t->warn - v : v - t->warn;
    double span = fabs(t->crit - t->warn);
    if (span <= 0) /* warn == crit: measure against warn itself */
        span = fabs(t->warn) > 0 ? fabs(t->warn) : 1;
    double e = past / span;
    if (e < 0)
        e = 0;
    return e > 2 ? 2 : e;
}

const struct threshold *thr_disk_await(const struct report *r, const char *cls)
{
    if (cls && *cls) {
        char id[64];
        snprintf(id, sizeof id, "disk.await_ms.%s", cls);
        const struct threshold *t = report_find_threshold(r, id);
        if (t)
            return t;
    }
    return report_find_threshold(r, "disk.await_ms");
}

/* ---- loading ------------------------------------------------------------ */

static void clear_thresholds(struct report *r)
{
    for (size_t i = 0; i < r->nthresholds; i++) {
        free(r->thresholds[i].id);
        free(r->thresholds[i].title);
        free(r->thresholds[i].unit);
    }
    r->nthresholds = 0;
}

static const struct thr_def *find_def(const char *id)
{
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        if (strcmp(defaults[i].id, id) == 0)
            return &defaults[i];
    return NULL;
}

static void set_err(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t n, const char *fmt, ...)
{
    if (!err || !n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

/* The file is operator input but may be hostile: quote tokens printably. */
static void printable(char *dst, size_t n, const char *src)
{
    size_t j = 0;
    for (size_t i = 0; src[i] && j + 4 < n; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[j++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
        if (i >= 48) {
            memcpy(dst + j, "...", 3);
            j += 3;
            break;
        }
    }
    dst[j] = '\0';
}

static bool parse_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

#define MAX_FILE (1 << 20)

/* Reads the whole file into a NUL-terminated buffer.  As root, refuses files
 * another user could have written (a thresholds file silences alerts). */
static char *read_file_checked(const char *file, size_t *len, char *err, size_t n)
{
    int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ELOOP)
            set_err(err, n, "%s: refusing a symbolic link as thresholds file", file);
        else
            set_err(err, n, "%s: cannot open thresholds file: %s", file, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        set_err(err, n, "%s: cannot stat thresholds file: %s", file, strerror(errno));
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        set_err(err, n, "%s: thresholds file is not a regular file", file);
        close(fd);
        return NULL;
    }
    if (geteuid() == 0) {
        if (st.st_uid != 0) {
            set_err(err, n,
                    "%s: refusing thresholds file owned by uid %u while running as root "
                    "(it must be owned by root)", file, (unsigned)st.st_uid);
            close(fd);
            return NULL;
        }
        if (st.st_mode & (S_IWGRP | S_IWOTH)) {
            set_err(err, n,
                    "%s: refusing group/world-writable thresholds file (mode %04o) while "
                    "running as root; chmod go-w it", file, (unsigned)(st.st_mode & 07777));
            close(fd);
            return NULL;
        }
    }
    if (st.st_size > MAX_FILE) {
        set_err(err, n, "%s: thresholds file too large (%lld bytes, max %d)", file,
                (long long)st.st_size, MAX_FILE);
        close(fd);
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, used = 0;
    char *buf = xmalloc(cap + 1);
    for (;;) {
        if (used == cap) { /* the file grew since fstat: stay bounded */
            if (cap > MAX_FILE) {
                set_err(err, n, "%s: thresholds file too large (max %d bytes)", file, MAX_FILE);
                free(buf);
                close(fd);
                return NULL;
            }
            cap *= 2;
            buf = xrealloc(buf, cap + 1);
        }
        ssize_t got = read(fd, buf + used, cap - used);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            set_err(err, n, "%s: read error: %s", file, strerror(errno));
            free(buf);
            close(fd);
            return NULL;
        }
        if (got == 0)
            break;
        used += (size_t)got;
    }
    close(fd);
    buf[used] = '\0';
    *len = used;
    return buf;
}

struct override {
    const struct thr_def *def;
    double warn, crit;
    size_t line;
};

/* Parses one line; 0 = ok (maybe blank), -1 = error in err. */
static int parse_line(char *line, size_t lineno, const char *file, struct override *ov,
                      size_t nov, size_t cap, bool *have, char *err, size_t n)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    char *tok[4];
    size_t nt = 0;
    char *save = NULL;
    for (char *p = strtok_r(line, " \t\r\v\f", &save); p; p = strtok_r(NULL, " \t\r\v\f", &save)) {
        if (nt < 4)
            tok[nt] = p;
        nt++;
    }
    *have = false;
    if (nt == 0)
        return 0;
    if (nt != 3) {
        set_err(err, n, "%s:%zu: expected \"<id> <warn> <crit>\", got %zu field%s", file,
                lineno, nt, nt == 1 ? "" : "s");
        return -1;
    }
    char q[64];
    printable(q, sizeof q, tok[0]);
    const struct thr_def *d = find_def(tok[0]);
    if (!d) {
        set_err(err, n, "%s:%zu: unknown threshold id \"%s\"", file, lineno, q);
        return -1;
    }
    for (size_t i = 0; i < nov; i++) {
        if (ov[i].def == d) {
            set_err(err, n, "%s:%zu: duplicate threshold id \"%s\" (first set on line %zu)",
                    file, lineno, d->id, ov[i].line);
            return -1;
        }
    }
    double w, c;
    const char *what[2] = {"warn", "crit"};
    double *dst[2] = {&w, &c};
    for (int i = 0; i < 2; i++) {
        if (!parse_num(tok[1 + i], dst[i])) {
            char v[64];
            printable(v, sizeof v, tok[1 + i]);
            set_err(err, n, "%s:%zu: %s: %s value \"%s\" is not a number", file, lineno,
                    d->id, what[i], v);
            return -1;
        }
        if (*dst[i] < 0) {
            set_err(err, n, "%s:%zu: %s: %s value %g is negative", file, lineno, d->id,
                    what[i], *dst[i]);
            return -1;
        }
    }
    if (d->lower_is_worse ? w < c : w > c) {
        set_err(err, n,
                "%s:%zu: %s: warn %g must be %s crit %g (%s values are worse)", file, lineno,
                d->id, w, d->lower_is_worse ? "at or above" : "at or below", c,
                d->lower_is_worse ? "lower" : "higher");
        return -1;
    }
    if (nov >= cap) { /* unreachable: ids are unique and known, so nov < table size */
        set_err(err, n, "%s:%zu: too many overrides", file, lineno);
        return -1;
    }
    ov[nov] = (struct override){d, w, c, lineno};
    *have = true;
    return 0;
}

/* Parses the whole buffer into ov (cap entries); returns count or -1. */
static long parse_overrides(char *buf, size_t len, const char *file, struct override *ov,
                            size_t cap, char *err, size_t n)
{
    size_t nov = 0, lineno = 0;
    char *p = buf, *end = buf + len;
    while (p < end) {
        lineno++;
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *eol = nl ? nl : end;
        if (memchr(p, '\0', (size_t)(eol - p))) {
            set_err(err, n, "%s:%zu: NUL byte in line", file, lineno);
            return -1;
        }
        *eol = '\0';
        bool have;
        if (parse_line(p, lineno, file, ov, nov, cap, &have, err, n) != 0)
            return -1;
        if (have)
            nov++;
        p = eol + 1;
    }
    return (long)nov;
}

/* Defaults, then the overrides in text; the file-free core of thresholds_load
 * (also the fuzzing entry point). */
int thresholds_parse_text(struct report *r, const char *text, size_t len, const char *name,
                          char *err, size_t n)
{
    clear_thresholds(r);
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        const struct thr_def *d = &defaults[i];
        report_add_threshold(r, d->id, d->title, d->unit, d->warn, d->crit, d->lower_is_worse);
    }
    if (!text)
        return 0;
    /* The line parser writes NULs: work on a private copy. */
    char *buf = xmalloc(len + 1);
    memcpy(buf, text, len);
    buf[len] = '\0';
    /* Each id at most once, so the override list is bounded by the table. */
    enum { NDEF = sizeof defaults / sizeof defaults[0] };
    struct override ov[NDEF];
    long nov = parse_overrides(buf, len, name ? name : "thresholds", ov, NDEF, err, n);
    free(buf);
    if (nov < 0)
        return -1; /* nothing applied: r keeps the defaults */
    for (long i = 0; i < nov; i++) {
        for (size_t j = 0; j < r->nthresholds; j++) {
            if (strcmp(r->thresholds[j].id, ov[i].def->id) == 0) {
                r->thresholds[j].warn = ov[i].warn;
                r->thresholds[j].crit = ov[i].crit;
            }
        }
    }
    return 0;
}

int thresholds_load(struct report *r, const char *file, char *err, size_t n)
{
    if (!file)
        return thresholds_parse_text(r, NULL, 0, NULL, err, n);
    size_t len = 0;
    char *buf = read_file_checked(file, &len, err, n);
    if (!buf) {
        thresholds_parse_text(r, NULL, 0, NULL, NULL, 0); /* defaults, as documented */
        return -1;
    }
    int rc = thresholds_parse_text(r, buf, len, file, err, n);
    free(buf);
    return rc;
}
