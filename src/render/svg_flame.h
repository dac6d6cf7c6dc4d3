/* Interactive flamegraph SVG from a stack profile, like flamegraph.pl:
 * hover details, click to zoom, reset, search with matched %.
 *
 * The behaviour lives in one script, assets/flamegraph.js (embedded as
 * asset_flamegraph_js).  It finds every <svg class="flamegraph"> in the
 * document and wires each one through its own elements only (classes, no
 * ids), so several graphs can share one HTML page.  Data reaches it only
 * through attributes and element text.  A standalone SVG embeds the script in
 * CDATA; for HTML the page includes the script once and inlines the <svg>. */
#ifndef PERFREPORT_SVG_FLAME_H
#define PERFREPORT_SVG_FLAME_H
#include <stdbool.h>
#include <stdint.h>

struct profile;
struct strbuf;

struct flame_opts {
    const char *title;     /* NULL: "Flame Graph" ("Icicle Graph" when inverted) */
    const char *subtitle;  /* NULL: none */
    double width;          /* image width in px (1200) */
    double frame_height;   /* px per frame (16) */
    double font_size;      /* px (12) */
    double minwidth;       /* px; narrower frames are omitted, their count stays in the parent (0.1) */
    const char *colors;    /* palette: "hot" (default) "mem" "io" "java" "kernel" */
    bool reverse;          /* merge stacks leaf-first (flamegraph.pl --reverse) */
    bool inverted;         /* icicle graph: root at the top */
    const char *countname; /* NULL: the profile's unit ("samples") */
    bool legend;           /* a row under the title: the colour of each kind of frame present */
};

void flame_opts_default(struct flame_opts *o);
bool flame_palette_valid(const char *name);

/* Frames of a profile with this total whose count is below the result are
 * never drawn under o, so a builder may leave them out (profile_bulk_prune);
 * 0 when every node matters (--reverse, the legend). */
uint64_t svg_flame_undrawn_below(const struct flame_opts *o, uint64_t total);

/* Appends the graph to out.  standalone: a complete SVG document with the
 * script embedded; otherwise one <svg class="flamegraph"> element for an
 * HTML page that includes asset_flamegraph_js itself.  id_prefix (may be NULL
 * or "") makes the root's id "<prefix>flamegraph"; nothing else has an id. */
void svg_flame_render(const struct profile *p, const struct flame_opts *o, bool standalone,
                      const char *id_prefix, struct strbuf *out);
#endif
