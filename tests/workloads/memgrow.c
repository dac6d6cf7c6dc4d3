/* memgrow [-w] MODE ARGS: shapes of resident memory over time.
 *   memgrow ramp MIB_PER_S SECONDS [CAP_MIB]  grows steadily by MIB_PER_S (in
 *       20 ms steps) up to CAP_MIB (default: no cap), then stays flat
 *   memgrow once MIB SECONDS [DELAY_S]        after DELAY_S (default 0), takes MIB at
 *       once, then stays flat
 *   memgrow cycle MIB PERIOD_S SECONDS        grows to MIB over half a period,
 *       frees it all, and again
 * Every byte taken is touched (resident); each mode exits after SECONDS.
 * Prints "ready" once running (for once without a delay: after taking its
 * memory).  With -w it prints "ready" and waits for SIGUSR1 before it starts:
 * a process that exists before a window and changes shape inside it. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define STEP_S 0.02
#define MAX_CHUNKS 100000

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *chunks[MAX_CHUNKS];
static size_t sizes[MAX_CHUNKS];
static size_t nchunks;

/* mmap, so that freeing gives the memory back at once */
static int take(size_t bytes)
{
    if (!bytes || nchunks == MAX_CHUNKS)
        return 0;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("memgrow: mmap");
        return -1;
    }
    /* big blocks in huge pages where the host allows: a 4 KiB page fault
     * costs microseconds in a VM, and 500 MiB of them seconds of CPU */
    if (bytes >= (2u << 20))
        (void)madvise(p, bytes, MADV_HUGEPAGE);
    memset(p, 1, bytes);
    chunks[nchunks] = p;
    sizes[nchunks++] = bytes;
    return 0;
}

static void give_back(void)
{
    for (size_t i = 0; i < nchunks; i++)
        munmap(chunks[i], sizes[i]);
    nchunks = 0;
}

static void pause_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static void ready(void)
{
    printf("ready\n");
    fflush(stdout);
}

static void on_usr1(int sig) { (void)sig; }

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "-w") == 0) {
        sigset_t set, old;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        sigprocmask(SIG_BLOCK, &set, &old);
        signal(SIGUSR1, on_usr1);
        ready();
        sigsuspend(&old);
        sigprocmask(SIG_SETMASK, &old, NULL);
        argv++;
        argc--;
    }
    if (argc < 4) {
        fprintf(stderr, "usage: memgrow [-w] ramp MIB_PER_S SECONDS [CAP_MIB] | once MIB "
                        "SECONDS [DELAY_S] | cycle MIB PERIOD_S SECONDS\n");
        return 2;
    }
    const char *mode = argv[1];
    double t0 = now_s();
    if (strcmp(mode, "ramp") == 0) {
        double rate = atof(argv[2]) * 1048576.0, secs = atof(argv[3]);
        double cap = argc > 4 ? atof(argv[4]) * 1048576.0 : 0;
        double taken = 0;
        ready();
        while (now_s() - t0 < secs) {
            /* catch up with the clock: the rate holds whatever the sleeps do */
            double want = (now_s() - t0) * rate;
            if (cap > 0 && want > cap)
                want = cap;
            if (want - taken >= 4096) {
                size_t b = (size_t)(want - taken) & ~(size_t)4095;
                if (take(b) != 0)
                    return 1;
                taken += (double)b;
            }
            pause_s(STEP_S);
        }
    } else if (strcmp(mode, "once") == 0) {
        double delay = argc > 4 ? atof(argv[4]) : 0;
        if (delay > 0) {
            ready();
            pause_s(delay);
        }
        if (take((size_t)(atof(argv[2]) * 1048576.0)) != 0)
            return 1;
        if (!(delay > 0))
            ready();
        pause_s(atof(argv[3]));
    } else if (strcmp(mode, "cycle") == 0 && argc > 4) {
        double total = atof(argv[2]) * 1048576.0, period = atof(argv[3]), secs = atof(argv[4]);
        ready();
        while (now_s() - t0 < secs) {
            double ts = now_s();
            double taken = 0;
            while (now_s() - ts < period / 2) {
                double want = (now_s() - ts) / (period / 2) * total;
                if (want - taken >= 4096) {
                    size_t b = (size_t)(want - taken) & ~(size_t)4095;
                    if (take(b) != 0)
                        return 1;
                    taken += (double)b;
                }
                pause_s(STEP_S);
            }
            give_back();
            pause_s(period / 2);
        }
    } else {
        fprintf(stderr, "memgrow: unknown mode %s\n", mode);
        return 2;
    }
    give_back();
    return 0;
}
