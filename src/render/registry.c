#include "renderer.h"

const struct renderer *const renderer_registry[] = {
    NULL,
};
