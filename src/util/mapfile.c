#include "mapfile.h"
#include "hostfs.h"
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int mapfile_open(int pid, uint64_t start, uint64_t end, const char *path)
{
    char rel[128], full[PATH_MAX];
    snprintf(rel, sizeof rel, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
    int fd = -1;
    if (hostfs_path(full, sizeof full, rel) == 0)
        fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd >= 0 || !path)
        return fd;
    snprintf(rel, sizeof rel, "/proc/%d/root", pid);
    int rootfd = -1;
    if (hostfs_path(full, sizeof full, rel) == 0)
        rootfd = open(full, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return -1;
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof how);
    close(rootfd);
    return fd < 0 ? -1 : fd;
}
