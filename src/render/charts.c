#include "charts.h"
#include "../model/model.h"
#include <stdio.h>
#include <string.h>

void chart_filename(const struct series *s, char *out, size_t n)
{
    int w = snprintf(out, n, "chart-%s.svg", s->hdr.name);
    if (w < 0)
        return;
    /* Only the part after "chart-" can carry host text (device names). */
    for (size_t i = 6; out[i] && i < n; i++) {
        char c = out[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        if (!ok)
            out[i] = '_';
    }
}

