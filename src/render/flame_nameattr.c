#include "flame_nameattr.h"
#include "../util/readfile.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "escape.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void attrs_free(void *v)
{
    struct flame_attrs *a = v;
    if (!a)
        return;
    free(a->title);
    free(a->href);
    free(a->target);
    for (size_t i = 0; i < a->ng; i++)
        free(a->g[i].name), free(a->g[i].value);
    for (size_t i = 0; i < a->na; i++)
        free(a->a[i].name), free(a->a[i].value);
    free(a->g);
    free(a->a);
    free(a);
}

void flame_nameattr_free(struct flame_nameattr *na) { strmap_free(&na->m, attrs_free); }

const struct flame_attrs *flame_nameattr_get(const struct flame_nameattr *na, const char *name)
{
    return strmap_get(&na->m, name);
}

/* A plain attribute name that cannot run script, declare a namespace or
 * make a link. */
static bool attr_name_ok(const char *s, size_t n)
{
    if (n == 0 || n > 64 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || strchr("_.:-", s[i])))
            return false;
    if (strncasecmp(s, "on", 2) == 0 || strncasecmp(s, "xmlns", 5) == 0 ||
        strncasecmp(s, "xlink:", 6) == 0 || (n == 4 && strncasecmp(s, "href", 4) == 0))
        return false;
    return true;
}

/* No blanks or controls (browsers drop them inside a scheme: "java\tscript:"),
 * and a scheme only of those that fetch or mail. */
static bool href_ok(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p <= 0x20 || *p == 0x7f)
            return false;
    size_t i = 0;
    while (s[i] && (isalnum((unsigned char)s[i]) || s[i] == '+' || s[i] == '.' || s[i] == '-'))
        i++;
    if (s[i] != ':' || i == 0)
        return *s != '\0'; /* no scheme: a relative link */
    static const char *const schemes[] = {"http", "https", "ftp", "mailto"};
    for (size_t k = 0; k < sizeof schemes / sizeof *schemes; k++)
        if (strlen(schemes[k]) == i && strncasecmp(s, schemes[k], i) == 0)
            return true;
    return false;
}

static bool word_ok(const char *s, const char *extra)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
            return false;
    return true;
}

static void add_attr(struct flame_attr **v, size_t *n, const char *name, size_t nlen,
                     const char *value, size_t vlen)
{
    for (size_t i = 0; i < *n; i++)
        if (strlen((*v)[i].name) == nlen && strncasecmp((*v)[i].name, name, nlen) == 0)
            return; /* the first one stays: a repeated attribute is not XML */
    *v = xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[*n] = (struct flame_attr){xstrndup(name, nlen), xstrndup(value, vlen)};
    (*n)++;
}

struct where {
    FILE *diag;
    const char *path;
    size_t line;
};

static void refuse(const struct where *w, const char *what, const char *value)
{
    term_printf(w->diag, "perfreport flamegraph: %s:%zu: %s refused: %s", w->path, w->line, what,
                value);
}

/* g_extra / a_extra: name="value" name='value' name=value ... */
static void parse_extra(const struct where *w, const char *key, const char *s,
                        struct flame_attr **v, size_t *n, const char *reserved)
{
    while (*s) {
        while (*s == ' ')
            s++;
        if (!*s)
            break;
        const char *name = s;
        while (*s && *s != '=' && *s != ' ')
            s++;
        size_t nlen = (size_t)(s - name);
        if (*s != '=') {
            refuse(w, key, "an attribute without '='");
            return;
        }
        s++;
        const char *val;
        size_t vlen;
        if (*s == '"' || *s == '\'') {
            char q = *s++;
            const char *e = strchr(s, q);
            if (!e) {
                refuse(w, key, "an unterminated quote");
                return;
            }
            val = s, vlen = (size_t)(e - s), s = e + 1;
        } else {
            val = s;
            while (*s && *s != ' ')
                s++;
            vlen = (size_t)(s - val);
        }
        char *nm = xstrndup(name, nlen);
        bool reserved_name = false;
        for (const char *r = reserved; *r; r += strlen(r) + 1)
            if (strcasecmp(nm, r) == 0)
                reserved_name = true;
        if (!attr_name_ok(name, nlen) || reserved_name)
            refuse(w, key, nm);
        else
            add_attr(v, n, name, nlen, val, vlen);
        free(nm);
    }
}

static void set_key(const struct where *w, struct flame_nameattr *na, struct flame_attrs *a,
                    const char *key, size_t klen, const char *val)
{
#define IS(k) (klen == strlen(k) && strncmp(key, k, klen) == 0)
    if (IS("title")) {
        free(a->title);
        a->title = xstrdup(val);
    } else if (IS("href")) {
        if (!href_ok(val)) {
            refuse(w, "href", val);
            return;
        }
        free(a->href);
        a->href = xstrdup(val);
        na->any_href = true;
    } else if (IS("target")) {
        if (!word_ok(val, "_-"))
            refuse(w, "target", val);
        else
            free(a->target), a->target = xstrdup(val);
    } else if (IS("class")) {
        if (!word_ok(val, "_- "))
            refuse(w, "class", val);
        else
            add_attr(&a->g, &a->ng, "class", 5, val, strlen(val));
    } else if (IS("id")) {
        if (!word_ok(val, "_.-") || !isalpha((unsigned char)val[0]))
            refuse(w, "id", val);
        else
            add_attr(&a->g, &a->ng, "id", 2, val, strlen(val));
    } else if (IS("g_extra")) {
        parse_extra(w, "g_extra", val, &a->g, &a->ng, "");
    } else if (IS("a_extra")) {
        parse_extra(w, "a_extra", val, &a->a, &a->na, "target\0");
    } else {
        char *k = xstrndup(key, klen);
        refuse(w, "unknown key", k);
        free(k);
    }
#undef IS
}

int flame_nameattr_load(struct flame_nameattr *na, const char *path, FILE *diag)
{
    struct strbuf text = STRBUF_INIT;
    int rc = read_small_file(path, FLAME_NAMEATTR_MAX_FILE, &text);
    if (rc) {
        term_printf(diag, "perfreport flamegraph: --nameattr %s: %s", path,
                    rc == -EFBIG ? "larger than 16 MiB" : strerror(-rc));
        sb_free(&text);
        return -1;
    }
    struct where w = {diag, path, 0};
    size_t pos = 0, n;
    const char *line;
    rc = 0;
    while (rc == 0 && next_line(text.buf, text.len, &pos, &line, &n)) {
        w.line++;
        if (n == 0)
            continue;
        const char *tab = memchr(line, '\t', n);
        const char *why = n > FLAME_NAMEATTR_MAX_LINE ? "line longer than 64 KiB"
                          : memchr(line, '\0', n)     ? "NUL byte in line"
                          : !tab || tab == line       ? "not NAME<TAB>key=value..."
                                                      : NULL;
        if (why) {
            term_printf(diag, "perfreport flamegraph: %s:%zu: %s", path, w.line, why);
            rc = -1;
            break;
        }
        char *name = xstrndup(line, (size_t)(tab - line));
        struct flame_attrs *a = xcalloc(1, sizeof *a);
        const char *f = tab + 1, *end = line + n;
        while (f <= end) {
            const char *fe = memchr(f, '\t', (size_t)(end - f));
            if (!fe)
                fe = end;
            const char *eq = memchr(f, '=', (size_t)(fe - f));
            if (fe > f && !eq) {
                term_printf(diag, "perfreport flamegraph: %s:%zu: a field without '='", path,
                            w.line);
                rc = -1;
                break;
            }
            if (fe > f) {
                char *val = xstrndup(eq + 1, (size_t)(fe - eq - 1));
                set_key(&w, na, a, f, (size_t)(eq - f), val);
                free(val);
            }
            f = fe + 1;
        }
        void **slot = strmap_slot(&na->m, name);
        attrs_free(*slot); /* a later line for the same name replaces it */
        *slot = a;
        free(name);
    }
    sb_free(&text);
    return rc;
}
