#include "options.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void options_defaults(struct options *o)
{
    memset(o, 0, sizeof *o);
    o->duration_s = 30;
    o->interval_s = 1;
    o->hz = 49;
    o->min_block_us = 1000;
}

int options_set_min_block_us(struct options *o, const char *s)
{
    char *end;
    errno = 0;
    if (!s || *s < '0' || *s > '9')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > 60000000ULL)
        return -1;
    o->min_block_us = (unsigned)v;
    return 0;
}
