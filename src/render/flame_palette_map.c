#include "flame_palette_map.h"
#include "../bundle/textfile.h"
#include "../util/readfile.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void flame_palette_map_init(struct flame_palette_map *pm) { memset(pm, 0, sizeof *pm); }

void flame_palette_map_free(struct flame_palette_map *pm) { strmap_free(&pm->m, free); }

bool flame_rgb_valid(const char *s, size_t n)
{
    if (n < 10 || memcmp(s, "rgb(", 4) != 0 || s[n - 1] != ')')
        return false;
    size_t i = 4;
    for (int c = 0; c < 3; c++) {
        unsigned v = 0, digits = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9' && digits < 4) {
            v = v * 10 + (unsigned)(s[i] - '0');
            i++, digits++;
        }
        if (digits == 0 || digits > 3 || v > 255)
            return false;
        if (i >= n || s[i] != (c < 2 ? ',' : ')'))
            return false;
        i++;
    }
    return i == n;
}

static void skip(struct flame_palette_map *pm, size_t lineno)
{
    if (!pm->skipped++)
        pm->first_skipped = lineno;
}

int flame_palette_map_load(struct flame_palette_map *pm, const char *path)
{
    struct strbuf text = STRBUF_INIT;
    int rc = read_small_file(path, FLAME_PALETTE_MAP_MAX_FILE, &text);
    if (rc == -ENOENT) {
        sb_free(&text);
        return 0;
    }
    if (rc) {
        sb_free(&text);
        return rc;
    }
    size_t pos = 0, n, lineno = 0;
    const char *line;
    while (next_line(text.buf, text.len, &pos, &line, &n)) {
        lineno++;
        if (n == 0)
            continue;
        /* the colour never holds "->": the last one splits (names may hold it) */
        const char *arrow = NULL;
        for (size_t i = 0; i + 1 < n; i++)
            if (line[i] == '-' && line[i + 1] == '>')
                arrow = line + i;
        if (n > FLAME_PALETTE_MAP_MAX_LINE || !arrow || arrow == line ||
            memchr(line, '\0', n) || !flame_rgb_valid(arrow + 2, n - (size_t)(arrow + 2 - line))) {
            skip(pm, lineno);
            continue;
        }
        char *name = xstrndup(line, (size_t)(arrow - line));
        void **slot = strmap_slot(&pm->m, name);
        free(*slot);
        *slot = xstrndup(arrow + 2, n - (size_t)(arrow + 2 - line));
        free(name);
    }
    sb_free(&text);
    pm->changed = false;
    return 0;
}

const char *flame_palette_map_get(const struct flame_palette_map *pm, const char *name)
{
    return strmap_get(&pm->m, name);
}

void flame_palette_map_put(struct flame_palette_map *pm, const char *name, const char *color)
{
    void **slot = strmap_slot(&pm->m, name);
    if (*slot && strcmp(*slot, color) == 0)
        return;
    free(*slot);
    *slot = xstrdup(color);
    pm->changed = true;
}

int flame_palette_map_save(const struct flame_palette_map *pm, const char *path)
{
    struct strbuf out = STRBUF_INIT;
    size_t n;
    const char **keys = strmap_sorted_keys(&pm->m, &n);
    for (size_t i = 0; i < n; i++) {
        if (strpbrk(keys[i], "\n\r")) /* would read back as other lines */
            continue;
        sb_add(&out, keys[i]);
        sb_add(&out, "->");
        sb_add(&out, strmap_get(&pm->m, keys[i]));
        sb_addc(&out, '\n');
    }
    free(keys);

    /* by the directory's fd, a fresh O_EXCL temp file renamed over the
     * name: a symlink planted at it is replaced, never followed */
    struct textfile t;
    char err[PATH_MAX + 256];
    int rc = textfile_open(&t, path, err, sizeof err);
    if (rc == 0) {
        rc = textfile_replace(&t, out.buf ? out.buf : "", out.len, err, sizeof err);
        textfile_close(&t);
    }
    sb_free(&out);
    return rc;
}
