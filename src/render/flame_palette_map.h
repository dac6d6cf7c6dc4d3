/* --cp: a consistent palette across graphs, kept in a file of lines
 * "name->rgb(R,G,B)" (flamegraph.pl's palette.map).  Names found in it keep
 * their colour; new names get their palette colour and are added; the file
 * is written back (sorted) after the graph is made.
 *
 * The file is input from anywhere (shared, hand-edited, from another tool):
 * it is read with a size cap, a line is used only when it is a name and a
 * valid rgb() colour, and it is replaced atomically (a temp file in the same
 * directory, renamed over it), so a reader never sees half a map and a
 * symlink there is replaced, not written through. */
#ifndef PERFREPORT_FLAME_PALETTE_MAP_H
#define PERFREPORT_FLAME_PALETTE_MAP_H
#include "../util/strmap.h"
#include <stdbool.h>
#include <stddef.h>

#define FLAME_PALETTE_MAP_MAX_FILE (64u << 20)
#define FLAME_PALETTE_MAP_MAX_LINE 65536

struct flame_palette_map {
    struct strmap m; /* name -> malloc'd "rgb(r,g,b)" */
    size_t skipped;   /* lines of the file that were not used */
    size_t first_skipped; /* the first of them, 1-based */
    bool changed;     /* names were added since the load */
};

void flame_palette_map_init(struct flame_palette_map *pm);
void flame_palette_map_free(struct flame_palette_map *pm);
/* Reads path; a missing file is an empty map.  Returns 0 or -errno
 * (-EFBIG: larger than FLAME_PALETTE_MAP_MAX_FILE). */
int flame_palette_map_load(struct flame_palette_map *pm, const char *path);
/* The colour of name, or NULL. */
const char *flame_palette_map_get(const struct flame_palette_map *pm, const char *name);
/* Records name's colour (a name with a line break cannot be written: kept
 * for this graph only). */
void flame_palette_map_put(struct flame_palette_map *pm, const char *name, const char *color);
/* Writes the map to path atomically.  Returns 0 or -errno. */
int flame_palette_map_save(const struct flame_palette_map *pm, const char *path);
/* "rgb(R,G,B)" with each of R G B in 0..255, nothing else. */
bool flame_rgb_valid(const char *s, size_t n);
#endif
