/* What this host allows, decided once before the window (design section 4,
 * "probe").  Collectors' can_run() read this instead of probing again. */
#ifndef PERFREPORT_PROBE_H
#define PERFREPORT_PROBE_H
#include "../collect/collector.h" /* struct host_caps */
#include <stdbool.h>

const char *cgroup_mode_name(enum cgroup_mode m);

struct report;
struct options;
/* Fills caps and records them in r->caps. */
void probe_host(struct host_caps *caps, const struct options *opt, struct report *r);
#endif
