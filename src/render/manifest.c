/* manifest.json: what this bundle is and how complete it is, readable
 * without parsing the (much larger) report.json. */
#include "charts.h"
#include "hists.h"
#include "json_common.h"
#include "renderer.h"
#include "../model/model.h"
#include <errno.h>

int manifest_render(const struct report *r, struct strbuf *out)
{
    struct jw w;
    const char *sev = r->failed ? "failed" : severity_name(report_worst_severity(r));
    int status = report_exit_status(r);
    jw_init(&w, out, true);
    jw_obj_begin(&w);
    jw_knum(&w, "schema", r->schema ? r->schema : REPORT_SCHEMA);
    json_tool(&w, r);
    json_window(&w, r);
    jw_kbool(&w, "complete", !report_is_partial(r) && !r->failed);
    jw_kstr(&w, "severity", sev);
    jw_knum(&w, "exit_status", status);
    json_collectors(&w, r);
    /* What the run itself cost the host (up to the end of analysis). */
    jw_key(&w, "self");
    jw_obj_begin(&w);
    jw_knum(&w, "cpu_ms", report_metric_value(r, "self.cpu_ms"));
    jw_knum(&w, "max_rss_kib", report_metric_value(r, "self.max_rss_kib"));
    jw_obj_end(&w);
    jw_key(&w, "files");
    jw_arr_begin(&w);
    jw_str(&w, "report.json");
    jw_str(&w, "report.md");
    jw_str(&w, "index.html");
    jw_str(&w, "manifest.json");
    for (size_t i = 0; i < r->nseries; i++) {
        char name[512];
        if (!r->series[i]->chart)
            continue;
        chart_filename(r->series[i], name, sizeof name);
        jw_str(&w, name);
    }
    for (size_t i = 0; i < r->nhists; i++) {
        char name[512];
        hist_filename(r->hists[i], name, sizeof name);
        jw_str(&w, name);
    }
    for (size_t i = 0; i < r->nprofiles; i++) {
        char name[512];
        flame_filename(r->profiles[i], "folded", name, sizeof name);
        jw_str(&w, name);
        flame_filename(r->profiles[i], "svg", name, sizeof name);
        jw_str(&w, name);
    }
    jw_arr_end(&w);
    jw_obj_end(&w);
    return jw_finish(&w);
}

static int render_manifest(const struct report *r, const struct out_sink *out)
{
    struct strbuf sb = STRBUF_INIT;
    int rc = manifest_render(r, &sb) == 0 ? 0 : -EINVAL;
    if (rc == 0)
        rc = out->write(out->ctx, "manifest.json", sb_str(&sb), sb.len);
    sb_free(&sb);
    return rc;
}

const struct renderer renderer_manifest = {"manifest", render_manifest};
