/* dsyncer: writes small blocks to FILE opened O_DSYNC (every write waits
 * for the device; no fsync anywhere), for SECONDS (default 10).
 * Usage: dsyncer FILE [SECONDS] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: dsyncer FILE [SECONDS]\n");
        return 2;
    }
    double secs = argc > 2 ? atof(argv[2]) : 10;
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_DSYNC, 0600);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    char buf[4096];
    memset(buf, 'x', sizeof buf);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long n = 0;
    do {
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf) {
            perror("write");
            return 1;
        }
        /* stay on a 4 MiB file so the test never fills the disk */
        if (++n % 1024 == 0 && lseek(fd, 0, SEEK_SET) < 0) {
            perror("lseek");
            return 1;
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
    close(fd);
    printf("%ld writes\n", n);
    return 0;
}
