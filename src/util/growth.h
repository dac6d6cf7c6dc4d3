/* How a quantity moved over a window of readings: the least-squares slope
 * and how steadily it rose (the share of steps that went up).  A leak
 * rises in nearly every step; noise and one-off jumps do not. */
#ifndef PERFREPORT_GROWTH_H
#define PERFREPORT_GROWTH_H
#include <stddef.h>

/* Over the n points (t[i], v[i]) whose v is not NAN: *slope in v's unit
 * per t's unit (NAN with fewer than 3 points or all at one t), *rise_pct
 * the share of consecutive points where v went up (NAN with fewer than 2;
 * rise_pct may be NULL). */
void growth_fit(const double *t, const double *v, size_t n, double *slope, double *rise_pct);
#endif
