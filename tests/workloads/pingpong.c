#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static int a[2], b[2];
static void *peer(void *x) { char c; (void)x; while (read(a[0], &c, 1) == 1) if (write(b[1], &c, 1) != 1) break; return NULL; }
int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 3;
    if (pipe(a) || pipe(b)) return 1;
    pthread_t t; pthread_create(&t, NULL, peer, NULL);
    struct timespec s, e; clock_gettime(CLOCK_MONOTONIC, &s);
    long n = 0; char c = 'x';
    for (;;) {
        if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1) return 1;
        if (++n % 1000 == 0) { clock_gettime(CLOCK_MONOTONIC, &e); if ((e.tv_sec - s.tv_sec) + (e.tv_nsec - s.tv_nsec) / 1e9 >= secs) break; }
    }
    double el = (e.tv_sec - s.tv_sec) + (e.tv_nsec - s.tv_nsec) / 1e9;
    printf("%.0f round trips/s\n", n / el);
    return 0;
}
