/* anongrow: grows its anonymous memory steadily by MIB_PER_S (in steps
 * every 50 ms, every page touched) for SECONDS, then holds it until
 * HOLD_SECONDS have passed in all (default: SECONDS).
 * Usage: anongrow MIB_PER_S SECONDS [HOLD_SECONDS] */
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
    if (argc < 3) {
        fprintf(stderr, "usage: anongrow MIB_PER_S SECONDS [HOLD_SECONDS]\n");
        return 2;
    }
    double rate = atof(argv[1]), secs = atof(argv[2]);
    double hold = argc > 3 ? atof(argv[3]) : secs;
    size_t step = (size_t)(rate * 1048576.0 / 20); /* per 50 ms */
    double t0 = now_s();
    unsigned n = 0;
    while (now_s() - t0 < secs) {
        char *p = malloc(step ? step : 1);
        if (!p)
            return 1;
        memset(p, (int)(++n & 0xff), step); /* touch every page: resident, charged */
        usleep(50000);
    }
    while (now_s() - t0 < hold)
        usleep(100000);
    return 0;
}
