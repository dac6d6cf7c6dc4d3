/* manifest.json: what this bundle is and how complete it is, readable
 * without parsing the (much larger) report.json.  Written last, so that its
 * "integrity" list can give the size and SHA-256 of every other file. */
#include "charts.h"
#include "hists.h"
#include "../codec/report_json.h"
#include "renderer.h"
#include "../model/model.h"
#include "../model/names.h"
#include <errno.h>
#include <stdio.h>

/* Sizes and SHA-256 of the files already written (a reader recomputes them
 * with sha256sum); manifest.json itself cannot list its own hash. */
static void integrity(struct jw *w, const struct sink_file *files, size_t nfiles)
{
    jw_key(w, "integrity");
    jw_arr_begin(w);
    for (size_t i = 0; i < nfiles; i++) {
        char hex[65];
        for (size_t k = 0; k < 32; k++)
            snprintf(hex + 2 * k, 3, "%02x", files[i].sha256[k]);
        jw_obj_begin(w);
        jw_kstr(w, "name", files[i].name);
        jw_knum(w, "size", (double)files[i].size);
        jw_kstr(w, "sha256", hex);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

int manifest_render(const struct report *r, struct strbuf *out)
{
    return manifest_render_files(r, NULL, 0, out);
}

int manifest_render_files(const struct report *r, const struct sink_file *files, size_t nfiles,
                          struct strbuf *out)
{
    struct jw w;
    const char *sev = r->failed ? "failed" : severity_name(report_worst_severity(r));
    int status = report_exit_status(r);
    jw_init(&w, out, true);
    jw_obj_begin(&w);
    jw_knum(&w, "schema", r->schema ? r->schema : REPORT_SCHEMA);
    json_tool(&w, r);
    json_window(&w, r);
    json_command(&w, r);
    jw_kbool(&w, "complete", !report_is_partial(r) && !r->failed);
    jw_kstr(&w, "severity", sev);
    jw_knum(&w, "exit_status", status);
    if (r->publish_note)
        jw_kstr(&w, "publish_note", r->publish_note);
    json_collectors(&w, r);
    /* What the run itself cost the host (up to the end of analysis). */
    jw_key(&w, "self");
    jw_obj_begin(&w);
    jw_knum(&w, "cpu_ms", report_metric_value(r, NM_SELF_CPU_MS));
    jw_knum(&w, "max_rss_kib", report_metric_value(r, NM_SELF_MAX_RSS_KIB));
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
        flame_filename(r->profiles[i], "pb.gz", name, sizeof name);
        jw_str(&w, name);
    }
    jw_arr_end(&w);
    if (files)
        integrity(&w, files, nfiles);
    jw_obj_end(&w);
    return jw_finish(&w);
}

static int render_manifest(const struct report *r, const struct out_sink *out)
{
    struct strbuf sb = STRBUF_INIT;
    const struct sink_file *files = NULL;
    size_t nfiles = out->written ? out->written(out->ctx, &files) : 0;
    int rc = manifest_render_files(r, files, nfiles, &sb) == 0 ? 0 : -EINVAL;
    if (rc == 0)
        rc = out->write(out->ctx, "manifest.json", sb_str(&sb), sb.len);
    sb_free(&sb);
    return rc;
}

const struct renderer renderer_manifest = {"manifest", render_manifest};
