/* CPU burner for tests: burner SECONDS [THREADS] [--comm NAME] [--exit N]
 * Burns CPU in known, non-inlined functions (burn_outer -> burn_middle ->
 * burn_leaf) so profiles can be checked by name.  --comm sets the thread
 * name (hostile-name tests); --exit N makes it exit with status N (tests of
 * `perfreport -- CMD`). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

static double g_seconds;
static volatile unsigned long g_sink;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The volatile local gives burn_leaf a stack frame: GCC 12 sets up no frame
 * pointer in a frameless leaf, and frame-pointer unwinders (BPF, perf -g)
 * would then skip its caller burn_middle. */
__attribute__((noinline)) static unsigned long burn_leaf(unsigned long x)
{
    volatile unsigned long keep_frame = 0;
    for (int i = 0; i < 100000; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    keep_frame = x;
    return keep_frame;
}

__attribute__((noinline)) static unsigned long burn_middle(unsigned long x)
{
    return burn_leaf(x) ^ (x >> 7);
}

__attribute__((noinline)) static void *burn_outer(void *arg)
{
    unsigned long x = (unsigned long)(size_t)arg;
    double end = now_s() + g_seconds;
    while (now_s() < end)
        x = burn_middle(x);
    g_sink += x;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: burner SECONDS [THREADS] [--comm NAME] [ignored args...]\n");
        return 2;
    }
    g_seconds = atof(argv[1]);
    int threads = argc > 2 && argv[2][0] != '-' ? atoi(argv[2]) : 1;
    int status = 0;
    for (int i = 2; i < argc - 1; i++) {
        if (strcmp(argv[i], "--comm") == 0)
            prctl(PR_SET_NAME, argv[i + 1], 0, 0, 0);
        if (strcmp(argv[i], "--exit") == 0)
            status = atoi(argv[i + 1]);
    }
    if (threads < 1)
        threads = 1;
    pthread_t *t = calloc((size_t)threads, sizeof *t);
    if (!t)
        return 1;
    for (int i = 1; i < threads; i++)
        if (pthread_create(&t[i], NULL, burn_outer, (void *)(size_t)i) != 0)
            return 1;
    burn_outer((void *)0);
    for (int i = 1; i < threads; i++)
        pthread_join(t[i], NULL);
    free(t);
    return status;
}
