/* Renderer "html": index.html, the page around the report's document tree
 * (doc_report.c) rendered as HTML (doc_html.c): head, CSP, CSS, the banner
 * with the verdict, and flamegraph.js when the body holds a flame graph.
 * The output is XHTML-compatible (well-formed XML) so xmllint can check it. */
#include "html.h"
#include "doc_report.h"
#include "escape.h"
#include "renderer.h"
#include "../model/model.h"
#include "../util/sha256.h"
#include "assets.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

/* The plain text of the document's context paragraph (host, kernel,
 * window, start), which the banner shows in place of the body; "" when the
 * document has none. */
static void context_text(const struct doc *doc, struct strbuf *out)
{
    for (cmark_node *n = cmark_node_first_child(doc->root); n; n = cmark_node_next(n))
        if (cmark_node_get_type(n) == CMARK_NODE_PARAGRAPH && doc_is_context(n)) {
            doc_plain(n, out);
            return;
        }
}

/* host · start · window · target: for pages whose document has no context
 * paragraph of its own (diff, history). */
static void banner_meta(const struct report *r, const char *host, struct strbuf *out)
{
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
}

static void banner_notes(const struct report *r, struct strbuf *out)
{
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

static void banner(const struct report *r, const char *host, const char *headline,
                   const char *context, struct strbuf *out)
{
    sb_addf(out, "<header class=\"banner banner-%s\">\n", sev_class(r));
    sb_addf(out, "<div class=\"banner-sev\">%s</div>\n<p class=\"banner-headline\">",
            sev_label(r));
    esc_xml(out, headline);
    sb_add(out, "</p>\n<p class=\"banner-meta\">");
    /* --case-id and --label: which ticket this page belongs to */
    for (const char *const *k = (const char *const[]){"case_id", "label", NULL}; *k; k++) {
        const char *v = kv_get(&r->host, *k);
        if (v) {
            char *cut = trunc_utf8(v, RUN_LABEL_MAX); /* a bundle read back is anyone's */
            esc_xml(out, cut);
            free(cut);
            sb_add(out, " \xC2\xB7 ");
        }
    }
    if (*context) {
        esc_xml(out, context);
    } else {
        banner_meta(r, host, out);
    }
    sb_add(out, "</p>\n");
    banner_notes(r, out);
}

void html_document(const struct report *r, struct strbuf *out)
{
    struct doc *doc = doc_report(r);
    html_page(r, doc, r->headline && *r->headline ? r->headline : "No findings.", out);
    doc_free(doc);
}

void html_page(const struct report *r, struct doc *doc, const char *headline, struct strbuf *out)
{
    const char *host = kv_get(&r->host, "hostname");
    /* Whether the tree holds a flame graph decides the script. */
    bool flames = doc_has_flame(doc);
    struct strbuf context = STRBUF_INIT;
    context_text(doc, &context);
    struct strbuf body = STRBUF_INIT;
    doc_render_html(r, doc, &body);

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
        sha256_update(&c, asset_heatmap_js, asset_heatmap_js_len);
        sha256_update(&c, SCRIPT_CLOSE, sizeof SCRIPT_CLOSE - 1);
        sha256_final(&c, d);
        base64_encode(d, sizeof d, b64);
        sb_addf(&script_src, "'sha256-%s'", b64);
        sb_add(&script, "<script>" SCRIPT_OPEN);
        sb_addn(&script, asset_flamegraph_js, asset_flamegraph_js_len);
        sb_addn(&script, asset_heatmap_js, asset_heatmap_js_len); /* the graphs' heat maps */
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
    banner(r, host, headline, sb_str(&context), &ban);
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
    sb_free(&context);
    sb_free(&body);
}

static int render_html(const struct report *r, const struct out_sink *out)
{
    struct strbuf html = STRBUF_INIT;
    html_document(r, &html);
    int rc = out->write(out->ctx, "index.html", sb_str(&html), html.len);
    sb_free(&html);
    return rc;
}

const struct renderer renderer_html = {"html", render_html};
