/* joiner: the main thread starts WORKERS threads that each compute for
 * SECONDS (busy loops with a short sleep every 10 ms, BUSY percent of the
 * time), then joins them: the common shape of a parallel program, whose
 * main thread waits by design.  Prints "ready" once the workers run.
 * Usage: joiner [SECONDS] [WORKERS] [BUSY] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double secs = 10, busy = 80;
static volatile unsigned long sink;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "joiner-work");
    double end = now_s() + secs;
    while (now_s() < end) {
        double slice = now_s() + 0.010 * busy / 100;
        while (now_s() < slice)
            for (int i = 0; i < 1000; i++)
                sink += (unsigned long)i;
        usleep((useconds_t)(10000 * (100 - busy) / 100));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        secs = atof(argv[1]);
    int n = argc > 2 ? atoi(argv[2]) : 1;
    if (argc > 3)
        busy = atof(argv[3]);
    if (n < 1 || n > 64 || !(busy > 0 && busy <= 100))
        return 2;
    pthread_t t[64];
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, worker, NULL) != 0)
            return 1;
    printf("ready\n");
    fflush(stdout);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    return 0;
}
