#include "collector.h"
#include "cgroup.h"

/* Run order: host facts first, then the interval collectors. */
const struct collector *const collector_registry[] = {
    &collector_cgroup,
    NULL,
};
