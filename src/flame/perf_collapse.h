/* `perf script` text collapsed into folded stacks exactly as FlameGraph's
 * stackcollapse-perf.pl collapses it by default and with its options
 * --pid --tid --kernel --jit --all --addrs --event-filter (--inline: see
 * perf_collapse.c).  The collapser is fed one line at a time, so a large
 * capture is never held in memory; only the distinct stacks are.
 *
 * Where the Perl script has a rule, this follows it, including its quirks: a
 * sample counts only once the blank line after it is read (a capture cut
 * before that line loses its last sample), the period weights a sample when
 * the header has one, only the first event seen is kept unless an event is
 * named.  Three things differ on purpose, each warned about: a "\r" before
 * the "\n" is part of the line end (the Perl script leaves it in and then
 * sees no blank lines at all), and a line holding a NUL byte or longer than
 * PERF_COLLAPSE_MAX_LINE drops its whole sample instead of becoming a name. */
#ifndef PERFREPORT_PERF_COLLAPSE_H
#define PERFREPORT_PERF_COLLAPSE_H
#include "stack_counts.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define PERF_COLLAPSE_MAX_LINE (1u << 20)  /* bytes, without the line end */
#define PERF_COLLAPSE_MAX_STACK (16u << 20) /* bytes of one folded stack */
#define PERF_COLLAPSE_MAX_MSGS 10          /* bad lines whose place is kept */
#define PERF_COLLAPSE_EXAMPLE 80           /* bytes of the first bad line shown */
#define PERF_COLLAPSE_MAX_EVENTS 16        /* other events counted by name */

struct collapse_opts {
    bool pid, tid;        /* "comm-PID", "comm-PID/TID" as the root frame */
    bool kernel, jit;     /* "_[k]", "_[j]" annotations (--all: both) */
    bool addrs;           /* "[lib.so <addr>]" for frames without a symbol */
    bool inline_frames;   /* --inline: accepted; addr2line is not run */
    const char *event_filter; /* NULL or "": the first event seen */
    /* inferno's --skip-after FUNC (may repeat): a sample's frames outside
     * the first frame named FUNC (its callers) are left out */
    const char *const *skip_after;
    size_t nskip_after;
};

struct perf_collapse;

/* o is copied (event_filter too). */
struct perf_collapse *perf_collapse_new(const struct collapse_opts *o);
void perf_collapse_free(struct perf_collapse *pc);
/* Starts a new input: file names the input in messages (copied; lines fed
 * before any file are "<input>"); line numbers restart at 1.  The state of a sample carries over, as it does
 * when the Perl script reads several files. */
void perf_collapse_begin_file(struct perf_collapse *pc, const char *file);
/* One line without its "\n" (a "\r" before it is dropped here); len may
 * exceed PERF_COLLAPSE_MAX_LINE (the line is then refused). */
void perf_collapse_line(struct perf_collapse *pc, const char *line, size_t len);
/* After the last line: notes a sample left open (no blank line after it). */
void perf_collapse_end(struct perf_collapse *pc);

/* The folded stacks, sorted as the Perl script prints them. */
const struct stack_entry *perf_collapse_stacks(struct perf_collapse *pc, size_t *n);
/* Appends "stack count\n" lines for every stack. */
void perf_collapse_write(struct perf_collapse *pc, struct strbuf *out);

struct perf_collapse_stats {
    size_t lines;        /* lines fed */
    size_t samples;      /* samples counted (blank line after a kept header) */
    size_t bad;          /* lines not understood (warned, dropped) */
    size_t dropped;      /* samples dropped for a NUL byte, an overlong line or stack */
    size_t filtered;     /* sample headers of events other than the one kept */
};
const struct perf_collapse_stats *perf_collapse_stats(const struct perf_collapse *pc);
/* The event whose samples are kept ("" before the first header with one). */
const char *perf_collapse_event(const struct perf_collapse *pc);

/* Messages name lines through fn (line numbers counted since the last
 * perf_collapse_begin_file, or from the start) instead of "FILE:LINE" from
 * begin_file: for a caller that joins several files into one stream. */
typedef void (*perf_collapse_where_fn)(void *ctx, size_t lineno, struct strbuf *out);
void perf_collapse_set_where(struct perf_collapse *pc, perf_collapse_where_fn fn, void *ctx);

/* Prints the warnings (the bad lines in one line: their number, the first
 * one's file:line and text; samples of other events by event; an
 * open last sample) to f, each line starting "prog: ", through esc_term. */
void perf_collapse_report(const struct perf_collapse *pc, FILE *f, const char *prog);

/* Guess from the first lines of input whether it is `perf script` text: a
 * sample header ending in "EVENT:", a header followed by a frame line, an
 * indented "hexaddr symbol" line, or the comments of `perf script
 * --header`.  Folded stacks never end in ':'. */
bool perf_collapse_sniff(const char *text, size_t len);
#endif
