/* Least-squares slope and steadiness of a series of readings. */
#include "growth.h"
#include <math.h>

void growth_fit(const double *t, const double *v, size_t n, double *slope, double *rise_pct)
{
    double k = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, prev = NAN;
    size_t steps = 0, rises = 0;
    *slope = NAN;
    if (rise_pct)
        *rise_pct = NAN;
    for (size_t i = 0; i < n; i++) {
        double y = v[i], x = t[i];
        if (isnan(y) || isnan(x))
            continue;
        k++, sx += x, sy += y, sxx += x * x, sxy += x * y;
        if (!isnan(prev)) {
            steps++;
            rises += y > prev;
        }
        prev = y;
    }
    if (k >= 3 && k * sxx - sx * sx > 0)
        *slope = (k * sxy - sx * sy) / (k * sxx - sx * sx);
    if (steps && rise_pct)
        *rise_pct = 100.0 * (double)rises / (double)steps;
}
