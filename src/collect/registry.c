#include "collector.h"
#include "cpu.h"
#include "memory.h"
#include "psi.h"

/* Run order: host facts first, then the interval collectors. */
const struct collector *const collector_registry[] = {
    &collector_cpu,
    &collector_memory,
    &collector_psi,
    NULL,
};
