/* Time slicing of the syscall tap: the decision (how much of each period
 * the tap stays attached) and the estimate (recorded calls -> calls in the
 * window, with its error).  Pure arithmetic, driven by src/collect/systap.c
 * and by the unit tests. */
#ifndef PERFREPORT_TAPSLICE_H
#define PERFREPORT_TAPSLICE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The tap's share of the busiest CPU it may take: 1 %, so that the design's
 * 5 % budget for a syscall-heavy workload holds with the other collectors,
 * the slicing's own attach and detach, perfreport's start and finalisation
 * inside a short window, and the error of the calibration (bench/RESULTS.md,
 * 2026-11-25: 3 % left -d 5 at 4.8-6.8 %, 2 % at 3.1-8.6 % (median 5.8),
 * 1 % at 1.7-7.6 % (median 3.8) in 12 alternating rounds). */
#define TAPSLICE_BUDGET 0.01
/* The least duty: 2.5 ms of a period.  It holds the budget while the tap
 * takes up to the whole of a CPU attached, which it nearly does where a
 * syscall costs less than the tap (a host measured at 230 ns per getppid()
 * and 340 ns for the tap), and a storm that fast still leaves thousands of
 * recorded calls in each slice. */
#define TAPSLICE_DUTY_MIN 0.01
#define TAPSLICE_PERIOD_S 0.25 /* sliced: one attached phase per period */
#define TAPSLICE_CHECK_S 0.05  /* attached: the rate is measured this often (a storm
                                 * that starts meets the whole tap this long) */

/* How the tap recorded the window. */
struct tapslice_result {
    bool sampled;         /* false: attached the whole window, counts exact */
    double attached_frac; /* share of the window the tap recorded, 0..1 */
    double recorded, estimate; /* calls recorded; their estimate for the window */
    double scale;         /* estimate / recorded (1 when exact) */
    double err_pct;       /* ~95 % bound on the total's relative error, %; NAN: unknown */
    unsigned slices;      /* attached phases of sliced periods */
    double duty_min, duty_max; /* of the sliced periods */
    double period_s;
    double cost_ns;       /* the tap's estimated cost per syscall */
    double peak_share;    /* highest share of one CPU the tap would take attached, 0..1 */
    bool forced;          /* duty set by PERFREPORT_SYSTAP_DUTY */
};

/* Running sums over the periods of one window. */
struct tapslice {
    double span_s, on_s;   /* periods' length, attached time */
    double unseen_s;       /* of span_s: periods never attached */
    double recorded, est;  /* calls recorded; their estimate for the spans */
    unsigned slices;
    double duty_min, duty_max;
    double off2;           /* sum of squared unattached times of sliced periods */
    double dr2;            /* sum of squared successive differences of their rates */
    unsigned nrates;
    double last_rate;
    double slowed;         /* calls the tap's own cost may have hidden (see tapslice_period) */
};

void tapslice_init(struct tapslice *s);
/* One period of `span` seconds of which the tap was attached `on` (0 <
 * on <= span; on == span: attached throughout, its calls exact), during which
 * it recorded `calls`.  Where the attached phase sits in the period is
 * drawn at random by the caller: each period's calls x span / on is then an
 * unbiased estimate of its calls, whatever the workload's rhythm, as long
 * as the tap does not change that rhythm.  It does for a process that does
 * little but syscalls: attached, its calls are slower by the tap's cost,
 * so detached it makes more of them, up to 1 / (1 - share) times as many,
 * where share = the part of its CPU's time the tap took while attached
 * (calls/s on that CPU x cost per call).  A process paced by anything else
 * (a clock, the disk, the network) is not slowed, and which kind a
 * process is cannot be told from the calls seen.  `share` (0..1, of the
 * busiest CPU: the most any process can have lost) bounds that effect: the
 * estimate takes the middle between a paced process and such a loop, and
 * the stated error covers both. */
void tapslice_period(struct tapslice *s, double span, double on, uint64_t calls, double share);
/* The window's figures; window_s: the window's length (periods not
 * covered, e.g. after a failed attach, are extrapolated at the mean rate). */
void tapslice_result(const struct tapslice *s, double window_s, struct tapslice_result *out);
/* Duty for the next period: share = the tap's measured share of the
 * busiest CPU while attached (calls/s on it x cost per call).  cur: the
 * current duty; returning to 1 needs 20 % below the budget, so that a rate
 * near it does not make the tap flap. */
double tapslice_duty(double share, double cur);
/* A recorded count scaled to the window (r->scale when sampled). */
uint64_t tapslice_scaled(const struct tapslice_result *r, uint64_t v);
/* One sentence for a report: "Sampled: ..." with the duty, the slices,
 * the scale and the error; "" when not sampled. */
void tapslice_describe(const struct tapslice_result *r, char *buf, size_t n);
#endif
