/* iowriter: writes FILE with O_DIRECT (each write goes to the device, past
 * the page cache) in BLOCK_KIB blocks at KIB_PER_S (0: as fast as it can),
 * for SECONDS, on a file of at most 256 MiB; with "cache", through the
 * page cache instead (as a file copy does).
 * Usage: iowriter FILE KIB_PER_S SECONDS [BLOCK_KIB [cache]] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: iowriter FILE KIB_PER_S SECONDS [BLOCK_KIB [cache]]\n");
        return 2;
    }
    double rate = atof(argv[2]) * 1024, secs = atof(argv[3]);
    size_t block = (argc > 4 ? (size_t)atol(argv[4]) : 64) * 1024;
    if (block == 0 || block > (8u << 20)) {
        fprintf(stderr, "iowriter: BLOCK_KIB out of range\n");
        return 2;
    }
    int direct = argc > 5 && strcmp(argv[5], "cache") == 0 ? 0 : O_DIRECT;
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | direct, 0600);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    void *buf;
    if (posix_memalign(&buf, 4096, block) != 0) {
        fprintf(stderr, "iowriter: out of memory\n");
        return 1;
    }
    memset(buf, 'x', block);
    double t0 = now_s(), t;
    off_t off = 0;
    size_t written = 0;
    while ((t = now_s()) - t0 < secs) {
        if (rate > 0 && (double)written > rate * (t - t0)) {
            usleep(2000); /* ahead of the pace */
            continue;
        }
        if (pwrite(fd, buf, block, off) != (ssize_t)block) {
            perror("pwrite");
            return 1;
        }
        written += block;
        off = (off_t)(((size_t)off + block) % (256u << 20));
    }
    close(fd);
    free(buf);
    printf("%zu KiB in %.1f s\n", written / 1024, now_s() - t0);
    return 0;
}
