/* Budgets, filesystem classes, deadline-bounded jobs and stall marks. */
#include "sym_guard.h"
#include "sym_parse.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- budgets ------------------------------------------------------------ */

static _Atomic uint64_t g_used[SYM_POOL_COUNT];
static _Atomic uint64_t g_limit[SYM_POOL_COUNT];

uint64_t sym_budget_limit(enum sym_pool pool)
{
    uint64_t l = atomic_load(&g_limit[pool]);
    if (l)
        return l;
    return pool == SYM_POOL_JIT ? SYM_JIT_BUDGET
           : pool == SYM_POOL_SYMS ? SYM_SYMS_BUDGET
                                   : SYM_DEBUG_BUDGET;
}

uint64_t sym_budget_used(enum sym_pool pool)
{
    return atomic_load(&g_used[pool]);
}

void sym_budget_set_limit(enum sym_pool pool, uint64_t limit)
{
    atomic_store(&g_limit[pool], limit);
}

bool sym_budget_take(enum sym_pool pool, uint64_t n)
{
    uint64_t limit = sym_budget_limit(pool);
    uint64_t cur = atomic_load(&g_used[pool]);
    do {
        if (n > limit || cur > limit - n)
            return false;
    } while (!atomic_compare_exchange_weak(&g_used[pool], &cur, cur + n));
    return true;
}

void sym_budget_put(enum sym_pool pool, uint64_t n)
{
    atomic_fetch_sub(&g_used[pool], n);
}

/* ---- filesystem classes ------------------------------------------------- */

/* statfs magics (include/uapi/linux/magic.h and the filesystems' sources;
 * spelled out so that an older header set cannot drop one). */
static const int64_t remote_magic[] = {
    0x65735546,             /* fuse (also virtiofs) */
    0x6969,                 /* nfs */
    (int64_t)0xFF534D42,    /* cifs */
    (int64_t)0xFE534D42,    /* smb2/3 */
    0x517B,                 /* smbfs */
    0x01021997,             /* 9p */
    0x00c36400,             /* ceph */
    0x6B414653,             /* afs */
    0x73757245,             /* coda */
    0x0BD00BD0,             /* lustre */
    0x47504653,             /* gpfs */
};
static const int64_t pseudo_magic[] = {
    0x9fa0,                 /* proc */
    0x62656572,             /* sysfs */
    0x27e0eb,               /* cgroup */
    0x63677270,             /* cgroup2 */
    0x74726163,             /* tracefs */
    0x64626720,             /* debugfs */
    0x73636673,             /* securityfs */
    (int64_t)0xcafe4a11,    /* bpf */
    0x62656570,             /* configfs */
    (int64_t)0xde5e81e4,    /* efivarfs */
    0x6165676C,             /* pstore */
    (int64_t)0xf97cff8c,    /* selinuxfs */
    0x43415d53,             /* smackfs */
    0x6e736673,             /* nsfs */
    0x1cd1,                 /* devpts */
    0x19800202,             /* mqueue */
    0x42494e4d,             /* binfmt_misc */
    0x7655821,              /* resctrl */
    0x65735543,             /* fusectl */
    0x50495045,             /* pipefs */
    0x534F434B,             /* sockfs */
    0x09041934,             /* anon_inode */
};

enum sym_fs sym_fs_of_magic(int64_t f_type)
{
    /* f_type is a signed long on 64-bit: compare the low 32 bits */
    uint32_t t = (uint32_t)f_type;
    for (size_t i = 0; i < sizeof remote_magic / sizeof *remote_magic; i++)
        if ((uint32_t)remote_magic[i] == t)
            return SYM_FS_REMOTE;
    for (size_t i = 0; i < sizeof pseudo_magic / sizeof *pseudo_magic; i++)
        if ((uint32_t)pseudo_magic[i] == t)
            return SYM_FS_PSEUDO;
    return SYM_FS_LOCAL;
}

static bool is_one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return true;
    return false;
}

bool sym_dev_is_remote(const char *mountinfo, unsigned major, unsigned minor, char *fstype,
                       size_t n)
{
    return mountinfo && sym_mountinfo_fstype(mountinfo, major, minor, fstype, n) &&
           sym_fs_of_name(fstype) == SYM_FS_REMOTE;
}

enum sym_fs sym_fs_of_name(const char *t)
{
    static const char *const remote[] = {"fuse", "fuseblk", "virtiofs", "nfs", "nfs4", "cifs",
                                         "smb3", "smbfs", "9p", "ceph", "afs", "coda", "lustre",
                                         "gpfs", "glusterfs", "beegfs", "davfs", NULL};
    static const char *const pseudo[] = {"proc", "sysfs", "cgroup", "cgroup2", "tracefs",
                                         "debugfs", "securityfs", "bpf", "configfs", "efivarfs",
                                         "pstore", "selinuxfs", "smackfs", "nsfs", "devpts",
                                         "mqueue", "binfmt_misc", "resctrl", "fusectl", NULL};
    if (!t)
        return SYM_FS_LOCAL;
    if (strncmp(t, "fuse.", 5) == 0 || strncmp(t, "fuseblk.", 8) == 0 || is_one_of(t, remote))
        return SYM_FS_REMOTE;
    if (is_one_of(t, pseudo))
        return SYM_FS_PSEUDO;
    return SYM_FS_LOCAL;
}

/* ---- bounded jobs ------------------------------------------------------- */

static pthread_mutex_t g_stuck_mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t g_reaped_cpu_us; /* CPU of the servers reaped so far */

/* wait4 that adds the child's CPU time to g_reaped_cpu_us when it reaps it. */
static pid_t reap(pid_t pid, int flags)
{
    struct rusage ru;
    pid_t r;
    do
        r = wait4(pid, NULL, flags, &ru);
    while (r < 0 && errno == EINTR);
    if (r == pid)
        atomic_fetch_add(&g_reaped_cpu_us,
                         (uint64_t)ru.ru_utime.tv_sec * 1000000u + (uint64_t)ru.ru_utime.tv_usec +
                             (uint64_t)ru.ru_stime.tv_sec * 1000000u +
                             (uint64_t)ru.ru_stime.tv_usec);
    return r;
}

double sym_bounded_cpu_ms(void)
{
    return (double)atomic_load(&g_reaped_cpu_us) / 1e3;
}
static pid_t g_stuck[SYM_MAX_STUCK];
static size_t g_nstuck;

/* Reaps stuck children that have ended since; returns how many remain. */
static size_t reap_stuck(void)
{
    pthread_mutex_lock(&g_stuck_mu);
    for (size_t i = 0; i < g_nstuck;) {
        if (reap(g_stuck[i], WNOHANG) == g_stuck[i])
            g_stuck[i] = g_stuck[--g_nstuck];
        else
            i++;
    }
    size_t n = g_nstuck;
    pthread_mutex_unlock(&g_stuck_mu);
    return n;
}

static void leave_stuck(pid_t pid)
{
    kill(pid, SIGKILL);
    pthread_mutex_lock(&g_stuck_mu);
    if (g_nstuck < SYM_MAX_STUCK)
        g_stuck[g_nstuck++] = pid;
    pthread_mutex_unlock(&g_stuck_mu);
}

static double mono_ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One server child runs the jobs, one at a time.  It is forked once, early
 * (sym_bounded_start), while perfreport's image is small: a fork per job
 * from the full image cost ~1 ms of page-table copying, and every page the
 * parent wrote afterwards took a copy-on-write fault with a TLB flush on
 * each CPU -- a fifth of an idle run's own CPU.  A job that misses its
 * deadline takes the server down with it (SIGKILLed, left among the stuck);
 * the next job forks a new one. */
struct job_hdr {
    void (*fn)(void *arg, int fd);
    size_t len; /* bytes of arg that follow */
};

union job_msg {
    struct job_hdr h;
    max_align_t align; /* the argument after the header is aligned as malloc's */
    char bytes[sizeof(struct job_hdr) + SYM_JOB_MAX_ARG + sizeof(max_align_t)];
};
#define JOB_ARG_OFF (((sizeof(struct job_hdr) + sizeof(max_align_t) - 1) / sizeof(max_align_t)) * sizeof(max_align_t))

static pthread_mutex_t g_srv_mu = PTHREAD_MUTEX_INITIALIZER;
static int g_srv_sock = -1; /* ours end of the server's socket; -1 when none */
static pid_t g_srv_pid;

/* The server: async-signal-safe calls only (forked from a threaded process). */
static _Noreturn void server_main(int sock)
{
    static union job_msg m;
    for (;;) {
        char cbuf[CMSG_SPACE(sizeof(int))];
        struct iovec iov = {m.bytes, sizeof m.bytes};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                            .msg_controllen = sizeof cbuf};
        ssize_t n = recvmsg(sock, &mh, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) /* perfreport is gone */
            _exit(0);
        int fd = -1;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(&fd, CMSG_DATA(c), sizeof fd);
        if (fd < 0)
            continue;
        if ((size_t)n >= JOB_ARG_OFF && m.h.len == (size_t)n - JOB_ARG_OFF && m.h.fn)
            m.h.fn(m.bytes + JOB_ARG_OFF, fd);
        close(fd); /* the caller's end of file */
        /* and a byte that says the job ended, rather than the server (an
         * end of file alone may be a server killed mid-job: output cut) */
        if (send(sock, "d", 1, MSG_NOSIGNAL) != 1)
            _exit(0);
    }
}

/* Called with g_srv_mu held. */
static int srv_spawn(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return -errno;
    sigset_t all, old;
    sigfillset(&all);
    /* the server must not run our signal handlers */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        /* Keep only the socket: a server stuck for good must not hold the
         * run lock, the bundle's directory or BPF links (programs would stay
         * attached) open, nor the caller's stdio (`perfreport | tee` or a
         * journal would wait for the pipe's last writer). */
        if (sv[1] != 3 && dup2(sv[1], 3) != 3)
            _exit(1);
        int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (nul < 0 || dup2(nul, 0) != 0 || dup2(nul, 1) != 1 || dup2(nul, 2) != 2)
            _exit(1);
        if (syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
            for (int fd = 4; fd < 65536; fd++)
                close(fd);
        /* it ends when we do: our end of the socket closes (no
         * PR_SET_PDEATHSIG: that fires when the forking thread ends) */
        server_main(3);
    }
    int err = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return -err;
    }
    g_srv_sock = sv[0];
    g_srv_pid = pid;
    return 0;
}

/* Called with g_srv_mu held: a server that missed a deadline is killed and
 * left among the stuck; one that died is reaped. */
static void srv_drop(bool stuck)
{
    if (g_srv_sock < 0)
        return;
    close(g_srv_sock);
    g_srv_sock = -1;
    if (stuck) {
        leave_stuck(g_srv_pid);
    } else {
        kill(g_srv_pid, SIGKILL);
        (void)reap(g_srv_pid, 0);
    }
}

int sym_bounded_start(void)
{
    pthread_mutex_lock(&g_srv_mu);
    int rc = g_srv_sock < 0 ? srv_spawn() : 0;
    pthread_mutex_unlock(&g_srv_mu);
    return rc;
}

void sym_bounded_stop(void)
{
    pthread_mutex_lock(&g_srv_mu);
    if (g_srv_sock >= 0) {
        /* idle in recvmsg: the closed socket ends it at once */
        close(g_srv_sock);
        g_srv_sock = -1;
        (void)reap(g_srv_pid, 0);
    }
    pthread_mutex_unlock(&g_srv_mu);
    (void)reap_stuck();
}

/* Called with g_srv_mu held: hands the job and the pipe's write end to the
 * server, forking one when there is none or it died. */
static int srv_send(void (*fn)(void *arg, int fd), const void *arg, size_t arg_len, int wfd)
{
    static union job_msg m; /* under g_srv_mu */
    m.h.fn = fn;
    m.h.len = arg_len;
    if (arg_len)
        memcpy(m.bytes + JOB_ARG_OFF, arg, arg_len);
    for (int attempt = 0; attempt < 2; attempt++) {
        if (g_srv_sock < 0) {
            int rc = srv_spawn();
            if (rc < 0)
                return rc;
        }
        char cbuf[CMSG_SPACE(sizeof(int))];
        memset(cbuf, 0, sizeof cbuf);
        struct iovec iov = {m.bytes, JOB_ARG_OFF + arg_len};
        struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                            .msg_controllen = sizeof cbuf};
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &wfd, sizeof wfd);
        ssize_t n;
        do
            n = sendmsg(g_srv_sock, &mh, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n == (ssize_t)iov.iov_len)
            return 0;
        int err = n < 0 ? errno : EIO;
        srv_drop(false); /* died (EPIPE) or broken: a new one, once */
        if (err != EPIPE && err != ECONNRESET)
            return -err;
    }
    return -EPIPE;
}

long sym_run_bounded(void (*fn)(void *arg, int fd), const void *arg, size_t arg_len, size_t cap,
                     int ms, char stall_kind, uint64_t stall_key, char **out)
{
    *out = NULL;
    if (arg_len > SYM_JOB_MAX_ARG)
        return -E2BIG;
    size_t want = cap + 1, len = 0;
    char *buf = malloc(want + 1);
    if (!buf)
        return -ENOMEM;
    pthread_mutex_lock(&g_srv_mu);
    long rc = 0;
    int p[2];
    /* a job queued behind the one that found the stall does not wait again */
    if (stall_key && sym_is_stalled(stall_kind, stall_key)) {
        rc = -ETIMEDOUT;
    } else if (reap_stuck() >= SYM_MAX_STUCK) {
        rc = -EBUSY;
    } else if (pipe2(p, O_CLOEXEC) != 0) {
        rc = -errno;
    } else {
        rc = srv_send(fn, arg, arg_len, p[1]);
        close(p[1]);
        if (rc < 0)
            close(p[0]);
    }
    if (rc < 0) {
        pthread_mutex_unlock(&g_srv_mu);
        free(buf);
        return rc;
    }
    double end = mono_ms_now() + ms;
    for (;;) {
        double left = end - mono_ms_now();
        if (left <= 0) {
            rc = -ETIMEDOUT;
            break;
        }
        struct pollfd pf = {p[0], POLLIN, 0};
        int n = poll(&pf, 1, (int)left + 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = -errno;
            break;
        }
        if (n == 0)
            continue;
        char sink[4096];
        ssize_t r = len < want ? read(p[0], buf + len, want - len) : read(p[0], sink, sizeof sink);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = -errno;
            break;
        }
        if (r == 0) /* the pipe closed: the job ended, or the server died */
            break;
        if (len < want)
            len += (size_t)r;
    }
    close(p[0]);
    if (rc == 0) { /* the job's end byte, or the server is gone */
        char done = 0;
        for (;;) {
            double left = end - mono_ms_now();
            struct pollfd pf = {g_srv_sock, POLLIN, 0};
            int n = left > 0 ? poll(&pf, 1, (int)left + 1) : 0;
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                rc = n == 0 ? -ETIMEDOUT : -errno;
                break;
            }
            ssize_t r = recv(g_srv_sock, &done, 1, 0);
            if (r < 0 && errno == EINTR)
                continue;
            if (r != 1) {
                rc = -EIO;
                srv_drop(false); /* died mid-job: reaped, the next job forks anew */
            }
            break;
        }
    }
    if (rc < 0 && g_srv_sock >= 0)
        srv_drop(true);
    if (rc == -ETIMEDOUT && stall_key)
        sym_mark_stalled(stall_kind, stall_key);
    pthread_mutex_unlock(&g_srv_mu);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[len] = '\0';
    *out = buf;
    return (long)len;
}

/* ---- stall marks -------------------------------------------------------- */

#define MAX_STALLED 256

static pthread_mutex_t g_stall_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char kind;
    uint64_t key;
} g_stalled[MAX_STALLED];
static size_t g_nstalled;

void sym_mark_stalled(char kind, uint64_t key)
{
    pthread_mutex_lock(&g_stall_mu);
    bool have = false;
    for (size_t i = 0; i < g_nstalled && !have; i++)
        have = g_stalled[i].kind == kind && g_stalled[i].key == key;
    if (!have && g_nstalled < MAX_STALLED) {
        g_stalled[g_nstalled].kind = kind;
        g_stalled[g_nstalled].key = key;
        g_nstalled++;
    }
    pthread_mutex_unlock(&g_stall_mu);
}

bool sym_is_stalled(char kind, uint64_t key)
{
    pthread_mutex_lock(&g_stall_mu);
    bool have = false;
    for (size_t i = 0; i < g_nstalled && !have; i++)
        have = g_stalled[i].kind == kind && g_stalled[i].key == key;
    pthread_mutex_unlock(&g_stall_mu);
    return have;
}
