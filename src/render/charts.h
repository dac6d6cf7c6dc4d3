/* Which series become charts, and the file names they get in the bundle.
 * report.md references a chart as ![title](<file>); the HTML renderer
 * replaces exactly those image nodes with the inline SVG. */
#ifndef PERFREPORT_CHARTS_H
#define PERFREPORT_CHARTS_H
#include <stdbool.h>
#include <stddef.h>

struct report;
struct series;
struct strbuf;

/* "chart-<series name>.svg" with every byte outside [A-Za-z0-9._-] as '_'. */
void chart_filename(const struct series *s, char *out, size_t n);
/* Writes a standalone SVG line chart of s (with threshold lines) into sb. */
void svg_series_render(const struct report *r, const struct series *s, struct strbuf *sb);

struct profile;
/* "<profile name>.<ext>" (ext "svg" or "folded") with every byte outside
 * [A-Za-z0-9._-] as '_': "cpu.svg", "offcpu.folded". */
void flame_filename(const struct profile *p, const char *ext, char *out, size_t n);
/* flame_opts for a profile in the bundle: title and palette by its name. */
struct flame_opts;
void flame_opts_for(const struct profile *p, struct flame_opts *o);
#endif
