#include "harness.h"
#include "../../src/util/growth.h"
#include <math.h>

TEST(growth_fit_slope_and_steadiness)
{
    double slope, rise;
    const double t[] = {0, 1, 2, 3, 4};
    const double steady[] = {10, 12, 14, 16, 18};
    growth_fit(t, steady, 5, &slope, &rise);
    CHECK_NUM(slope, 2, 1e-12);
    CHECK_NUM(rise, 100, 0);
    /* a sawtooth: a slope, but it rose in half the steps only */
    const double saw[] = {0, 10, 2, 12, 4};
    growth_fit(t, saw, 5, &slope, &rise);
    CHECK_NUM(rise, 50, 0);
    /* gaps (NAN) are left out; a flat step is no rise */
    const double gaps[] = {1, NAN, 3, 3, 5};
    growth_fit(t, gaps, 5, &slope, &rise);
    CHECK_NUM(rise, 200.0 / 3, 1e-9);
    CHECK(slope > 0);
    /* too few points, or all at one time */
    growth_fit(t, steady, 2, &slope, &rise);
    CHECK(isnan(slope));
    CHECK_NUM(rise, 100, 0);
    const double same_t[] = {1, 1, 1};
    growth_fit(same_t, steady, 3, &slope, &rise);
    CHECK(isnan(slope));
    growth_fit(t, steady, 0, &slope, &rise);
    CHECK(isnan(slope) && isnan(rise));
}

/* The running sums, one reading at a time, give growth_fit's figures. */
TEST(growth_sums_add_one_reading_at_a_time)
{
    const double t[] = {0, 1, 2, 3, 4, 5};
    const double v[] = {1, 4, NAN, 3, 9, 11};
    struct growth_sums s;
    growth_init(&s);
    CHECK(isnan(growth_slope(&s)) && isnan(growth_rise(&s)));
    for (size_t i = 0; i < 6; i++)
        growth_add(&s, t[i], v[i]);
    double slope, rise;
    growth_fit(t, v, 6, &slope, &rise);
    CHECK(s.n == 5 && s.steps == 4 && s.rises == 3);
    CHECK(growth_slope(&s) == slope);
    CHECK(growth_rise(&s) == rise);
    CHECK_NUM(rise, 75, 0);
    growth_fit(t, v, 6, &slope, NULL); /* the rise is optional */
    CHECK(growth_slope(&s) == slope);
}
