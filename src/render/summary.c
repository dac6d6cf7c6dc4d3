/* summary.md: what to paste into a ticket or a chat.  The verdict, where and
 * when, what could not be checked, and the findings at warning or above with
 * their first evidence and what to do, in at most SUMMARY_MAX_LINES lines;
 * the rest is in the bundle's report.  Same escaping as report.md. */
#include "summary.h"
#include "doc_report.h"
#include "md_common.h"
#include "renderer.h"
#include "../model/model.h"
#include "../util/strbuf.h"
#include <string.h>

#define SUMMARY_MAX_LINES 60
#define SUMMARY_EVIDENCE 3 /* evidence lines shown per finding */

static size_t count_lines(const struct strbuf *sb)
{
    size_t n = 0;
    for (size_t i = 0; i < sb->len; i++)
        n += sb->buf[i] == '\n';
    return n;
}

static size_t rendered_lines(const struct doc *d)
{
    struct strbuf sb = STRBUF_INIT;
    doc_render_md(d, &sb);
    size_t n = count_lines(&sb);
    sb_free(&sb);
    return n;
}

/* "Not checked: Network (/proc/net): cannot read ...; ..." in one paragraph. */
static void not_checked(const struct report *r, cmark_node *root)
{
    cmark_node *p = NULL;
    for (size_t i = 0; i < r->nledger; i++) {
        const struct ledger_entry *e = &r->ledger[i];
        if (e->status != CS_FAILED && e->status != CS_TIMED_OUT)
            continue;
        if (!p) {
            p = doc_para(root);
            doc_strong(p, "Not checked:");
            doc_text(p, " ");
        } else {
            doc_text(p, "; ");
        }
        doc_host(p, e->title ? e->title : e->name, MD_MAX_TEXT);
        doc_text(p, e->status == CS_FAILED ? " failed: " : " timed out: ");
        doc_host(p, e->reason ? e->reason : "no reason given", MD_MAX_TEXT);
    }
}

void summary_render(const struct report *r, struct strbuf *out)
{
    struct doc *d = doc_new();
    cmark_node *root = d->root;
    cmark_node *h = doc_add(root, CMARK_NODE_HEADING);
    cmark_node_set_heading_level(h, 1);
    doc_text(h, "perfreport: ");
    doc_host(h, kv_get(&r->host, "hostname"), MD_MAX_TEXT);
    if (r->window.interrupted) {
        cmark_node *p = doc_para(root);
        doc_strong(p, "INCOMPLETE:");
        doc_textf(p, " the window was interrupted after %.1f s of the planned %.0f s.",
                  r->window.actual_s, r->window.planned_s);
    }
    doc_verdict(r, root);
    doc_case(r, root);
    doc_context(r, root);
    doc_not_root(r, root);
    if (r->ngaps) {
        cmark_node *p = doc_para(root);
        doc_strong(p, "Sampling gaps:");
        doc_textf(p, " %zu (perfreport was stopped or starved).", r->ngaps);
    }
    not_checked(r, root);

    /* Findings come ranked; each goes in whole or not at all, leaving room
     * for the closing lines. */
    const size_t footer = 3;
    size_t serious = 0, shown = 0, info = 0;
    for (size_t i = 0; i < r->nfindings; i++)
        if (r->findings[i].sev >= SEV_WARNING)
            serious++;
        else if (r->findings[i].sev == SEV_INFO)
            info++;
    if (serious) {
        doc_heading(d, root, 2, "Findings", false);
        cmark_node *list = doc_list(root, true, 1);
        for (size_t i = 0; i < r->nfindings; i++) {
            const struct finding *f = &r->findings[i];
            if (f->sev < SEV_WARNING)
                continue;
            cmark_node *item = doc_finding(list, f, SUMMARY_EVIDENCE);
            if (rendered_lines(d) + footer > SUMMARY_MAX_LINES) {
                cmark_node_free(item);
                break;
            }
            shown++;
        }
        if (!shown)
            cmark_node_free(list);
    } else {
        doc_text(doc_para(root), "No findings at warning or above.");
        doc_window_limits(r, root);
    }
    if (shown < serious || info) {
        cmark_node *p = doc_para(root);
        doc_text(p, "Also in the report:");
        if (shown < serious)
            doc_textf(p, " %zu more finding%s at warning or above", serious - shown,
                      serious - shown == 1 ? "" : "s");
        if (info)
            doc_textf(p, "%s %zu informational", shown < serious ? "," : "", info);
        doc_text(p, ".");
    }
    doc_text(doc_para(root), "Evidence: index.html in the bundle (charts, flame graphs, tables); "
                             "the same as text in report.md, the data in report.json.");
    doc_render_md(d, out);
    doc_free(d);
}

static int render_summary(const struct report *r, const struct out_sink *out)
{
    return md_write_file(r, out, "summary.md", summary_render);
}

const struct renderer renderer_summary = {"summary", render_summary};
