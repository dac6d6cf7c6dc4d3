/* faultab SECONDS: the faulter's loop (map 16 MiB, touch every page, unmap)
 * timed in its own CPU time while a software page-faults perf event on
 * itself, sampling in frequency mode at 200 Hz as perfreport's, is switched
 * on and off every 100 ms; prints "ns_per_fault_off N", "ns_per_fault_on N"
 * and their difference.  Alternating this fast cancels the drift of a shared
 * host that separate runs cannot: what is left is the event's own cost per
 * fault (counting every fault, taking the samples), without the BPF program
 * (bench/pagefault_bench.sh measures that from the kernel's statistics). */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static long touch_pages(volatile char *p, size_t len, size_t page)
{
    long n = 0;
    for (size_t off = 0; off < len; off += page, n++)
        p[off] = 1;
    return n;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 5;
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_PAGE_FAULTS;
    a.freq = 1;
    a.sample_freq = 200;
    a.disabled = 1;
    int fd = (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        perror("perf_event_open");
        return 1;
    }
    size_t len = 4u << 20, page = (size_t)sysconf(_SC_PAGESIZE);
    double cpu[2] = {0, 0}, t0 = clock_s(CLOCK_MONOTONIC);
    long pages[2] = {0, 0};
    for (int on = 0; clock_s(CLOCK_MONOTONIC) - t0 < secs; on = !on) {
        ioctl(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
        double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        while (clock_s(CLOCK_MONOTONIC) - w0 < 0.1) {
            char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED) {
                perror("mmap");
                return 1;
            }
            pages[on] += touch_pages(p, len, page);
            munmap(p, len);
        }
        cpu[on] += clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    }
    double off = 1e9 * cpu[0] / (double)pages[0], onv = 1e9 * cpu[1] / (double)pages[1];
    printf("ns_per_fault_off %.0f\nns_per_fault_on %.0f\nns_added %.0f\n", off, onv, onv - off);
    return 0;
}
