/* Frame colours of the flamegraph: flamegraph.pl's palettes, how a frame's
 * shade inside its palette is chosen, the differential red/blue scale, and
 * the background. */
#ifndef PERFREPORT_FLAME_COLORS_H
#define PERFREPORT_FLAME_COLORS_H
#include "../model/frame_kind.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "hot" "mem" "io" "kernel": one hue family for the functions, with
 * perfreport's kind hues over it (kernel violet, JIT green, inlined aqua,
 * unnamed grey: the bundle's legend).  "java" "js" "perl" "chain": the hue
 * says what the frame is, guessed from its annotation (_[k] _[j] _[i]) and
 * its name as flamegraph.pl guesses.  "wakeup" and the flat palettes "red"
 * "green" "blue" "aqua" "yellow" "purple" "orange": every frame that hue. */
#define FLAME_PALETTES                                                                       \
    "hot, mem, io, wakeup, java, js, perl, chain, red, green, blue, aqua, yellow, purple, " \
    "orange, kernel"
bool flame_palette_valid(const char *name);

enum flame_shade {
    FLAME_SHADE_NAME,   /* default: a pseudo-random shade per name, the same in every graph */
    FLAME_SHADE_HASH,   /* --hash: a shade from the name's first characters (and its
                         * last, read backwards): related names get close shades */
    FLAME_SHADE_RANDOM, /* --random: a new shade for every frame, every run */
};

struct flame_colorer {
    int palette;            /* from flame_colorer_init */
    enum flame_shade shade;
    uint64_t rng;           /* FLAME_SHADE_RANDOM's state */
};
/* palette NULL or unknown: "hot".  seed: FLAME_SHADE_RANDOM's seed. */
void flame_colorer_init(struct flame_colorer *c, const char *palette, enum flame_shade shade,
                        uint64_t seed);
/* Whether the palette paints frames by kind with the bundle's kind hues
 * (only those graphs have a legend of kinds). */
bool flame_colorer_by_kind(const struct flame_colorer *c);
/* "rgb(r,g,b)" for a frame: name without its annotation suffix, kind from
 * it; waker: the frame is on the waker side of a "--" separator (the chain
 * palette's wakers), or was annotated "_[w]". */
void flame_frame_color(struct flame_colorer *c, const char *name, enum frame_kind kind,
                       bool waker, char *out, size_t n);
/* Differential frames: white for no change, towards red as delta grows to
 * +max, towards blue as it falls to -max. */
void flame_delta_color(double delta, double max, char *out, size_t n);
/* --bgcolors: "yellow" "blue" "green" "grey" gradients or a flat "#rrggbb":
 * the two ends of the gradient as "#rrggbb" (equal when flat).  False when
 * spec is none of those. */
bool flame_bgcolors(const char *spec, char top[8], char bottom[8]);
#endif
