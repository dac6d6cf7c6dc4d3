/* hotthread: one thread ("hotspin") spins producing work items; WAITERS
 * others ("waiter-N") block on a condition variable until an item is
 * there, take it and block again.  The producer is the bottleneck.  Prints
 * "hot TID" once the threads run, then runs for SECONDS (default 10).
 * Usage: hotthread [SECONDS] [WAITERS] */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long items;
static volatile int done;
static volatile unsigned long sink;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *waiter(void *arg)
{
    char name[16];
    snprintf(name, sizeof name, "waiter-%ld", (long)arg);
    pthread_setname_np(pthread_self(), name);
    pthread_mutex_lock(&mu);
    while (!done) {
        while (!items && !done)
            pthread_cond_wait(&cv, &mu);
        if (items)
            items--;
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void *producer(void *arg)
{
    double end = *(double *)arg;
    pthread_setname_np(pthread_self(), "hotspin");
    printf("hot %ld\n", (long)syscall(SYS_gettid));
    fflush(stdout);
    while (now_s() < end) {
        /* ~2 ms of work per item: the waiters get one item now and then */
        double t0 = now_s();
        while (now_s() - t0 < 0.002)
            for (int i = 0; i < 1000; i++)
                sink += (unsigned long)i * 2654435761u;
        pthread_mutex_lock(&mu);
        items++;
        pthread_cond_signal(&cv);
        pthread_mutex_unlock(&mu);
    }
    pthread_mutex_lock(&mu);
    done = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    return NULL;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 10;
    long n = argc > 2 ? atol(argv[2]) : 3;
    if (n < 1 || n > 64) {
        fprintf(stderr, "usage: hotthread [SECONDS] [WAITERS 1..64]\n");
        return 2;
    }
    double end = now_s() + secs;
    pthread_t w[64], p;
    for (long i = 0; i < n; i++)
        if (pthread_create(&w[i], NULL, waiter, (void *)(i + 1)) != 0) {
            perror("pthread_create");
            return 1;
        }
    if (pthread_create(&p, NULL, producer, &end) != 0) {
        perror("pthread_create");
        return 1;
    }
    pthread_join(p, NULL);
    for (long i = 0; i < n; i++)
        pthread_join(w[i], NULL);
    return 0;
}
