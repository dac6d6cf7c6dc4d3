/* Renderer "charts": one standalone chart-*.svg per charted series and
 * one hist-*.svg per histogram, the files report.md references as images. */
#include "charts.h"
#include "hists.h"
#include "renderer.h"
#include "../model/model.h"
#include "../util/strbuf.h"

static int render_charts(const struct report *r, const struct out_sink *out)
{
    int first_err = 0;
    for (size_t i = 0; i < r->nseries; i++) {
        const struct series *s = r->series[i];
        if (!s->chart)
            continue;
        char name[512];
        chart_filename(s, name, sizeof name);
        struct strbuf sb = STRBUF_INIT;
        svg_series_render(r, s, &sb);
        int rc = out->write(out->ctx, name, sb_str(&sb), sb.len);
        sb_free(&sb);
        /* Keep writing the others: one failed chart should not cost the rest. */
        if (rc && !first_err)
            first_err = rc;
    }
    for (size_t i = 0; i < r->nhists; i++) {
        char name[512];
        hist_filename(r->hists[i], name, sizeof name);
        struct strbuf sb = STRBUF_INIT;
        svg_hist_render(r->hists[i], &sb);
        int rc = out->write(out->ctx, name, sb_str(&sb), sb.len);
        sb_free(&sb);
        if (rc && !first_err)
            first_err = rc;
    }
    return first_err;
}

const struct renderer renderer_charts = {"charts", render_charts};
