/* summary.md: what to paste into a ticket or a chat.  The verdict, where and
 * when, what could not be checked, and the findings at warning or above with
 * their first evidence and what to do, in at most SUMMARY_MAX_LINES lines;
 * the rest is in the bundle's report.  Same escaping as report.md. */
#include "summary.h"
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

/* "Not checked: Network (/proc/net): cannot read ...; ..." on one line. */
static void not_checked(const struct report *r, struct strbuf *sb)
{
    bool any = false;
    for (size_t i = 0; i < r->nledger; i++) {
        const struct ledger_entry *e = &r->ledger[i];
        if (e->status != CS_FAILED && e->status != CS_TIMED_OUT)
            continue;
        sb_add(sb, any ? "; " : "**Not checked:** ");
        md_text(sb, e->title ? e->title : e->name, MD_MAX_TEXT);
        sb_add(sb, e->status == CS_FAILED ? " failed: " : " timed out: ");
        md_text(sb, e->reason ? e->reason : "no reason given", MD_MAX_TEXT);
        any = true;
    }
    if (any)
        sb_add(sb, "\n\n");
}

void summary_render(const struct report *r, struct strbuf *out)
{
    sb_add(out, "# perfreport: ");
    md_text(out, kv_get(&r->host, "hostname"), MD_MAX_TEXT);
    sb_add(out, "\n\n");
    if (r->window.interrupted)
        sb_addf(out,
                "**INCOMPLETE:** the window was interrupted after %.1f s of the planned "
                "%.0f s.\n\n",
                r->window.actual_s, r->window.planned_s);
    md_verdict(r, out);
    sb_add(out, "\n\n");
    md_context(r, out);
    sb_add(out, "\n\n");
    if (r->ngaps)
        sb_addf(out, "**Sampling gaps:** %zu (perfreport was stopped or starved).\n\n", r->ngaps);
    not_checked(r, out);

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
        sb_add(out, "## Findings\n\n");
        struct strbuf item = STRBUF_INIT;
        for (size_t i = 0; i < r->nfindings; i++) {
            const struct finding *f = &r->findings[i];
            if (f->sev < SEV_WARNING)
                continue;
            sb_reset(&item);
            md_finding(&item, f, shown + 1, SUMMARY_EVIDENCE, NULL);
            if (count_lines(out) + count_lines(&item) + footer > SUMMARY_MAX_LINES)
                break;
            sb_addn(out, item.buf, item.len);
            shown++;
        }
        sb_free(&item);
    } else {
        sb_add(out, "No findings at warning or above.\n\n");
        md_window_limits(r, out);
    }
    if (shown < serious || info) {
        sb_add(out, "Also in the report:");
        if (shown < serious)
            sb_addf(out, " %zu more finding%s at warning or above", serious - shown,
                    serious - shown == 1 ? "" : "s");
        if (info)
            sb_addf(out, "%s %zu informational", shown < serious ? "," : "", info);
        sb_add(out, ".\n\n");
    }
    sb_add(out, "Evidence: index.html in the bundle (charts, flame graphs, tables); the same "
                "as text in report.md, the data in report.json.\n");
}

static int render_summary(const struct report *r, const struct out_sink *out)
{
    return md_write_file(r, out, "summary.md", summary_render);
}

const struct renderer renderer_summary = {"summary", render_summary};
