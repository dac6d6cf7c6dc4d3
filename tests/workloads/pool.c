/* pool: THREADS workers parked on a condition variable; a dispatcher hands
 * out one small task (about 1 ms of work) every INTERVAL ms: an idle
 * worker pool, whose threads wait for work by design.  Prints "ready".
 * Usage: pool [SECONDS] [THREADS] [INTERVAL_MS] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int tasks, done;
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
    pthread_setname_np(pthread_self(), "pool-worker");
    pthread_mutex_lock(&mu);
    while (!done) {
        while (!tasks && !done)
            pthread_cond_wait(&cv, &mu);
        if (!tasks)
            continue;
        tasks--;
        pthread_mutex_unlock(&mu);
        double end = now_s() + 0.001;
        while (now_s() < end)
            sink++;
        pthread_mutex_lock(&mu);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 10;
    int n = argc > 2 ? atoi(argv[2]) : 8;
    int every_ms = argc > 3 ? atoi(argv[3]) : 50;
    if (n < 1 || n > 64 || every_ms < 1)
        return 2;
    pthread_t t[64];
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, worker, NULL) != 0)
            return 1;
    printf("ready\n");
    fflush(stdout);
    double end = now_s() + secs;
    while (now_s() < end) {
        usleep((useconds_t)every_ms * 1000);
        pthread_mutex_lock(&mu);
        tasks++;
        pthread_cond_signal(&cv);
        pthread_mutex_unlock(&mu);
    }
    pthread_mutex_lock(&mu);
    done = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    return 0;
}
