/* allocator SECONDS WORK_US [LEAK_EVERY]: calls build_records() in a loop
 * with WORK_US microseconds (of its CPU time) of computing between calls (0: none, a tight
 * allocation loop); each call mallocs a record, callocs and reallocs a
 * buffer and frees both (5 C library calls), and every LEAK_EVERY-th call
 * (0 = never) also leaks a 4 KiB block from leak_some().  Prints
 * "calls_per_s N" (build_records calls) at the end, and on each SIGUSR1
 * "mark SECONDS CALLS CPU_SECONDS" (so a bench can time a stretch in the
 * middle, in wall-clock and in its own CPU time). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *volatile sink;
static volatile sig_atomic_t marked;

static void on_usr1(int sig)
{
    (void)sig;
    marked = 1;
}
static void **leaked;
static size_t nleaked, capleaked;

/* The leak: blocks kept in a list nobody frees. */
__attribute__((noinline)) static void leak_some(void)
{
    if (nleaked == capleaked) {
        capleaked = capleaked ? capleaked * 2 : 1024;
        void **n = realloc(leaked, capleaked * sizeof *leaked);
        if (!n)
            exit(1);
        leaked = n;
    }
    char *p = malloc(4096);
    if (!p)
        exit(1);
    memset(p, 1, 4096);
    leaked[nleaked++] = p;
}

/* The allocating function the table should put first. */
__attribute__((noinline)) static void build_records(void)
{
    char *rec = malloc(256);
    char *buf = calloc(64, 16);
    if (!rec || !buf)
        exit(1);
    char *big = realloc(buf, 2048);
    if (!big)
        exit(1);
    memset(rec, 0, 256);
    big[2047] = 1;
    sink = rec;
    free(rec);
    free(big);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: allocator SECONDS WORK_US [LEAK_EVERY]\n");
        return 2;
    }
    double secs = atof(argv[1]);
    double work = atof(argv[2]) / 1e6;
    long leak_every = argc > 3 ? atol(argv[3]) : 0;
    signal(SIGUSR1, on_usr1);
    double t0 = now_s(), t = t0;
    long calls = 0;
    while (t - t0 < secs) {
        if (marked) {
            marked = 0;
            struct timespec cpu;
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
            printf("mark %.6f %ld %.6f\n", now_s(), calls, (double)cpu.tv_sec + cpu.tv_nsec / 1e9);
            fflush(stdout);
        }
        build_records();
        calls++;
        if (leak_every > 0 && calls % leak_every == 0)
            leak_some();
        if (work > 0) { /* computing, no allocation: WORK_US of its own CPU time,
                         * however busy the host */
            double until = cpu_s() + work;
            while (cpu_s() < until)
                ;
            t = now_s();
        } else if ((calls & 63) == 0) {
            t = now_s();
        }
    }
    printf("calls_per_s %.0f\n", calls / (t - t0));
    return 0;
}
