/* <profile>.time: a profile's stacks per second of the window, beside its
 * <profile>.folded (which stays flamegraph.pl's input, unchanged).  Text,
 * one record a line (README "Bundle files" documents it):
 *
 *   perfreport-time 1
 *   bucket_s 1
 *   buckets N
 *   total T0 T1 ... T(N-1)        every value of each second
 *   unstacked U0 ... U(N-1)       the part of it without a stack (a bound)
 *   LINE B:V B:V ...              LINE: 1-based line of <profile>.folded;
 *                                 its value V in second B
 *
 * LINEs ascend, a line's Bs ascend; per second, its stacks' values plus
 * its unstacked value make its total, and a stack's values add up to at
 * most its folded count.
 *
 * LINE is a line of the file as written.  Two of them may be one stack read
 * back: put_name writes ';' and control bytes as '_', so processes named
 * "x;y" and "x_y" write the same text, and a name ending in "_[k]" reads
 * back as a kernel frame; the reader is told each line's stack
 * (line_leaf) and adds such lines' seconds up in it.
 *
 * The reader takes a bundle's file, which is as hostile as any planted
 * file: every number is bounded, every rule above is checked, and a file
 * that breaks one is refused whole (the profile keeps no time) with the
 * reason; the bundle reader then loads the profile without its time. */
#ifndef PERFREPORT_PROFILE_TIME_TEXT_H
#define PERFREPORT_PROFILE_TIME_TEXT_H
#include <stddef.h>
#include <stdint.h>

struct profile;
struct strbuf;

#define PROFILE_TIME_MAX_FILE (64u << 20) /* bytes */
#define PROFILE_TIME_MAX_CELLS (1u << 22)

/* Appends p->time as text (nothing when p has no time). */
void profile_time_write(const struct profile *p, struct strbuf *out);
/* Reads text into p->time; p holds the stacks of the matching .folded file,
 * whose line i (1-based, i <= nlines) ended at node line_leaf[i - 1] of p
 * (PROFILE_NONE: no stack on that line).  line_leaf NULL: the file was
 * folded_write(p), its lines are p's stacks in profile_walk_stacks order.
 * Returns 0, or -EINVAL with the reason in err. */
int profile_time_read(struct profile *p, const char *text, size_t len, const uint32_t *line_leaf,
                      size_t nlines, char *err, size_t n);
#endif
