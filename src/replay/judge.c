/* A bundle loaded and judged again: see judge.h. */
#include "judge.h"
#include "load.h"
#include "../analyze/analyze.h"
#include "../model/model.h"

struct report *bundle_load_judged(const char *dir, const char *thresholds_file, char *err,
                                  size_t errlen)
{
    struct report *r = NULL;
    if (bundle_load(dir, &r, err, errlen) != 0)
        return NULL;
    if (thresholds_load(r, thresholds_file, err, errlen) != 0) {
        report_free(r);
        return NULL;
    }
    analyze_run(r);
    return r;
}
