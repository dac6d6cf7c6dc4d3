#include "svg_flame.h"
#include "../model/profile.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "escape.h"
#include "assets.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XPAD 10.0
#define CHAR_WIDTH 0.59 /* average glyph width / font size, as flamegraph.pl assumes */

void flame_opts_default(struct flame_opts *o)
{
    memset(o, 0, sizeof *o);
    o->width = 1200;
    o->frame_height = 16;
    o->font_size = 12;
    o->minwidth = 0.1;
    o->colors = "hot";
}

enum palette { PAL_HOT, PAL_MEM, PAL_IO, PAL_JAVA, PAL_KERNEL };
static const char *const palette_names[] = {"hot", "mem", "io", "java", "kernel"};

static int palette_of(const char *name)
{
    for (size_t i = 0; i < sizeof palette_names / sizeof *palette_names; i++)
        if (name && strcmp(name, palette_names[i]) == 0)
            return (int)i;
    return -1;
}

bool flame_palette_valid(const char *name) { return palette_of(name) >= 0; }

/* Same name, same colour, in every graph: the shade comes from a hash of the
 * name only; the kind picks the hue family. */
static void frame_color(const char *name, enum frame_kind kind, enum palette pal, char *out,
                        size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *s = (const unsigned char *)name; *s; s++)
        h = (h ^ *s) * 0x100000001b3ull;
    h ^= h >> 31;
    double v1 = (double)(h & 0xffff) / 65535.0;
    double v2 = (double)((h >> 16) & 0xffff) / 65535.0;
    double v3 = (double)((h >> 32) & 0xffff) / 65535.0;
    double r, g, b;
    switch (kind) {
    case FRAME_KERNEL: /* violet: a hue no user palette makes (2026-11-25:
                        * orange shared the hot palette's band) */
        r = 165 + 45 * v1, g = 115 + 35 * v1, b = 215 + 40 * v1;
        break;
    case FRAME_JIT: /* green */
        r = 50 + 60 * v1, g = 200 + 55 * v1, b = 50 + 60 * v1;
        break;
    case FRAME_INLINE: /* aqua */
        r = 50 + 60 * v1, g = 165 + 55 * v1, b = 165 + 55 * v1;
        break;
    case FRAME_UNKNOWN: /* grey */
        r = g = b = 170 + 40 * v1;
        break;
    default:
        switch (pal) {
        case PAL_MEM:
            r = 0, g = 190 + 50 * v2, b = 210 * v1;
            break;
        case PAL_IO:
            r = 80 + 60 * v1, g = r, b = 190 + 55 * v2;
            break;
        case PAL_JAVA: /* native user code in yellow, as flamegraph.pl paints C++ */
            r = 175 + 55 * v2, g = r, b = 50 + 20 * v1;
            break;
        default:
            r = 205 + 50 * v3, g = 230 * v1, b = 55 * v2;
            break;
        }
    }
    snprintf(out, n, "rgb(%d,%d,%d)", (int)r, (int)g, (int)b);
}

static void add_count(struct strbuf *out, uint64_t v)
{
    char d[32]; /* 20 digits and 6 commas at most, written from the end */
    size_t i = sizeof d;
    for (int k = 0;; k++) {
        if (k && k % 3 == 0)
            d[--i] = ',';
        d[--i] = (char)('0' + v % 10);
        v /= 10;
        if (!v)
            break;
    }
    sb_addn(out, d + i, sizeof d - i);
}

/* Writes at most max_chars characters of s, escaped; cut names end in "..". */
static void add_fitted(struct strbuf *out, const char *s, long max_chars)
{
    if (max_chars < 3)
        return;
    size_t len = strlen(s), i = 0;
    long chars = 0;
    while (i < len) {
        unsigned cp;
        size_t k = utf8_decode((const unsigned char *)s + i, len - i, &cp);
        i += k ? k : 1;
        chars++;
    }
    if (chars <= max_chars) {
        esc_xml(out, s);
        return;
    }
    i = 0;
    for (long c = 0; c < max_chars - 2 && i < len; c++) {
        unsigned cp;
        size_t k = utf8_decode((const unsigned char *)s + i, len - i, &cp);
        i += k ? k : 1;
    }
    char *cut = xstrndup(s, i);
    esc_xml(out, cut);
    free(cut);
    sb_add(out, "..");
}

/* CDATA cannot contain "]]>": split it across two sections if it ever does. */
static void add_cdata(struct strbuf *out, const char *s)
{
    sb_add(out, "<![CDATA[\n");
    const char *q;
    while ((q = strstr(s, "]]>")) != NULL) {
        sb_addn(out, s, (size_t)(q - s) + 2);
        sb_add(out, "]]><![CDATA[");
        s = q + 2;
    }
    sb_add(out, s);
    sb_add(out, "\n]]>");
}

struct drawn {
    uint32_t node;
    uint32_t depth;
    uint64_t x0; /* offset in counts from the left edge */
};

struct layout {
    struct drawn *v;
    size_t n, cap;
    uint32_t max_depth;
};

/* Frames narrower than min_count are dropped with their subtree; visible
 * children are packed left in name order so the dropped mass shows as the
 * parent's own time at its right end. */
static void lay_out(const struct profile *p, uint64_t min_count, struct layout *L)
{
    uint32_t *ranks = profile_name_ranks(p);
    uint32_t *kids = NULL;
    size_t cap_kids = 0;
    xgrow(&L->v, &L->cap, 1, sizeof *L->v);
    L->v[L->n++] = (struct drawn){PROFILE_ROOT, 0, 0};
    /* L->v doubles as the BFS queue: parents are laid out before children */
    for (size_t q = 0; q < L->n; q++) {
        struct drawn d = L->v[q];
        size_t nk = 0;
        for (uint32_t c = p->nodes[d.node].first_child; c != PROFILE_NONE;
             c = p->nodes[c].next_sibling) {
            if (p->nodes[c].total == 0 || p->nodes[c].total < min_count)
                continue;
            xgrow(&kids, &cap_kids, nk + 1, sizeof *kids);
            kids[nk++] = c;
        }
        profile_sort_nodes(p, ranks, kids, nk);
        uint64_t x = d.x0;
        for (size_t i = 0; i < nk; i++) {
            xgrow(&L->v, &L->cap, L->n + 1, sizeof *L->v);
            L->v[L->n++] = (struct drawn){kids[i], d.depth + 1, x};
            x += p->nodes[kids[i]].total;
            if (d.depth + 1 > L->max_depth)
                L->max_depth = d.depth + 1;
        }
    }
    free(kids);
    free(ranks);
}

/* One row, centred at y: a swatch and a word for each kind of frame the
 * graph holds (the swatch of a hypothetical name: colours vary by name). */
static void legend(const struct profile *p, enum palette pal, double width, double y, double fs,
                   struct strbuf *out)
{
    static const struct {
        enum frame_kind kind;
        const char *word;
    } kinds[] = {{FRAME_USER, "user"},         {FRAME_KERNEL, "kernel"},
                 {FRAME_INLINE, "inlined"},    {FRAME_JIT, "JIT"},
                 {FRAME_UNKNOWN, "unnamed"}};
    bool present[FRAME_KIND_COUNT] = {false};
    for (uint32_t i = 1; i < p->nnodes; i++)
        if (p->nodes[i].kind < FRAME_KIND_COUNT)
            present[p->nodes[i].kind] = true;
    double item = fs * 6.5, n = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
        n += present[kinds[k].kind];
    double x = width / 2 - n * item / 2;
    sb_add(out, "<g class=\"fg-legend\" aria-label=\"Frame colours\">\n");
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (!present[kinds[k].kind])
            continue;
        char color[32];
        frame_color("legend", kinds[k].kind, pal, color, sizeof color);
        sb_addf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"%s\"/>"
                "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                x, y - fs + 2, fs, fs, color, x + fs + 4, y, kinds[k].word);
        x += item;
    }
    sb_add(out, "</g>\n");
}

/* Frames with a smaller count are narrower than o->minwidth: not drawn. */
static uint64_t min_count_of(const struct flame_opts *o, uint64_t total)
{
    double width = o->width >= 100 ? o->width : 100;
    double minw = o->minwidth >= 0 ? o->minwidth : 0;
    double per = total ? (width - 2 * XPAD) / (double)total : 0;
    uint64_t min_count = per > 0 ? (uint64_t)ceil(minw / per) : 0;
    return min_count ? min_count : 1;
}

uint64_t svg_flame_undrawn_below(const struct flame_opts *o, uint64_t total)
{
    if (o->reverse || o->legend)
        return 0; /* the reversed profile re-merges every stack; the legend lists every kind */
    return min_count_of(o, total);
}

static void render(const struct profile *p, const struct flame_opts *o, bool standalone,
                   const char *id_prefix, struct strbuf *out)
{
    int pal = palette_of(o->colors);
    if (pal < 0)
        pal = PAL_HOT;
    double width = o->width >= 100 ? o->width : 100;
    double fh = o->frame_height >= 4 ? o->frame_height : 4;
    double fs = o->font_size >= 4 ? o->font_size : 4;
    const char *title = o->title ? o->title : o->inverted ? "Icicle Graph" : "Flame Graph";
    const char *countname = o->countname ? o->countname : p->unit;
    uint64_t total = profile_total(p);
    double usable = width - 2 * XPAD;
    double per = total ? usable / (double)total : 0;
    uint64_t min_count = min_count_of(o, total);

    struct layout L = {0};
    if (total)
        lay_out(p, min_count, &L);

    double ypad1 = fs * 3 + (o->subtitle ? fs * 2 : 0) + (o->legend ? fs * 2 : 0);
    double ypad2 = fs * 2 + 10;
    double height = (double)(L.max_depth + 1) * fh + ypad1 + ypad2;
    if (!total)
        height = ypad1 + ypad2 + fh * 2;

    if (standalone)
        sb_add(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n");
    sb_add(out, "<svg version=\"1.1\" class=\"flamegraph\"");
    if (id_prefix && *id_prefix) {
        sb_add(out, " id=\"");
        esc_xml(out, id_prefix);
        sb_add(out, "flamegraph\"");
    }
    sb_addf(out,
            " width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\""
            " xmlns=\"http://www.w3.org/2000/svg\" font-family=\"Verdana, sans-serif\""
            " font-size=\"%.0f\" data-fg-xpad=\"%.0f\" data-fg-inverted=\"%d\""
            " data-fg-total=\"%llu\" data-fg-countname=\"",
            width, height, width, height, fs, XPAD, o->inverted ? 1 : 0,
            (unsigned long long)total);
    esc_xml(out, countname);
    sb_add(out, "\">\n");

    /* background, title, controls */
    sb_addf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#f8f8f4\"/>\n",
            width, height);
    sb_addf(out,
            "<text class=\"fg-title\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
            "font-size=\"%.0f\">",
            width / 2, fs * 2, fs + 5);
    esc_xml(out, title);
    sb_add(out, "</text>\n");
    if (o->subtitle) {
        sb_addf(out,
                "<text class=\"fg-subtitle\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                "fill=\"#808080\">",
                width / 2, fs * 4);
        esc_xml(out, o->subtitle);
        sb_add(out, "</text>\n");
    }
    sb_addf(out,
            "<text class=\"fg-reset\" x=\"%.1f\" y=\"%.1f\" display=\"none\" cursor=\"pointer\" "
            "fill=\"#0645ad\">Reset Zoom</text>\n",
            XPAD, fs * 2);
    /* an HTML input inside the SVG: works standalone and inline, no prompt() */
    double sw = 170;
    sb_addf(out,
            "<text class=\"fg-search-btn\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
            "cursor=\"pointer\" fill=\"#0645ad\">Search</text>\n"
            "<foreignObject class=\"fg-search\" x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" "
            "height=\"%.0f\"><input xmlns=\"http://www.w3.org/1999/xhtml\" type=\"text\" "
            "placeholder=\"regex or text\" aria-label=\"Search frames\" autocomplete=\"off\" "
            "spellcheck=\"false\" size=\"18\"/></foreignObject>\n",
            width - XPAD - sw - 6, fs * 2, width - XPAD - sw, fs * 2 - fs - 4, sw, fs + 10);
    if (o->legend && total)
        legend(p, (enum palette)pal, width, (o->subtitle ? fs * 4 : fs * 2) + fs * 1.8, fs, out);
    sb_addf(out, "<text class=\"fg-details\" x=\"%.1f\" y=\"%.1f\"> </text>\n", XPAD,
            height - fs / 2 - 4);
    sb_addf(out, "<text class=\"fg-matched\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"></text>\n",
            width - XPAD, height - fs / 2 - 4);

    if (!total) {
        sb_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">No ", width / 2,
                ypad1 + fh);
        esc_xml(out, countname);
        sb_add(out, " recorded</text>\n");
    }

    sb_add(out, "<g class=\"fg-frames\">\n");
    char color[32];
    struct strbuf unit = STRBUF_INIT; /* " countname, " escaped once */
    sb_addc(&unit, ' ');
    esc_xml(&unit, countname);
    sb_add(&unit, ", ");
    for (size_t i = 0; i < L.n; i++) {
        const struct drawn *d = &L.v[i];
        uint64_t cnt = p->nodes[d->node].total;
        double x = XPAD + (double)d->x0 * per;
        double w = (double)cnt * per;
        double y = o->inverted ? ypad1 + d->depth * fh
                               : height - ypad2 - (double)(d->depth + 1) * fh;
        const char *name = d->node == PROFILE_ROOT ? "all" : profile_node_name(p, d->node);
        enum frame_kind kind =
            d->node == PROFILE_ROOT ? FRAME_USER : profile_node_kind(p, d->node);
        frame_color(name, kind, (enum palette)pal, color, sizeof color);

        /* sb_add_fixed writes what "%.2f" / "%.1f" would, at a fraction of
         * printf's cost: these numbers were most of a large graph's time */
        sb_add(out, "<g><title>");
        esc_xml(out, name);
        sb_add(out, " (");
        add_count(out, cnt);
        sb_addn(out, unit.buf, unit.len);
        sb_add_fixed(out, 100.0 * (double)cnt / (double)total, 2);
        sb_add(out, "%)");
        const char *src = profile_node_source(p, d->node);
        if (src) {
            sb_addc(out, '\n');
            esc_xml(out, src);
        }
        sb_add(out, "</title><rect x=\"");
        sb_add_fixed(out, x, 2);
        sb_add(out, "\" y=\"");
        sb_add_fixed(out, y, 1);
        sb_add(out, "\" width=\"");
        sb_add_fixed(out, w, 2);
        sb_add(out, "\" height=\"");
        sb_add_fixed(out, fh - 1, 1);
        sb_add(out, "\" fill=\"");
        sb_add(out, color);
        sb_add(out, "\" rx=\"2\" ry=\"2\"/><text x=\"");
        sb_add_fixed(out, x + 3, 2);
        sb_add(out, "\" y=\"");
        sb_add_fixed(out, y + fh / 2 + fs / 3 + 0.5, 1);
        sb_add(out, "\">");
        add_fitted(out, name, (long)((w - 3) / (fs * CHAR_WIDTH)));
        sb_add(out, "</text></g>\n");
    }
    sb_add(out, "</g>\n");
    sb_free(&unit);
    free(L.v);

    if (standalone) {
        sb_add(out, "<script type=\"text/ecmascript\">");
        add_cdata(out, asset_flamegraph_js);
        sb_add(out, "</script>\n");
    }
    sb_add(out, "</svg>\n");
}

void svg_flame_render(const struct profile *p, const struct flame_opts *o, bool standalone,
                      const char *id_prefix, struct strbuf *out)
{
    struct flame_opts def;
    if (!o) {
        flame_opts_default(&def);
        o = &def;
    }
    if (o->reverse) {
        struct profile *r = profile_reversed(p);
        render(r, o, standalone, id_prefix, out);
        profile_free(r);
    } else {
        render(p, o, standalone, id_prefix, out);
    }
}
