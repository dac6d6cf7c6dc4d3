/* See fdio.h. */
#include "fdio.h"
#include <errno.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

int fd_write_all(int fd, const char *data, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, data + off, len - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (w == 0)
            return -EIO;
        off += (size_t)w;
    }
    return 0;
}

void fd_random_name(char *out, size_t n, const char *prefix)
{
    static const char al[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char rnd[10];
    if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        unsigned long x = (unsigned long)ts.tv_nsec ^ ((unsigned long)getpid() << 16);
        for (size_t i = 0; i < sizeof rnd; i++, x = x * 6364136223846793005UL + 1)
            rnd[i] = (unsigned char)(x >> 33);
    }
    size_t k = (size_t)snprintf(out, n, "%s", prefix);
    for (size_t i = 0; i < sizeof rnd && k + 1 < n; i++)
        out[k++] = al[rnd[i] % (sizeof al - 1)];
    out[k < n ? k : n - 1] = '\0';
}
