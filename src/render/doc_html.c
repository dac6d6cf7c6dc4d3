/* The document tree as the body of index.html.
 *
 * Every text node is escaped by cmark's HTML renderer; the only markup is
 * what this file writes for headings (with their anchors) and for the
 * custom blocks (tables, charts, histograms, flame graphs) from typed data:
 * a cell's severity class comes from the model, never from its words.  The
 * tree holds no raw HTML from anywhere else, so rendering with
 * CMARK_OPT_UNSAFE emits nothing but ours.  The output is well-formed XML
 * (xmllint checks it). */
#include "doc.h"
#include "heat_html.h"
#include "charts.h"
#include "escape.h"
#include "hists.h"
#include "svg_flame.h"
#include "../util/xalloc.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Noreturn void tree_failed(void)
{
    fputs("perfreport: out of memory rendering the report\n", stderr);
    exit(3);
}

static void drop_text(struct strbuf *sb, const char *what)
{
    /* Inline SVG in HTML needs no namespace, and index.html should not even
     * mention an external-looking URL. */
    for (char *p; (p = strstr(sb->buf ? sb->buf : "", what)) != NULL;) {
        size_t n = strlen(what);
        memmove(p, p + n, sb->len - (size_t)(p - sb->buf) - n + 1);
        sb->len -= n;
    }
}

static const char *sev_class(int sev)
{
    switch (sev) {
    case SEV_CRITICAL: return "sev-critical";
    case SEV_WARNING: return "sev-warning";
    case SEV_INFO: return "sev-info";
    case SEV_NONE: return "sev-ok";
    default: return NULL;
    }
}

static void cell(struct strbuf *out, const char *tag, const struct doc_cell *c, bool num)
{
    const char *text = c->text ? c->text : "-";
    const char *sev = sev_class(c->sev);
    /* Long text (command lines, paths) gets a minimum width so a narrow
     * screen scrolls the table instead of wrapping it one word per line. */
    bool wide = !num && strlen(text) > 40;
    sb_addf(out, "<%s", tag);
    if (num || wide || sev) {
        sb_add(out, " class=\"");
        const char *sep = "";
        if (num) {
            sb_add(out, "num");
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
    sb_addc(out, '>');
    if (sev && c->text) {
        /* the word too: print and colour-blind readers see it */
        static const char *const words[] = {"ok", "info", "warning", "critical"};
        const char *w = c->sev >= 0 && c->sev <= 3 ? words[c->sev] : "";
        if (c->sev >= SEV_WARNING)
            sb_addf(out, "<strong>%s</strong> \xC2\xB7 ", w);
        else
            sb_addf(out, "%s \xC2\xB7 ", w);
    }
    if (c->anchor) {
        sb_add(out, "<a href=\"#");
        esc_xml(out, c->anchor);
        sb_add(out, "\">");
    } else if (c->href) {
        sb_add(out, "<a href=\"");
        esc_xml(out, c->href);
        sb_add(out, "\">");
    }
    if (c->code && c->text)
        sb_add(out, "<code>");
    esc_xml(out, text);
    if (c->code && c->text)
        sb_add(out, "</code>");
    if (c->anchor || c->href)
        sb_add(out, "</a>");
    sb_addf(out, "</%s>", tag);
}

/* A table in the folded sections longer than ROWS_FOLD shows its first
 * ROWS_SHOWN rows on screen; a <details> before it (shown under it) shows
 * the rest, through CSS alone, so it works without script; print shows
 * every row. */
#define ROWS_FOLD 8
#define ROWS_SHOWN 5

static void table(const struct doc_table *t, bool folded, struct strbuf *out)
{
    bool fold = folded && t->nrows > ROWS_FOLD;
    if (fold)
        sb_addf(out,
                "<div class=\"rows\"><details class=\"rows\"><summary><span class=\"rows-closed\">"
                "Show all %zu rows</span><span class=\"rows-open\">Show the first %d rows only"
                "</span></summary></details>\n",
                t->nrows, ROWS_SHOWN);
    sb_add(out, "<div class=\"table-wrap\"><table");
    if (t->cls)
        sb_addf(out, " class=\"%s\"", t->cls);
    sb_add(out, ">\n<thead><tr>");
    for (size_t c = 0; c < t->ncols; c++)
        cell(out, "th", &t->head[c], t->num[c]);
    sb_add(out, "</tr></thead>\n");
    if (t->nrows) {
        sb_add(out, "<tbody>\n");
        for (size_t row = 0; row < t->nrows; row++) {
            sb_add(out, fold && row >= ROWS_SHOWN ? "<tr class=\"more\">" : "<tr>");
            for (size_t c = 0; c < t->ncols; c++)
                cell(out, "td", &t->cells[row * t->ncols + c], t->num[c]);
            sb_add(out, "</tr>\n");
        }
        sb_add(out, "</tbody>\n");
    }
    sb_add(out, "</table></div>\n");
    if (fold)
        sb_add(out, "</div>\n");
}

static void figure(struct strbuf *svg, const char *cls, const char *id, struct strbuf *out)
{
    drop_text(svg, " xmlns=\"http://www.w3.org/2000/svg\"");
    sb_addf(out, "<figure class=\"%s\"", cls);
    if (id) {
        sb_add(out, " id=\"");
        esc_xml(out, id);
        sb_addc(out, '"');
    }
    sb_add(out, ">\n");
    sb_add(out, sb_str(svg));
    sb_add(out, "</figure>\n");
}

static void custom(const struct report *r, const struct doc_block *b, bool folded,
                   struct strbuf *out)
{
    struct strbuf svg = STRBUF_INIT;
    switch (b->kind) {
    case DOC_TABLE: table(&b->table, folded, out); break;
    case DOC_CHART:
        svg_series_render(b->chart_report ? b->chart_report : r, b->series, &svg);
        figure(&svg, "chart", NULL, out);
        break;
    case DOC_HIST:
        svg_hist_render(b->hist, &svg);
        figure(&svg, "chart", NULL, out);
        break;
    case DOC_FLAME: {
        /* The interactive graph; every graph gets its own id prefix and the
         * page includes flamegraph.js once. */
        struct flame_opts o;
        flame_opts_for(b->profile, &o);
        char prefix[32];
        snprintf(prefix, sizeof prefix, "fg%zu-", b->flame_index);
        svg_flame_render(b->profile, &o, false, prefix, &svg);
        /* The search box's XHTML namespace: the HTML parser puts elements
         * inside foreignObject in the HTML namespace anyway. */
        drop_text(&svg, " xmlns=\"http://www.w3.org/1999/xhtml\"");
        figure(&svg, "flame", b->anchor, out);
        heat_html(b->profile, &o, prefix, out);
        break;
    }
    }
    sb_free(&svg);
}

static cmark_node *html_block(const char *html)
{
    cmark_node *n = cmark_node_new(CMARK_NODE_HTML_BLOCK);
    if (!n || !cmark_node_set_literal(n, html))
        tree_failed();
    return n;
}

/* Swaps old for new_node in the tree and frees old. */
static void replace(cmark_node *old, cmark_node *new_node)
{
    if (!cmark_node_replace(old, new_node))
        tree_failed();
    cmark_node_free(old);
}

/* The contents line opens with a link to each flame graph, so the keyboard
 * reaches a graph in two tab stops instead of past every link above it. */
static void skip_links(const struct doc *d, cmark_node *para)
{
    cmark_node *after = cmark_node_first_child(para); /* "Contents:" */
    if (after && cmark_node_next(after))
        after = cmark_node_next(after); /* the space after it */
    struct strbuf html = STRBUF_INIT;
    /* in the profiles' order (the CPU profile first), not the page's */
    size_t next = 0;
    for (size_t i = 0; i < d->nblocks; i++)
        if (d->blocks[i]->kind == DOC_FLAME && d->blocks[i]->flame_index >= next)
            next = d->blocks[i]->flame_index + 1;
    for (size_t idx = 0; idx < next; idx++)
        for (size_t i = 0; i < d->nblocks && after; i++) {
            const struct doc_block *b = d->blocks[i];
            if (b->kind != DOC_FLAME || !b->anchor || b->flame_index != idx)
                continue;
            sb_reset(&html);
            sb_add(&html, "<a class=\"skip\" href=\"#");
            esc_xml(&html, b->anchor);
            sb_add(&html, "\">");
            char *name = xstrndup(b->label, strcspn(b->label, ":"));
            esc_xml(&html, name);
            free(name);
            sb_add(&html, "</a> \xC2\xB7 ");
            cmark_node *a = cmark_node_new(CMARK_NODE_HTML_INLINE);
            if (!a || !cmark_node_set_literal(a, sb_str(&html)) || !cmark_node_insert_after(after, a))
                tree_failed();
            after = a;
        }
    sb_free(&html);
}

void doc_render_html(const struct report *r, struct doc *d, struct strbuf *out)
{
    /* Collect first: the walk must not see nodes it has replaced. */
    cmark_node **nodes = NULL;
    size_t n = 0, cap = 0, fold_from = SIZE_MAX;
    cmark_iter *it = cmark_iter_new(d->root);
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        cmark_node *node = cmark_iter_get_node(it);
        cmark_node_type t = cmark_node_get_type(node);
        if (ev == CMARK_EVENT_ENTER &&
            (t == CMARK_NODE_HEADING || t == CMARK_NODE_CUSTOM_BLOCK ||
             (t == CMARK_NODE_ITEM && doc_item_anchor_of(node)) ||
             (t == CMARK_NODE_PARAGRAPH &&
              (doc_is_verdict(node) || doc_is_context(node) || doc_is_case(node) ||
               node == d->contents)))) {
            if (node == d->appendix)
                fold_from = n;
            xgrow(&nodes, &cap, n + 1, sizeof *nodes);
            nodes[n++] = node;
        }
    }
    cmark_iter_free(it);

    struct strbuf html = STRBUF_INIT;
    bool folding = false;
    for (size_t i = 0; i < n; i++) {
        cmark_node *node = nodes[i];
        sb_reset(&html);
        switch (cmark_node_get_type(node)) {
        case CMARK_NODE_PARAGRAPH:
            if (node == d->contents) {
                skip_links(d, node);
                continue;
            }
            /* the verdict, the context and the case: the banner above shows them */
            cmark_node_free(node);
            continue;
        case CMARK_NODE_ITEM: {
            /* cmark's <li> has no id: an empty anchor opens its first line */
            cmark_node *first = cmark_node_first_child(node);
            if (first && cmark_node_get_type(first) == CMARK_NODE_PARAGRAPH) {
                sb_add(&html, "<span id=\"");
                esc_xml(&html, doc_item_anchor_of(node));
                sb_add(&html, "\"></span>");
                cmark_node *a = cmark_node_new(CMARK_NODE_HTML_INLINE);
                if (!a || !cmark_node_set_literal(a, sb_str(&html)) ||
                    !cmark_node_prepend_child(first, a))
                    tree_failed();
            }
            continue;
        }
        case CMARK_NODE_HEADING: {
            if (cmark_node_get_heading_level(node) == 1) {
                /* the title: the banner above names the host */
                cmark_node_free(node);
                continue;
            }
            /* cmark writes "<hN>inner</hN>\n"; ours carries the anchor that
             * the contents and evidence links point at. */
            int level = cmark_node_get_heading_level(node);
            char *inner = cmark_render_html(node, CMARK_OPT_DEFAULT);
            const char *body = inner + 4, *end = strstr(body, "</h");
            const char *anchor = doc_anchor(node) ? doc_anchor(node) : "";
            if (level == 2 && i >= fold_from) {
                /* A folded section: the heading is its summary, the anchor
                 * is on its body, so following a link to it opens it. */
                sb_add(&html, folding ? "</div></details>\n"
                                      : "<div class=\"appendix\">\n<p class=\"appendix-lead\">"
                                        "Appendix: the measurements behind the findings, one "
                                        "section per area.</p>\n");
                folding = true;
                sb_add(&html, "<details class=\"section\"><summary><h2>");
                sb_addn(&html, body, end ? (size_t)(end - body) : 0);
                sb_add(&html, "</h2></summary>\n<div class=\"section-body\" id=\"");
                esc_xml(&html, anchor);
                sb_add(&html, "\">\n");
                free(inner);
                break;
            }
            sb_addf(&html, "<h%d id=\"", level);
            esc_xml(&html, anchor);
            sb_add(&html, "\">");
            sb_addn(&html, body, end ? (size_t)(end - body) : 0);
            sb_addf(&html, "</h%d>\n", level);
            free(inner);
            break;
        }
        default:
            custom(r, doc_block_of(node), folding, &html);
            break;
        }
        replace(node, html_block(sb_str(&html)));
    }
    sb_free(&html);
    free(nodes);

    char *body = cmark_render_html(d->root, CMARK_OPT_UNSAFE);
    sb_add(out, body);
    free(body);
    if (folding)
        sb_add(out, "</div></details>\n</div>\n");
}
