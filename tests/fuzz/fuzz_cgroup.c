/* Cgroup parsers: mountinfo, cpu.max, memory limits, PSI, /proc/PID/cgroup,
 * key/value files, mountinfo unescaping, I/O limits and counters,
 * memory.stat. */
#include "fuzz.h"
#include "collect/cgroup/cgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    struct cg_mounts m = {0};
    size_t nm = cg_parse_mountinfo(text, &m);
    FUZZ_ASSERT(nm == m.n);
    for (size_t i = 0; i < m.n; i++)
        FUZZ_ASSERT(m.v[i].mnt && m.v[i].root);
    cg_mounts_free(&m);

    int64_t quota;
    uint64_t u;
    bool unlimited;
    cg_parse_cpu_max(text, &quota, &u);
    cg_parse_mem_limit(text, &u, &unlimited);
    cg_parse_psi_some_total(text, &u);
    cg_kv_u64(text, "usage_usec", &u);
    cg_kv_u64(text, "nr_throttled", &u);

    struct cg_io_limit lim[8];
    size_t nl = cg_parse_io_max(text, lim, 8);
    FUZZ_ASSERT(nl <= 8);
    for (size_t i = 0; i < nl; i++)
        FUZZ_ASSERT(lim[i].limit > 0 && lim[i].kind < CG_IO_NKINDS);
    FUZZ_ASSERT(cg_parse_blkio_limits(text, CG_IO_WBPS, lim, 3) <= 3);
    for (unsigned k = 0; k < CG_IO_NKINDS; k++) {
        cg_parse_io_stat(text, 8, 0, (enum cg_io_kind)k, &u);
        cg_parse_blkio_stat(text, 254, 0, (enum cg_io_kind)k, &u);
    }
    uint64_t anon, file;
    cg_parse_mem_stat(text, &anon, &file);

    struct cg_proc_paths pp = {0};
    cg_parse_proc_cgroup(text, &pp);
    cg_proc_paths_free(&pp);

    /* Decoding never grows the text. */
    char *un = cg_unescape(text, strlen(text));
    FUZZ_ASSERT(un && strlen(un) <= strlen(text));
    free(un);
    free(text);
    return 0;
}
