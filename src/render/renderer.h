/* The one renderer interface: a renderer reads the model and writes one or
 * more named files through a sink.  It never reads the host. */
#ifndef PERFREPORT_RENDERER_H
#define PERFREPORT_RENDERER_H
#include <stddef.h>
#include <stdint.h>

struct report;

/* A file the sink has written: what manifest.json's integrity list shows. */
struct sink_file {
    char name[256];
    size_t size;
    uint8_t sha256[32];
};

struct out_sink {
    /* Writes a whole file named `name` (a bare file name, no '/').
     * Returns 0 or -errno. */
    int (*write)(void *ctx, const char *name, const char *data, size_t len);
    void *ctx;
    /* Optional (NULL for in-memory sinks): the files written so far, in
     * order; *files stays owned by the sink. */
    size_t (*written)(void *ctx, const struct sink_file **files);
};

struct renderer {
    const char *name;
    int (*render)(const struct report *r, const struct out_sink *out);
};

/* NULL-terminated, in the order the bundle is written. */
extern const struct renderer *const renderer_registry[];
#endif
