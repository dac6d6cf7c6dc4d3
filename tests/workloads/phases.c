/* Two phases for the per-second heat map's tests: phases [SECONDS] spins
 * SECONDS (default 2) in phase_one_spin, then as long in phase_two_spin,
 * then exits.  Each function loops on its own, so every sample of a phase
 * has that phase's function as its leaf user frame. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void phase_one_spin(double until)
{
    volatile unsigned long keep_frame = 0;
    while (now_s() < until)
        for (int i = 0; i < 20000; i++)
            keep_frame += (unsigned long)i * 3;
    sink = keep_frame;
}

__attribute__((noinline)) static void phase_two_spin(double until)
{
    volatile unsigned long keep_frame = 0;
    while (now_s() < until)
        for (int i = 0; i < 20000; i++)
            keep_frame += (unsigned long)i * 5;
    sink = keep_frame;
}

int main(int argc, char **argv)
{
    double s = argc > 1 ? strtod(argv[1], NULL) : 2.0;
    if (!(s > 0) || s > 3600) {
        fprintf(stderr, "usage: phases [SECONDS]\n");
        return 2;
    }
    double t = now_s();
    phase_one_spin(t + s);
    phase_two_spin(t + 2 * s);
    return 0;
}
