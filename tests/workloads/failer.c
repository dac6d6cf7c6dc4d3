/* failer: calls open("/nonexistent/...") (ENOENT) and close(-1) (EBADF)
 * in a loop for SECS seconds, at most RATE calls/s in total.
 *   failer SECS [RATE] */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 5;
    double rate = argc > 2 ? atof(argv[2]) : 100000;
    double t0 = now();
    unsigned long n = 0;
    while (now() - t0 < secs) {
        /* Pace in batches of 100 so the rate holds without a syscall per call. */
        for (int i = 0; i < 100; i++, n++) {
            if (n % 4 == 3)
                close(-1);
            else if (open("/nonexistent/perfreport-failer", O_RDONLY) >= 0)
                return 1;
        }
        double ahead = (double)n / rate - (now() - t0);
        if (ahead > 0) {
            struct timespec ts = {(time_t)ahead, (long)((ahead - (double)(time_t)ahead) * 1e9)};
            nanosleep(&ts, NULL);
        }
    }
    printf("calls %lu\n", n);
    return 0;
}
