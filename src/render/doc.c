/* The document tree's construction: see doc.h. */
#include "doc.h"
#include "escape.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Addresses only: what a TEXT or PARAGRAPH node's user data points at. */
static const char host_mark, verdict_mark, context_mark, case_mark;

static _Noreturn void tree_failed(void)
{
    fputs("perfreport: out of memory building the report\n", stderr);
    exit(3);
}

struct doc *doc_new(void)
{
    struct doc *d = xcalloc(1, sizeof *d);
    d->root = cmark_node_new(CMARK_NODE_DOCUMENT);
    if (!d->root)
        tree_failed();
    return d;
}

static void table_free(struct doc_table *t)
{
    for (size_t c = 0; c < t->ncols; c++)
        free(t->head[c].text);
    for (size_t i = 0; i < t->nrows * t->ncols; i++) {
        free(t->cells[i].text);
        free(t->cells[i].href);
    }
    free(t->head);
    free(t->num);
    free(t->cells);
}

void doc_free(struct doc *d)
{
    if (!d)
        return;
    cmark_node_free(d->root);
    for (size_t i = 0; i < d->nblocks; i++) {
        struct doc_block *b = d->blocks[i];
        table_free(&b->table);
        free(b->label);
        free(b->file);
        free(b->text);
        free(b);
    }
    free(d->blocks);
    md_slugs_free(&d->slugs);
    free(d);
}

cmark_node *doc_add(cmark_node *parent, cmark_node_type t)
{
    cmark_node *n = cmark_node_new(t);
    if (!n || !cmark_node_append_child(parent, n))
        tree_failed();
    return n;
}

/* Text that is well-formed UTF-8 without controls: what both renderings can
 * take as it is (XML forbids the controls; Markdown would break lines). */
static char *clean(const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s);
    while (len) {
        unsigned cp;
        size_t n = utf8_decode(p, len, &cp);
        if (n == 0) {
            sb_add(&sb, "\xEF\xBF\xBD");
            n = 1;
        } else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0)) {
            sb_addc(&sb, ' ');
        } else if (cp == 0xFFFE || cp == 0xFFFF) {
            sb_add(&sb, "\xEF\xBF\xBD");
        } else {
            sb_addn(&sb, (const char *)p, n);
        }
        p += n;
        len -= n;
    }
    return sb_detach(&sb);
}

/* s cut to max characters and cleaned; "-" when absent.  Caller frees. */
static char *host_text(const char *s, size_t max)
{
    if (!s || !*s)
        return xstrdup("-");
    char *cut = trunc_utf8(s, max);
    char *c = clean(cut);
    free(cut);
    return c;
}

static void add_text(cmark_node *parent, const char *text, const void *mark)
{
    cmark_node *n = doc_add(parent, CMARK_NODE_TEXT);
    if (!cmark_node_set_literal(n, text))
        tree_failed();
    if (mark)
        cmark_node_set_user_data(n, (void *)mark);
}

cmark_node *doc_heading(struct doc *d, cmark_node *parent, int level, const char *text, bool host)
{
    cmark_node *h = doc_add(parent, CMARK_NODE_HEADING);
    cmark_node_set_heading_level(h, level);
    char *t = host ? host_text(text, MD_MAX_TEXT) : xstrdup(text);
    add_text(h, t, host ? &host_mark : NULL);
    cmark_node_set_user_data(h, (void *)md_slugs_add(&d->slugs, t));
    free(t);
    return h;
}

const char *doc_anchor(cmark_node *heading) { return cmark_node_get_user_data(heading); }

cmark_node *doc_para(cmark_node *parent) { return doc_add(parent, CMARK_NODE_PARAGRAPH); }

void doc_text(cmark_node *parent, const char *ours) { add_text(parent, ours, NULL); }

void doc_textf(cmark_node *parent, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(&sb, fmt, ap);
    va_end(ap);
    add_text(parent, sb_str(&sb), NULL);
    sb_free(&sb);
}

void doc_host(cmark_node *parent, const char *s, size_t max)
{
    if (!s || !*s) {
        doc_text(parent, "-");
        return;
    }
    char *t = host_text(s, max);
    add_text(parent, t, &host_mark);
    free(t);
}

bool doc_is_host(cmark_node *text) { return cmark_node_get_user_data(text) == &host_mark; }

cmark_node *doc_strong(cmark_node *parent, const char *ours)
{
    cmark_node *s = doc_add(parent, CMARK_NODE_STRONG);
    doc_text(s, ours);
    return s;
}

void doc_code(cmark_node *parent, const char *literal)
{
    cmark_node *n = doc_add(parent, CMARK_NODE_CODE);
    if (!cmark_node_set_literal(n, literal))
        tree_failed();
}

cmark_node *doc_link(cmark_node *parent, const char *anchor)
{
    cmark_node *l = doc_add(parent, CMARK_NODE_LINK);
    struct strbuf url = STRBUF_INIT;
    sb_addc(&url, '#');
    sb_add(&url, anchor);
    if (!cmark_node_set_url(l, sb_str(&url)))
        tree_failed();
    sb_free(&url);
    return l;
}

cmark_node *doc_list(cmark_node *parent, bool ordered, int start)
{
    cmark_node *l = doc_add(parent, CMARK_NODE_LIST);
    cmark_node_set_list_type(l, ordered ? CMARK_ORDERED_LIST : CMARK_BULLET_LIST);
    if (ordered) {
        cmark_node_set_list_start(l, start);
        cmark_node_set_list_delim(l, CMARK_PERIOD_DELIM);
    }
    return l;
}

void doc_item_anchor(struct doc *d, cmark_node *item, const char *anchor)
{
    cmark_node_set_user_data(item, (void *)md_slugs_add(&d->slugs, anchor));
}

const char *doc_item_anchor_of(cmark_node *item) { return cmark_node_get_user_data(item); }

void doc_mark_verdict(cmark_node *para) { cmark_node_set_user_data(para, (void *)&verdict_mark); }

bool doc_is_verdict(cmark_node *para) { return cmark_node_get_user_data(para) == &verdict_mark; }

void doc_mark_context(cmark_node *para) { cmark_node_set_user_data(para, (void *)&context_mark); }

bool doc_is_context(cmark_node *para) { return cmark_node_get_user_data(para) == &context_mark; }

void doc_mark_case(cmark_node *para) { cmark_node_set_user_data(para, (void *)&case_mark); }

bool doc_is_case(cmark_node *para) { return cmark_node_get_user_data(para) == &case_mark; }

static struct doc_block *new_block(struct doc *d, cmark_node *parent, enum doc_block_kind kind)
{
    struct doc_block *b = xcalloc(1, sizeof *b);
    b->kind = kind;
    xgrow(&d->blocks, &d->cap_blocks, d->nblocks + 1, sizeof *d->blocks);
    d->blocks[d->nblocks++] = b;
    cmark_node *n = doc_add(parent, CMARK_NODE_CUSTOM_BLOCK);
    cmark_node_set_user_data(n, b);
    return b;
}

struct doc_block *doc_block_of(cmark_node *custom) { return cmark_node_get_user_data(custom); }

bool doc_has_flame(const struct doc *d)
{
    for (size_t i = 0; i < d->nblocks; i++)
        if (d->blocks[i]->kind == DOC_FLAME)
            return true;
    return false;
}

struct doc_table *doc_table_block(struct doc *d, cmark_node *parent, size_t ncols)
{
    struct doc_block *b = new_block(d, parent, DOC_TABLE);
    struct doc_table *t = &b->table;
    t->ncols = ncols;
    t->head = xcalloc(ncols ? ncols : 1, sizeof *t->head);
    t->num = xcalloc(ncols ? ncols : 1, sizeof *t->num);
    for (size_t c = 0; c < ncols; c++)
        t->head[c].sev = DOC_NO_SEV;
    return t;
}

void doc_table_head(struct doc_table *t, size_t col, const char *title, bool num)
{
    if (col >= t->ncols)
        return;
    free(t->head[col].text);
    t->head[col].text = host_text(title, MD_MAX_TEXT);
    t->head[col].host = true;
    t->num[col] = num;
}

void doc_table_row(struct doc_table *t)
{
    xgrow(&t->cells, &t->cap_cells, (t->nrows + 1) * t->ncols, sizeof *t->cells);
    for (size_t c = 0; c < t->ncols; c++)
        t->cells[t->nrows * t->ncols + c] = (struct doc_cell){.sev = DOC_NO_SEV};
    t->nrows++;
}

struct doc_cell *doc_table_cell(struct doc_table *t, size_t row, size_t col)
{
    return row < t->nrows && col < t->ncols ? &t->cells[row * t->ncols + col] : NULL;
}

void doc_cell_host(struct doc_cell *c, const char *s, size_t max)
{
    free(c->text);
    c->text = s && *s ? host_text(s, max) : NULL; /* NULL: "-" */
    c->host = true;
}

void doc_cell_ours(struct doc_cell *c, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(&sb, fmt, ap);
    va_end(ap);
    free(c->text);
    c->text = sb_detach(&sb);
    c->host = false;
}

void doc_chart(struct doc *d, cmark_node *parent, const struct series *s, const char *label,
               const char *file)
{
    struct doc_block *b = new_block(d, parent, DOC_CHART);
    b->series = s;
    b->label = host_text(label, MD_MAX_TEXT);
    b->file = xstrdup(file);
}

void doc_chart_of(struct doc *d, cmark_node *parent, const struct report *r,
                  const struct series *s, const char *label, const char *file)
{
    doc_chart(d, parent, s, label, file);
    d->blocks[d->nblocks - 1]->chart_report = r;
}

void doc_cell_href(struct doc_cell *c, const char *rel)
{
    static const char hex[] = "0123456789ABCDEF";
    struct strbuf sb = STRBUF_INIT;
    for (const unsigned char *p = (const unsigned char *)rel; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            strchr("._~/-", *p)) {
            sb_addc(&sb, (char)*p);
        } else {
            sb_addc(&sb, '%');
            sb_addc(&sb, hex[*p >> 4]);
            sb_addc(&sb, hex[*p & 15]);
        }
    }
    free(c->href);
    c->href = sb_detach(&sb);
}

void doc_hist(struct doc *d, cmark_node *parent, const struct hist *h, const char *label,
              const char *file, const char *bucket_text)
{
    struct doc_block *b = new_block(d, parent, DOC_HIST);
    b->hist = h;
    b->label = host_text(label, MD_MAX_TEXT);
    b->file = xstrdup(file);
    b->text = xstrdup(bucket_text);
}

void doc_flame(struct doc *d, cmark_node *parent, const struct profile *p, size_t index,
               const char *label, const char *file)
{
    struct doc_block *b = new_block(d, parent, DOC_FLAME);
    b->profile = p;
    b->flame_index = index;
    /* "On-CPU flame graph: where ..." -> "on-cpu-flame-graph" */
    struct strbuf name = STRBUF_INIT;
    sb_addn(&name, label, strcspn(label, ":"));
    b->anchor = md_slugs_add(&d->slugs, sb_str(&name));
    sb_free(&name);
    b->label = xstrdup(label);
    b->file = xstrdup(file);
}

void doc_plain(cmark_node *root, struct strbuf *out)
{
    cmark_iter *it = cmark_iter_new(root);
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
        if (ev != CMARK_EVENT_ENTER)
            continue;
        cmark_node *n = cmark_iter_get_node(it);
        cmark_node_type t = cmark_node_get_type(n);
        if (t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE)
            sb_add(out, cmark_node_get_literal(n));
        else if (t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK)
            sb_addc(out, ' ');
    }
    cmark_iter_free(it);
}
