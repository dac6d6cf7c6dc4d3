/* The views of perfreport history (history.h): history.md and index.html
 * from one document tree (render/doc.h), history.json, and the charts as
 * SVG files (severity-N.svg, trend-N-M.svg: N the host's place on the page,
 * M the key metric's) that history.md names and index.html inlines. */
#ifndef PERFREPORT_HISTORY_RENDER_H
#define PERFREPORT_HISTORY_RENDER_H
#include "history.h"
#include "../util/strbuf.h"

struct history_file {
    char *name;         /* owned: a name of ours ([a-z0-9.-]) */
    struct strbuf body; /* owned */
};

/* Renders every view of h (history_finish done) for a page in directory
 * `outdir_abs` (absolute; NULL: no links to the bundles).  Returns the
 * files (*n of them); free them with history_files_free. */
struct history_file *history_render(const struct history *h, const char *outdir_abs, size_t *n);
void history_files_free(struct history_file *f, size_t n);
/* The one-line verdict: the worst newest run across hosts. */
char *history_headline(const struct history *h);
void history_render_json(const struct history *h, const char *outdir_abs, struct strbuf *out);
#endif
