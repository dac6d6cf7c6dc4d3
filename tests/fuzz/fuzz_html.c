/* Host text -> index.html.  The input, split at newlines, is put into
 * every place of the model that holds host text (hostname, finding title,
 * evidence and advice, table title, column and cells, collector reason,
 * USE cell); whatever it says, the page carries no script element and no
 * event-handler attribute, and links only point inside the page. */
#include "fuzz.h"
#include "model/model.h"
#include "render/html.h"
#include <ctype.h>
#include <strings.h>

static const char *piece(char **parts, size_t n, size_t i) { return n ? parts[i % n] : ""; }

static struct report *make_report(char **parts, size_t n)
{
    struct report *r = report_new();
    kv_add(&r->host, "hostname", "Hostname", piece(parts, n, 0));
    struct series *s = report_series(r, "cpu.util_pct", piece(parts, n, 1), "%", "cpu");
    for (int i = 0; i < 4; i++) {
        report_add_tick(r, i + 1.0);
        series_set(r, s, 10.0 * i);
    }
    s->chart = true;
    struct finding *f = report_add_finding(r, "x.y", SEV_WARNING, piece(parts, n, 2),
                                           piece(parts, n, 3));
    finding_evidence(f, "%s", piece(parts, n, 4));
    f->recommendation = strdup(piece(parts, n, 5));
    report_set_headline(r, piece(parts, n, 3));
    struct table *t = report_table(r, "t", piece(parts, n, 6), piece(parts, n, 2));
    table_add_col(t, "comm", piece(parts, n, 7), piece(parts, n, 8), -1);
    size_t row = table_add_row(t);
    table_set_str(t, row, "comm", piece(parts, n, 9));
    ledger_set(report_ledger(r, "c", piece(parts, n, 10)), CS_FAILED, piece(parts, n, 11));
    use_cell_set(&report_add_use(r, piece(parts, n, 12))->util, SEV_CRITICAL, "%s",
                 piece(parts, n, 13));
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
    char *text = fuzz_cstr(data, size);
    char *parts[16];
    size_t n = 0;
    for (char *p = text; n < 16;) {
        parts[n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    struct report *r = make_report(parts, n);
    struct strbuf out = STRBUF_INIT;
    html_document(r, &out);
    check_tags(sb_str(&out));
    sb_free(&out);
    report_free(r);
    free(text);
    return 0;
}
