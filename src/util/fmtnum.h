/* The one number formatter of every view (Markdown, HTML, SVG labels,
 * finding sentences): three significant figures with trailing zeros
 * trimmed, integers as they are, and a value with a unit of time or size
 * in the unit that reads best (2500 us -> "2.5 ms", 1536 KiB -> "1.5 MiB").
 * Percent and per-second units are glued to the number ("97.5%", "12/s"),
 * words follow a space ("3 per CPU"). */
#ifndef PERFREPORT_FMTNUM_H
#define PERFREPORT_FMTNUM_H
#include <stddef.h>

/* v alone: "-" when not finite. */
void fmt_num(char *out, size_t n, double v);
/* v with its unit, scaled along the unit's ladder (ns us ms s; B KiB MiB
 * GiB TiB); "us" is written "µs". */
void fmt_quantity(char *out, size_t n, double v, const char *unit);
/* The unit ref would be shown in ("us" written "µs") and the divisor that
 * gets it there, so that a set of values (an axis, a histogram's buckets)
 * shares one unit. */
double fmt_scale(double ref, const char *unit, const char **shown_unit);
/* v already divided by a fmt_scale divisor, without its unit. */
void fmt_sig3(char *out, size_t n, double v);
#endif
