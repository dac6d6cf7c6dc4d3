/* The syscall tap (bpf/systap.bpf.c): one pair of sys_enter/sys_exit
 * programs shared by the syscalls, iolayers and futex collectors, because
 * every program on those hooks costs every syscall on the host.  Loaded by the
 * first collector that acquires it, destroyed when the last releases it;
 * each collector switches its own part on and off.  Thread-safe: the
 * runner starts and stops collectors on their own threads. */
#ifndef PERFREPORT_SYSTAP_H
#define PERFREPORT_SYSTAP_H
#include <stdbool.h>
#include <stddef.h>

struct collect_ctx;
struct systap_bpf;
struct tapslice_result;

enum systap_part { SYSTAP_SYSCALLS = 1u, SYSTAP_IOLAYERS = 2u, SYSTAP_FUTEX = 4u };

/* Loads and attaches the tap if it is not yet (tp_btf first, classic
 * raw_syscalls tracepoints as the fallback; the I/O part needs tp_btf),
 * with `part` still off (systap_begin switches it on), and calibrates its
 * cost per syscall on the way (a few ms).  Returns the shared
 * skeleton, which stays owned by this module, or NULL with err filled.
 * *classic tells which hooks run. */
struct systap_bpf *systap_acquire(const struct collect_ctx *ctx, enum systap_part part,
                                  bool *classic, char *err, size_t n);
/* The tap users' begin and end (struct collector): switch every acquired
 * part on at the window's start and off at its end, after which the maps
 * stop changing and can be drained.  All parts share the window, so the
 * first user's call does it for all and the others' find it done.  Begin
 * starts the slicer thread (time slices past the cost budget, see
 * systap.c), end stops and joins it. */
int systap_begin(struct collect_ctx *ctx, void *state);
int systap_end(struct collect_ctx *ctx, void *state);
/* How the pair recorded the window (attached throughout, or in time
 * slices: see systap.c), known after the first systap_end; false before.
 * *attach_errno: a re-attach that failed (0: none). */
bool systap_sampling(struct tapslice_result *out, int *attach_errno);
/* Gives up `part`'s reference; the last one detaches and frees the tap.
 * Safe to call for a part that never acquired. */
void systap_release(enum systap_part part);
#endif
