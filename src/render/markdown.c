/* Renderer "markdown": report.md, the document tree (doc_report.c) as
 * Markdown (doc_md.c). */
#include "markdown.h"
#include "doc_report.h"
#include "md_common.h"
#include "renderer.h"

void markdown_render(const struct report *r, struct strbuf *out)
{
    struct doc *d = doc_report(r);
    doc_render_md(d, out);
    doc_free(d);
}

static int render_markdown(const struct report *r, const struct out_sink *out)
{
    return md_write_file(r, out, "report.md", markdown_render);
}

const struct renderer renderer_markdown = {"markdown", render_markdown};
