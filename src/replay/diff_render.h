/* The views of a comparison (compare.h): diff.md and index.html from one
 * document tree, diff.json, and the differential flame graphs
 * cpu-diff.svg / offcpu-diff.svg. */
#ifndef PERFREPORT_DIFF_RENDER_H
#define PERFREPORT_DIFF_RENDER_H
#include "diff_compare.h"
#include "../util/strbuf.h"

#define DIFF_MAX_FILES 5

struct diff_file {
    const char *name; /* a fixed name of ours */
    struct strbuf body; /* owned */
};

/* Renders every view of d into files[0..DIFF_MAX_FILES); returns how many.
 * The caller frees each body. */
size_t diff_render(const struct diff *d, struct diff_file *files);
void diff_render_json(const struct diff *d, struct strbuf *out);
#endif
