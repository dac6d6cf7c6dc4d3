/* Markdown -> HTML (index.html body).  Whatever the Markdown says, the
 * output carries no script element and no event-handler attribute, and
 * links only point inside the page. */
#include "fuzz.h"
#include "model/model.h"
#include "render/html.h"
#include <ctype.h>
#include <strings.h>

static struct report *rep;

/* A report with one charted series, so chart images in the input are
 * replaced by inline SVG. */
static struct report *make_report(void)
{
    struct report *r = report_new();
    struct series *s = report_series(r, "cpu.util_pct", "CPU <utilisation>", "%", "cpu");
    for (int i = 0; i < 4; i++) {
        report_add_tick(r, i + 1.0);
        series_set(r, s, 10.0 * i);
    }
    s->warn = 70;
    s->crit = 90;
    s->chart = true;
    return r;
}

/* Walks the tags: attribute names starting with "on", and href/src/xlink
 * values that leave the page, are violations. */
static void check_tags(const char *h)
{
    const char *p = h;
    while ((p = strchr(p, '<')) != NULL) {
        p++;
        if (!strncmp(p, "!--", 3)) {
            const char *e = strstr(p, "-->");
            FUZZ_ASSERT(e);
            p = e + 3;
            continue;
        }
        FUZZ_ASSERT(strncasecmp(p, "script", 6) != 0);
        FUZZ_ASSERT(strncasecmp(p, "iframe", 6) != 0);
        FUZZ_ASSERT(strncasecmp(p, "object", 6) != 0);
        while (*p && !isspace((unsigned char)*p) && *p != '>')
            p++; /* tag name */
        for (;;) {
            while (isspace((unsigned char)*p) || *p == '/')
                p++;
            if (!*p || *p == '>')
                break;
            const char *name = p;
            while (*p && !isspace((unsigned char)*p) && *p != '=' && *p != '>')
                p++;
            size_t nl = (size_t)(p - name);
            FUZZ_ASSERT(!(nl >= 2 && strncasecmp(name, "on", 2) == 0));
            if (*p != '=')
                continue;
            p++;
            const char *val = p;
            if (*p == '"' || *p == '\'') {
                char q = *p++;
                val = p;
                const char *e = strchr(p, q);
                FUZZ_ASSERT(e);
                p = e + 1;
            } else {
                while (*p && !isspace((unsigned char)*p) && *p != '>')
                    p++;
            }
            if ((nl == 4 && !strncasecmp(name, "href", 4)) ||
                (nl == 3 && !strncasecmp(name, "src", 3)) ||
                (nl == 10 && !strncasecmp(name, "xlink:href", 10)))
                FUZZ_ASSERT(*val == '#');
        }
    }
    /* Nothing that could still open a script outside tags either. */
    FUZZ_ASSERT(!strcasestr(h, "<script"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!rep)
        rep = make_report();
    char *md = fuzz_cstr(data, size);
    struct strbuf out = STRBUF_INIT;
    html_from_markdown(rep, md, &out);
    check_tags(sb_str(&out));
    sb_free(&out);
    free(md);
    return 0;
}
