#include "line_reader.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

#define LR_BUF (64u << 10)

void lr_init(struct line_reader *r, FILE *f, size_t max)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->max = max;
    r->buf = xmalloc(LR_BUF);
}

void lr_free(struct line_reader *r)
{
    free(r->buf);
    sb_free(&r->line);
    r->buf = NULL;
}

/* Appends what still fits under max + 1 bytes. */
static void keep(struct line_reader *r, const char *s, size_t n)
{
    size_t room = r->max + 1 - r->line.len;
    sb_addn(&r->line, s, n < room ? n : room);
}

int lr_next(struct line_reader *r, const char **line, size_t *len)
{
    sb_reset(&r->line);
    bool partial = false; /* a part of this line is in r->line */
    for (;;) {
        if (r->pos < r->len) {
            char *s = r->buf + r->pos;
            size_t avail = r->len - r->pos;
            char *nl = memchr(s, '\n', avail);
            if (nl) {
                size_t n = (size_t)(nl - s);
                r->pos += n + 1;
                if (!partial && n <= r->max) { /* the common case: no copy */
                    *line = s;
                    *len = n;
                    return 1;
                }
                keep(r, s, n);
                *line = sb_str(&r->line);
                *len = r->line.len;
                return 1;
            }
            keep(r, s, avail);
            partial = true;
            r->pos = r->len;
        }
        if (r->eof || r->err)
            break;
        r->len = fread(r->buf, 1, LR_BUF, r->f);
        r->pos = 0;
        if (r->len == 0) {
            if (ferror(r->f))
                r->err = true;
            else
                r->eof = true;
        }
    }
    if (r->err)
        return -1;
    if (partial) { /* a last line without "\n" */
        *line = sb_str(&r->line);
        *len = r->line.len;
        return 1;
    }
    return 0;
}
