/* A bundle loaded and judged again: what `perfreport render`, `perfreport
 * diff` and `--baseline` start from. */
#ifndef PERFREPORT_REPLAY_JUDGE_H
#define PERFREPORT_REPLAY_JUDGE_H
#include <stddef.h>

struct report;

/* bundle_load(dir), then the thresholds of thresholds_file (NULL: the
 * built-in table) and analyze_run.  Returns the report (the caller frees
 * it) or NULL with a message in err. */
struct report *bundle_load_judged(const char *dir, const char *thresholds_file, char *err,
                                  size_t errlen);
#endif
