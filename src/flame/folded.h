/* src/flame/: the folded-stack format ("a;b;c 12", flamegraph.pl's input)
 * and what makes it: this file reads and writes it, perf_collapse.h turns
 * `perf script` text into it, stack_counts.h sums its stacks.  The flame
 * graphs drawn from it are src/render/'s (svg_flame.c, flame_files.c).
 *
Folded stacks ("a;b;c 12", flamegraph.pl's input) in and out (`perf
 * script` text is collapsed into them by perf_collapse.h).  The parser
 * is fed one line at a time so a large input never has to be held in
 * memory; folded_parse() is the whole-text convenience tests use.  Bad
 * lines are counted and the first few remembered with their line numbers;
 * they never stop a parse. */
#ifndef PERFREPORT_FOLDED_H
#define PERFREPORT_FOLDED_H
#include "../model/profile.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

#define FLAME_MAX_BAD 8
/* A longer line or a deeper stack is malformed (a kernel stack has at most
 * 127 frames, perf's --max-stack 1024; `perfreport collapse` writes no
 * stack over 16 MiB): one line of a 1 GiB file cost 5 GB before. */
#define FOLDED_MAX_LINE (16u << 20) /* bytes, without the line end */
#define FOLDED_MAX_DEPTH 65536      /* frames */
/* Digits of a fraction kept (exact_fractions); further ones round the
 * sixth: a count's total of at most 1.8e13 whole units then still fits. */
#define FOLDED_MAX_DECIMALS 6

struct flame_parse_stats {
    size_t lines;     /* lines seen */
    size_t stacks;    /* stacks added */
    size_t blank;     /* blank lines */
    size_t zero;      /* folded lines with count 0: valid, add nothing */
    size_t malformed; /* lines that could not be used */
    size_t mixed;        /* folded lines with one count in a differential input or the
                          * reverse (the first line with a count decides): not used */
    size_t mixed_line;   /* the first of them */
    size_t bad_line[FLAME_MAX_BAD];   /* 1-based line numbers of the first bad lines */
    const char *bad_why[FLAME_MAX_BAD]; /* static strings */
    size_t nbad;
};

/* Streaming folded parser.  Lines are parsed at once; their stacks wait in
 * a profile_bulk and reach the trie's nodes below the root at
 * folded_finish() (the root's total counts them at once). */
struct folded_parser {
    struct profile *p;
    struct flame_parse_stats st;
    struct profile_bulk *bulk;
    struct pframe *fr; /* this line's frames */
    size_t cap_fr;
    char *prev;        /* the previous stack's text: frames it shares need no interning */
    size_t prev_len, prev_cap;
    unsigned form;       /* 0 until the first counted line, then its number of counts:
                          * 1, or 2 for difffolded.pl's "stack BEFORE AFTER" lines
                          * (the profile is then differential, profile_diff.h) */
    size_t form_line;    /* that line */
    /* A bundle's own folded file (replay/load.c): the kinds its text cannot
     * spell are restored by perfreport's conventions -- the first frame of
     * a stack is the process, and an unnamed frame is a bracketed label
     * ("[bash exited]", "[truncated]"), the symbolizer's only names that
     * both begin with '[' and end with ']'. */
    bool bundle_kinds;
    /* Counts with a fraction ("a;b 1.5") are kept exact: every count is then
     * in units of 10^-decimals (flamegraph.pl sums them as numbers).  Off,
     * each count is rounded half up to a whole one. */
    bool exact_fractions;
    unsigned decimals;
    /* A line starting with '#' is a comment, skipped (inferno's folded
     * input); counted in st.blank. */
    bool comments;
    /* NULL, or called for every line that adds a stack, with its frames as
     * they go into the profile (names not yet interned: "" stays ""): the
     * bundle reader ties <profile>.time's line numbers to the file's own
     * lines, not to the stacks left once equal lines have merged. */
    void (*on_stack)(void *ctx, size_t lineno, const struct pframe *f, size_t n);
    void *on_stack_ctx;
};
void folded_init(struct folded_parser *fp, struct profile *p);
/* Feeds one line (with or without its "\n"/"\r\n"); lineno is 1-based.
 * "stack BEFORE AFTER" (two counts) is a differential line: AFTER is the
 * count, BEFORE the baseline.  A line whose number of counts differs from the
 * first line's is counted in st.mixed and not used. */
void folded_line(struct folded_parser *fp, const char *line, size_t len, size_t lineno);
/* Adds what is pending, releases the parser's memory (not the profile);
 * fp->st stays valid. */
void folded_finish(struct folded_parser *fp);
/* Whole text; returns the number of stacks added. */
size_t folded_parse(struct profile *p, const char *text, size_t len, struct flame_parse_stats *st);

/* Frame kind of a folded frame name, from flamegraph.pl's annotation suffixes
 * ("_[k]" kernel, "_[j]" jit, "_[i]" inline; "[unknown]" unknown).  *len is
 * shortened to drop the suffix. */
enum frame_kind folded_frame_kind(const char *name, size_t *len);

/* Folded text of p: one line per stack ending in a frame with self count,
 * children in name order (stable), kinds as "_[k]"/"_[j]"/"_[i]" suffixes.
 * ';' and control bytes (line breaks, escapes) inside names become '_'. */
void folded_write(const struct profile *p, struct strbuf *out);
#endif
