/* Cgroup collector (v1, v2 and hybrid hosts); its pure parsers are
 * cgroup_parse.h's. */
#ifndef PERFREPORT_CGROUP_H
#define PERFREPORT_CGROUP_H
#include "../../procfs/cgroup_parse.h"
#include "../collector.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

extern const struct collector collector_cgroup;

#endif
