#include "mapfile.h"
#include "hostfs.h"
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Reopens an O_PATH descriptor (closed here) for reading, only when it is a
 * regular file: opening a device, FIFO or socket as root acts before any
 * check after it could (a watchdog arms, a tape rewinds, a FIFO blocks). */
static int reopen_regular(int pfd)
{
    if (pfd < 0)
        return -1;
    struct stat st, st2;
    if (fstat(pfd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(pfd);
        return -1;
    }
    char self[40];
    snprintf(self, sizeof self, "/proc/self/fd/%d", pfd);
    int fd = open(self, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    close(pfd);
    if (fd >= 0 && (fstat(fd, &st2) != 0 || st2.st_dev != st.st_dev || st2.st_ino != st.st_ino)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* openat2 as an O_PATH lookup that follows no symlink (magic links
 * included), then reopened as a regular file. */
static int open_no_links(int dirfd, const char *path, unsigned long long resolve)
{
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = resolve | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    int pfd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    return reopen_regular(pfd);
}

int mapfile_open(int pid, uint64_t start, uint64_t end, const char *path)
{
    char rel[128], full[PATH_MAX];
    snprintf(rel, sizeof rel, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
    int fd = -1;
    /* the magic link is the kernel's own reference to the mapped file */
    if (hostfs_path(full, sizeof full, rel) == 0)
        fd = reopen_regular(open(full, O_PATH | O_CLOEXEC));
    if (fd >= 0 || !path)
        return fd;
    snprintf(rel, sizeof rel, "/proc/%d/root", pid);
    int rootfd = -1;
    if (hostfs_path(full, sizeof full, rel) == 0)
        rootfd = open(full, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return -1;
    fd = open_no_links(rootfd, path, RESOLVE_IN_ROOT);
    close(rootfd);
    return fd;
}

int mapfile_open_path(const char *path)
{
    return open_no_links(AT_FDCWD, path, 0);
}
