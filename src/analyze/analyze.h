/* Analysis: thresholds table, USE check, rules, ranking, headline.
 * Reads only the model; appends findings/use rows/headline to it. */
#ifndef PERFREPORT_ANALYZE_H
#define PERFREPORT_ANALYZE_H
#include <stddef.h>

struct report;

/* The headline again, from the ranked findings, r->headline_note (set
 * after analysis, e.g. by the comparison with a baseline) and a watch
 * capture's trigger (r->window.trigger_what, set after analysis too). */
void rank_headline(struct report *r);
/* Puts the default threshold table into r->thresholds, then applies the
 * overrides in `file` (may be NULL).  On a bad file returns -1 with a message
 * naming the file and line in err; r is then left with the defaults. */
int thresholds_load(struct report *r, const char *file, char *err, size_t n);
/* The same from text already in memory (len bytes, NULs rejected); name
 * (may be NULL) stands for the file in messages. */
int thresholds_parse_text(struct report *r, const char *text, size_t len, const char *name,
                          char *err, size_t n);

/* Runs every rule, fills r->use, ranks r->findings and sets r->headline. */
void analyze_run(struct report *r);
#endif
