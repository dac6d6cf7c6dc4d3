/* Runs generated code, as a JIT does: jitspin SECONDS [MAP_MIB [sleep|spin [NAME]]]
 * Copies a small counting loop (with "sleep": a 10 ms nanosleep system call)
 * into an anonymous executable mapping and calls it until SECONDS have
 * passed, so that the on-CPU (off-CPU) profile sees frames that no ELF file
 * names.  With MAP_MIB it first writes /tmp/perf-PID.map: one line
 * naming the loop NAME (default "jit_spin_loop"), then filler entries
 * elsewhere up to MAP_MIB MiB (perf map budget tests; 0 with a NAME: the
 * loop's line alone).  x86-64 only. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
    /* mov ecx, 2000000; 1: dec rcx; jnz 1b; ret */
    static const unsigned char spin[] = {0xb9, 0x80, 0x84, 0x1e, 0x00, 0x48, 0xff,
                                         0xc9, 0x75, 0xfb, 0xc3};
    /* xor esi, esi; mov eax, SYS_nanosleep; syscall; ret (rdi: the timespec) */
    static const unsigned char nap[] = {0x31, 0xf6, 0xb8, 0x23, 0x00, 0x00, 0x00, 0x0f, 0x05, 0xc3};
#else
    static const unsigned char spin[] = {0}, nap[] = {0};
    fprintf(stderr, "jitspin: x86-64 only\n");
    return 2;
#endif
    double secs = argc > 1 ? atof(argv[1]) : 10;
    long map_mib = argc > 2 ? atol(argv[2]) : 0;
    int sleeping = argc > 3 && strcmp(argv[3], "sleep") == 0;
    const char *name = argc > 4 ? argv[4] : "jit_spin_loop";
    const unsigned char *code = sleeping ? nap : spin;
    size_t code_len = sleeping ? sizeof nap : sizeof spin;
    unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        perror("jitspin: mmap");
        return 1;
    }
    memcpy(mem, code, code_len);
    if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) != 0) {
        perror("jitspin: mprotect");
        return 1;
    }
    if (map_mib > 0 || argc > 4) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
        FILE *fp = fopen(path, "w");
        if (!fp) {
            perror("jitspin: perf map");
            return 1;
        }
        fprintf(fp, "%" PRIxPTR " %zx %s\n", (uintptr_t)mem, code_len, name);
        /* filler far from the loop: 2^40 upwards, 16 bytes apart */
        uint64_t a = 1ull << 40;
        for (long written = 0; written < (map_mib << 20); a += 16)
            written += fprintf(fp, "%" PRIx64 " 10 f%" PRIx64 "\n", a, a);
        if (fclose(fp) != 0) {
            perror("jitspin: perf map");
            return 1;
        }
    }
    void (*fn)(const struct timespec *) = (void (*)(const struct timespec *))(uintptr_t)mem;
    const struct timespec ten_ms = {0, 10000000};
    double end = now_s() + secs;
    while (now_s() < end)
        fn(&ten_ms);
    return 0;
}
