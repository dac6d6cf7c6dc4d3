/* Sleeps 20 ms at a time in a loop with a little work between sleeps:
 * off-CPU time that is all nanosleep.  Usage: sleeper [SECONDS] */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static void __attribute__((noinline)) nap(void)
{
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 60);
    while (time(NULL) < end) {
        for (int i = 0; i < 1000; i++)
            sink += (unsigned long)i;
        nap();
    }
    return 0;
}
