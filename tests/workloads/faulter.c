/* faulter SECONDS [MIB]: maps MIB MiB (default 16) of anonymous memory,
 * touches every page in touch_pages() (one page fault each), unmaps it, and
 * again, for SECONDS.  Prints "faults_per_s N" (pages touched per second)
 * and "faults_per_cpu_s N" (per second of its own CPU time, which the
 * host's other load does not change) at the end: the page-fault profile's
 * overhead bench compares them. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }

/* The function that tops the page-fault profile: each store faults a page in. */
__attribute__((noinline)) static long touch_pages(volatile char *p, size_t len, size_t page)
{
    long n = 0;
    for (size_t off = 0; off < len; off += page, n++)
        p[off] = 1;
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: faulter SECONDS [MIB]\n");
        return 2;
    }
    double secs = atof(argv[1]);
    size_t len = (size_t)(argc > 2 ? atol(argv[2]) : 16) << 20;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    double t0 = now_s(), t = t0, c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    long pages = 0;
    while (t - t0 < secs) {
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        pages += touch_pages(p, len, page);
        munmap(p, len);
        t = now_s();
    }
    printf("faults_per_s %.0f\n", pages / (t - t0));
    printf("faults_per_cpu_s %.0f\n", pages / (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0));
    return 0;
}
