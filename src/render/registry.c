#include "renderer.h"

extern const struct renderer renderer_json, renderer_manifest, renderer_markdown,
    renderer_summary, renderer_charts, renderer_flames, renderer_html;
extern const struct renderer renderer_pprof;

/* report.json first: it is the data of record if a later renderer fails.
 * manifest.json last: it lists every other file with its SHA-256. */
const struct renderer *const renderer_registry[] = {
    &renderer_json,
    &renderer_markdown,
    &renderer_summary,
    &renderer_charts,
    &renderer_flames,
    &renderer_pprof,
    &renderer_html,
    &renderer_manifest,
    NULL,
};
