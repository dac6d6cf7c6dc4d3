#include "cond.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const psi_res_names[] = {"cpu", "memory", "io"};

/* The names --when knows; psi.* are generated below. */
#define KNOWN_NAMES "cpu.util_pct, psi.{cpu,memory,io}.{some,full}, memory.oom"

/* The kernel's limits on a PSI trigger's window (kernel/sched/psi.c). */
#define PSI_WINDOW_MIN_S 0.5
#define PSI_WINDOW_MAX_S 10.0
#define PSI_WINDOW_DEFAULT_S 10.0 /* the span of avg10, which the report judges */
#define POLL_FOR_MAX_S 3600.0

const char *watch_psi_res_name(int res)
{
    return res >= 0 && res < 3 ? psi_res_names[res] : "?";
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* The bad part for a message: from p to the end, at most 40 bytes. */
static void bad_part(char *out, size_t n, const char *p)
{
    snprintf(out, n, "%.40s%s", *p ? p : "(end)", strlen(p) > 40 ? "..." : "");
}

static int fail(char *err, size_t n, const char *at, const char *why)
{
    char part[64];
    bad_part(part, sizeof part, at);
    snprintf(err, n, "'%s': %s", part, why);
    return -1;
}

/* A name: letters, digits, '.', '_'.  Writes its length into *len. */
static int lookup_name(const char *p, size_t *len, struct watch_cond *c)
{
    size_t l = 0;
    while (isalnum((unsigned char)p[l]) || p[l] == '.' || p[l] == '_')
        l++;
    *len = l;
    if (l == 12 && strncmp(p, "cpu.util_pct", l) == 0) {
        c->src = WSRC_CPU_UTIL;
        return 0;
    }
    if (l == 10 && strncmp(p, "memory.oom", l) == 0) {
        c->src = WSRC_OOM;
        return 0;
    }
    for (int r = 0; r < 3; r++)
        for (int full = 0; full < 2; full++) {
            char name[32];
            int k = snprintf(name, sizeof name, "psi.%s.%s", psi_res_names[r],
                             full ? "full" : "some");
            if ((size_t)k == l && strncmp(p, name, l) == 0) {
                c->src = WSRC_PSI;
                c->psi_res = r;
                c->psi_full = full;
                return 0;
            }
        }
    return -1;
}

/* "10", "10s", "500ms", "2m", "2min" into seconds; *end after it. */
static int parse_duration(const char *p, const char **end, double *out)
{
    if (!isdigit((unsigned char)*p) && *p != '.')
        return -1;
    char *e;
    errno = 0;
    double v = strtod(p, &e);
    if (errno || e == p || !isfinite(v) || v < 0)
        return -1;
    double scale = 1;
    if (strncmp(e, "ms", 2) == 0)
        scale = 1e-3, e += 2;
    else if (strncmp(e, "min", 3) == 0)
        scale = 60, e += 3;
    else if (*e == 's')
        e += 1;
    else if (*e == 'm')
        scale = 60, e += 1;
    if (isalnum((unsigned char)*e))
        return -1;
    *out = v * scale;
    *end = e;
    return 0;
}

int watch_cond_parse(const char *s, struct watch_cond *out, char *err, size_t n)
{
    memset(out, 0, sizeof *out);
    const char *p = skip_ws(s);
    size_t len;
    if (lookup_name(p, &len, out) != 0) {
        if (len == 0)
            return fail(err, n, p, "expected a condition name (" KNOWN_NAMES ")");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(len < 40 ? len : 40), p);
        snprintf(err, n, "'%s': unknown condition (known: " KNOWN_NAMES ")", name);
        return -1;
    }
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)len, p);
    p = skip_ws(p + len);
    if (out->src == WSRC_OOM) {
        if (*p)
            return fail(err, n, p, "memory.oom is an event: it takes no comparison or duration");
        snprintf(out->text, sizeof out->text, "%s", name);
        return 0;
    }

    if (*p != '>')
        return fail(err, n, p, "expected '>' or '>=' and a percentage after the name");
    p++;
    if (*p == '=') {
        out->or_equal = true;
        p++;
    }
    p = skip_ws(p);
    const char *num = p;
    char *e;
    errno = 0;
    double v = (isdigit((unsigned char)*p) || *p == '.') ? strtod(p, &e) : NAN;
    if (isnan(v) || errno || e == p)
        return fail(err, n, num, "expected a percentage (a number from 0 to 100)");
    p = e;
    if (*p == '%')
        p++;
    if (isalnum((unsigned char)*p) || *p == '.')
        return fail(err, n, num, "expected a percentage (a number from 0 to 100)");
    /* Above 100 % never happens; a PSI trigger needs some stall to wait for. */
    if (v >= 100 || (out->src == WSRC_PSI && v <= 0) || (out->src == WSRC_CPU_UTIL && v < 0))
        return fail(err, n, num, out->src == WSRC_PSI ? "a PSI threshold is above 0 and below 100 %"
                                                      : "a threshold is from 0 to below 100 %");
    out->threshold = v;

    p = skip_ws(p);
    out->for_s = out->src == WSRC_PSI ? PSI_WINDOW_DEFAULT_S : 0;
    if (strncmp(p, "for", 3) == 0 && (p[3] == ' ' || p[3] == '\t')) {
        const char *dur = skip_ws(p + 3);
        const char *de = dur;
        double d = 0;
        if (parse_duration(dur, &de, &d) != 0)
            return fail(err, n, dur, "expected a duration (10s, 500ms, 2m)");
        if (out->src == WSRC_PSI && (d < PSI_WINDOW_MIN_S || d > PSI_WINDOW_MAX_S))
            return fail(err, n, dur, "a PSI window is 0.5 to 10 s (the kernel's limits)");
        if (out->src == WSRC_CPU_UTIL && d > POLL_FOR_MAX_S)
            return fail(err, n, dur, "at most 3600 s");
        out->for_s = d;
        p = skip_ws(de);
    }
    if (*p)
        return fail(err, n, p, "unexpected text (the form is NAME>VALUE [for DURATION])");
    int k = snprintf(out->text, sizeof out->text, "%s%s%g", name, out->or_equal ? ">=" : ">", v);
    if (out->for_s > 0 && k > 0 && (size_t)k < sizeof out->text)
        snprintf(out->text + k, sizeof out->text - (size_t)k, " for %gs", out->for_s);
    return 0;
}

void watch_psi_trigger_text(const struct watch_cond *c, char *out, size_t n)
{
    /* Whole microseconds: the kernel parses integers.  The stall is at
     * least 1 us so that a tiny percentage still means "some stall". */
    unsigned long window_us = (unsigned long)llround(c->for_s * 1e6);
    unsigned long stall_us = (unsigned long)llround(c->for_s * 1e6 * c->threshold / 100.0);
    if (stall_us == 0)
        stall_us = 1;
    snprintf(out, n, "%s %lu %lu", c->psi_full ? "full" : "some", stall_us, window_us);
}

void watch_cond_state_init(struct watch_cond_state *s)
{
    s->above_since = NAN;
    s->fired = false;
}

bool watch_cond_feed(const struct watch_cond *c, struct watch_cond_state *s, double t_prev,
                     double t, double value)
{
    if (c->src == WSRC_OOM)
        return value > 0;
    bool above = !isnan(value) && (c->or_equal ? value >= c->threshold : value > c->threshold);
    if (!above) {
        watch_cond_state_init(s);
        return false;
    }
    if (isnan(s->above_since))
        s->above_since = t_prev; /* the reading covers (t_prev, t] */
    /* A millisecond of slack: readings due each second land a little late
     * or early, and "for 10s" must not need an eleventh. */
    if (s->fired || t - s->above_since < c->for_s - 1e-3)
        return false;
    s->fired = true;
    return true;
}
