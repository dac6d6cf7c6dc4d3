#include "instance_lock.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* $XDG_RUNTIME_DIR when it is an absolute directory that only we can write. */
static bool private_runtime_dir(const char *d)
{
    if (!d || d[0] != '/')
        return false;
    int fd = open(d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    bool ok = fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
              !(st.st_mode & (S_IWGRP | S_IWOTH));
    if (fd >= 0)
        close(fd);
    return ok;
}

void instance_lock_default_path(char *out, size_t n)
{
    const char *env = getenv("PERFREPORT_LOCK");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (env && *env)
        snprintf(out, n, "%s", env);
    else if (geteuid() == 0)
        snprintf(out, n, "/run/perfreport.lock");
    else if (private_runtime_dir(xdg))
        snprintf(out, n, "%s/perfreport.lock", xdg);
    else
        snprintf(out, n, "/tmp/perfreport-%u.lock", (unsigned)geteuid());
}

/* Empty, or a previous run's "<pid>\n": the only contents we may replace. */
static bool holds_only_a_pid(int fd, const struct stat *st)
{
    if (st->st_size == 0)
        return true;
    char buf[32];
    if (st->st_size >= (off_t)sizeof buf)
        return false;
    ssize_t r = pread(fd, buf, sizeof buf - 1, 0);
    if (r != st->st_size)
        return false;
    for (ssize_t i = 0; i < r; i++)
        if (!(buf[i] >= '0' && buf[i] <= '9') && !(buf[i] == '\n' && i == r - 1))
            return false;
    return true;
}

int instance_lock(const char *path, char *err, size_t n)
{
    const char *env = getenv("PERFREPORT_LOCK");
    bool chosen = env && *env; /* a path the caller picked is never second-guessed */
    /* O_NONBLOCK: opening a FIFO planted at the path must not hang the run. */
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    struct stat st;
    bool ours = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid();
    if (!ours) {
        int e = fd < 0 ? errno : 0;
        if (fd >= 0)
            close(fd);
        if (!chosen && geteuid() != 0) {
            /* Another user can plant a file at a non-root run's default path
             * (/tmp is shared): that must not stop our run.  The lock only
             * keeps our own overlapping runs apart. */
            snprintf(err, n, "lock file %s is not a regular file of ours (%s); running without "
                     "the single-instance lock", path, e ? strerror(e) : "planted by someone else");
            return INSTANCE_LOCK_NONE;
        }
        if (e)
            snprintf(err, n, "cannot open the lock file %s: %s", path, strerror(e));
        else
            snprintf(err, n, "lock file %s is not a regular file owned by us; refusing it", path);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        char buf[32] = "";
        ssize_t r = pread(fd, buf, sizeof buf - 1, 0);
        buf[r > 0 ? r : 0] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        if (e == EWOULDBLOCK)
            snprintf(err, n,
                     "another perfreport is already running (pid %s, lock %s); not starting a "
                     "second one",
                     buf[0] && strspn(buf, "0123456789") == strlen(buf) ? buf : "?", path);
        else
            snprintf(err, n, "cannot lock %s: %s", path, strerror(e));
        close(fd);
        return -1;
    }
    /* The pid is only informational for a second instance's message: an
     * existing file with other contents (PERFREPORT_LOCK=/etc/something) is
     * locked as it is, never truncated. */
    if (holds_only_a_pid(fd, &st)) {
        char pid[32];
        int l = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
        if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)l, 0) != l) {
            /* not needed for the lock itself */
        }
    }
    return fd;
}
