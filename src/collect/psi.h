/* Pressure stall information collector: /proc/pressure/{cpu,io,memory}.
 * Pure parser exposed for unit tests. */
#ifndef PERFREPORT_COLLECT_PSI_H
#define PERFREPORT_COLLECT_PSI_H
#include "collector.h"
#include <stdbool.h>
#include <stdint.h>

extern const struct collector collector_psi;

struct psi_line {
    bool have;
    double avg10, avg60, avg300; /* percent */
    uint64_t total;              /* microseconds stalled since boot */
};

struct psi_file {
    struct psi_line some, full; /* full is absent for cpu before 5.13 */
};

/* Parses one pressure file.  Malformed lines are skipped.  Returns 0, or
 * -EINVAL when neither a valid "some" nor "full" line is present. */
int parse_psi(const char *text, struct psi_file *out);

/* Share of dt_s stalled, from two `total` readings in microseconds: 0-100.
 * A counter that went backwards gives 0; NAN when dt_s <= 0. */
double psi_stall_pct(uint64_t total_a, uint64_t total_b, double dt_s);

#endif
