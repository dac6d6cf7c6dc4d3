#include "renderer.h"

extern const struct renderer renderer_json, renderer_manifest, renderer_markdown;

const struct renderer *const renderer_registry[] = {
    &renderer_json,
    &renderer_manifest,
    &renderer_markdown,
    NULL,
};
