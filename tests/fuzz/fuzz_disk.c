/* /proc/diskstats parser and the name helpers fed from it. */
#include "fuzz.h"
#include "collect/disk.h"
#include "procfs/blockdev.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    struct diskstats d = {0};
    diskstats_parse(text, &d);
    for (size_t i = 0; i < d.n; i++) {
        const struct diskstat *s = &d.v[i];
        FUZZ_ASSERT(s->name);
        FUZZ_ASSERT(diskstats_find(&d, s->name) == s); /* names are unique */
        char sys[256];
        if (disk_sysfs_name(s->name, sys, sizeof sys)) {
            FUZZ_ASSERT(strchr(sys, '/') == NULL);
            FUZZ_ASSERT(strcmp(sys, ".") != 0 && strcmp(sys, "..") != 0 && sys[0]);
        }
        disk_is_virtual_name(s->name);
        disk_class(s->name, -1, false);
        struct diskstat delta;
        diskstat_delta(s, s, &delta);
        struct disk_rates rt;
        disk_rates_compute(s, 1000, &rt);
    }
    diskstats_free(&d);
    free(text);
    return 0;
}
