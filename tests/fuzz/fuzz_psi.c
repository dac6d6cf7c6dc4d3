/* /proc/pressure/{cpu,io,memory} parser. */
#include "fuzz.h"
#include "collect/psi.h"
#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    struct psi_file pf;
    if (parse_psi(text, &pf) == 0) {
        FUZZ_ASSERT(pf.some.have || pf.full.have);
        double pct = psi_stall_pct(0, pf.some.total, 1.0);
        FUZZ_ASSERT(isnan(pct) || (pct >= 0 && pct <= 100));
    }
    free(text);
    return 0;
}
