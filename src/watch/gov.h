/* Whether a condition that fired may start a capture: the cooldown after
 * the last capture and the cap on captures per hour.  Pure: times are
 * seconds on one monotonic clock, given by the caller. */
#ifndef PERFREPORT_WATCH_GOV_H
#define PERFREPORT_WATCH_GOV_H
#include <stddef.h>

#define WATCH_MAX_PER_HOUR 60 /* --max-per-hour's limit: one a minute */
#define WATCH_GOV_KINDS 16    /* kinds of trigger: the conditions (WATCH_MAX_CONDS) */

struct watch_gov {
    double cooldown_s;
    unsigned max_per_hour;       /* 1..WATCH_MAX_PER_HOUR */
    double last_end;             /* end of the last capture; -INFINITY before one */
    double starts[WATCH_MAX_PER_HOUR]; /* starts within the last hour, oldest first */
    size_t nstarts;
    /* The high-water mark of each kind (condition index): the value of its
     * last capture; NAN before one. */
    double high[WATCH_GOV_KINDS];
};

enum watch_verdict {
    WATCH_CAPTURE,    /* go */
    WATCH_COOLDOWN,   /* within the cooldown after the last capture */
    WATCH_HOURLY_CAP, /* max_per_hour captures started in the last hour */
};

void watch_gov_init(struct watch_gov *g, double cooldown_s, unsigned max_per_hour);
/* The verdict for a trigger at now_s; *until_s (may be NULL) gets when the
 * suppression ends (now_s for WATCH_CAPTURE). */
enum watch_verdict watch_gov_decide(struct watch_gov *g, double now_s, double *until_s);
/* The high-water mark: whether a trigger of `kind` that the cooldown holds
 * back is worse than the last capture of that kind, and so captures after
 * all (the hourly cap still holds).  Worse is at least a tenth more: a
 * condition that flaps at the same level (CPU 99.5 % then 100 %) must not
 * capture again, one that grows (PSI 30 % then 45 %, a second OOM kill in
 * a second) does. */
#define WATCH_HIGH_WATER_FACTOR 1.1
enum watch_verdict watch_gov_decide_kind(struct watch_gov *g, double now_s, size_t kind,
                                         double value, double *until_s);
/* A capture of `kind` for `value` started / ended at now_s. */
void watch_gov_started_kind(struct watch_gov *g, double now_s, size_t kind, double value);
/* A capture started / ended at now_s. */
void watch_gov_started(struct watch_gov *g, double now_s);
void watch_gov_ended(struct watch_gov *g, double now_s);
const char *watch_verdict_name(enum watch_verdict v);
#endif
