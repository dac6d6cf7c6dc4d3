#include "svg_flame.h"
#include "../model/profile.h"
#include "../model/profile_chart.h"
#include "../model/profile_diff.h"
#include "flame_colors.h"
#include "flame_nameattr.h"
#include "flame_palette_map.h"
#include "../util/fmtnum.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "escape.h"
#include "assets.h"
#include <ctype.h>
#include <iconv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    o->fontwidth = CHAR_WIDTH;
    o->factor = 1;
}

bool flame_color_valid(const char *s)
{
    size_t n = strlen(s);
    if (n && s[0] == '#') {
        for (size_t i = 1; i < n; i++)
            if (!isxdigit((unsigned char)s[i]))
                return false;
        return n == 4 || n == 7;
    }
    for (size_t i = 0; i < n; i++)
        if (!isalpha((unsigned char)s[i]))
            return false;
    return n > 0 && n < 32;
}

bool flame_encoding_valid(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > 40 || !isalpha((unsigned char)name[0]))
        return false;
    for (size_t i = 1; i < n; i++) /* XML's EncName */
        if (!isalnum((unsigned char)name[i]) && !strchr("._-", name[i]))
            return false;
    iconv_t cd = iconv_open(name, "UTF-8");
    if (cd == (iconv_t)-1)
        return false;
    /* every printable ASCII character must come out as itself */
    char in[96], outb[512];
    for (int i = 0; i < 95; i++)
        in[i] = (char)(0x20 + i);
    in[95] = '\n';
    char *ip = in, *op = outb;
    size_t il = sizeof in, ol = sizeof outb;
    bool ok = iconv(cd, &ip, &il, &op, &ol) != (size_t)-1 && il == 0 &&
              (size_t)(op - outb) == sizeof in && memcmp(outb, in, sizeof in) == 0;
    iconv_close(cd);
    return ok;
}

/* Everything from `from` on as ASCII: each other character as a character
 * reference.  Only for text where references are read as characters: our
 * script is ASCII (a unit test keeps it so) and we write no comments. */
static void to_ascii(struct strbuf *out, size_t from)
{
    struct strbuf a = STRBUF_INIT;
    const unsigned char *s = (const unsigned char *)out->buf + from;
    size_t len = out->len - from;
    for (size_t i = 0; i < len;) {
        if (s[i] < 0x80) {
            sb_addc(&a, (char)s[i++]);
            continue;
        }
        unsigned cp;
        size_t k = utf8_decode(s + i, len - i, &cp);
        sb_addf(&a, "&#x%X;", k ? cp : 0xFFFDu);
        i += k ? k : 1;
    }
    out->len = from;
    sb_addn(out, a.buf ? a.buf : "", a.len);
    sb_free(&a);
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

/* Frames narrower than min_count are dropped with their subtree.  As
 * flamegraph.pl draws them, a parent's own time comes first (its stack
 * sorts before its callees': "a 5" < "a;b 3") and the children follow in
 * name order.  The dropped children's counts join the own time on the left
 * (flamegraph.pl leaves a gap of under --minwidth each where they were), so
 * that a profile built without them (profile_bulk_prune) looks the same. */
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
        uint64_t below = 0;
        for (uint32_t c = p->nodes[d.node].first_child; c != PROFILE_NONE;
             c = p->nodes[c].next_sibling) {
            if (p->nodes[c].total == 0 || p->nodes[c].total < min_count)
                continue;
            below += p->nodes[c].total;
            xgrow(&kids, &cap_kids, nk + 1, sizeof *kids);
            kids[nk++] = c;
        }
        profile_sort_nodes(p, ranks, kids, nk);
        uint64_t x = d.x0 + (p->nodes[d.node].total - below);
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

/* A flame chart: every frame where its stack started, in input order. */
static void lay_out_chart(const struct profile *p, uint64_t min_count, struct layout *L)
{
    xgrow(&L->v, &L->cap, 1, sizeof *L->v);
    L->v[L->n++] = (struct drawn){PROFILE_ROOT, 0, 0};
    for (size_t q = 0; q < L->n; q++) {
        struct drawn d = L->v[q];
        for (uint32_t c = p->nodes[d.node].first_child; c != PROFILE_NONE;
             c = p->nodes[c].next_sibling) {
            if (p->nodes[c].total == 0 || p->nodes[c].total < min_count)
                continue;
            xgrow(&L->v, &L->cap, L->n + 1, sizeof *L->v);
            L->v[L->n++] = (struct drawn){c, d.depth + 1, profile_chart_start(p, c)};
            if (d.depth + 1 > L->max_depth)
                L->max_depth = d.depth + 1;
        }
    }
}

/* One row, centred at y: a swatch and a word for each kind of frame the
 * graph holds (the swatch of a hypothetical name: colours vary by name). */
static void legend(const struct profile *p, const char *palette, double width, double y,
                   double fs, struct strbuf *out)
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
        struct flame_colorer c;
        flame_colorer_init(&c, palette, FLAME_SHADE_NAME, 0);
        flame_frame_color(&c, "legend", kinds[k].kind, false, color, sizeof color);
        sb_addf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"%s\"/>"
                "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                x, y - fs + 2, fs, fs, color, x + fs + 4, y, kinds[k].word);
        x += item;
    }
    sb_add(out, "</g>\n");
}

/* A count as shown: in whole units (count_decimals), times --factor, with
 * thousands separators; a fraction only when there is one. */
static void add_scaled(struct strbuf *out, uint64_t v, const struct flame_opts *o)
{
    unsigned dec = o->count_decimals;
    if (o->factor == 1) {
        uint64_t m = 1;
        for (unsigned k = 0; k < dec; k++)
            m *= 10;
        add_count(out, v / m);
        uint64_t f = v % m;
        if (f) { /* exact: the fraction's digits, trailing zeros dropped */
            char d[24];
            int n = snprintf(d, sizeof d, "%0*llu", (int)dec, (unsigned long long)f);
            while (n > 0 && d[n - 1] == '0')
                n--;
            sb_addc(out, '.');
            sb_addn(out, d, (size_t)n);
        }
        return;
    }
    double x = (double)v * o->factor;
    for (unsigned k = 0; k < dec; k++)
        x /= 10;
    double r = nearbyint(x);
    if (dec && r != x) { /* a fraction of the input's precision, trailing zeros dropped */
        char d[64];
        int n = snprintf(d, sizeof d, "%.*f", (int)dec, x);
        while (n > 0 && d[n - 1] == '0')
            n--;
        if (n > 0 && d[n - 1] == '.')
            n--;
        const char *dot = memchr(d, '.', (size_t)n);
        if (x < 9.2e18 && dot) {
            add_count(out, (uint64_t)x);
            sb_addn(out, dot, (size_t)(d + n - dot));
            return;
        }
    }
    if (r < 9.2e18)
        add_count(out, (uint64_t)r);
    else
        sb_addf(out, "%.0f", r);
}

/* The report's counts: a time or a size by fmt_quantity ("523 s"), a
 * count in full with separators and its noun in the singular for one. */
static void add_quantity(struct strbuf *out, double v, const char *unit)
{
    static const char *const scaled[] = {"ns", "us", "ms", "s", "B", "KiB", "MiB", "GiB", "TiB"};
    for (size_t i = 0; i < sizeof scaled / sizeof scaled[0]; i++)
        if (strcmp(unit, scaled[i]) == 0) {
            char b[64];
            fmt_quantity(b, sizeof b, v, unit);
            esc_xml(out, b);
            return;
        }
    uint64_t n = v > 0 && v < 1.8e19 ? (uint64_t)llround(v) : 0;
    add_count(out, n);
    sb_addc(out, ' ');
    size_t len = strlen(unit);
    if (n == 1 && len > 1 && unit[len - 1] == 's') { /* "1 sample" */
        char *one = xstrndup(unit, len - 1);
        esc_xml(out, one);
        free(one);
    } else {
        esc_xml(out, unit);
    }
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && strcmp(s + n - m, suf) == 0;
}

/* The name as flamegraph.pl's input spelled it (annotation included): the
 * key of palette.map and --nameattr lines. */
static void annotated(struct strbuf *sb, const char *name, enum frame_kind kind)
{
    sb_reset(sb);
    sb_add(sb, name);
    sb_add(sb, kind == FRAME_KERNEL ? "_[k]" : kind == FRAME_JIT ? "_[j]"
               : kind == FRAME_INLINE ? "_[i]" : "");
}

/* Self count change of a differential node, negated on request. */
static double self_delta(const struct profile *p, uint32_t n, bool negate)
{
    double d = (double)profile_self(p, n) - (double)profile_self_base(p, n);
    return negate ? -d : d;
}

static void add_attrs(struct strbuf *out, const struct flame_attr *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sb_addf(out, " %s=\"", v[i].name); /* names checked by flame_nameattr */
        esc_xml(out, v[i].value);
        sb_addc(out, '"');
    }
}

struct frame_ctx {
    const struct profile *p;
    const struct flame_opts *o;
    struct flame_colorer col;
    const char *countname;
    uint64_t timemax;
    double maxdelta; /* differential: the largest self change (0: not differential) */
    bool *waker;     /* chain palette: per node, above a "--" separator; else NULL */
    struct strbuf key;
};

static void frame_fill(struct frame_ctx *c, uint32_t node, const char *name,
                       enum frame_kind kind, char *color, size_t n)
{
    if (strcmp(name, "--") == 0) { /* stack separators, as flamegraph.pl greys them */
        snprintf(color, n, "rgb(160,160,160)");
        return;
    }
    if (strcmp(name, "-") == 0) {
        snprintf(color, n, "rgb(200,200,200)");
        return;
    }
    if (c->maxdelta > 0) {
        flame_delta_color(self_delta(c->p, node, c->o->negate), c->maxdelta, color, n);
        return;
    }
    bool waker = (c->waker && c->waker[node]) || has_suffix(name, "_[w]");
    struct flame_palette_map *pm = node == PROFILE_ROOT ? NULL : c->o->palette_map;
    if (pm) {
        annotated(&c->key, name, kind);
        const char *known = flame_palette_map_get(pm, sb_str(&c->key));
        if (known) {
            snprintf(color, n, "%s", known);
            return;
        }
    }
    flame_frame_color(&c->col, name, kind, waker, color, n);
    if (pm)
        flame_palette_map_put(pm, sb_str(&c->key), color);
}

static void frame_title(struct frame_ctx *c, uint32_t node, const char *shown, uint64_t cnt,
                        struct strbuf *out)
{
    esc_xml(out, shown);
    sb_add(out, " (");
    if (c->o->report) {
        add_quantity(out, (double)cnt * c->o->factor, c->countname);
    } else {
        add_scaled(out, cnt, c->o);
        sb_addc(out, ' ');
        esc_xml(out, c->countname);
    }
    sb_add(out, ", ");
    sb_add_fixed(out, 100.0 * (double)cnt / (double)c->timemax, 2); /* "%.2f", without printf */
    sb_addc(out, '%');
    if (c->maxdelta > 0 && node != PROFILE_ROOT) {
        double d = self_delta(c->p, node, c->o->negate);
        sb_add(out, "; self ");
        if (d != 0) /* no sign for no change */
            sb_addc(out, d > 0 ? '+' : '-');
        add_scaled(out, (uint64_t)fabs(d), c->o);
        double pct = d == 0 ? 0 : 100.0 * d / (double)c->timemax; /* never "-0.00" */
        sb_addf(out, pct > 0 ? ", +%.2f%%" : ", %.2f%%", pct);
    }
    sb_addc(out, ')');
}

/* Frames with a smaller count are narrower than --minwidth: not drawn.
 * timemax is the count of the full width. */
static uint64_t min_count_of(const struct flame_opts *o, uint64_t timemax)
{
    double width = o->width >= 100 ? o->width : 100;
    double minw = o->minwidth >= 0 ? o->minwidth : 0;
    double per = timemax ? (width - 2 * XPAD) / (double)timemax : 0;
    uint64_t min_count;
    if (o->minwidth_pct)
        min_count = (uint64_t)ceil((double)timemax * minw / 100.0);
    else
        min_count = per > 0 ? (uint64_t)ceil(minw / per) : 0;
    return min_count ? min_count : 1;
}

uint64_t svg_flame_undrawn_below(const struct flame_opts *o, uint64_t total)
{
    if (o->reverse || o->legend)
        return 0; /* the reversed profile re-merges every stack; the legend lists every kind */
    return min_count_of(o, o->total > total ? o->total : total);
}

/* ---- the report's graphs: runs of an unnamed frame folded (o->report) ---- */

/* Unnamed: the symbolizer's bracketed labels ("[unknown]", "[heap]+0x6966df",
 * "[libc.so.6]") or an unknown frame. */
static bool unnamed(const struct profile *p, uint32_t n)
{
    return profile_node_kind(p, n) == FRAME_UNKNOWN || profile_node_name(p, n)[0] == '[';
}

static bool has_runs(const struct profile *p)
{
    for (uint32_t n = 1; n < p->nnodes; n++) {
        uint32_t up = p->nodes[n].parent;
        if (up != PROFILE_ROOT && up != PROFILE_NONE && p->nodes[up].name == p->nodes[n].name &&
            p->nodes[up].kind == p->nodes[n].kind && unnamed(p, n))
            return true;
    }
    return false;
}

struct fold_ctx {
    struct profile *out;
    uint32_t *leaf_to; /* may be NULL: per node of the input, where its stack ends in out */
    struct pframe *f;
    size_t cap_f;
    size_t *off; /* per frame: where its name starts in names */
    size_t cap_off;
    struct strbuf names;
};

static int fold_stack(void *ctx, const struct profile *p, const uint32_t *path, size_t depth,
                      uint64_t self)
{
    struct fold_ctx *c = ctx;
    xgrow(&c->f, &c->cap_f, depth ? depth : 1, sizeof *c->f);
    xgrow(&c->off, &c->cap_off, depth ? depth : 1, sizeof *c->off);
    sb_reset(&c->names);
    size_t k = 0;
    for (size_t d = 0; d < depth;) {
        size_t r = 1;
        while (d + r < depth && p->nodes[path[d + r]].name == p->nodes[path[d]].name &&
               p->nodes[path[d + r]].kind == p->nodes[path[d]].kind)
            r++;
        if (r < 2 || !unnamed(p, path[d]))
            r = 1;
        c->off[k] = c->names.len;
        sb_add(&c->names, profile_node_name(p, path[d]));
        if (r > 1)
            sb_addf(&c->names, " \xc3\x97%zu", r); /* "NAME ×134" */
        c->f[k].len = c->names.len - c->off[k];
        c->f[k].kind = (uint8_t)profile_node_kind(p, path[d]);
        k++;
        d += r;
    }
    for (size_t i = 0; i < k; i++) /* names has stopped moving */
        c->f[i].s = c->names.buf + c->off[i];
    uint32_t leaf = profile_add_frames(c->out, c->f, k, self);
    if (c->leaf_to && depth)
        c->leaf_to[path[depth - 1]] = leaf;
    return 0;
}

struct profile *flame_report_folded(const struct profile *p, uint32_t *leaf_to)
{
    /* a chart is reversed as it is built (profile_chart_begin): its order
     * cannot be rebuilt from the trie */
    if (!p || p->chart || profile_is_diff(p) || !has_runs(p))
        return NULL;
    struct fold_ctx c = {.out = profile_new(p->name, p->title, p->unit),
                         .leaf_to = leaf_to,
                         .names = STRBUF_INIT};
    if (leaf_to)
        for (uint32_t n = 0; n < p->nnodes; n++)
            leaf_to[n] = PROFILE_NONE;
    profile_walk_stacks(p, fold_stack, &c);
    free(c.f);
    free(c.off);
    sb_free(&c.names);
    return c.out;
}

/* The deepest level whose drawn frames hold at least 0.5 % of the width
 * (6 px of 1200): levels below only make the graph tall and empty.  Frames
 * deeper are dropped from L; *hidden gets the count that reached below. */
static void cut_depth(const struct profile *p, struct layout *L, uint64_t timemax,
                      uint64_t *hidden)
{
    *hidden = 0;
    if (L->n < 2 || !timemax)
        return;
    uint64_t *sum = xcalloc((size_t)L->max_depth + 1, sizeof *sum);
    for (size_t i = 1; i < L->n; i++)
        sum[L->v[i].depth] += p->nodes[L->v[i].node].total;
    uint32_t keep = 0;
    for (uint32_t d = 1; d <= L->max_depth; d++)
        if ((double)sum[d] >= 0.005 * (double)timemax)
            keep = d;
    if (keep < L->max_depth) {
        *hidden = sum[keep + 1];
        size_t w = 0;
        for (size_t i = 0; i < L->n; i++) /* BFS order stays */
            if (L->v[i].depth <= keep)
                L->v[w++] = L->v[i];
        L->n = w;
        L->max_depth = keep;
    }
    free(sum);
}

static void render(const struct profile *p, const struct flame_opts *o, bool standalone,
                   const char *id_prefix, struct strbuf *out)
{
    size_t doc_start = out->len;
    double width = o->width >= 100 ? o->width : 100;
    double fh = o->frame_height >= 4 ? o->frame_height : 4;
    double fs = o->font_size >= 4 ? o->font_size : 4;
    double fw = o->fontwidth > 0 ? o->fontwidth : CHAR_WIDTH;
    const char *title = o->title        ? o->title
                        : p->chart      ? "Flame Chart"
                        : o->inverted   ? "Icicle Graph"
                                        : "Flame Graph";
    const char *countname = o->countname ? o->countname : p->unit;
    uint64_t total = profile_total(p);
    uint64_t timemax = o->total > total ? o->total : total; /* --total: the full width */
    double usable = width - 2 * XPAD;
    double per = timemax ? usable / (double)timemax : 0;
    uint64_t min_count = min_count_of(o, timemax);

    struct layout L = {0};
    if (total && p->chart)
        lay_out_chart(p, min_count, &L);
    else if (total)
        lay_out(p, min_count, &L);
    uint64_t hidden = 0;
    if (o->report)
        cut_depth(p, &L, timemax, &hidden);

    struct frame_ctx fc = {.p = p, .o = o, .countname = countname, .timemax = timemax};
    flame_colorer_init(&fc.col, o->colors, o->shade, o->random_seed);
    if (profile_is_diff(p)) {
        fc.maxdelta = 1; /* as flamegraph.pl: changes of 1 or less are not full colour */
        for (uint32_t n = 0; n < p->nnodes; n++) {
            double d = fabs(self_delta(p, n, false));
            if (d > fc.maxdelta)
                fc.maxdelta = d;
        }
    }
    if (o->colors && strcmp(o->colors, "chain") == 0 && !fc.maxdelta) {
        /* parents precede their children in the node array */
        fc.waker = xcalloc(p->nnodes, sizeof *fc.waker);
        for (uint32_t n = 1; n < p->nnodes; n++) {
            uint32_t up = p->nodes[n].parent;
            fc.waker[n] = fc.waker[up] ||
                          (up != PROFILE_ROOT && strcmp(profile_node_name(p, up), "--") == 0);
        }
    }

    double ypad1 = fs * 3 + (o->subtitle ? fs * 2 : 0) + (o->legend ? fs * 2 : 0);
    double ypad2 = fs * 2 + 10;
    double height = (double)(L.max_depth + 1) * fh + ypad1 + ypad2;
    if (!total)
        height = ypad1 + ypad2 + fh * 2;
    bool links = o->nameattr && o->nameattr->any_href;

    if (standalone) {
        sb_add(out, "<?xml version=\"1.0\"");
        if (o->encoding)
            sb_addf(out, " encoding=\"%s\"", o->encoding); /* flame_encoding_valid's name */
        sb_add(out, " standalone=\"no\"?>\n");
    }
    sb_add(out, "<svg version=\"1.1\" class=\"flamegraph\"");
    if (id_prefix && *id_prefix) {
        sb_add(out, " id=\"");
        esc_xml(out, id_prefix);
        sb_add(out, "flamegraph\"");
    }
    sb_addf(out,
            " width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\""
            " xmlns=\"http://www.w3.org/2000/svg\"%s font-family=\"",
            width, height, width, height,
            links ? " xmlns:xlink=\"http://www.w3.org/1999/xlink\"" : "");
    esc_xml(out, o->fonttype ? o->fonttype : "Verdana, sans-serif");
    sb_addf(out, "\" font-size=\"%.0f\" data-fg-xpad=\"%.0f\" data-fg-inverted=\"%d\""
                 " data-fg-total=\"%llu\" data-fg-countname=\"",
            fs, XPAD, o->inverted ? 1 : 0, (unsigned long long)timemax);
    esc_xml(out, countname);
    sb_addc(out, '"');
    if (fw != CHAR_WIDTH)
        sb_addf(out, " data-fg-fontwidth=\"%.3f\"", fw);
    if (o->nametype) {
        sb_add(out, " data-fg-nametype=\"");
        esc_xml(out, o->nametype);
        sb_addc(out, '"');
    }
    sb_add(out, ">\n");
    if (o->notes) {
        sb_add(out, "<desc class=\"fg-notes\">");
        esc_xml(out, o->notes);
        sb_add(out, "</desc>\n");
    }

    /* background, title, controls */
    char bg1[8], bg2[8];
    if (o->bgcolors && flame_bgcolors(o->bgcolors, bg1, bg2)) {
        struct strbuf gid = STRBUF_INIT;
        esc_xml(&gid, id_prefix ? id_prefix : "");
        sb_add(&gid, "flamegraph-bg");
        sb_addf(out,
                "<defs><linearGradient id=\"%s\" x1=\"0\" x2=\"0\" y1=\"0\" y2=\"1\">"
                "<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" "
                "offset=\"95%%\"/></linearGradient></defs>\n"
                "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"url(#%s)\"/>\n",
                gid.buf, bg1, bg2, width, height, gid.buf);
        sb_free(&gid);
    } else {
        sb_addf(out, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#f8f8f4\"/>\n",
                width, height);
    }
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
    if (o->legend && total && flame_colorer_by_kind(&fc.col) && !fc.maxdelta)
        legend(p, o->colors, width, (o->subtitle ? fs * 4 : fs * 2) + fs * 1.8, fs, out);
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

    if (o->stroke && standalone && flame_color_valid(o->stroke))
        sb_addf(out, "<style>.fg-frames rect{stroke:%s;stroke-width:1}</style>\n", o->stroke);
    sb_add(out, "<g class=\"fg-frames\">\n");
    char color[32];
    struct strbuf shown = STRBUF_INIT;
    for (size_t i = 0; i < L.n; i++) {
        const struct drawn *d = &L.v[i];
        bool root = d->node == PROFILE_ROOT;
        /* the root spans the full width: --total's count when given */
        uint64_t cnt = root ? timemax : p->nodes[d->node].total;
        double x = XPAD + (double)d->x0 * per;
        double w = (double)cnt * per;
        double y = o->inverted ? ypad1 + d->depth * fh
                               : height - ypad2 - (double)(d->depth + 1) * fh;
        const char *name = root ? "all" : profile_node_name(p, d->node);
        enum frame_kind kind = root ? FRAME_USER : profile_node_kind(p, d->node);
        frame_fill(&fc, d->node, name, kind, color, sizeof color);
        sb_reset(&shown);
        sb_add(&shown, name);
        if (has_suffix(name, "_[w]")) /* the chain palette's waker mark: not shown */
            shown.len -= 4, shown.buf[shown.len] = '\0';

        const struct flame_attrs *at = NULL;
        if (o->nameattr && !root) {
            annotated(&fc.key, name, kind);
            at = flame_nameattr_get(o->nameattr, sb_str(&fc.key));
            if (!at)
                at = flame_nameattr_get(o->nameattr, name);
        }
        sb_add(out, "<g");
        if (at)
            add_attrs(out, at->g, at->ng);
        sb_add(out, "><title>");
        frame_title(&fc, d->node, sb_str(&shown), cnt, out);
        if (root && hidden) {
            sb_add(out, "\nNot drawn: frames below level ");
            sb_addf(out, "%u", L.max_depth);
            sb_add(out, ", where ");
            sb_add_fixed(out, 100.0 * (double)hidden / (double)timemax, 2);
            sb_add(out, "% of the total reaches deeper (the .folded file has it all)");
        }
        const char *src = profile_node_source(p, d->node);
        if (src) {
            sb_addc(out, '\n');
            esc_xml(out, src);
        }
        if (at && at->title) {
            sb_addc(out, '\n');
            esc_xml(out, at->title);
        }
        sb_add(out, "</title>");
        if (at && at->href) {
            sb_add(out, "<a href=\"");
            esc_xml(out, at->href);
            sb_add(out, "\" xlink:href=\"");
            esc_xml(out, at->href);
            sb_add(out, "\" target=\"");
            esc_xml(out, at->target ? at->target : "_top");
            sb_addc(out, '"');
            add_attrs(out, at->a, at->na);
            sb_addc(out, '>');
        }
        /* sb_add_fixed writes what "%.2f" / "%.1f" would, at a fraction of
         * printf's cost: these numbers were most of a large graph's time */
        sb_add(out, "<rect x=\"");
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
        add_fitted(out, sb_str(&shown), (long)((w - 3) / (fs * fw)));
        sb_add(out, "</text>");
        if (at && at->href)
            sb_add(out, "</a>");
        sb_add(out, "</g>\n");
    }
    sb_add(out, "</g>\n");
    sb_free(&shown);
    sb_free(&fc.key);
    free(fc.waker);
    free(L.v);

    if (standalone) {
        sb_add(out, "<script type=\"text/ecmascript\">");
        add_cdata(out, asset_flamegraph_js);
        sb_add(out, "</script>\n");
    }
    sb_add(out, "</svg>\n");
    if (standalone && o->encoding && strcasecmp(o->encoding, "UTF-8") != 0 &&
        strcasecmp(o->encoding, "UTF8") != 0)
        to_ascii(out, doc_start);
}

/* The graph of p as it is (flamegraph.pl's order), or reversed. */
static void render_as_asked(const struct profile *p, const struct flame_opts *o, bool standalone,
                            const char *id_prefix, struct strbuf *out)
{
    if (o->reverse && !p->chart) {
        struct profile *r = profile_is_diff(p) ? profile_reversed_diff(p) : profile_reversed(p);
        render(r, o, standalone, id_prefix, out);
        profile_free(r);
    } else {
        render(p, o, standalone, id_prefix, out);
    }
}

void svg_flame_render(const struct profile *p, const struct flame_opts *o, bool standalone,
                      const char *id_prefix, struct strbuf *out)
{
    struct flame_opts def;
    if (!o) {
        flame_opts_default(&def);
        o = &def;
    }
    /* Folded once, never again on the result: a name the fold wrote ("[a ×2")
     * may equal the frame above it, and folding until no run was left took
     * one pass, and one more profile kept, per such level (a line of names
     * "[a", "[a", "[a ×2", "[a ×2 ×2" ... cost about D^3 bytes for D frames). */
    struct profile *f = o->report ? flame_report_folded(p, NULL) : NULL;
    render_as_asked(f ? f : p, o, standalone, id_prefix, out);
    profile_free(f);
}
