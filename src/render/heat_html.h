/* The page's heat map under a flame graph: a <figure class="heat"> holding
 * the profile's stacks per second as JSON data (not markup: every name goes
 * through esc_json, so no '<' of a host's name reaches the page), which
 * heatmap.js draws as one cell per second and uses to redraw the flame
 * graph above it for a range of seconds. */
#ifndef PERFREPORT_HEAT_HTML_H
#define PERFREPORT_HEAT_HTML_H
#include <stddef.h>

struct flame_opts;
struct profile;
struct strbuf;

/* Stacks kept in the page's data at most; narrower ones (whole-window
 * total below the root's / HEAT_MAX_NODES) count in their caller, as the
 * static graph draws them. */
#define HEAT_MAX_NODES 60000u

/* Appends the figure for p (nothing when p has no time); o: the options the
 * flame graph above was drawn with (NULL: flamegraph.pl's), whose frames
 * the data names (a report's graph folds runs: flame_report_folded);
 * prefix: the graph's id prefix ("fg0-"), which ties the two together. */
void heat_html(const struct profile *p, const struct flame_opts *o, const char *prefix,
               struct strbuf *out);
#endif
