#include "collector.h"
#include "disk.h"
#include "net.h"

/* Run order: host facts first, then the interval collectors. */
const struct collector *const collector_registry[] = {
    &collector_disk,
    &collector_net,
    NULL,
};
