/* The document tree as Markdown (report.md, summary.md).  Our own words go
 * out as written; host and model text through the escaper for where it
 * lands (escape.h): inline text, a link's or image's text, a table cell.
 *
 * Layout: a heading or paragraph is followed by a blank line; a tight list
 * ("- a" lines, evidence and facts) by one blank line after its last item,
 * none when it is nested; a loose list's items (the findings) each end with
 * a blank line, and an item's later paragraphs are indented under its
 * marker after a blank line. */
#include "doc.h"
#include "escape.h"
#include <string.h>

static void inlines(cmark_node *parent, bool label, struct strbuf *out);

static void code_span(const char *lit, struct strbuf *out)
{
    /* One backtick more than the longest run inside, so no run closes it. */
    size_t run = 0, longest = 0;
    for (const char *p = lit; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    size_t lit_len = strlen(lit);
    bool pad = lit_len && (lit[0] == '`' || lit[lit_len - 1] == '`');
    for (size_t i = 0; i <= longest; i++)
        sb_addc(out, '`');
    if (pad)
        sb_addc(out, ' ');
    sb_add(out, lit);
    if (pad)
        sb_addc(out, ' ');
    for (size_t i = 0; i <= longest; i++)
        sb_addc(out, '`');
}

static void inline_node(cmark_node *n, bool label, struct strbuf *out)
{
    switch (cmark_node_get_type(n)) {
    case CMARK_NODE_TEXT:
        if (!doc_is_host(n))
            sb_add(out, cmark_node_get_literal(n));
        else if (label)
            esc_md_label(out, cmark_node_get_literal(n));
        else
            esc_md(out, cmark_node_get_literal(n));
        break;
    case CMARK_NODE_STRONG:
        sb_add(out, "**");
        inlines(n, label, out);
        sb_add(out, "**");
        break;
    case CMARK_NODE_EMPH:
        sb_addc(out, '*');
        inlines(n, label, out);
        sb_addc(out, '*');
        break;
    case CMARK_NODE_CODE: code_span(cmark_node_get_literal(n), out); break;
    case CMARK_NODE_LINK:
        sb_addc(out, '[');
        inlines(n, true, out);
        sb_addf(out, "](%s)", cmark_node_get_url(n)); /* "#anchor": ours */
        break;
    case CMARK_NODE_SOFTBREAK: sb_addc(out, '\n'); break;
    case CMARK_NODE_LINEBREAK: sb_add(out, "\\\n"); break;
    default: break;
    }
}

static void inlines(cmark_node *parent, bool label, struct strbuf *out)
{
    for (cmark_node *c = cmark_node_first_child(parent); c; c = cmark_node_next(c))
        inline_node(c, label, out);
}

static void cell(const struct doc_cell *c, struct strbuf *out)
{
    if (!c->text) {
        sb_addc(out, '-');
        return;
    }
    if (c->sev != DOC_NO_SEV) {
        switch ((enum severity)c->sev) {
        case SEV_CRITICAL: sb_add(out, "**critical** · "); break;
        case SEV_WARNING: sb_add(out, "**warning** · "); break;
        case SEV_INFO: sb_add(out, "info · "); break;
        default: sb_add(out, "ok · "); break;
        }
    }
    if (c->code) {
        /* a table's pipe needs its backslash even inside code (GFM splits
         * cells before it reads code spans) */
        struct strbuf lit = STRBUF_INIT;
        for (const char *p = c->text; *p; p++) {
            if (*p == '|')
                sb_addc(&lit, '\\');
            sb_addc(&lit, *p);
        }
        code_span(sb_str(&lit), out);
        sb_free(&lit);
        return;
    }
    bool link = c->anchor || c->href;
    if (link)
        sb_addc(out, '[');
    if (c->host)
        (link ? esc_md_label : esc_md_cell)(out, c->text);
    else
        sb_add(out, c->text);
    if (c->anchor)
        sb_addf(out, "](#%s)", c->anchor_md ? c->anchor_md : c->anchor);
    else if (c->href)
        sb_addf(out, "](%s)", c->href); /* percent-encoded by doc_cell_href */
}

static void table(const struct doc_table *t, struct strbuf *out)
{
    if (t->ncols == 0)
        return;
    sb_addc(out, '|');
    for (size_t c = 0; c < t->ncols; c++) {
        sb_addc(out, ' ');
        cell(&t->head[c], out);
        sb_add(out, " |");
    }
    sb_add(out, "\n|");
    for (size_t c = 0; c < t->ncols; c++)
        sb_add(out, t->num[c] ? "---:|" : "---|");
    sb_addc(out, '\n');
    for (size_t row = 0; row < t->nrows; row++) {
        sb_addc(out, '|');
        for (size_t c = 0; c < t->ncols; c++) {
            sb_addc(out, ' ');
            cell(&t->cells[row * t->ncols + c], out);
            sb_add(out, " |");
        }
        sb_addc(out, '\n');
    }
    sb_addc(out, '\n');
}

/* A picture is named as a file of the bundle, not linked as an image:
 * report.md pasted into a ticket has no files beside it. */
static void picture(const char *what, const struct doc_block *b, const char *after,
                    struct strbuf *out)
{
    sb_addf(out, "%s ", what);
    code_span(b->file, out); /* [A-Za-z0-9._-] only */
    sb_add(out, ": ");
    esc_md(out, b->label);
    sb_addf(out, "%s\n\n", after);
}

static void custom(const struct doc_block *b, struct strbuf *out)
{
    switch (b->kind) {
    case DOC_TABLE: table(&b->table, out); break;
    case DOC_CHART: picture("Chart", b, "", out); break;
    case DOC_HIST:
        sb_add(out, "```text\n");
        sb_add(out, b->text);
        sb_add(out, "```\n\n");
        picture("Graph", b, "", out);
        break;
    case DOC_FLAME:
        picture("Flame graph", b, " (open it in a browser to zoom and search)", out);
        break;
    }
}

static void block(cmark_node *n, const char *pad, struct strbuf *out);

static void list(cmark_node *l, const char *pad, struct strbuf *out)
{
    bool ordered = cmark_node_get_list_type(l) == CMARK_ORDERED_LIST;
    bool tight = cmark_node_get_list_tight(l);
    int number = cmark_node_get_list_start(l);
    for (cmark_node *it = cmark_node_first_child(l); it; it = cmark_node_next(it), number++) {
        char marker[32];
        if (ordered)
            snprintf(marker, sizeof marker, "%d. ", number);
        else
            snprintf(marker, sizeof marker, "- ");
        struct strbuf ipad = STRBUF_INIT;
        sb_add(&ipad, pad);
        for (size_t k = 0; marker[k]; k++)
            sb_addc(&ipad, ' ');
        cmark_node *c = cmark_node_first_child(it);
        sb_add(out, pad);
        sb_add(out, marker);
        if (c && cmark_node_get_type(c) == CMARK_NODE_PARAGRAPH) {
            inlines(c, false, out);
            c = cmark_node_next(c);
        }
        sb_addc(out, '\n');
        for (; c; c = cmark_node_next(c)) {
            if (cmark_node_get_type(c) == CMARK_NODE_LIST) {
                list(c, sb_str(&ipad), out);
            } else {
                sb_addc(out, '\n');
                block(c, sb_str(&ipad), out);
                out->len--; /* the item's own blank line follows */
                out->buf[out->len] = '\0';
            }
        }
        if (!tight)
            sb_addc(out, '\n');
        sb_free(&ipad);
    }
    bool nested = cmark_node_parent(l) && cmark_node_get_type(cmark_node_parent(l)) == CMARK_NODE_ITEM;
    if (tight && !nested)
        sb_addc(out, '\n');
}

static void block(cmark_node *n, const char *pad, struct strbuf *out)
{
    switch (cmark_node_get_type(n)) {
    case CMARK_NODE_HEADING:
        sb_add(out, pad);
        for (int i = 0; i < cmark_node_get_heading_level(n); i++)
            sb_addc(out, '#');
        sb_addc(out, ' ');
        inlines(n, false, out);
        sb_add(out, "\n\n");
        break;
    case CMARK_NODE_PARAGRAPH:
        sb_add(out, pad);
        inlines(n, false, out);
        sb_add(out, "\n\n");
        break;
    case CMARK_NODE_LIST: list(n, pad, out); break;
    case CMARK_NODE_CUSTOM_BLOCK: custom(doc_block_of(n), out); break;
    default: break;
    }
}

void doc_render_md(const struct doc *d, struct strbuf *out)
{
    for (cmark_node *n = cmark_node_first_child(d->root); n; n = cmark_node_next(n))
        block(n, "", out);
    /* exactly one trailing newline */
    while (out->len >= 2 && out->buf[out->len - 1] == '\n' && out->buf[out->len - 2] == '\n')
        out->buf[--out->len] = '\0';
}
