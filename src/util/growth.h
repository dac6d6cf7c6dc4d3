/* How a quantity moved over a window of readings: the least-squares slope
 * and how steadily it rose (the share of steps that went up).  A leak
 * rises in nearly every step; noise and one-off jumps do not. */
#ifndef PERFREPORT_GROWTH_H
#define PERFREPORT_GROWTH_H
#include <stddef.h>

/* The fit as running sums, one reading at a time in constant memory (a
 * tracker that keeps no readings); growth_fit is it over an array. */
struct growth_sums {
    double n, st, sy, stt, sty; /* readings, and the sums of t, v, t*t, t*v */
    double prev;                /* the last reading; NAN before the first */
    size_t steps, rises;        /* consecutive pairs, and those that went up */
};
void growth_init(struct growth_sums *s);
/* Adds reading (t, v); one with a NAN is skipped. */
void growth_add(struct growth_sums *s, double t, double v);
/* Slope in v's unit per t's unit: NAN with fewer than 3 readings or all at one t. */
double growth_slope(const struct growth_sums *s);
/* Share of the steps where v went up, %: NAN with fewer than 2 readings. */
double growth_rise(const struct growth_sums *s);

/* Over the n points (t[i], v[i]) whose v is not NAN: *slope in v's unit
 * per t's unit (NAN with fewer than 3 points or all at one t), *rise_pct
 * the share of consecutive points where v went up (NAN with fewer than 2;
 * rise_pct may be NULL). */
void growth_fit(const double *t, const double *v, size_t n, double *slope, double *rise_pct);
#endif
