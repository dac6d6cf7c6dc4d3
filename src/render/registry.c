#include "renderer.h"

extern const struct renderer renderer_charts;
extern const struct renderer renderer_html;

const struct renderer *const renderer_registry[] = {
    &renderer_charts,
    &renderer_html,
    NULL,
};
