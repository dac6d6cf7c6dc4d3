/* /proc/stat and /proc/loadavg parsers. */
#include "fuzz.h"
#include "collect/cpu.h"
#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    struct proc_stat a;
    int ra = parse_proc_stat(text, &a);
    if (ra == 0) {
        /* cpus sorted by id, no duplicates (documented). */
        for (size_t i = 1; i < a.ncpus; i++)
            FUZZ_ASSERT(a.cpus[i - 1].id < a.cpus[i].id);
        for (size_t i = 0; i < a.ncpus; i++)
            FUZZ_ASSERT(proc_stat_cpu(&a, a.cpus[i].id) == &a.cpus[i]);
        struct cpu_split sp;
        cpu_split(&a.total, &a.total, &sp);
        /* Split against an all-zero reading: percentages stay in range. */
        struct cpu_times zero = {{0}};
        cpu_split(&zero, &a.total, &sp);
        if (sp.valid)
            FUZZ_ASSERT(sp.util >= 0 && sp.util <= 100.0001);
        proc_stat_free(&a);
    }
    struct loadavg la;
    parse_loadavg(text, &la);
    free(text);
    return 0;
}
