/* Thresholds override file, through the same text entry point that
 * thresholds_load() uses. */
#include "fuzz.h"
#include "analyze/analyze.h"
#include "model/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct report *r = report_new();
    char err[256];
    err[0] = '\0';
    char *text = fuzz_bytes(data, size);
    int rc = thresholds_parse_text(r, text, size, "fuzz", err, sizeof err);
    if (rc != 0) {
        FUZZ_ASSERT(err[0]);
        for (const char *p = err; *p; p++) /* hostile tokens quoted printably */
            FUZZ_ASSERT((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f);
    }
    FUZZ_ASSERT(r->nthresholds > 0);
    free(text);
    report_free(r);
    return 0;
}
