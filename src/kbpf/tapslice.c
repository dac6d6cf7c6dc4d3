/* The syscall tap's time slicing: see tapslice.h. */
#include "tapslice.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

void tapslice_init(struct tapslice *s)
{
    memset(s, 0, sizeof *s);
    s->duty_min = 1;
}

void tapslice_period(struct tapslice *s, double span, double on, uint64_t calls, double share)
{
    if (!(span > 0))
        return;
    if (on > span)
        on = span;
    s->span_s += span;
    if (!(on > 0)) {
        s->unseen_s += span; /* tapslice_result extrapolates */
        return;
    }
    s->on_s += on;
    s->recorded += (double)calls;
    if (on >= span) {
        s->est += (double)calls;
        return;
    }
    double rate = (double)calls / on, duty = on / span;
    s->est += rate * span;
    share = fmin(fmax(share, 0), 0.9);
    s->slowed += rate * (span - on) * (1 / (1 - share) - 1);
    s->slices++;
    s->duty_min = fmin(s->duty_min, duty);
    s->duty_max = fmax(s->duty_max, duty);
    s->off2 += (span - on) * (span - on);
    if (s->nrates)
        s->dr2 += (rate - s->last_rate) * (rate - s->last_rate);
    s->last_rate = rate;
    s->nrates++;
}

void tapslice_result(const struct tapslice *s, double window_s, struct tapslice_result *out)
{
    /* the caller fills cost_ns, peak_share, forced; nothing is left undefined */
    *out = (struct tapslice_result){.period_s = TAPSLICE_PERIOD_S};
    out->sampled = s->slices > 0;
    out->slices = s->slices;
    out->duty_min = s->slices ? s->duty_min : 1;
    out->duty_max = s->slices ? s->duty_max : 1;
    double window = fmax(window_s, s->span_s);
    out->attached_frac = window > 0 ? fmin(1, s->on_s / window) : 1;
    /* Time no period saw (the window ended before a period's attached
     * phase, or an attach failed): at the mean rate. */
    double est = s->est, unseen = window - (s->span_s - s->unseen_s);
    if (unseen > 1e-3 && s->on_s > 0)
        est += s->recorded / s->on_s * unseen;
    out->sampled |= unseen > 1e-3;
    /* a long stretch extrapolated: no error can be stated */
    bool extrapolated = unseen > TAPSLICE_PERIOD_S;
    est += s->slowed / 2; /* the middle: see tapslice_period */
    out->recorded = s->recorded;
    out->estimate = out->sampled ? est : s->recorded;
    out->scale = s->recorded > 0 && out->sampled ? est / s->recorded : 1;
    /* Each sliced period's unseen part is estimated from its own rate: the
     * periods' rates scatter like neighbours' rates do (the mean squared
     * successive difference, which a trend barely inflates), so the unseen
     * total's standard error is that spread times the root sum of squares
     * of the unseen times.  Two of them bound the error at ~95 %; half the
     * calls the tap's cost may have hidden is added (see tapslice.h). */
    if (!out->sampled) {
        out->err_pct = 0;
    } else if (s->nrates < 2 || !(est > 0) || extrapolated) {
        out->err_pct = NAN;
    } else {
        double sd = sqrt(s->dr2 / (2.0 * (s->nrates - 1)));
        double half = 2.0 * sd * sqrt(s->off2) + s->slowed / 2; /* in calls */
        /* relative to the interval's low end: it covers the true count
         * whichever end that is near */
        out->err_pct = 100.0 * half / fmax(est - half, est * 0.5);
    }
}

double tapslice_duty(double share, double cur)
{
    if (!(share > 0))
        return 1;
    double need = TAPSLICE_BUDGET / share;
    if (cur >= 1 && need >= 1)
        return 1;
    if (cur < 1 && need >= 1.25)
        return 1;
    if (cur < 1) /* near the budget: stay sliced */
        return fmax(TAPSLICE_DUTY_MIN, fmin(0.8, need));
    return fmax(TAPSLICE_DUTY_MIN, need);
}

uint64_t tapslice_scaled(const struct tapslice_result *r, uint64_t v)
{
    if (!r->sampled || !(r->scale > 0) || !isfinite(r->scale))
        return v;
    return (uint64_t)llround((double)v * r->scale);
}

void tapslice_describe(const struct tapslice_result *r, char *buf, size_t n)
{
    if (!n)
        return;
    buf[0] = '\0';
    if (!r->sampled)
        return;
    char why[160], err[96];
    if (r->forced)
        snprintf(why, sizeof why, "the duty was set to %.0f %% (PERFREPORT_SYSTAP_DUTY)",
                 100.0 * r->duty_max);
    else
        snprintf(why, sizeof why,
                 "attached, the tap would have taken %.1f %% of the busiest CPU (%.0f ns per "
                 "syscall here), over the %.0f %% budget",
                 100.0 * r->peak_share, r->cost_ns, 100.0 * TAPSLICE_BUDGET);
    if (isnan(r->err_pct))
        snprintf(err, sizeof err, "the error cannot be stated (too few slices)");
    else
        snprintf(err, sizeof err, "within +-%.1f %% for the total (95 %%)", r->err_pct);
    snprintf(buf, n,
             "Sampled: %s, so the syscall tap recorded in time slices, attached %.1f %% of the "
             "window (%u slices of %.0f-%.0f ms, one per %.0f ms period at a random offset). "
             "Counts, errors and times are estimates: the recorded ones x %.2f, %s; a row "
             "made of few recorded calls is less certain.",
             why, 100.0 * r->attached_frac, r->slices, 1e3 * r->duty_min * r->period_s,
             1e3 * r->duty_max * r->period_s, 1e3 * r->period_s, r->scale, err);
}
