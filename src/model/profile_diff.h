/* Differential profiles: every node carries two counts, the ordinary one
 * (nodes[].total, "after": what widths are drawn by) and a baseline
 * ("before", p->base).  difffolded.pl's "stack COUNT1 COUNT2" lines make
 * one: COUNT1 is the baseline, COUNT2 the ordinary count.  The flamegraph
 * renderer colours a differential profile by each frame's change; anything
 * that builds a profile from two captures (perfreport diff) can feed the
 * same renderer through profile_add_base(). */
#ifndef PERFREPORT_PROFILE_DIFF_H
#define PERFREPORT_PROFILE_DIFF_H
#include "profile.h"

static inline bool profile_is_diff(const struct profile *p) { return p->base != NULL; }
/* Adds count to the baseline of leaf and of each of its ancestors (the root
 * included); the first call makes p differential. */
void profile_add_base(struct profile *p, uint32_t leaf, uint64_t count);
/* Adds one stack with both counts (either may be 0); returns its leaf. */
uint32_t profile_add_frames2(struct profile *p, const struct pframe *f, size_t depth,
                             uint64_t count, uint64_t base);
uint64_t profile_node_base(const struct profile *p, uint32_t node);
/* Baseline count of the stacks that end in node (its base minus its callees'). */
uint64_t profile_self_base(const struct profile *p, uint32_t node);
/* profile_reversed() for any profile, keeping the baselines, and the stacks
 * whose ordinary count is 0 (they were only in the baseline). */
struct profile *profile_reversed_diff(const struct profile *p);
#endif
