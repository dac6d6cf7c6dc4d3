/* Markdown pieces shared by report.md and summary.md: see md_common.h. */
#include "md_common.h"
#include "renderer.h"
#include "escape.h"
#include "../util/fmtnum.h"
#include "../util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int md_write_file(const struct report *r, const struct out_sink *out, const char *name,
                  void (*render)(const struct report *, struct strbuf *))
{
    struct strbuf sb = STRBUF_INIT;
    render(r, &sb);
    int rc = out->write(out->ctx, name, sb_str(&sb), sb.len);
    sb_free(&sb);
    return rc;
}

void md_number(struct strbuf *sb, double v)
{
    char buf[64];
    fmt_num(buf, sizeof buf, v);
    sb_add(sb, buf);
}

const char *md_sev_word(enum severity s)
{
    switch (s) {
    case SEV_CRITICAL: return "CRITICAL";
    case SEV_WARNING: return "WARNING";
    case SEV_INFO: return "INFO";
    default: return "OK";
    }
}

/* Whether code point cp is punctuation or a symbol that an anchor drops:
 * Latin-1 signs, general punctuation, arrows, mathematical operators. */
static bool slug_drops(unsigned cp)
{
    return (cp >= 0xA0 && cp <= 0xBF) || cp == 0xD7 || cp == 0xF7 ||
           (cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x3000 && cp <= 0x303F);
}

const char *md_slugs_add(struct md_slugs *sl, const char *text)
{
    struct strbuf base = STRBUF_INIT;
    const unsigned char *p = (const unsigned char *)text;
    size_t len = strlen(text);
    while (len) {
        unsigned cp;
        size_t n = utf8_decode(p, len, &cp);
        if (n == 0) {
            n = 1; /* invalid bytes: dropped */
        } else if (cp < 0x80) {
            if ((cp >= 'a' && cp <= 'z') || (cp >= '0' && cp <= '9') || cp == '-' || cp == '_')
                sb_addc(&base, (char)cp);
            else if (cp >= 'A' && cp <= 'Z')
                sb_addc(&base, (char)(cp - 'A' + 'a'));
            else if (cp == ' ')
                sb_addc(&base, '-');
        } else if (!slug_drops(cp)) {
            sb_addn(&base, (const char *)p, n);
        }
        p += n;
        len -= n;
    }
    struct strbuf slug = STRBUF_INIT;
    for (unsigned k = 0;; k++) {
        sb_reset(&slug);
        sb_add(&slug, sb_str(&base));
        if (k)
            sb_addf(&slug, "-%u", k);
        bool taken = false;
        for (size_t i = 0; i < sl->n && !taken; i++)
            taken = strcmp(sl->v[i], sb_str(&slug)) == 0;
        if (!taken)
            break;
    }
    sb_free(&base);
    xgrow(&sl->v, &sl->cap, sl->n + 1, sizeof *sl->v);
    sl->v[sl->n] = sb_detach(&slug);
    return sl->v[sl->n++];
}

void md_slugs_free(struct md_slugs *sl)
{
    for (size_t i = 0; i < sl->n; i++)
        free(sl->v[i]);
    free(sl->v);
    *sl = (struct md_slugs){0};
}
