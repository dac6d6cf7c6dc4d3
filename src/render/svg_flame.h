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
#include "flame_colors.h"
#include <stdbool.h>
#include <stdint.h>

struct profile;
struct strbuf;

struct flame_palette_map;
struct flame_nameattr;

/* flamegraph.pl's options, named as it names them (see docs/usage.md's
 * `perfreport flamegraph` section for each one's meaning). */
struct flame_opts {
    const char *title;     /* NULL: "Flame Graph" ("Icicle Graph" inverted, "Flame Chart"
                            * for a chart profile) */
    const char *subtitle;  /* NULL: none */
    double width;          /* image width in px (1200) */
    double frame_height;   /* px per frame (16) */
    double font_size;      /* px (12) */
    double minwidth;       /* narrower frames are omitted, their count stays in the parent (0.1) */
    bool minwidth_pct;     /* minwidth is a percentage of the total, not px */
    const char *colors;    /* palette (flame_colors.h): "hot" (default) ... */
    enum flame_shade shade; /* --hash, --random */
    uint64_t random_seed;  /* FLAME_SHADE_RANDOM */
    struct flame_palette_map *palette_map; /* --cp: colours read from and added to it */
    const struct flame_nameattr *nameattr; /* --nameattr: attributes per name */
    const char *bgcolors;  /* NULL: plain; flame_bgcolors() spec */
    const char *fonttype;  /* NULL: "Verdana, sans-serif" */
    double fontwidth;      /* average glyph width / font size (0.59) */
    const char *nametype;  /* NULL: none; words before a frame's line on hover ("Function:") */
    const char *notes;     /* NULL: none; text kept in the SVG (<desc class="fg-notes">) */
    const char *encoding;  /* NULL: UTF-8; else declared, every other character as &#x..; */
    uint64_t total;        /* 0: the profile's; larger: the count of the full width */
    double factor;         /* counts shown are multiplied by it (1) */
    unsigned count_decimals; /* counts are in units of 10^-count_decimals (fractional
                              * input kept exact, folded.h); shown in whole units */
    bool negate;           /* differential: red for less, blue for more */
    bool reverse;          /* merge stacks leaf-first (flamegraph.pl --reverse) */
    bool inverted;         /* icicle graph: root at the top */
    const char *countname; /* NULL: the profile's unit ("samples") */
    bool legend;           /* a row under the title: the colour of each kind of frame present */
    /* The report's graphs (not flamegraph.pl's): a run of the same unnamed
     * frame (a broken frame-pointer walk repeats "[heap]+0x6966df" 134
     * times) is one frame "NAME ×N"; the height stops at the deepest level
     * still holding a visible share of the samples (the rest is said in the
     * root's tooltip); counts are shown by the one formatter (fmtnum.h:
     * "523 s", "1 sample"). */
    bool report;
    const char *stroke;    /* NULL: none; inferno's --stroke-color, an outline to every
                            * frame (flame_color_valid) */
};

void flame_opts_default(struct flame_opts *o);
/* A colour that may go into a style as it is: #rgb, #rrggbb or a name of
 * letters ("none", "black"), at most 31 characters. */
bool flame_color_valid(const char *s);
/* --encoding: an XML encoding name whose bytes for ASCII are ASCII (UTF-8,
 * ISO-8859-1, windows-1252 ...; not UTF-16), known to iconv. */
bool flame_encoding_valid(const char *name);

/* Frames of a profile with this total whose count is below the result are
 * never drawn under o, so a builder may leave them out (profile_bulk_prune);
 * 0 when every node matters (--reverse, the legend). */
uint64_t svg_flame_undrawn_below(const struct flame_opts *o, uint64_t total);

/* The profile a report's graph (o->report) draws of p: each run of one
 * unnamed frame folded into one frame "NAME ×N", in a single pass (a name
 * the fold writes is not folded again).  A new profile (the caller frees
 * it), or NULL when p has no such run or is a chart or differential profile
 * (drawn as they are).  leaf_to (may be NULL; p->nnodes entries): for each
 * node of p where a stack ends, the node of the result where it ends, else
 * PROFILE_NONE; the heat map ties its seconds to the drawn frames by it. */
struct profile *flame_report_folded(const struct profile *p, uint32_t *leaf_to);

/* Appends the graph to out.  standalone: a complete SVG document with the
 * script embedded; otherwise one <svg class="flamegraph"> element for an
 * HTML page that includes asset_flamegraph_js itself.  id_prefix (may be NULL
 * or "") makes the root's id "<prefix>flamegraph"; nothing else has an id but
 * a --bgcolors gradient ("<prefix>flamegraph-bg") and --nameattr's ids.
 *
 * A differential profile (profile_diff.h) is drawn by its ordinary counts
 * and coloured by each frame's own change (self count minus self baseline):
 * red where it grew, blue where it shrank, white where it did not, the
 * strongest change full colour; the change is in the tooltip.  A flame
 * chart (profile_chart.h) keeps its x order. */
void svg_flame_render(const struct profile *p, const struct flame_opts *o, bool standalone,
                      const char *id_prefix, struct strbuf *out);
#endif
