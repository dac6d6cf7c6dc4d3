#include "redact.h"
#include "xalloc.h"
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *const k_words[] = {"pass", "token", "secret", "key", "auth", "credential"};

struct span {
    size_t a, b; /* [a, b) inside one argument */
};
struct spans {
    struct span *v;
    size_t n, cap;
};

static void add_span(struct spans *sp, size_t a, size_t b)
{
    if (b <= a)
        return;
    xgrow(&sp->v, &sp->cap, sp->n + 1, sizeof *sp->v);
    sp->v[sp->n++] = (struct span){a, b};
}

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
/* Characters of an option or variable name (dots: Java -Da.b.c=, sysctl-like keys). */
static bool is_name(char c) { return is_alnum(c) || c == '_' || c == '.' || c == '-'; }
/* Characters of an HTTP header name. */
static bool is_hname(char c) { return is_alnum(c) || c == '_' || c == '-'; }
static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

static bool ci_contains(const char *s, size_t n, const char *w)
{
    size_t m = strlen(w);
    for (size_t i = 0; i + m <= n; i++) {
        size_t k = 0;
        while (k < m && lower(s[i + k]) == w[k])
            k++;
        if (k == m)
            return true;
    }
    return false;
}

static bool ci_equal(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && ci_contains(s, n, w);
}

int redact_name_sensitive(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof k_words / sizeof k_words[0]; i++)
        if (ci_contains(name, n, k_words[i]))
            return 1;
    return 0;
}

/* End of a value that starts inside a shell-like string at v: a quoted value
 * runs to its closing quote, anything else to the next whitespace. */
static size_t word_value_end(const char *s, size_t v, size_t n)
{
    if (v < n && (s[v] == '\'' || s[v] == '"')) {
        const char *q = memchr(s + v + 1, s[v], n - v - 1);
        return q ? (size_t)(q - s) + 1 : n;
    }
    while (v < n && !is_ws(s[v]))
        v++;
    return v;
}

/* NAME=VALUE after '?', '&' or ';' inside one word [ts, te). */
static void scan_query(const char *s, size_t ts, size_t te, struct spans *sp)
{
    for (size_t q = ts + 1; q < te; q++) {
        char c = s[q - 1];
        if (c != '?' && c != '&' && c != ';')
            continue;
        size_t e = q;
        while (e < te && is_name(s[e]))
            e++;
        if (e == q || e >= te || s[e] != '=' || !redact_name_sensitive(s + q, e - q))
            continue;
        size_t v = e + 1, ve = v;
        while (ve < te && s[ve] != '&' && s[ve] != '#' && s[ve] != ';')
            ve++;
        add_span(sp, v, ve);
    }
}

/* URL userinfo (scheme:// USERINFO @host) inside one word [ts, te). */
static void scan_userinfo(const char *s, size_t ts, size_t te, struct spans *sp)
{
    for (size_t q = ts; q + 3 <= te; q++) {
        if (memcmp(s + q, "://", 3) != 0)
            continue;
        size_t a = q + 3, e = a;
        while (e < te && s[e] != '/' && s[e] != '?' && s[e] != '#')
            e++;
        size_t at = e;
        while (at > a && s[at - 1] != '@')
            at--;
        if (at > a)
            add_span(sp, a, at - 1); /* everything before the last '@' */
        q = e > q ? e - 1 : q;
    }
}

enum pending { P_NONE = 0, P_OPTION, P_HEADER, P_CURL_USER };

/* Collects the spans to redact in one argument s[0..n).  Returns what the
 * next argument is, when this one ends with an option or header name. */
static enum pending scan_arg(const char *s, size_t n, struct spans *sp)
{
    enum pending pend = P_NONE;
    bool first = true;
    size_t i = 0;
    while (i < n) {
        while (i < n && is_ws(s[i]))
            i++;
        if (i >= n)
            break;
        size_t ts = i, te = i;
        while (te < n && !is_ws(s[te]))
            te++;
        size_t next = te;

        size_t p = ts, dashes = 0;
        while (p < te && s[p] == '-' && dashes < 2) {
            p++;
            dashes++;
        }
        size_t ns = p;
        while (p < te && is_name(s[p]))
            p++;
        size_t ne = p;
        size_t he = ts;
        while (he < te && is_hname(s[he]))
            he++;

        if (ne > ns && p < te && s[p] == '=' && redact_name_sensitive(s + ns, ne - ns)) {
            /* 1. NAME=VALUE */
            size_t v = p + 1;
            size_t ve = first ? n : word_value_end(s, v, n);
            add_span(sp, v, ve);
            if (ve > next)
                next = ve;
        } else if (dashes && ne > ns && ne == te && redact_name_sensitive(s + ns, ne - ns)) {
            /* 2. --NAME VALUE */
            size_t j = te;
            while (j < n && is_ws(s[j]))
                j++;
            if (j >= n) {
                pend = P_OPTION;
            } else if (s[j] != '-') {
                size_t ve = word_value_end(s, j, n);
                add_span(sp, j, ve);
                next = ve;
            }
        } else if (he > ts && he < te && s[he] == ':' &&
                   !(he + 2 < n && s[he + 1] == '/' && s[he + 2] == '/') &&
                   (redact_name_sensitive(s + ts, he - ts) || ci_equal(s + ts, he - ts, "cookie") ||
                    ci_equal(s + ts, he - ts, "set-cookie"))) {
            /* 3. Header: the rest of the argument is the value. */
            size_t v = he + 1;
            while (v < n && is_ws(s[v]))
                v++;
            if (v >= n)
                pend = P_HEADER;
            add_span(sp, v, n);
            next = n;
        }
        scan_query(s, ts, te, sp);
        scan_userinfo(s, ts, te, sp);
        i = next;
        first = false;
    }
    return pend;
}

static bool basename_is(const char *arg0, size_t n, const char *const *names, size_t nn,
                        const char *prefix)
{
    const char *b = arg0;
    for (size_t i = 0; i < n; i++)
        if (arg0[i] == '/')
            b = arg0 + i + 1;
    size_t bl = (size_t)(arg0 + n - b);
    for (size_t i = 0; i < nn; i++)
        if (strlen(names[i]) == bl && memcmp(b, names[i], bl) == 0)
            return true;
    return prefix && bl >= strlen(prefix) && memcmp(b, prefix, strlen(prefix)) == 0;
}

static bool is_mysql_client(const char *arg0, size_t n)
{
    static const char *const names[] = {"mysql",     "mysqldump",  "mysqladmin", "mysqlimport",
                                        "mysqlshow", "mysqlcheck", "mysqlpump"};
    return basename_is(arg0, n, names, sizeof names / sizeof names[0], "mariadb");
}

static bool is_curl(const char *arg0, size_t n)
{
    static const char *const names[] = {"curl"};
    return basename_is(arg0, n, names, 1, NULL);
}

/* curl's user:password: only the part after the first ':' is secret. */
static void curl_user_value(const char *s, size_t a, size_t n, struct spans *sp)
{
    const char *c = memchr(s + a, ':', n - a);
    if (c)
        add_span(sp, (size_t)(c - s) + 1, n);
}

static int cmp_span(const void *x, const void *y)
{
    const struct span *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

/* Writes s[0..n) with the (merged) spans replaced; returns how many. */
static size_t emit(const char *s, size_t n, struct spans *sp, struct strbuf *out)
{
    if (sp->n > 1)
        qsort(sp->v, sp->n, sizeof *sp->v, cmp_span);
    size_t count = 0, pos = 0;
    for (size_t k = 0; k < sp->n; k++) {
        size_t a = sp->v[k].a, b = sp->v[k].b;
        while (k + 1 < sp->n && sp->v[k + 1].a < b) { /* overlapping hits count once */
            if (sp->v[k + 1].b > b)
                b = sp->v[k + 1].b;
            k++;
        }
        if (a < pos)
            a = pos;
        if (b <= a)
            continue;
        sb_addn(out, s + pos, a - pos);
        sb_add(out, REDACTED);
        pos = b;
        count++;
    }
    sb_addn(out, s + pos, n - pos);
    return count;
}

size_t redact_argv(const char *in, size_t len, struct strbuf *out)
{
    sb_reset(out);
    size_t trailing = 0;
    while (trailing < len && in[len - 1 - trailing] == '\0')
        trailing++;
    size_t end = len - trailing;

    struct spans sp = {0};
    size_t count = 0, argi = 0;
    bool mysql = false, curl = false;
    enum pending pend = P_NONE;
    for (size_t start = 0; end > 0;) {
        const char *s = in + start;
        const char *z = memchr(s, '\0', end - start);
        size_t n = z ? (size_t)(z - s) : end - start;
        sp.n = 0;
        if (argi == 0) {
            mysql = is_mysql_client(s, n);
            curl = is_curl(s, n);
        }
        enum pending was = pend;
        pend = P_NONE;
        if (was == P_HEADER || (was == P_OPTION && n && s[0] != '-')) {
            add_span(&sp, 0, n);
        } else if (was == P_CURL_USER) {
            curl_user_value(s, 0, n, &sp);
        } else {
            bool done = false;
            if (argi > 0 && mysql && n > 2 && s[0] == '-' && s[1] == 'p') {
                add_span(&sp, 2, n); /* 5. mysql -pSECRET: the whole argument is handled */
                done = true;
            }
            if (argi > 0 && curl) {
                if ((n == 2 && memcmp(s, "-u", 2) == 0) || (n == 6 && memcmp(s, "--user", 6) == 0))
                    pend = P_CURL_USER;
                else if (n > 2 && memcmp(s, "-u", 2) == 0)
                    curl_user_value(s, 2, n, &sp);
                else if (n > 7 && memcmp(s, "--user=", 7) == 0)
                    curl_user_value(s, 7, n, &sp);
            }
            enum pending p = done ? P_NONE : scan_arg(s, n, &sp);
            if (pend == P_NONE)
                pend = p;
        }
        if (argi > 0)
            sb_addc(out, '\0');
        count += emit(s, n, &sp, out);
        argi++;
        if (!z)
            break; /* the last argument: trailing NULs were cut off above */
        start += n + 1;
    }
    if (trailing)
        sb_addc(out, '\0');
    free(sp.v);
    return count;
}
