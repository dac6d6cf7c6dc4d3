#include "test_util.h"
#include "harness.h"
#include "../../src/replay/load.h"
#include "../../src/codec/report_json.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/xalloc.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct strbuf sb = STRBUF_INIT;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sb_addn(&sb, buf, n);
    fclose(f);
    if (len)
        *len = sb.len;
    return sb_detach(&sb);
}

static int spit(const char *path, const char *data)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t len = strlen(data);
    int rc = fwrite(data, 1, len, f) == len ? 0 : -1;
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

void test_check_golden(const char *file, int line, const char *rel, const char *got)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", fixture(rel));
    const char *upd = getenv("PERFREPORT_UPDATE_GOLDEN");
    if (upd && strcmp(upd, "1") == 0) {
        if (spit(path, got) != 0)
            test_fail(file, line, "cannot write %s", path);
        else
            fprintf(stderr, "  updated golden file %s\n", path);
        return;
    }
    char *want = test_slurp(path, NULL);
    if (!want) {
        test_fail(file, line, "missing %s (create it with PERFREPORT_UPDATE_GOLDEN=1, then review it)",
                  path);
        return;
    }
    if (strcmp(want, got) != 0) {
        const char *a = want, *b = got;
        int ln = 1;
        while (*a && *a == *b) {
            if (*a == '\n')
                ln++;
            a++;
            b++;
        }
        while (a > want && a[-1] != '\n') { /* back to the start of the line */
            a--;
            b--;
        }
        int la = (int)strcspn(a, "\n"), lb = (int)strcspn(b, "\n");
        test_fail(file, line,
                  "%s differs at line %d:\n    want: %.*s\n    got:  %.*s\n"
                  "  (PERFREPORT_UPDATE_GOLDEN=1 rewrites it; review the diff)",
                  rel, ln, la > 150 ? 150 : la, a, lb > 150 ? 150 : lb, b);
    }
    free(want);
}

int mem_sink_write(void *ctx, const char *name, const char *data, size_t len)
{
    struct mem_sink *m = ctx;
    if (strchr(name, '/'))
        return -EINVAL;
    xgrow(&m->f, &m->cap, m->n + 1, sizeof *m->f);
    char *copy = xmalloc(len + 1);
    memcpy(copy, data, len);
    copy[len] = '\0';
    m->f[m->n++] = (struct mem_file){xstrdup(name), copy, len};
    return 0;
}

const char *mem_get(const struct mem_sink *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->f[i].name, name) == 0)
            return m->f[i].data;
    return NULL;
}

void mem_free(struct mem_sink *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->f[i].name);
        free(m->f[i].data);
    }
    free(m->f);
    memset(m, 0, sizeof *m);
}

char *test_report_json(const struct report *r)
{
    struct strbuf sb = STRBUF_INIT;
    if (json_report_render(r, &sb) != 0)
        test_fail(__FILE__, __LINE__, "json_report_render failed");
    return sb_detach(&sb);
}

struct report *test_report_parse(const char *json)
{
    struct report *r = NULL;
    char err[512] = "";
    if (report_from_json(json, strlen(json), &r, err, sizeof err) != 0) {
        test_fail(__FILE__, __LINE__, "%s", err);
        return NULL;
    }
    return r;
}
