/* Sleeps 20 ms (or MS) at a time in a loop with a little work between
 * sleeps: off-CPU time that is all nanosleep.  Usage: sleeper [SECONDS [MS]] */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static long nap_ms = 20;

static void __attribute__((noinline)) nap(void)
{
    struct timespec ts = {nap_ms / 1000, (nap_ms % 1000) * 1000 * 1000};
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 60);
    if (argc > 2 && atol(argv[2]) > 0)
        nap_ms = atol(argv[2]);
    while (time(NULL) < end) {
        for (int i = 0; i < 1000; i++)
            sink += (unsigned long)i;
        nap();
    }
    return 0;
}
