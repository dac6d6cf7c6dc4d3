/* The expected-error table (see syscall_errnos.h).  Rows are tried in
 * order and the first that matches both the errno and the syscall decides;
 * a row without syscalls matches any.  docs/ranking.md prints
 * this table: change both together. */
#include "syscall_errnos.h"
#include <stdbool.h>
#include <string.h>

/* Calls that take a path and look it up. */
static const char *const path_calls[] = {
    "open", "openat", "openat2", "creat", "stat", "lstat", "newfstatat", "statx", "access",
    "faccessat", "faccessat2", "readlink", "readlinkat", "execve", "execveat", "statfs",
    "chdir", "unlink", "unlinkat", "rmdir", "rename", "renameat", "renameat2", "mkdir",
    "mkdirat", "getxattr", "lgetxattr", "listxattr", "llistxattr", "removexattr",
    "lremovexattr", "truncate", "utimensat", "chmod", "fchmodat", "chown", "lchown",
    "fchownat", "link", "linkat", "symlink", "symlinkat", "inotify_add_watch", "uselib",
    "name_to_handle_at", "mknod", "mknodat", "getcwd", NULL};
static const char *const xattr_calls[] = {"getxattr", "lgetxattr", "fgetxattr", "listxattr",
                                          "llistxattr", "flistxattr", "removexattr",
                                          "lremovexattr", "fremovexattr", NULL};
static const char *const open_calls[] = {"open", "openat", "openat2", NULL};
static const char *const create_calls[] = {"open", "openat", "openat2", "creat", "mkdir",
                                           "mkdirat", "link", "linkat", "symlink",
                                           "symlinkat", "mknod", "mknodat", "rename",
                                           "renameat", "renameat2", NULL};
static const char *const timed_waits[] = {"futex", "futex_wait", "futex_waitv", "semtimedop",
                                          "mq_timedreceive", "mq_timedsend", "io_getevents",
                                          "io_pgetevents", "io_uring_enter", NULL};
static const char *const wait_calls[] = {"wait4", "waitid", NULL};
static const char *const kill_calls[] = {"kill", "tkill", "tgkill", "rt_sigqueueinfo",
                                         "rt_tgsigqueueinfo", "pidfd_open",
                                         "pidfd_send_signal", "getpgid", "getsid",
                                         "sched_getaffinity", "prlimit64", NULL};
static const char *const link_calls[] = {"readlink", "readlinkat", NULL};
static const char *const fd_probes[] = {"fcntl", "fstat", "close", "close_range", "dup2",
                                        "dup3", NULL};
static const char *const sock_probes[] = {"getsockname", "getpeername", "getsockopt",
                                          "setsockopt", NULL};
static const char *const seek_calls[] = {"lseek", "pread64", "pwrite64", NULL};
static const char *const socket_calls[] = {"socket", "socketpair", NULL};
static const char *const access_calls[] = {"access", "faccessat", "faccessat2", NULL};
static const char *const connect_calls[] = {"connect", NULL};
static const char *const ioctl_calls[] = {"ioctl", NULL};
static const char *const msg_calls[] = {"msgrcv", "mq_timedreceive", NULL};

struct errno_row {
    const char *errno_name;
    const char *const *calls; /* NULL: any syscall */
    enum errno_verdict verdict;
    const char *why;
};

#define LOST "syscall.lost_pct"
#define REFUSED "syscall.refused_pct"

static const struct errno_row rows[] = {
    /* How programs ask questions and wait. */
    {"EAGAIN", NULL, ERRNO_EXPECTED, "non-blocking I/O or a try-lock with nothing ready yet"},
    {"EWOULDBLOCK", NULL, ERRNO_EXPECTED, "non-blocking I/O with nothing ready yet"},
    {"EINTR", NULL, ERRNO_EXPECTED, "a wait interrupted by a signal, then restarted"},
    {"ERESTARTSYS", NULL, ERRNO_EXPECTED, "a wait interrupted by a signal, then restarted"},
    {"ENOSYS", NULL, ERRNO_EXPECTED,
     "a newer syscall tried first, with a fallback (clone3, rseq, statx...)"},
    {"ENOENT", path_calls, ERRNO_EXPECTED,
     "a path lookup: is the file there? (PATH search, config files, imports)"},
    {"ENOTDIR", path_calls, ERRNO_EXPECTED, "a path lookup through a file that is no directory"},
    {"ENODATA", xattr_calls, ERRNO_EXPECTED,
     "no extended attribute of that name: ls and cp ask every file for ACLs and labels"},
    {"EOPNOTSUPP", xattr_calls, ERRNO_EXPECTED,
     "a filesystem without extended attributes, asked for ACLs or labels"},
    {"ENOTSUP", xattr_calls, ERRNO_EXPECTED,
     "a filesystem without extended attributes, asked for ACLs or labels"},
    {"ERANGE", xattr_calls, ERRNO_EXPECTED,
     "the attribute is larger than the buffer: asked again with a larger one"},
    {"ETIMEDOUT", timed_waits, ERRNO_EXPECTED, "a timed wait whose time ran out"},
    {"EINPROGRESS", connect_calls, ERRNO_EXPECTED, "a non-blocking connect under way"},
    {"EALREADY", connect_calls, ERRNO_EXPECTED, "a non-blocking connect still under way"},
    {"EISCONN", connect_calls, ERRNO_EXPECTED, "a non-blocking connect that completed"},
    {"ENOTTY", ioctl_calls, ERRNO_EXPECTED, "isatty() or a terminal query on a pipe or file"},
    {"ECHILD", wait_calls, ERRNO_EXPECTED, "no child left to reap: how a reaping loop ends"},
    {"ESRCH", kill_calls, ERRNO_EXPECTED,
     "kill(pid, 0) and friends: is that process still alive? (it is not)"},
    {"ENXIO", open_calls, ERRNO_EXPECTED, "a FIFO without a reader or a device that is absent"},
    {"EINVAL", link_calls, ERRNO_EXPECTED, "not a symbolic link: realpath() asks every component"},
    {"EBADF", fd_probes, ERRNO_EXPECTED,
     "is this descriptor open? (closing every descriptor before exec or daemonising)"},
    {"ENOTSOCK", sock_probes, ERRNO_EXPECTED, "is this descriptor a socket?"},
    {"ENOPROTOOPT", sock_probes, ERRNO_EXPECTED, "a socket option this socket does not have"},
    {"EEXIST", create_calls, ERRNO_EXPECTED,
     "already there: mkdir -p, O_EXCL lock files, a rename over an existing name"},
    {"ESPIPE", seek_calls, ERRNO_EXPECTED, "seeking a pipe: is the input a regular file?"},
    {"EAFNOSUPPORT", socket_calls, ERRNO_EXPECTED, "an address family the host lacks (IPv6)"},
    {"EACCES", access_calls, ERRNO_EXPECTED, "access() asks whether the caller may"},
    {"ENOMSG", msg_calls, ERRNO_EXPECTED, "a message queue with nothing for this receiver"},

    /* Work lost: the call needed to succeed and could not. */
    {"EIO", NULL, ERRNO_LOST,
     "the device or filesystem reported an I/O error: check dmesg for disk, controller or "
     "network-filesystem errors; data may not have been written"},
    {"ENOSPC", NULL, ERRNO_LOST,
     "the filesystem (or its inodes, or a kernel table) is full: df -h and df -i on the "
     "file's filesystem"},
    {"EDQUOT", NULL, ERRNO_LOST, "the user's or project's disk quota is used up: quota -v"},
    {"EMFILE", NULL, ERRNO_LOST,
     "the process is at its descriptor limit: raise LimitNOFILE / ulimit -n, or find the leak "
     "(ls -l /proc/PID/fd)"},
    {"ENFILE", NULL, ERRNO_LOST, "the whole host is out of file descriptors (fs.file-max)"},
    {"ENOMEM", NULL, ERRNO_LOST,
     "the kernel could not allocate memory for the call (a memory cgroup limit, "
     "vm.max_map_count for mmap, locked-memory limits)"},
    {"EROFS", NULL, ERRNO_LOST,
     "the filesystem is read-only (remounted read-only after errors? check dmesg)"},
    {"ESTALE", NULL, ERRNO_LOST, "a network filesystem handle went stale (server restarted)"},
    {"ENOBUFS", NULL, ERRNO_LOST, "the kernel ran out of buffer space (socket or netlink)"},
    {"EFBIG", NULL, ERRNO_LOST, "a file grew past its size limit (RLIMIT_FSIZE or filesystem)"},
    {"EADDRNOTAVAIL", NULL, ERRNO_LOST,
     "no local address or port left: ephemeral ports exhausted by short connections "
     "(net.ipv4.ip_local_port_range, TIME_WAIT)"},

    /* Work refused: by a peer, a route or a permission. */
    {"ECONNREFUSED", NULL, ERRNO_REFUSED, "nothing listens on the peer's port: is it down?"},
    {"ECONNRESET", NULL, ERRNO_REFUSED, "the peer reset the connection"},
    {"ECONNABORTED", NULL, ERRNO_REFUSED, "a connection aborted before it was accepted"},
    {"EPIPE", NULL, ERRNO_REFUSED, "writing to a pipe or socket whose reader has gone"},
    {"ETIMEDOUT", NULL, ERRNO_REFUSED, "the peer did not answer in time"},
    {"EHOSTUNREACH", NULL, ERRNO_REFUSED, "no route to the peer's host"},
    {"ENETUNREACH", NULL, ERRNO_REFUSED, "no route to the peer's network"},
    {"EHOSTDOWN", NULL, ERRNO_REFUSED, "the peer's host is down"},
    {"EADDRINUSE", NULL, ERRNO_REFUSED, "the address or port is taken by another socket"},
    {"EACCES", NULL, ERRNO_REFUSED,
     "permission denied: ownership and mode, SELinux/AppArmor, or a mount option"},
    {"EPERM", NULL, ERRNO_REFUSED,
     "operation not permitted: a missing capability, seccomp, or an immutable file"},
};

static bool listed(const char *s, const char *const *list)
{
    if (!list)
        return true;
    for (size_t i = 0; s && list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

struct errno_class errno_classify(const char *syscall, const char *errno_name)
{
    struct errno_class c = {ERRNO_UNCLASSED, NULL, NULL};
    if (!errno_name)
        return c;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (strcmp(errno_name, rows[i].errno_name) != 0 || !listed(syscall, rows[i].calls))
            continue;
        c.verdict = rows[i].verdict;
        c.why = rows[i].why;
        c.thr_id = rows[i].verdict == ERRNO_LOST      ? LOST
                   : rows[i].verdict == ERRNO_REFUSED ? REFUSED
                                                      : NULL;
        return c;
    }
    return c;
}

const char *errno_verdict_name(enum errno_verdict v)
{
    switch (v) {
    case ERRNO_EXPECTED: return "expected";
    case ERRNO_UNCLASSED: return "unclassed";
    case ERRNO_LOST: return "lost work";
    case ERRNO_REFUSED: return "refused";
    }
    return "?";
}
