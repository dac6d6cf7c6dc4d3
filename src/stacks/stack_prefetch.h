/* Resolving a collector's stacks during the window, while their processes
 * still exist: a process that exits before the drain could not be named
 * (its frames would read "[pid N exited]").  Every collector with stacks
 * (profile, offcpu, futex) hands the stacks it has aggregated so far to one
 * of these at each tick; the drain after the window then takes the
 * resolver, whose cache already holds them.
 *
 * The work runs on a thread of its own, one batch per tick, because one
 * stack can take seconds (the first stack in a binary reads its symbols and
 * DWARF, and on a saturated host a niced thread gets a few percent of a
 * CPU): a tick that waited for it would miss its deadline, and the runner
 * would drop the collector.  The thread starts at the priority of the tick
 * that made it (the window's sampling may be niced); while it still works on
 * the last batch, each tick and the finish give it the caller's priority,
 * so the window's last batch runs at the finalisation's priority.
 *
 * Ownership: the prefetcher owns its resolver until stack_prefetch_take();
 * the resolver uses the run's shared symbolizer (stacks_sym_get()), so the
 * caller holds a stacks_sym_acquire() reference for the prefetcher's life.
 * One prefetcher is driven by one thread at a time (its collector's). */
#ifndef PERFREPORT_STACK_PREFETCH_H
#define PERFREPORT_STACK_PREFETCH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stack_resolver;
struct stack_prefetch;

/* stackmap_fd and opts (enum stack_opts) as for stack_resolver_new(); the
 * map must outlive the prefetcher. */
struct stack_prefetch *stack_prefetch_new(int stackmap_fd, unsigned opts);

/* Whether a new batch may be collected now: false while the thread still
 * works on the last one (it then takes the caller's priority, and this
 * tick's stacks wait for the next). */
bool stack_prefetch_ready(struct stack_prefetch *pf);
/* Appends one stack pair to the next batch (only after _ready() said true);
 * ids < 0 are skipped by the resolver. */
void stack_prefetch_add(struct stack_prefetch *pf, uint32_t tgid, int64_t kstack_id,
                        int64_t ustack_id);
/* Starts the thread on the batch added since the last _ready(); without a
 * thread (pthread_create failed) the drain resolves everything itself. */
void stack_prefetch_run(struct stack_prefetch *pf);

/* Ends the prefetch after its current stack, at the caller's priority, and
 * hands over the resolver (NULL when no batch ever ran: the caller makes
 * its own); *ms and *stacks: time spent and stacks newly resolved during
 * the window. */
struct stack_resolver *stack_prefetch_take(struct stack_prefetch *pf, double *ms,
                                           uint64_t *stacks);
/* Joins the thread and frees everything still owned (the resolver unless
 * taken).  NULL is a no-op. */
void stack_prefetch_free(struct stack_prefetch *pf);
#endif
