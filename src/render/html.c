/* Renderer "html": index.html made from report.md with cmark.
 *
 * Safety model: the Markdown text is parsed, then every raw-HTML node that
 * came out of the parser is turned into plain text, so nothing written in
 * the Markdown (host strings included, even if escaping upstream failed) can
 * become markup.  Only after that do we add our own raw-HTML nodes (tables,
 * inline SVG charts), and only then is the tree rendered with
 * CMARK_OPT_UNSAFE, which therefore emits nothing but our own HTML.
 *
 * Core cmark has no table extension, so GFM pipe tables arrive as
 * paragraphs; we recognise them from their source lines and build the
 * <table> ourselves, rendering each cell through cmark (same sanitising).
 *
 * The output is XHTML-compatible (well-formed XML) so xmllint can check it. */
#include "html.h"
#include "charts.h"
#include "hists.h"
#include "escape.h"
#include "md_common.h"
#include "markdown.h"
#include "renderer.h"
#include "svg_flame.h"
#include "../model/model.h"
#include "../util/sha256.h"
#include "../util/xalloc.h"
#include "assets.h"
#include <cmark.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* ---- source lines ------------------------------------------------------ */

struct lines {
    const char *text;
    size_t *off, *len; /* index 0 is line 1 */
    size_t n;
};

static void lines_split(struct lines *l, const char *text)
{
    size_t cap = 0;
    l->text = text;
    l->off = NULL;
    l->len = NULL;
    l->n = 0;
    size_t cap2 = 0;
    const char *p = text;
    for (;;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (!nl && len == 0)
            break;
        xgrow(&l->off, &cap, l->n + 1, sizeof *l->off);
        xgrow(&l->len, &cap2, l->n + 1, sizeof *l->len);
        l->off[l->n] = (size_t)(p - text);
        l->len[l->n] = len;
        l->n++;
        if (!nl)
            break;
        p = nl + 1;
    }
}

static void lines_free(struct lines *l)
{
    free(l->off);
    free(l->len);
}

/* ---- tree helpers ------------------------------------------------------- */

struct nodes {
    cmark_node **v;
    size_t n, cap;
};

/* Pre-order list of the nodes under root of the given types. */
static void collect(cmark_node *root, cmark_node_type a, cmark_node_type b, struct nodes *out)
{
    cmark_iter *it = cmark_iter_new(root);
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        if (ev != CMARK_EVENT_ENTER)
            continue;
        cmark_node *n = cmark_iter_get_node(it);
        cmark_node_type t = cmark_node_get_type(n);
        if (t == a || t == b) {
            xgrow(&out->v, &out->cap, out->n + 1, sizeof *out->v);
            out->v[out->n++] = n;
        }
    }
    cmark_iter_free(it);
}

/* Puts `repl` where `old` was and frees `old` (with its subtree).  If the
 * tree refuses the replacement, both are dropped: losing content is better
 * than keeping something unsafe. */
static void replace_node(cmark_node *old, cmark_node *repl)
{
    if (!cmark_node_replace(old, repl))
        cmark_node_free(repl);
    cmark_node_free(old);
}

static cmark_node *new_literal(cmark_node_type t, const char *lit)
{
    cmark_node *n = cmark_node_new(t);
    if (!n) {
        fputs("perfreport: out of memory\n", stderr);
        exit(3);
    }
    cmark_node_set_literal(n, lit);
    return n;
}

/* Text content of a subtree: text and code literals, breaks as spaces. */
static void plain_text(cmark_node *root, struct strbuf *out)
{
    cmark_iter *it = cmark_iter_new(root);
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        if (ev != CMARK_EVENT_ENTER)
            continue;
        cmark_node *n = cmark_iter_get_node(it);
        switch (cmark_node_get_type(n)) {
        case CMARK_NODE_TEXT:
        case CMARK_NODE_CODE:
        case CMARK_NODE_CODE_BLOCK:
        case CMARK_NODE_HTML_INLINE:
        case CMARK_NODE_HTML_BLOCK: {
            const char *lit = cmark_node_get_literal(n);
            sb_add(out, lit ? lit : "");
            break;
        }
        case CMARK_NODE_SOFTBREAK:
        case CMARK_NODE_LINEBREAK:
            sb_addc(out, ' ');
            break;
        default:
            break;
        }
    }
    cmark_iter_free(it);
}

/* ---- step a: raw HTML from the parser becomes text ---------------------- */

static void neutralize_raw_html(cmark_node *root)
{
    struct nodes ns = {0};
    collect(root, CMARK_NODE_HTML_BLOCK, CMARK_NODE_HTML_INLINE, &ns);
    for (size_t i = 0; i < ns.n; i++) {
        cmark_node *n = ns.v[i];
        const char *lit = cmark_node_get_literal(n);
        if (cmark_node_get_type(n) == CMARK_NODE_HTML_INLINE) {
            replace_node(n, new_literal(CMARK_NODE_TEXT, lit ? lit : ""));
            continue;
        }
        char *copy = xstrdup(lit ? lit : "");
        size_t len = strlen(copy);
        while (len > 0 && (copy[len - 1] == '\n' || copy[len - 1] == '\r'))
            copy[--len] = '\0';
        cmark_node *p = cmark_node_new(CMARK_NODE_PARAGRAPH);
        if (!p) {
            fputs("perfreport: out of memory\n", stderr);
            exit(3);
        }
        cmark_node *t = new_literal(CMARK_NODE_TEXT, copy);
        free(copy);
        if (!cmark_node_append_child(p, t))
            cmark_node_free(t);
        replace_node(n, p);
    }
    free(ns.v);
}

/* ---- step c: charts inline, everything else that points outside as text -- */

static void remove_xmlns(struct strbuf *svg)
{
    /* Inline SVG in HTML needs no namespace, and index.html should not even
     * mention an external-looking URL. */
    static const char ns[] = " xmlns=\"http://www.w3.org/2000/svg\"";
    char *p = strstr(svg->buf ? svg->buf : "", ns);
    if (!p)
        return;
    size_t nl = sizeof ns - 1;
    memmove(p, p + nl, svg->len - (size_t)(p - svg->buf) - nl + 1);
    svg->len -= nl;
}

/* Moves n's children in front of it and deletes n. */
static void unwrap(cmark_node *n)
{
    cmark_node *c;
    while ((c = cmark_node_first_child(n)) != NULL) {
        if (!cmark_node_insert_before(n, c)) {
            cmark_node_free(c);
        }
    }
    cmark_node_free(n);
}

/* Replaces image node img by the inline SVG (consumed), in a <figure> of
 * class `cls` when the image is alone in its paragraph, else a <span>. */
static void svg_node(struct strbuf *svg_in, cmark_node *img, const char *cls, bool inline_only)
{
    struct strbuf svg = *svg_in, html = STRBUF_INIT;
    remove_xmlns(&svg);
    cmark_node *parent = cmark_node_parent(img);
    bool alone = parent && cmark_node_get_type(parent) == CMARK_NODE_PARAGRAPH &&
                 cmark_node_first_child(parent) == img && cmark_node_last_child(parent) == img;
    if (alone && !inline_only) {
        sb_addf(&html, "<figure class=\"%s\">\n", cls);
        sb_add(&html, sb_str(&svg));
        sb_add(&html, "</figure>\n");
        replace_node(parent, new_literal(CMARK_NODE_HTML_BLOCK, sb_str(&html)));
    } else {
        sb_addf(&html, "<span class=\"%s\">", cls);
        sb_add(&html, sb_str(&svg));
        sb_add(&html, "</span>");
        replace_node(img, new_literal(CMARK_NODE_HTML_INLINE, sb_str(&html)));
    }
    sb_free(&svg);
    sb_free(&html);
}

/* The interactive flame graph in place of its image paragraph.  Every graph
 * gets its own id prefix; the page includes flamegraph.js once. */
static void flame_node(const struct profile *p, size_t index, cmark_node *img)
{
    struct strbuf svg = STRBUF_INIT;
    struct flame_opts o;
    flame_opts_for(p, &o);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "fg%zu-", index);
    svg_flame_render(p, &o, false, prefix, &svg);
    /* The search box's XHTML namespace: the HTML parser puts elements inside
     * foreignObject in the HTML namespace anyway, and the page must not
     * mention a URL. */
    static const char xns[] = " xmlns=\"http://www.w3.org/1999/xhtml\"";
    for (char *q; (q = strstr(svg.buf ? svg.buf : "", xns)) != NULL;) {
        size_t nl = sizeof xns - 1;
        memmove(q, q + nl, svg.len - (size_t)(q - svg.buf) - nl + 1);
        svg.len -= nl;
    }
    svg_node(&svg, img, "flame", false);
}

static void rewrite_links_images(const struct report *r, cmark_node *root, bool inline_only)
{
    struct nodes ns = {0};
    collect(root, CMARK_NODE_IMAGE, CMARK_NODE_LINK, &ns);
    /* Reverse pre-order: descendants before their ancestors, so no node is
     * touched after an ancestor's rewrite freed it. */
    for (size_t i = ns.n; i-- > 0;) {
        cmark_node *n = ns.v[i];
        const char *url = cmark_node_get_url(n);
        if (!url)
            url = "";
        if (cmark_node_get_type(n) == CMARK_NODE_IMAGE) {
            const struct series *s = chart_by_filename(r, url);
            const struct hist *h = s ? NULL : hist_by_filename(r, url);
            size_t fi = 0;
            const struct profile *fp =
                s || h || inline_only ? NULL : flame_by_filename(r, url, &fi);
            struct strbuf svg = STRBUF_INIT;
            if (s)
                svg_series_render(r, s, &svg);
            else if (h)
                svg_hist_render(h, &svg);
            if (s || h)
                svg_node(&svg, n, "chart", inline_only);
            else if (fp)
                flame_node(fp, fi, n);
            else
                unwrap(n); /* the alt text stays */
        } else if (url[0] != '#') {
            unwrap(n);
        }
    }
    free(ns.v);
}

/* ---- step b: GFM pipe tables -------------------------------------------- */

enum align { AL_NONE, AL_LEFT, AL_CENTER, AL_RIGHT };

struct row {
    char **cell;
    size_t n, cap;
};

static void row_free(struct row *rw)
{
    for (size_t i = 0; i < rw->n; i++)
        free(rw->cell[i]);
    free(rw->cell);
    rw->cell = NULL;
    rw->n = rw->cap = 0;
}

static void row_push(struct row *rw, const char *s, size_t len)
{
    while (len > 0 && (s[0] == ' ' || s[0] == '\t')) {
        s++;
        len--;
    }
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    xgrow(&rw->cell, &rw->cap, rw->n + 1, sizeof *rw->cell);
    rw->cell[rw->n++] = xstrndup(s, len);
}

/* Splits a table row on unescaped '|'.  "\|" becomes a literal '|' in the
 * cell (GFM does this before inline parsing, code spans included); any
 * other backslash pair is kept for the inline parser.  Outer pipes are
 * optional.  Returns the number of unescaped pipes seen. */
static size_t split_row(const char *s, size_t len, struct row *out)
{
    while (len > 0 && (s[0] == ' ' || s[0] == '\t'))
        s++, len--;
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        len--;
    size_t pipes = 0;
    if (len > 0 && s[0] == '|') {
        s++, len--;
        pipes++;
    }
    if (len > 0 && s[len - 1] == '|') {
        size_t bs = 0;
        while (bs + 1 < len && s[len - 2 - bs] == '\\')
            bs++;
        if (bs % 2 == 0) {
            len--;
            pipes++;
        }
    }
    struct strbuf cur = STRBUF_INIT;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\' && i + 1 < len) {
            if (s[i + 1] != '|')
                sb_addc(&cur, '\\');
            sb_addc(&cur, s[i + 1]);
            i++;
        } else if (s[i] == '|') {
            row_push(out, sb_str(&cur), cur.len);
            sb_reset(&cur);
            pipes++;
        } else {
            sb_addc(&cur, s[i]);
        }
    }
    row_push(out, sb_str(&cur), cur.len);
    sb_free(&cur);
    return pipes;
}

/* A delimiter row: |---|:--:|---:| ; fills al[0..n). */
static bool parse_delim(const char *s, size_t len, struct row *rw, enum align **al)
{
    if (!memchr(s, '|', len) && !memchr(s, '-', len))
        return false;
    size_t pipes = split_row(s, len, rw);
    if (pipes == 0 || rw->n == 0)
        return false;
    *al = xcalloc(rw->n, sizeof **al);
    for (size_t i = 0; i < rw->n; i++) {
        const char *c = rw->cell[i];
        size_t cl = strlen(c);
        if (cl == 0)
            return false;
        bool left = c[0] == ':', right = c[cl - 1] == ':';
        size_t a = left, b = cl - (right && cl > 1);
        if (b <= a)
            return false;
        for (size_t k = a; k < b; k++)
            if (c[k] != '-')
                return false;
        (*al)[i] = left && right ? AL_CENTER : right ? AL_RIGHT : left ? AL_LEFT : AL_NONE;
    }
    return true;
}

/* "12", "-3.5", "1,234", "45 %", "3.2 ms", "12k", "1.5 GiB", "2/s" */
static bool looks_numeric(const char *s)
{
    while (*s == ' ')
        s++;
    if (*s == '+' || *s == '-')
        s++;
    size_t digits = 0;
    bool dot = false;
    for (; *s; s++) {
        if (isdigit((unsigned char)*s))
            digits++;
        else if (*s == '.' && !dot)
            dot = true;
        else if (*s == ',' && digits > 0 && isdigit((unsigned char)s[1]))
            continue;
        else
            break;
    }
    if (digits == 0)
        return false;
    if (*s == ' ')
        s++;
    size_t unit = 0;
    for (; *s; s++, unit++) {
        unsigned char c = (unsigned char)*s;
        if (!(isalpha(c) || c == '%' || c == '/' || c >= 0x80))
            return false;
    }
    return unit <= 8;
}

static const char *severity_class(const char *plain)
{
    static const struct {
        const char *word, *cls;
    } words[] = {{"critical", "sev-critical"}, {"crit", "sev-critical"},
                 {"warning", "sev-warning"},   {"warn", "sev-warning"},
                 {"info", "sev-info"},         {"ok", "sev-ok"}};
    while (*plain == ' ')
        plain++;
    size_t len = strlen(plain);
    while (len > 0 && plain[len - 1] == ' ')
        len--;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i].word) == len && strncasecmp(plain, words[i].word, len) == 0)
            return words[i].cls;
    return NULL;
}

struct cell_out {
    char *html;  /* inline HTML */
    char *plain; /* text content, for classification */
};

/* Renders one cell's Markdown as inline HTML through cmark, with the same
 * sanitising as the document. */
static void cell_render(const struct report *r, const char *text, struct cell_out *co)
{
    struct strbuf html = STRBUF_INIT, plain = STRBUF_INIT;
    cmark_node *doc = cmark_parse_document(text, strlen(text), CMARK_OPT_DEFAULT);
    if (!doc) {
        fputs("perfreport: out of memory\n", stderr);
        exit(3);
    }
    neutralize_raw_html(doc);
    rewrite_links_images(r, doc, true);
    cmark_node *p = cmark_node_first_child(doc);
    if (p && cmark_node_get_type(p) == CMARK_NODE_PARAGRAPH && !cmark_node_next(p)) {
        char *h = cmark_render_html(p, CMARK_OPT_UNSAFE);
        size_t hl = strlen(h);
        const char *b = h;
        if (strncmp(b, "<p>", 3) == 0) {
            b += 3;
            hl -= 3;
        }
        while (hl > 0 && b[hl - 1] == '\n')
            hl--;
        if (hl >= 4 && strncmp(b + hl - 4, "</p>", 4) == 0)
            hl -= 4;
        sb_addn(&html, b, hl);
        free(h);
        plain_text(p, &plain);
    } else if (p) {
        /* The cell parsed as a block ("1.", "# x", "- y"): show its text. */
        plain_text(doc, &plain);
        esc_xml(&html, sb_str(&plain));
    }
    cmark_node_free(doc);
    co->html = sb_detach(&html);
    co->plain = sb_detach(&plain);
}

static void cell_emit(struct strbuf *out, const char *tag, const struct cell_out *co, bool num,
                      enum align al)
{
    const char *sev = severity_class(co->plain);
    const char *alc = al == AL_CENTER ? "center" : NULL;
    bool right = num || al == AL_RIGHT;
    /* Long text (command lines, paths) gets a minimum width so a narrow
     * screen scrolls the table instead of wrapping it one word per line. */
    bool wide = !right && strlen(co->plain) > 40;
    sb_addf(out, "<%s", tag);
    if (right || alc || sev || wide) {
        sb_add(out, " class=\"");
        const char *sep = "";
        if (right) {
            sb_add(out, "num");
            sep = " ";
        } else if (alc) {
            sb_add(out, alc);
            sep = " ";
        }
        if (wide) {
            sb_addf(out, "%swide", sep);
            sep = " ";
        }
        if (sev)
            sb_addf(out, "%ssev %s", sep, sev);
        sb_addc(out, '"');
    }
    sb_addf(out, ">%s</%s>", co->html, tag);
}

struct table_src {
    struct row head;
    enum align *al;
    struct row *body;
    size_t nbody;
};

static void table_html(const struct report *r, const struct table_src *ts, struct strbuf *out)
{
    size_t nc = ts->head.n;
    struct cell_out *hc = xcalloc(nc, sizeof *hc);
    struct cell_out *bc = xcalloc(ts->nbody * nc + 1, sizeof *bc);
    bool *colnum = xcalloc(nc, sizeof *colnum);
    for (size_t c = 0; c < nc; c++)
        cell_render(r, ts->head.cell[c], &hc[c]);
    for (size_t i = 0; i < ts->nbody; i++)
        for (size_t c = 0; c < nc; c++)
            cell_render(r, c < ts->body[i].n ? ts->body[i].cell[c] : "", &bc[i * nc + c]);
    /* A column is numeric when every non-empty body cell looks like a number;
     * its header is then right-aligned with it. */
    for (size_t c = 0; c < nc; c++) {
        size_t seen = 0, numeric = 0;
        for (size_t i = 0; i < ts->nbody; i++) {
            const char *p = bc[i * nc + c].plain;
            if (!*p || strcmp(p, "-") == 0 || strcmp(p, "\xE2\x80\x94") == 0)
                continue;
            seen++;
            numeric += looks_numeric(p);
        }
        colnum[c] = seen > 0 && numeric == seen;
    }

    sb_add(out, "<div class=\"table-wrap\"><table>\n<thead><tr>");
    for (size_t c = 0; c < nc; c++)
        cell_emit(out, "th", &hc[c], colnum[c], ts->al[c]);
    sb_add(out, "</tr></thead>\n");
    if (ts->nbody) {
        sb_add(out, "<tbody>\n");
        for (size_t i = 0; i < ts->nbody; i++) {
            sb_add(out, "<tr>");
            for (size_t c = 0; c < nc; c++) {
                const struct cell_out *co = &bc[i * nc + c];
                cell_emit(out, "td", co, colnum[c] || looks_numeric(co->plain), ts->al[c]);
            }
            sb_add(out, "</tr>\n");
        }
        sb_add(out, "</tbody>\n");
    }
    sb_add(out, "</table></div>\n");

    for (size_t c = 0; c < nc; c++) {
        free(hc[c].html);
        free(hc[c].plain);
    }
    for (size_t i = 0; i < ts->nbody * nc; i++) {
        free(bc[i].html);
        free(bc[i].plain);
    }
    free(hc);
    free(bc);
    free(colnum);
}

static int block_quote_depth(cmark_node *n)
{
    int d = 0;
    for (cmark_node *p = cmark_node_parent(n); p; p = cmark_node_parent(p))
        d += cmark_node_get_type(p) == CMARK_NODE_BLOCK_QUOTE;
    return d;
}

/* Text of source line `ln` (1-based) of a paragraph: the first line starts
 * at the block's column (after list markers and '>'), later ones lose their
 * container prefix: indentation and `quotes` block-quote markers. */
static void para_line(const struct lines *l, int ln, int first_ln, int first_col, int quotes,
                      const char **s, size_t *len)
{
    size_t i = (size_t)ln - 1;
    *s = l->text + l->off[i];
    *len = l->len[i];
    if (ln == first_ln) {
        if (first_col > 1 && (size_t)(first_col - 1) <= *len) {
            *s += first_col - 1;
            *len -= (size_t)(first_col - 1);
        }
        return;
    }
    for (int q = 0; q < quotes; q++) {
        while (*len > 0 && (**s == ' ' || **s == '\t'))
            (*s)++, (*len)--;
        if (*len == 0 || **s != '>')
            break; /* a lazy continuation line */
        (*s)++, (*len)--;
    }
}

/* Replaces a paragraph that is a pipe table (possibly after some lines of
 * ordinary text) by one raw-HTML block of our making.  Returns true if it
 * did. */
static bool convert_table(const struct report *r, const struct lines *l, cmark_node *para)
{
    int sl = cmark_node_get_start_line(para), el = cmark_node_get_end_line(para);
    int col = cmark_node_get_start_column(para);
    int quotes = block_quote_depth(para);
    if (sl < 1 || el <= sl || (size_t)el > l->n)
        return false;
    for (int i = sl; i < el; i++) {
        const char *hs, *ds;
        size_t hl, dl;
        para_line(l, i, sl, col, quotes, &hs, &hl);
        para_line(l, i + 1, sl, col, quotes, &ds, &dl);
        struct table_src ts = {0};
        struct row delim = {0};
        bool ok = parse_delim(ds, dl, &delim, &ts.al);
        if (ok) {
            split_row(hs, hl, &ts.head);
            ok = ts.head.n == delim.n;
        }
        row_free(&delim);
        if (!ok) {
            row_free(&ts.head);
            free(ts.al);
            continue;
        }
        ts.nbody = (size_t)(el - i - 1);
        ts.body = xcalloc(ts.nbody + 1, sizeof *ts.body);
        for (size_t k = 0; k < ts.nbody; k++) {
            const char *bs;
            size_t bl;
            para_line(l, i + 2 + (int)k, sl, col, quotes, &bs, &bl);
            split_row(bs, bl, &ts.body[k]);
        }

        struct strbuf html = STRBUF_INIT;
        if (i > sl) {
            /* Text lines before the table stay an ordinary paragraph. */
            struct strbuf pre = STRBUF_INIT;
            for (int k = sl; k < i; k++) {
                const char *ps;
                size_t pl;
                para_line(l, k, sl, col, quotes, &ps, &pl);
                sb_addn(&pre, ps, pl);
                sb_addc(&pre, '\n');
            }
            cmark_node *doc = cmark_parse_document(pre.buf, pre.len, CMARK_OPT_DEFAULT);
            if (doc) {
                neutralize_raw_html(doc);
                rewrite_links_images(r, doc, true);
                char *h = cmark_render_html(doc, CMARK_OPT_UNSAFE);
                sb_add(&html, h);
                free(h);
                cmark_node_free(doc);
            }
            sb_free(&pre);
        }
        table_html(r, &ts, &html);
        replace_node(para, new_literal(CMARK_NODE_HTML_BLOCK, sb_str(&html)));
        sb_free(&html);
        row_free(&ts.head);
        for (size_t k = 0; k < ts.nbody; k++)
            row_free(&ts.body[k]);
        free(ts.body);
        free(ts.al);
        return true;
    }
    return false;
}

static void convert_tables(const struct report *r, const struct lines *l, cmark_node *root)
{
    struct nodes ns = {0};
    collect(root, CMARK_NODE_PARAGRAPH, CMARK_NODE_PARAGRAPH, &ns);
    /* Paragraphs never nest, so freeing one cannot invalidate another. */
    for (size_t i = 0; i < ns.n; i++)
        convert_table(r, l, ns.v[i]);
    free(ns.v);
}

/* ---- the fragment and the document ------------------------------------- */

/* Control bytes and invalid UTF-8 are illegal in XML; host text reaches us
 * through esc_md, which already removed them, but the HTML must stay
 * well-formed anyway.  Tables are built from these source lines, so this is
 * done here rather than left to cmark's own input check. */
static char *clean_source(const char *md)
{
    struct strbuf sb = STRBUF_INIT;
    const unsigned char *p = (const unsigned char *)md;
    size_t len = strlen(md);
    while (len) {
        unsigned cp;
        size_t n = utf8_decode(p, len, &cp);
        if (n == 0) {
            sb_add(&sb, "\xEF\xBF\xBD");
            p++;
            len--;
            continue;
        }
        if ((cp < 0x20 && cp != '\n' && cp != '\t' && cp != '\r') || cp == 0x7F)
            sb_addc(&sb, ' ');
        else if (cp == 0xFFFE || cp == 0xFFFF)
            sb_add(&sb, "\xEF\xBF\xBD");
        else
            sb_addn(&sb, (const char *)p, n);
        p += n;
        len -= n;
    }
    return sb_detach(&sb);
}

/* The banner already shows the headline; drop the same sentence if the
 * Markdown opens with it, so the first screen does not repeat itself. */
static void drop_repeated_headline(const struct report *r, cmark_node *doc)
{
    if (!r->headline || !*r->headline)
        return;
    cmark_node *n = cmark_node_first_child(doc);
    for (int k = 0; n && k < 4; k++) {
        cmark_node *next = cmark_node_next(n);
        cmark_node_type t = cmark_node_get_type(n);
        if (t == CMARK_NODE_PARAGRAPH || t == CMARK_NODE_BLOCK_QUOTE) {
            struct strbuf pt = STRBUF_INIT;
            plain_text(n, &pt);
            /* The Markdown prefixes the severity word ("CRITICAL: ..."). */
            size_t pl = pt.len, hl = strlen(r->headline);
            bool same = pl >= hl && strcmp(sb_str(&pt) + pl - hl, r->headline) == 0;
            sb_free(&pt);
            if (same) {
                cmark_node_free(n);
                return;
            }
        }
        n = next;
    }
}

/* ---- step d: anchors on headings ---------------------------------------- */

/* Every heading gets the id that report.md's links use (md_slugs_add, in
 * document order), so the contents line and the findings' evidence links
 * land on their sections. */
static void anchor_headings(cmark_node *root)
{
    struct nodes ns = {0};
    collect(root, CMARK_NODE_HEADING, CMARK_NODE_HEADING, &ns);
    struct md_slugs slugs = {0};
    for (size_t i = 0; i < ns.n; i++) {
        cmark_node *h = ns.v[i];
        int level = cmark_node_get_heading_level(h);
        struct strbuf text = STRBUF_INIT, html = STRBUF_INIT;
        plain_text(h, &text);
        const char *slug = md_slugs_add(&slugs, sb_str(&text));
        sb_addf(&html, "<h%d id=\"", level);
        esc_xml(&html, slug);
        sb_add(&html, "\">");
        esc_xml(&html, sb_str(&text));
        sb_addf(&html, "</h%d>\n", level);
        replace_node(h, new_literal(CMARK_NODE_HTML_BLOCK, sb_str(&html)));
        sb_free(&text);
        sb_free(&html);
    }
    md_slugs_free(&slugs);
    free(ns.v);
}

static void fragment(const struct report *r, const char *md, bool dedupe, struct strbuf *out)
{
    char *src = clean_source(md);
    struct lines l;
    lines_split(&l, src);
    cmark_node *doc =
        cmark_parse_document(src, strlen(src), CMARK_OPT_DEFAULT | CMARK_OPT_SOURCEPOS);
    if (!doc) {
        fputs("perfreport: out of memory\n", stderr);
        exit(3);
    }
    neutralize_raw_html(doc); /* a: before any node of ours exists */
    convert_tables(r, &l, doc); /* b */
    rewrite_links_images(r, doc, false); /* c */
    anchor_headings(doc); /* d */
    if (dedupe)
        drop_repeated_headline(r, doc);
    char *h = cmark_render_html(doc, CMARK_OPT_UNSAFE);
    sb_add(out, h);
    free(h);
    cmark_node_free(doc);
    lines_free(&l);
    free(src);
}

void html_from_markdown(const struct report *r, const char *md, struct strbuf *out)
{
    fragment(r, md, false, out);
}

static const char *sev_class(const struct report *r)
{
    switch (report_worst_severity(r)) {
    case SEV_CRITICAL: return "critical";
    case SEV_WARNING: return "warning";
    case SEV_INFO: return "info";
    default: return "ok";
    }
}

static const char *sev_label(const struct report *r)
{
    switch (report_worst_severity(r)) {
    case SEV_CRITICAL: return "Critical";
    case SEV_WARNING: return "Warning";
    case SEV_INFO: return "Info";
    default: return "OK";
    }
}

/* The script's text inside a CDATA section commented out for JavaScript, so
 * index.html stays well-formed XML; the CSP hash covers exactly this text. */
#define SCRIPT_OPEN "//<![CDATA[\n"
#define SCRIPT_CLOSE "\n//]]>\n"

/* Fills templates/page.html: each @NAME@ slot is replaced by the value our
 * code built (already escaped).  One pass over the template only, so text
 * inside a value is never taken for a slot. */
struct slot {
    const char *name;
    const char *value;
};

static void fill_template(const char *tpl, const struct slot *slots, size_t n, struct strbuf *out)
{
    const char *p = tpl;
    while (*p) {
        const char *at = strchr(p, '@');
        if (!at) {
            sb_add(out, p);
            break;
        }
        sb_addn(out, p, (size_t)(at - p));
        const char *end = strchr(at + 1, '@');
        size_t i = n;
        if (end)
            for (i = 0; i < n; i++)
                if (strlen(slots[i].name) == (size_t)(end - at - 1) &&
                    strncmp(at + 1, slots[i].name, (size_t)(end - at - 1)) == 0)
                    break;
        if (i < n) {
            sb_add(out, slots[i].value);
            p = end + 1;
        } else {
            sb_addc(out, '@');
            p = at + 1;
        }
    }
}

static void banner(const struct report *r, const char *host, const char *headline,
                   struct strbuf *out)
{
    sb_addf(out, "<header class=\"banner banner-%s\">\n", sev_class(r));
    sb_addf(out, "<div class=\"banner-sev\">%s</div>\n<p class=\"banner-headline\">",
            sev_label(r));
    esc_xml(out, headline);
    sb_add(out, "</p>\n<p class=\"banner-meta\">");
    if (host) {
        esc_xml(out, host);
        sb_add(out, " \xC2\xB7 ");
    }
    if (r->window.start_wall.tv_sec > 0) {
        struct tm tm;
        char when[64];
        if (gmtime_r(&r->window.start_wall.tv_sec, &tm) &&
            strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm) > 0)
            sb_addf(out, "%s \xC2\xB7 ", when);
    }
    sb_addf(out, "%.0f s window", r->window.actual_s > 0 ? r->window.actual_s
                                                         : r->window.planned_s);
    if (r->window.target) {
        sb_add(out, " \xC2\xB7 ");
        esc_xml(out, r->window.target);
    }
    sb_add(out, "</p>\n");
    if (r->window.interrupted)
        sb_addf(out,
                "<p class=\"banner-note\">Incomplete: the window was interrupted after "
                "%.1f of %.0f s.</p>\n",
                r->window.actual_s, r->window.planned_s);
    for (size_t i = 0; i < r->ngaps; i++)
        sb_addf(out,
                "<p class=\"banner-note\">Sampling gap: no sample from %.1f s to %.1f s "
                "(%.1f s).</p>\n",
                r->gaps[i].start_s, r->gaps[i].start_s + r->gaps[i].len_s, r->gaps[i].len_s);
    if (r->failed)
        sb_add(out, "<p class=\"banner-note\">The run itself failed; this report is "
                    "partial.</p>\n");
    sb_add(out, "</header>\n");
}

void html_document(const struct report *r, const char *md, struct strbuf *out)
{
    const char *host = kv_get(&r->host, "hostname");
    const char *headline = r->headline && *r->headline ? r->headline : "No findings.";
    /* The body first: whether it holds a flame graph decides the script.
     * Host text is escaped everywhere, so this marker only comes from
     * svg_flame_render. */
    struct strbuf body = STRBUF_INIT;
    fragment(r, md, true, &body);
    bool flames = strstr(sb_str(&body), "<svg version=\"1.1\" class=\"flamegraph\"") != NULL;

    /* default-src 'none' forbids fetching anything, so a stray external
     * reference would fail loudly; the only script allowed is flamegraph.js,
     * by its hash (no 'unsafe-inline'). */
    struct strbuf script_src = STRBUF_INIT, script = STRBUF_INIT;
    if (flames) {
        uint8_t d[32];
        char b64[48];
        struct sha256 c;
        sha256_init(&c);
        sha256_update(&c, SCRIPT_OPEN, sizeof SCRIPT_OPEN - 1);
        sha256_update(&c, asset_flamegraph_js, asset_flamegraph_js_len);
        sha256_update(&c, SCRIPT_CLOSE, sizeof SCRIPT_CLOSE - 1);
        sha256_final(&c, d);
        base64_encode(d, sizeof d, b64);
        sb_addf(&script_src, "'sha256-%s'", b64);
        sb_add(&script, "<script>" SCRIPT_OPEN);
        sb_addn(&script, asset_flamegraph_js, asset_flamegraph_js_len);
        sb_add(&script, SCRIPT_CLOSE "</script>\n");
    } else {
        sb_add(&script_src, "'none'");
    }
    struct strbuf version = STRBUF_INIT, title = STRBUF_INIT, ban = STRBUF_INIT;
    esc_xml(&version, r->tool_version ? r->tool_version : "");
    if (host) {
        esc_xml(&title, host);
        sb_add(&title, ": ");
    }
    esc_xml(&title, headline);
    sb_add(&title, " \xE2\x80\x94 perfreport");
    banner(r, host, headline, &ban);
    const struct slot slots[] = {
        {"SCRIPT_SRC", sb_str(&script_src)}, {"VERSION", sb_str(&version)},
        {"TITLE", sb_str(&title)},           {"CSS", asset_report_css},
        {"BANNER", sb_str(&ban)},            {"BODY", sb_str(&body)},
        {"SCRIPT", sb_str(&script)},
    };
    fill_template(asset_page_html, slots, sizeof slots / sizeof slots[0], out);
    sb_free(&script_src);
    sb_free(&script);
    sb_free(&version);
    sb_free(&title);
    sb_free(&ban);
    sb_free(&body);
}

static int render_html(const struct report *r, const struct out_sink *out)
{
    struct strbuf md = STRBUF_INIT, html = STRBUF_INIT;
    markdown_render(r, &md);
    html_document(r, sb_str(&md), &html);
    int rc = out->write(out->ctx, "index.html", sb_str(&html), html.len);
    sb_free(&md);
    sb_free(&html);
    return rc;
}

const struct renderer renderer_html = {"html", render_html};
