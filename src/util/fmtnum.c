/* The one number formatter: see fmtnum.h. */
#include "fmtnum.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Unit ladders: each step divides by `div` into the next unit. */
struct ladder {
    const char *unit[5];
    double div;
};
static const struct ladder ladders[] = {
    {{"ns", "us", "ms", "s", NULL}, 1000},
    {{"us", "ms", "s", NULL, NULL}, 1000},
    {{"ms", "s", NULL, NULL, NULL}, 1000},
    {{"B", "KiB", "MiB", "GiB", "TiB"}, 1024},
    {{"KiB", "MiB", "GiB", "TiB", NULL}, 1024},
};

double fmt_scale(double ref, const char *unit, const char **shown_unit)
{
    *shown_unit = unit ? unit : "";
    for (size_t l = 0; l < sizeof ladders / sizeof ladders[0]; l++) {
        if (!unit || strcmp(unit, ladders[l].unit[0]) != 0)
            continue;
        double d = 1;
        for (int k = 1; k < 5 && ladders[l].unit[k] && fabs(ref) / d >= ladders[l].div; k++) {
            d *= ladders[l].div;
            *shown_unit = ladders[l].unit[k];
        }
        if (strcmp(*shown_unit, "us") == 0)
            *shown_unit = "\xC2\xB5s";
        return d;
    }
    return 1;
}

void fmt_sig3(char *out, size_t n, double v)
{
    if (!isfinite(v)) {
        snprintf(out, n, "-");
        return;
    }
    double a = fabs(v);
    int dec = a == 0 || a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : a >= 0.1 ? 3 : a >= 0.01 ? 4 : 5;
    snprintf(out, n, "%.*f", dec, v);
    if (strchr(out, '.')) {
        size_t len = strlen(out);
        while (len > 0 && out[len - 1] == '0')
            out[--len] = '\0';
        if (len > 0 && out[len - 1] == '.')
            out[--len] = '\0';
    }
    if (strcmp(out, "-0") == 0)
        snprintf(out, n, "0");
}

void fmt_num(char *out, size_t n, double v) { fmt_sig3(out, n, v); }

void fmt_quantity(char *out, size_t n, double v, const char *unit)
{
    if (!isfinite(v)) {
        snprintf(out, n, "-");
        return;
    }
    const char *u;
    double d = fmt_scale(v, unit, &u);
    char num[64];
    fmt_sig3(num, sizeof num, v / d);
    if (!*u)
        snprintf(out, n, "%s", num);
    else if (strcmp(u, "%") == 0 || u[0] == '/')
        snprintf(out, n, "%s%s", num, u);
    else
        snprintf(out, n, "%s %s", num, u);
}
