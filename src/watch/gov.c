#include "gov.h"
#include <math.h>
#include <string.h>

#define HOUR_S 3600.0

void watch_gov_init(struct watch_gov *g, double cooldown_s, unsigned max_per_hour)
{
    memset(g, 0, sizeof *g);
    g->cooldown_s = cooldown_s;
    g->max_per_hour = max_per_hour < 1 ? 1
                      : max_per_hour > WATCH_MAX_PER_HOUR ? WATCH_MAX_PER_HOUR
                                                          : max_per_hour;
    g->last_end = -INFINITY;
    for (size_t i = 0; i < WATCH_GOV_KINDS; i++)
        g->high[i] = NAN;
}

/* Forgets starts more than an hour before now_s. */
static void expire(struct watch_gov *g, double now_s)
{
    size_t k = 0;
    while (k < g->nstarts && g->starts[k] <= now_s - HOUR_S)
        k++;
    if (k) {
        memmove(g->starts, g->starts + k, (g->nstarts - k) * sizeof g->starts[0]);
        g->nstarts -= k;
    }
}

enum watch_verdict watch_gov_decide(struct watch_gov *g, double now_s, double *until_s)
{
    double until = now_s;
    enum watch_verdict v = WATCH_CAPTURE;
    expire(g, now_s);
    /* The cooldown runs from the capture's end: its own start-up (BPF loads,
     * the symbolizer) makes pressure too, and must not trigger the next. */
    if (now_s < g->last_end + g->cooldown_s) {
        v = WATCH_COOLDOWN;
        until = g->last_end + g->cooldown_s;
    } else if (g->nstarts >= g->max_per_hour) {
        v = WATCH_HOURLY_CAP;
        until = g->starts[0] + HOUR_S;
    }
    if (until_s)
        *until_s = until;
    return v;
}

void watch_gov_started(struct watch_gov *g, double now_s)
{
    expire(g, now_s);
    if (g->nstarts == WATCH_MAX_PER_HOUR) { /* only when the caller skipped decide */
        memmove(g->starts, g->starts + 1, (g->nstarts - 1) * sizeof g->starts[0]);
        g->nstarts--;
    }
    g->starts[g->nstarts++] = now_s;
}

enum watch_verdict watch_gov_decide_kind(struct watch_gov *g, double now_s, size_t kind,
                                         double value, double *until_s)
{
    enum watch_verdict v = watch_gov_decide(g, now_s, until_s);
    if (v != WATCH_COOLDOWN || kind >= WATCH_GOV_KINDS ||
        !(value >= g->high[kind] * WATCH_HIGH_WATER_FACTOR && value > g->high[kind]))
        return v;
    /* Worse than what was captured: only the hourly cap may hold it. */
    double last_end = g->last_end;
    g->last_end = -INFINITY;
    v = watch_gov_decide(g, now_s, until_s);
    g->last_end = last_end;
    return v;
}

void watch_gov_started_kind(struct watch_gov *g, double now_s, size_t kind, double value)
{
    watch_gov_started(g, now_s);
    if (kind < WATCH_GOV_KINDS)
        g->high[kind] = value;
}

void watch_gov_ended(struct watch_gov *g, double now_s)
{
    g->last_end = now_s;
}

const char *watch_verdict_name(enum watch_verdict v)
{
    switch (v) {
    case WATCH_CAPTURE: return "capture";
    case WATCH_COOLDOWN: return "cooldown";
    case WATCH_HOURLY_CAP: return "max-per-hour";
    }
    return "?";
}
