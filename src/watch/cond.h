/* src/watch/: `perfreport watch`, the long-running mode that waits cheaply
 * for a condition and then runs the ordinary capture (run/pipeline.c) in a
 * child process.  cond.c (the --when conditions and when they hold: pure,
 * no I/O), psi_trigger.c (the kernel's PSI triggers), gov.c (cooldown and
 * the hourly cap), ring.c (the charted samples of the minutes before a
 * trigger), watch.c (the waiting loop and the captures).
 *
 * A condition is `NAME>VALUE [for DURATION]` or an event name:
 *   cpu.util_pct>90 for 10s   polled from /proc/stat at 1 Hz; holds when
 *                             every sample over DURATION (default: one
 *                             sample) was above VALUE
 *   psi.memory.some>20        a PSI trigger (cpu|memory|io, some|full): the
 *                             kernel wakes us when the stall time within
 *                             the window (`for`, 0.5 to 10 s, default 10 s)
 *                             passes VALUE percent of it
 *   memory.oom                an OOM kill (/proc/vmstat oom_kill, 1 Hz) */
#ifndef PERFREPORT_WATCH_COND_H
#define PERFREPORT_WATCH_COND_H
#include <stdbool.h>
#include <stddef.h>

enum watch_source { WSRC_CPU_UTIL, WSRC_PSI, WSRC_OOM };

#define WATCH_PSI_CPU 0
#define WATCH_PSI_MEMORY 1
#define WATCH_PSI_IO 2

/* One parsed --when. */
struct watch_cond {
    enum watch_source src;
    int psi_res;      /* WATCH_PSI_*, for WSRC_PSI */
    bool psi_full;    /* "full" rather than "some" */
    double threshold; /* percent; 0 for an event */
    bool or_equal;    /* ">=" rather than ">" */
    double for_s;     /* polled: how long it must hold; PSI: the window */
    char text[96];    /* the canonical form, for messages and the reason */
};

/* Parses one --when expression.  0, or -1 with err naming the bad part
 * ("'>>90': expected a number after '>'"); *out is then unusable. */
int watch_cond_parse(const char *s, struct watch_cond *out, char *err, size_t n);

/* The PSI resource's file name under /proc/pressure ("memory"). */
const char *watch_psi_res_name(int res);

/* The trigger a PSI condition writes into its pressure file:
 * "some 2000000 10000000" (stall and window in microseconds). */
void watch_psi_trigger_text(const struct watch_cond *c, char *out, size_t n);

/* A polled condition's progress between readings. */
struct watch_cond_state {
    double above_since; /* start of the current excursion (s); NAN if none */
    bool fired;         /* this excursion fired already: fires once per excursion */
};
void watch_cond_state_init(struct watch_cond_state *s);

/* One reading of a polled condition's value over (t_prev, t] (seconds on
 * one clock): the busy percent for cpu.util_pct, the OOM kills counted in
 * it for memory.oom; NAN when it could not be read (ends an excursion).
 * True when the condition fires with this reading: a threshold the first
 * time its excursion has lasted `for` seconds, an event at each reading
 * that counts one. */
bool watch_cond_feed(const struct watch_cond *c, struct watch_cond_state *s, double t_prev,
                     double t, double value);
#endif
