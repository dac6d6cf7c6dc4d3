#include "parse_num.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int parse_double_arg(const char *opt, const char *s, double min, double max, const char *what,
                     double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < min || v > max) {
        fprintf(stderr, "perfreport: %s: '%s' is not %s in [%g, %g]\n", opt, s, what, min, max);
        return -1;
    }
    *out = v;
    return 0;
}

int parse_long_arg(const char *opt, const char *s, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        fprintf(stderr, "perfreport: %s: '%s' is not a whole number in [%ld, %ld]\n", opt, s,
                min, max);
        return -1;
    }
    *out = v;
    return 0;
}
