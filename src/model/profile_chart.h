/* Flame charts (flamegraph.pl --flamechart): stacks stay in input order,
 * which is time order for a trace or `perf script`, and a stack merges only
 * with the frames it shares with the stack just before it.  The same
 * function called twice, apart in time, is two frames.
 *
 * A chart is an ordinary struct profile (same renderer, same walkers) whose
 * p->chart is set: profile_add_frames() and profile_add_stacks() then add
 * stacks the chart way, and every node keeps the offset at which it starts
 * (its x position), since siblings are no longer sorted by name. */
#ifndef PERFREPORT_PROFILE_CHART_H
#define PERFREPORT_PROFILE_CHART_H
#include "profile.h"

/* Turns p, which must still be empty, into a flame chart; leaf_first adds
 * every stack reversed (flamegraph.pl --reverse --flamechart: a chart cannot
 * be reversed after the fact without losing its order).  Returns false when
 * p already holds stacks. */
bool profile_chart_begin(struct profile *p, bool leaf_first);
/* Adds one stack after the previous one; returns its leaf node. */
uint32_t profile_chart_add(struct profile *p, const struct pframe *f, size_t depth,
                           uint64_t count);
/* Offset (in counts, from the left edge) at which node starts. */
uint64_t profile_chart_start(const struct profile *p, uint32_t node);
/* profile_scale's part: the offsets times mul (they never exceed the total). */
void profile_chart_scale(struct profile *p, uint64_t mul);
void profile_chart_free(struct profile_chart *c);
#endif
