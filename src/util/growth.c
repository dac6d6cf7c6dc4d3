/* Least-squares slope and steadiness of a series of readings. */
#include "growth.h"
#include <math.h>
#include <string.h>

void growth_init(struct growth_sums *s)
{
    memset(s, 0, sizeof *s);
    s->prev = NAN;
}

void growth_add(struct growth_sums *s, double t, double v)
{
    if (isnan(v) || isnan(t))
        return;
    s->n++, s->st += t, s->sy += v, s->stt += t * t, s->sty += t * v;
    if (!isnan(s->prev)) {
        s->steps++;
        s->rises += v > s->prev;
    }
    s->prev = v;
}

double growth_slope(const struct growth_sums *s)
{
    double den = s->n * s->stt - s->st * s->st;
    if (s->n < 3 || !(den > 0))
        return NAN;
    return (s->n * s->sty - s->st * s->sy) / den;
}

double growth_rise(const struct growth_sums *s)
{
    return s->steps ? 100.0 * (double)s->rises / (double)s->steps : NAN;
}

void growth_fit(const double *t, const double *v, size_t n, double *slope, double *rise_pct)
{
    struct growth_sums s;
    growth_init(&s);
    for (size_t i = 0; i < n; i++)
        growth_add(&s, t[i], v[i]);
    *slope = growth_slope(&s);
    if (rise_pct)
        *rise_pct = growth_rise(&s);
}
