#include "flame_colors.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum palette {
    PAL_HOT, PAL_MEM, PAL_IO, PAL_KERNEL, /* kind-aware */
    PAL_JAVA, PAL_JS, PAL_PERL, PAL_CHAIN, PAL_WAKEUP,
    PAL_RED, PAL_GREEN, PAL_BLUE, PAL_AQUA, PAL_YELLOW, PAL_PURPLE, PAL_ORANGE,
};
static const char *const palette_names[] = {
    "hot", "mem", "io", "kernel", "java", "js", "perl", "chain", "wakeup",
    "red", "green", "blue", "aqua", "yellow", "purple", "orange",
};

static int palette_of(const char *name)
{
    for (size_t i = 0; name && i < sizeof palette_names / sizeof *palette_names; i++)
        if (strcmp(name, palette_names[i]) == 0)
            return (int)i;
    return -1;
}

bool flame_palette_valid(const char *name) { return palette_of(name) >= 0; }

void flame_colorer_init(struct flame_colorer *c, const char *palette, enum flame_shade shade,
                        uint64_t seed)
{
    int pal = palette_of(palette);
    c->palette = pal < 0 ? PAL_HOT : pal;
    c->shade = shade;
    c->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
}

bool flame_colorer_by_kind(const struct flame_colorer *c) { return c->palette <= PAL_KERNEL; }

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* --hash: the first eight characters decide, each half as much as the one
 * before, so names that share a prefix get close shades.  A "module`" prefix
 * (DTrace) is skipped.  backwards: from the last character. */
static double prefix_shade(const char *name, bool backwards)
{
    const char *tick = strchr(name, '`');
    if (tick)
        name = tick + 1;
    size_t len = strlen(name);
    double v = 0, w = 0.5, sum = 0;
    for (size_t i = 0; i < len && i < 8; i++, w /= 2) {
        unsigned char ch = (unsigned char)name[backwards ? len - 1 - i : i];
        v += w * (double)(ch % 32) / 31.0;
        sum += w;
    }
    return sum > 0 ? v / sum : 0;
}

static void shades(struct flame_colorer *c, const char *name, double v[3])
{
    switch (c->shade) {
    case FLAME_SHADE_HASH:
        v[0] = prefix_shade(name, false);
        v[1] = v[2] = prefix_shade(name, true);
        return;
    case FLAME_SHADE_RANDOM:
        for (int i = 0; i < 3; i++)
            v[i] = (double)(splitmix(&c->rng) >> 11) / 9007199254740992.0;
        return;
    case FLAME_SHADE_NAME:
        break;
    }
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *s = (const unsigned char *)name; *s; s++)
        h = (h ^ *s) * 0x100000001b3ull;
    h ^= h >> 31;
    v[0] = (double)(h & 0xffff) / 65535.0;
    v[1] = (double)((h >> 16) & 0xffff) / 65535.0;
    v[2] = (double)((h >> 32) & 0xffff) / 65535.0;
}

/* A flat hue, shaded by v. */
static void flat(int pal, double v, double *r, double *g, double *b)
{
    switch (pal) {
    case PAL_RED: *r = 200 + 55 * v, *g = *b = 50 + 80 * v; break;
    case PAL_GREEN: *g = 200 + 55 * v, *r = *b = 50 + 60 * v; break;
    case PAL_BLUE: *b = 205 + 50 * v, *r = *g = 80 + 60 * v; break;
    case PAL_AQUA: *r = 50 + 60 * v, *g = *b = 165 + 55 * v; break;
    case PAL_YELLOW: *r = *g = 175 + 55 * v, *b = 50 + 20 * v; break;
    case PAL_PURPLE: *r = *b = 190 + 65 * v, *g = 80 + 60 * v; break;
    default: /* orange */ *r = 190 + 65 * v, *g = 90 + 65 * v, *b = 0; break;
    }
}

static bool has(const char *s, const char *needle) { return strstr(s, needle) != NULL; }

/* Java class paths as the JVM writes them: "java/util/HashMap...", "Lorg/..." */
static bool java_path(const char *s)
{
    static const char *const pkgs[] = {"java/", "javax/", "jdk/", "net/", "org/",
                                       "com/",  "io/",    "sun/"};
    if (*s == 'L')
        s++;
    for (size_t i = 0; i < sizeof pkgs / sizeof *pkgs; i++)
        if (strncmp(s, pkgs[i], strlen(pkgs[i])) == 0)
            return true;
    return false;
}

/* What a multi-hue palette makes of a frame: the flat hue to paint it. */
static int classify(int pal, const char *name, enum frame_kind kind, bool waker)
{
    switch (pal) {
    case PAL_JAVA:
        if (kind == FRAME_JIT)
            return PAL_GREEN;
        if (kind == FRAME_INLINE)
            return PAL_AQUA;
        if (java_path(name) || has(name, ":::")) /* ":::" perf-map-agent's method separator */
            return PAL_GREEN;
        if (has(name, "::"))
            return PAL_YELLOW; /* C++ */
        return kind == FRAME_KERNEL ? PAL_ORANGE : PAL_RED;
    case PAL_JS: {
        if (kind == FRAME_JIT)
            return has(name, "/") ? PAL_GREEN : PAL_AQUA; /* source or builtin */
        if (has(name, "::"))
            return PAL_YELLOW;
        const char *slash = strchr(name, '/');
        if ((slash && has(slash, ".js")) || strcmp(name, " ") == 0)
            return PAL_GREEN;
        if (has(name, ":"))
            return PAL_AQUA;
        return kind == FRAME_KERNEL ? PAL_ORANGE : PAL_RED;
    }
    case PAL_PERL:
        if (has(name, "::"))
            return PAL_YELLOW;
        if (has(name, "Perl") || has(name, ".pl"))
            return PAL_GREEN;
        return kind == FRAME_KERNEL ? PAL_ORANGE : PAL_RED;
    case PAL_CHAIN:
        return waker ? PAL_AQUA : PAL_BLUE;
    case PAL_WAKEUP:
        return PAL_AQUA;
    default:
        return pal;
    }
}

void flame_frame_color(struct flame_colorer *c, const char *name, enum frame_kind kind,
                       bool waker, char *out, size_t n)
{
    double v[3];
    shades(c, name, v);
    double v1 = v[0], v2 = v[1], v3 = v[2];
    double r, g, b;
    if (c->palette > PAL_KERNEL) {
        flat(classify(c->palette, name, kind, waker), v1, &r, &g, &b);
        snprintf(out, n, "rgb(%d,%d,%d)", (int)r, (int)g, (int)b);
        return;
    }
    switch (kind) {
    case FRAME_KERNEL:
        if (c->palette == PAL_IO) {
            /* amber against the io palette's blue user frames: opposite
             * hues, told apart with red-green colour blindness too
             * (2026-11-27: the legend's violet and blue swatches were 1.48:1
             * in luminance and 32 degrees apart in hue, now 2.40:1 and 159) */
            r = 235 + 20 * v1, g = 170 + 40 * v1, b = 70 + 40 * v1;
            break;
        }
        /* violet: a hue no user palette makes (2026-11-25: orange shared
         * the hot palette's band) */
        r = 165 + 45 * v1, g = 115 + 35 * v1, b = 215 + 40 * v1;
        break;
    case FRAME_JIT:
        flat(PAL_GREEN, v1, &r, &g, &b);
        break;
    case FRAME_INLINE:
        flat(PAL_AQUA, v1, &r, &g, &b);
        break;
    case FRAME_UNKNOWN: /* grey */
        r = g = b = 170 + 40 * v1;
        break;
    default:
        switch (c->palette) {
        case PAL_MEM:
            r = 0, g = 190 + 50 * v2, b = 210 * v1;
            break;
        case PAL_IO:
            r = 80 + 60 * v1, g = r, b = 190 + 55 * v2;
            break;
        default:
            r = 205 + 50 * v3, g = 230 * v1, b = 55 * v2;
            break;
        }
    }
    snprintf(out, n, "rgb(%d,%d,%d)", (int)r, (int)g, (int)b);
}

void flame_delta_color(double delta, double max, char *out, size_t n)
{
    int r = 255, g = 255, b = 255;
    double t = max > 0 ? (delta < 0 ? -delta : delta) / max : 1;
    int fade = (int)(210 * (1 - (t > 1 ? 1 : t)));
    if (delta > 0)
        g = b = fade;
    else if (delta < 0)
        r = g = fade;
    snprintf(out, n, "rgb(%d,%d,%d)", r, g, b);
}

bool flame_bgcolors(const char *spec, char top[8], char bottom[8])
{
    static const struct {
        const char *name, *top, *bottom;
    } grads[] = {
        {"yellow", "#eeeeee", "#eeeeb0"},
        {"blue", "#eeeeee", "#e0e0ff"},
        {"green", "#eef2ee", "#e0ffe0"},
        {"grey", "#f8f8f8", "#e8e8e8"},
        {"gray", "#f8f8f8", "#e8e8e8"},
    };
    for (size_t i = 0; i < sizeof grads / sizeof *grads; i++) {
        if (strcmp(spec, grads[i].name) == 0) {
            memcpy(top, grads[i].top, 8);
            memcpy(bottom, grads[i].bottom, 8);
            return true;
        }
    }
    if (strlen(spec) != 7 || spec[0] != '#')
        return false;
    for (int i = 1; i < 7; i++)
        if (!isxdigit((unsigned char)spec[i]))
            return false;
    memcpy(top, spec, 8);
    memcpy(bottom, spec, 8);
    return true;
}
