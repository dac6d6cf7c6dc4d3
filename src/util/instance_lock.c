#include "instance_lock.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void instance_lock_default_path(char *out, size_t n)
{
    if (geteuid() == 0)
        snprintf(out, n, "/run/perfreport.lock");
    else
        snprintf(out, n, "/tmp/perfreport-%u.lock", (unsigned)geteuid());
}

int instance_lock(const char *path, char *err, size_t n)
{
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, n, "cannot open the lock file %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
        snprintf(err, n, "lock file %s is not a regular file owned by us; refusing it", path);
        close(fd);
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
                     buf[0] ? buf : "?", path);
        else
            snprintf(err, n, "cannot lock %s: %s", path, strerror(e));
        close(fd);
        return -1;
    }
    char pid[32];
    int l = snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)l, 0) != l) {
        /* The pid is only informational for a second instance's message. */
    }
    return fd;
}
