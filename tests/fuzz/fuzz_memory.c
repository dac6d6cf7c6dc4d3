/* /proc/meminfo, /proc/vmstat and the pressure-file parsers. */
#include "fuzz.h"
#include "collect/memory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    struct meminfo mi;
    if (parse_meminfo(text, &mi) == 0)
        FUZZ_ASSERT(mi.total > 0 && (mi.have & MI_TOTAL));
    struct vmstat vm;
    parse_vmstat(text, &vm);
    free(text);
    return 0;
}
