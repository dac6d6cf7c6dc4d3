#include "collector.h"
#include "procs.h"

/* Run order: host facts first, then the interval collectors. */
const struct collector *const collector_registry[] = {
    &collector_procs,
    NULL,
};
