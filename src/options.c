#include "options.h"
#include <string.h>

void options_defaults(struct options *o)
{
    memset(o, 0, sizeof *o);
    o->duration_s = 30;
    o->interval_s = 1;
    o->hz = 49;
}
