#include "collector.h"

extern const struct collector collector_host;

/* Run order: host facts first, then the interval collectors. */
const struct collector *const collector_registry[] = {
    &collector_host,
    NULL,
};
