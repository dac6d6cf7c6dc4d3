/* sysstorm: a syscall-heavy workload for the overhead benchmark.
 *   sysstorm SECS THREADS SPIN_NS
 *                                each thread loops { getppid(); spin SPIN_NS
 *                                nanoseconds of wall time } for SECS; prints
 *                                "calls_per_s N".  The spin is timed, not
 *                                counted in loop iterations, so the rate does
 *                                not follow the VM's changing CPU speed; time
 *                                added per syscall still shows as fewer calls.
 *   sysstorm --calls N THREADS [SPIN_NS]
 *                                each thread makes exactly N getppid() calls
 *                                (exact-count checks), spinning SPIN_NS
 *                                after each (0: a tight loop); prints
 *                                "calls TOTAL"
 *   sysstorm --calibrate RATE THREADS
 *                                prints the SPIN_NS that gives about RATE
 *                                calls/s in total. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;
static long work;

struct th {
    pthread_t t;
    unsigned long calls;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* vDSO: no syscall */
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void spin(long ns)
{
    if (ns <= 0)
        return;
    long long end = now_ns() + ns;
    while (now_ns() < end)
        ;
}

static long exact_calls;

static void *run_exact(void *arg)
{
    (void)arg;
    for (long i = 0; i < exact_calls; i++) {
        syscall(SYS_getppid);
        spin(work);
    }
    return NULL;
}

static void *run(void *arg)
{
    struct th *t = arg;
    unsigned long c = 0;
    while (!stop) {
        syscall(SYS_getppid);
        spin(work);
        c++;
    }
    t->calls = c;
    return NULL;
}

static double measure(double secs, int nthreads)
{
    struct th *th = calloc((size_t)nthreads, sizeof *th);
    if (!th)
        exit(1);
    stop = 0;
    double t0 = now();
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&th[i].t, NULL, run, &th[i]) != 0)
            exit(1);
    struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
    nanosleep(&ts, NULL);
    stop = 1;
    unsigned long total = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(th[i].t, NULL);
        total += th[i].calls;
    }
    double el = now() - t0;
    free(th);
    return (double)total / el;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--calibrate") == 0) {
        double target = atof(argv[2]);
        int nt = atoi(argv[3]);
        long lo = 0, hi = 100000;
        /* Rate falls as work grows: bisect on short runs. */
        for (int i = 0; i < 14 && hi - lo > 1; i++) {
            work = (lo + hi) / 2;
            if (measure(0.2, nt) > target)
                lo = work;
            else
                hi = work;
        }
        printf("%ld\n", lo);
        return 0;
    }
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "--calls") == 0) {
        exact_calls = atol(argv[2]);
        int nt = atoi(argv[3]);
        work = argc == 5 ? atol(argv[4]) : 0;
        pthread_t th[64];
        if (nt < 1 || nt > 64 || exact_calls < 0)
            return 2;
        for (int i = 0; i < nt; i++)
            if (pthread_create(&th[i], NULL, run_exact, NULL) != 0)
                return 1;
        for (int i = 0; i < nt; i++)
            pthread_join(th[i], NULL);
        printf("calls %ld\n", exact_calls * nt);
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: sysstorm SECS THREADS WORK | --calls N THREADS [WORK] | "
                        "--calibrate RATE THREADS\n");
        return 2;
    }
    work = atol(argv[3]);
    printf("calls_per_s %.0f\n", measure(atof(argv[1]), atoi(argv[2])));
    return 0;
}
