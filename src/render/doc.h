/* The report as one document: a cmark node tree built from the model
 * (doc_report.c), of which report.md and summary.md (doc_md.c) and
 * index.html (doc_html.c) are renderings.  Nothing is parsed back from
 * rendered text.
 *
 * Node conventions on top of cmark's own:
 *  - TEXT nodes hold plain text.  Our own words carry no user data and go
 *    into Markdown as written; host or model text (doc_host) is marked and
 *    escaped for the context it lands in.  Both are escaped by the HTML
 *    renderer.
 *  - A HEADING's user data is its anchor (owned by the doc's slugs), given
 *    when the heading is made, so links can point at sections that are
 *    built later.
 *  - CUSTOM_BLOCK nodes carry a struct doc_block (owned by the doc): typed
 *    tables with per-cell severities from the model, charts, histograms and
 *    flame graphs, each rendered by each format its own way. */
#ifndef PERFREPORT_DOC_H
#define PERFREPORT_DOC_H
#include "md_common.h"
#include "../model/model.h"
#include <cmark.h>
#include <stdbool.h>
#include <stddef.h>

struct profile;

enum doc_block_kind { DOC_TABLE, DOC_CHART, DOC_HIST, DOC_FLAME };

/* No severity: a cell the model did not judge. */
#define DOC_NO_SEV (-1)

struct doc_cell {
    char *text; /* owned plain text; NULL shows "-" */
    bool host;  /* host/model text: escaped for Markdown (numbers are ours) */
    int sev;    /* enum severity from the model, or DOC_NO_SEV */
    const char *anchor; /* a link to this heading anchor (the doc's slugs), or NULL */
    /* Where the link goes in Markdown when anchor is a list item's (HTML
     * only: Markdown has no item anchors): a heading's anchor, or NULL. */
    const char *anchor_md;
    bool code;          /* an identifier, path or command: shown as code */
    char *href; /* owned: a relative link of ours (doc_cell_href), or NULL */
};

struct doc_table {
    size_t ncols, nrows;
    struct doc_cell *head; /* ncols */
    bool *num;             /* ncols: a column of numbers, right-aligned */
    struct doc_cell *cells; /* nrows * ncols, row-major */
    size_t cap_cells;
    const char *cls; /* HTML class of the table (ours), or NULL */
};

struct doc_block {
    enum doc_block_kind kind;
    struct doc_table table;          /* DOC_TABLE */
    const struct series *series;     /* DOC_CHART (borrowed from the model) */
    const struct report *chart_report; /* DOC_CHART: whose ticks and start the
                                        * series runs over; NULL: the page's */
    const struct hist *hist;         /* DOC_HIST: its bucket text and graph */
    const struct profile *profile;   /* DOC_FLAME */
    size_t flame_index;              /* DOC_FLAME: id prefix "fgN-" */
    const char *anchor;              /* DOC_FLAME: the figure's id (the doc's
                                      * slugs), the target of its skip link */
    char *label;                     /* owned: image text; NULL for tables */
    char *file;                      /* owned: the bundle file this pictures */
    char *text;                      /* owned: DOC_HIST's bucket table (ours) */
};

struct doc {
    cmark_node *root;          /* owned: the DOCUMENT node */
    struct md_slugs slugs;     /* every heading's anchor, in document order */
    struct doc_block **blocks; /* owned payloads of the custom nodes */
    size_t nblocks, cap_blocks;
    /* The level-2 heading from which the sections are details behind the
     * findings: HTML folds them on screen and prints them after a page
     * break; NULL: none.  Markdown ignores it. */
    cmark_node *appendix;
    /* The contents line (a paragraph of links), where HTML adds a skip link
     * to each flame graph; NULL: none. */
    cmark_node *contents;
};

struct doc *doc_new(void);
void doc_free(struct doc *d);

/* Appends a new node of type t under parent (exits on out-of-memory or a
 * nesting cmark refuses: both are bugs of ours). */
cmark_node *doc_add(cmark_node *parent, cmark_node_type t);
/* A heading whose text is ours (host: false) or the model's; returns it. */
cmark_node *doc_heading(struct doc *d, cmark_node *parent, int level, const char *text,
                        bool host);
const char *doc_anchor(cmark_node *heading);
cmark_node *doc_para(cmark_node *parent);
/* Our own words, as written. */
void doc_text(cmark_node *parent, const char *ours);
void doc_textf(cmark_node *parent, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Host or model text: cut to max characters, "-" when absent, controls and
 * invalid UTF-8 cleaned. */
void doc_host(cmark_node *parent, const char *s, size_t max);
bool doc_is_host(cmark_node *text);
/* **ours** */
cmark_node *doc_strong(cmark_node *parent, const char *ours);
/* `literal` (ours: file names, commands we write). */
void doc_code(cmark_node *parent, const char *literal);
/* A link to "#anchor"; the caller adds its text. */
cmark_node *doc_link(cmark_node *parent, const char *anchor);
cmark_node *doc_list(cmark_node *parent, bool ordered, int start);

/* An anchor of an item of its own (a finding: "finding-cpu.saturation"),
 * kept by the item (owned by the doc's slugs); HTML gives the item that id,
 * Markdown has no place for it. */
void doc_item_anchor(struct doc *d, cmark_node *item, const char *anchor);
const char *doc_item_anchor_of(cmark_node *item);

/* Marks a paragraph as the verdict, which the HTML banner already shows. */
void doc_mark_verdict(cmark_node *para);
bool doc_is_verdict(cmark_node *para);
/* Marks the paragraph that names host, kernel, window and start: the HTML
 * banner shows it in place of its own line, so they are said once. */
void doc_mark_context(cmark_node *para);
bool doc_is_context(cmark_node *para);
/* The --case-id/--label paragraph: the page's banner shows it, so the HTML
 * body leaves it out (Markdown and summary.md keep it). */
void doc_mark_case(cmark_node *para);
bool doc_is_case(cmark_node *para);

/* Custom blocks.  doc_table_block returns the table to fill with
 * doc_table_row/doc_cell_*. */
struct doc_table *doc_table_block(struct doc *d, cmark_node *parent, size_t ncols);
void doc_table_head(struct doc_table *t, size_t col, const char *title, bool num);
/* Starts a new row; its cells are "-" until set. */
void doc_table_row(struct doc_table *t);
struct doc_cell *doc_table_cell(struct doc_table *t, size_t row, size_t col);
void doc_cell_host(struct doc_cell *c, const char *s, size_t max);
void doc_cell_ours(struct doc_cell *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void doc_chart(struct doc *d, cmark_node *parent, const struct series *s, const char *label,
               const char *file);
/* A chart of s over another report's ticks than the page's (perfreport
 * history: one scratch report per host, its runs as the ticks). */
void doc_chart_of(struct doc *d, cmark_node *parent, const struct report *r,
                  const struct series *s, const char *label, const char *file);
/* Makes the cell a link to `rel`, a relative path we built: every byte
 * outside [A-Za-z0-9._~/-] is percent-encoded here, so the link is the same
 * text in Markdown and HTML and cannot leave the attribute. */
void doc_cell_href(struct doc_cell *c, const char *rel);
void doc_hist(struct doc *d, cmark_node *parent, const struct hist *h, const char *label,
              const char *file, const char *bucket_text);
void doc_flame(struct doc *d, cmark_node *parent, const struct profile *p, size_t index,
               const char *label, const char *file);
struct doc_block *doc_block_of(cmark_node *custom);
/* Whether the document holds a flame graph (the page then needs its script). */
bool doc_has_flame(const struct doc *d);

/* Plain text of a subtree: text and code literals. */
void doc_plain(cmark_node *n, struct strbuf *out);

/* Renderings. */
void doc_render_md(const struct doc *d, struct strbuf *out);
/* The body of index.html (mutates the tree: headings and custom blocks are
 * lowered to our HTML; the verdict paragraph is dropped). */
void doc_render_html(const struct report *r, struct doc *d, struct strbuf *out);
#endif
