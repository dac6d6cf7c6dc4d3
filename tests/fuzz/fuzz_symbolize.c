/* kallsyms, /proc/PID/maps and perf JIT map parsers, plus lookups into what
 * they return. */
#include "fuzz.h"
#include "symbolize/sym_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    bool all_zero;
    struct ksym *k = NULL;
    size_t nk = sym_parse_kallsyms(text, &k, &all_zero);
    for (size_t i = 0; i < nk; i++) {
        FUZZ_ASSERT(k[i].name);
        if (i)
            FUZZ_ASSERT(k[i - 1].addr <= k[i].addr); /* sorted */
        long f = sym_kallsyms_find(k, nk, k[i].addr);
        FUZZ_ASSERT(f < (long)nk);
        if (f >= 0)
            FUZZ_ASSERT(k[f].addr <= k[i].addr);
        sym_kallsyms_find(k, nk, k[i].addr - 1);
        sym_kallsyms_find(k, nk, k[i].addr + 1);
    }
    free(k);
    free(text);

    text = fuzz_cstr(data, size);
    struct sym_map *m = NULL;
    bool truncated;
    size_t nmaps = sym_parse_maps(text, 64, &m, &truncated);
    FUZZ_ASSERT(nmaps <= 64);
    for (size_t i = 0; i < nmaps; i++) {
        FUZZ_ASSERT(m[i].path);
        if (i)
            FUZZ_ASSERT(m[i - 1].start <= m[i].start);
        sym_map_is_file(&m[i]);
    }
    sym_maps_free(m, nmaps);
    /* The line parser on each line, with an exact-length copy. */
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = fuzz_bytes((const uint8_t *)p, len);
        struct sym_map one;
        if (sym_parse_maps_line(line, len, &one) == 0)
            free(one.path);
        free(line);
        p += len + (nl ? 1 : 0);
    }
    free(text);

    text = fuzz_cstr(data, size);
    struct jit_sym *j = NULL;
    size_t nj = sym_parse_perf_map(text, &j);
    for (size_t i = 0; i < nj; i++) {
        FUZZ_ASSERT(j[i].name);
        if (i)
            FUZZ_ASSERT(j[i - 1].start <= j[i].start);
        long f = sym_perf_map_find(j, nj, j[i].start);
        if (f >= 0) {
            FUZZ_ASSERT(f < (long)nj);
            FUZZ_ASSERT(j[f].start <= j[i].start && j[i].start - j[f].start < j[f].size);
        }
        sym_perf_map_find(j, nj, j[i].start + j[i].size);
    }
    free(j);
    free(text);
    return 0;
}
