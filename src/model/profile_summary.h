/* Tables and metrics summarising an on-CPU profile (pure: model in, model
 * out), so rules and renderers need not walk the trie. */
#ifndef PERFREPORT_PROFILE_SUMMARY_H
#define PERFREPORT_PROFILE_SUMMARY_H
#include <stddef.h>

struct report;
struct profile;

/* Module of a leaf function (name, frame kind) or NULL; ctx is passed back. */
typedef const char *(*module_fn)(void *ctx, const char *name, int kind);

#define PROFILE_TOP_ROWS 15
#define PROFILE_TOP_PROCS 10
#define PROFILE_HOT_FRAMES 5

/* Fills tables profile.top_self, profile.top_total, profile.top_procs and
 * metrics profile.samples, profile.kernel_pct, profile.user_pct from p
 * (whose root children are process frames).  module may be NULL. */
void profile_summarize(struct report *r, const struct profile *p, module_fn module, void *mctx);
#endif
