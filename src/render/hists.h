/* Log2 histograms in the bundle: file names, bucket labels and the SVG.
 * report.md references a histogram as ![title](hist-<name>.svg); the HTML
 * renderer swaps exactly those image nodes for the inline SVG. */
#ifndef PERFREPORT_HISTS_H
#define PERFREPORT_HISTS_H
#include <stddef.h>

struct report;
struct hist;
struct strbuf;

/* "hist-<name>.svg" with every byte outside [A-Za-z0-9._-] as '_'. */
void hist_filename(const struct hist *h, char *out, size_t n);
/* A value in the histogram's unit, scaled to a readable unit:
 * 1500 "us" -> "1.5 ms", 2048 "KiB" -> "2 MiB".  3 significant digits. */
void hist_fmt_value(double v, const char *unit, char *out, size_t n);
/* Label of bucket b ("1-2 us", "0.512-1.02 ms", "4-8 KiB"); both bounds in
 * the unit that suits the upper one. */
void hist_bucket_label(const char *unit, unsigned b, char *out, size_t n);
/* First and last non-empty bucket; false when the histogram is empty. */
int hist_range(const struct hist *h, unsigned *first, unsigned *last);
/* Standalone SVG bar chart of h with p50/p90/p99 marked. */
void svg_hist_render(const struct hist *h, struct strbuf *sb);
#endif
