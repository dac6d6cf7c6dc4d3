/* Budgets, filesystem classes, deadline-bounded jobs and stall marks. */
#include "sym_guard.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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
static pid_t g_stuck[SYM_MAX_STUCK];
static size_t g_nstuck;

/* Reaps stuck children that have ended since; returns how many remain. */
static size_t reap_stuck(void)
{
    pthread_mutex_lock(&g_stuck_mu);
    for (size_t i = 0; i < g_nstuck;) {
        if (waitpid(g_stuck[i], NULL, WNOHANG) == g_stuck[i])
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

long sym_run_bounded(void (*fn)(void *arg, int fd), void *arg, size_t cap, int ms, char **out)
{
    *out = NULL;
    if (reap_stuck() >= SYM_MAX_STUCK)
        return -EBUSY;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -errno;
    /* (dup2 in the child clears O_CLOEXEC on its copy; nothing is exec'd) */
    sigset_t all, old;
    sigfillset(&all);
    /* the child must not run our signal handlers */
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        /* Keep only the pipe: a child stuck for good must not hold the run
         * lock, the bundle's directory or BPF links (programs would stay
         * attached) open. */
        int w = p[1];
        if (w != 3 && dup2(w, 3) != 3)
            _exit(1);
        /* nor the caller's stdio: `perfreport | tee` or a journal would wait
         * for the pipe's last writer, a child stuck on the mount */
        int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (nul < 0 || dup2(nul, 0) != 0 || dup2(nul, 1) != 1 || dup2(nul, 2) != 2)
            _exit(1);
        if (syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
            for (int fd = 4; fd < 65536; fd++)
                close(fd);
        fn(arg, 3);
        _exit(0);
    }
    int err = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return -err;
    }
    size_t want = cap + 1, len = 0;
    char *buf = malloc(want + 1);
    if (!buf) {
        close(p[0]);
        leave_stuck(pid);
        return -ENOMEM;
    }
    double end = mono_ms_now() + ms;
    long rc = 0;
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
        if (r == 0)
            break;
        if (len < want)
            len += (size_t)r;
    }
    close(p[0]);
    if (rc < 0) {
        free(buf);
        leave_stuck(pid);
        return rc;
    }
    /* the child closed the pipe: it is in _exit or about to be */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
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
