/* Burns CPU in a function the compiler must inline into its caller
 * (always_inline, even under the workloads' -fno-inline), so that the
 * profile's stacks can show the inline frame from the binary's DWARF:
 * main -> spin_outer -> [inlined] spin_inlined.
 * Usage: inliner SECONDS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long g_sink;

static inline __attribute__((always_inline)) unsigned long spin_inlined(unsigned long x)
{
    for (int i = 0; i < 100000; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    return x;
}

__attribute__((noinline)) static unsigned long spin_outer(unsigned long x)
{
    return spin_inlined(x) ^ 1;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 5;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    unsigned long x = 1;
    do {
        x = spin_outer(x);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
    g_sink = x;
    printf("done\n");
    return 0;
}
