#include "obfuscate.h"
#include "../util/hostfs.h"
#include "../util/xalloc.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../model/profile.h"
#include "../model/run_command.h"
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* OK_IPV4P: a cut address ("192.0." at the end of a 15-byte comm) that
 * matches no address seen in full. */
enum okind { OK_HOST, OK_USER, OK_IPV4, OK_IPV6, OK_MAC, OK_IPV4P, OK_NKINDS };
static const char *const k_kind[OK_NKINDS] = {"host", "user", "ipv4", "ipv6", "mac", "ipv4-prefix"};

/* A comm is cut to 15 bytes (TASK_COMM_LEN - 1): where a string ends there,
 * an address may have been cut. */
#define COMM_MAX 15

/* One real value.  Literal names (host, user) are registered up front and
 * get a placeholder on first use; addresses are added as they are found,
 * keyed by their binary value. */
struct oent {
    enum okind kind;
    char *real;        /* literal name, or the first text form seen */
    size_t len;
    uint8_t key[16];   /* addresses: binary value */
    char *placeholder; /* NULL until used */
    unsigned num;      /* its number among placeholders of its kind */
};

struct obf {
    struct oent *v;
    size_t n, cap;
    unsigned next[OK_NKINDS]; /* last number handed out per kind */
    bool no_prefixes; /* obfuscate_report's first pass: full addresses only */
};

struct obf *obf_new(void) { return xcalloc(1, sizeof(struct obf)); }

void obf_free(struct obf *o)
{
    if (!o)
        return;
    for (size_t i = 0; i < o->n; i++) {
        free(o->v[i].real);
        free(o->v[i].placeholder);
    }
    free(o->v);
    free(o);
}

static bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
static bool is_word(char c) { return is_alnum(c) || c == '_' || c == '-'; }
static char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c; }

static bool eq_literal(const char *a, const char *b, size_t n, bool ci)
{
    if (!ci)
        return memcmp(a, b, n) == 0;
    for (size_t i = 0; i < n; i++)
        if (lower(a[i]) != lower(b[i]))
            return false;
    return true;
}

static void add_literal(struct obf *o, enum okind kind, const char *name, size_t n)
{
    if (n < 2)
        return;
    for (size_t i = 0; i < o->n; i++)
        if ((o->v[i].kind == OK_HOST || o->v[i].kind == OK_USER) && o->v[i].len == n &&
            eq_literal(o->v[i].real, name, n, o->v[i].kind == OK_HOST || kind == OK_HOST))
            return; /* first registration wins */
    xgrow(&o->v, &o->cap, o->n + 1, sizeof *o->v);
    o->v[o->n++] = (struct oent){.kind = kind, .real = xstrndup(name, n), .len = n};
}

void obf_add_host(struct obf *o, const char *name)
{
    if (!name)
        return;
    size_t n = strlen(name);
    add_literal(o, OK_HOST, name, n);
    const char *dot = memchr(name, '.', n);
    if (dot) /* a FQDN: its short name appears on its own too */
        add_literal(o, OK_HOST, name, (size_t)(dot - name));
}

void obf_add_user(struct obf *o, const char *name)
{
    if (name)
        add_literal(o, OK_USER, name, strlen(name));
}

static bool is_local_name(const char *s, size_t n)
{
    return (n >= 9 && memcmp(s, "localhost", 9) == 0) || (n >= 4 && memcmp(s, "ip6-", 4) == 0) ||
           (n == 13 && memcmp(s, "broadcasthost", 13) == 0);
}

void obf_parse_hosts(struct obf *o, const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *hash = memchr(p, '#', (size_t)(le - p));
        if (hash)
            le = hash;
        int field = 0;
        while (p < le) {
            while (p < le && (*p == ' ' || *p == '\t' || *p == '\r'))
                p++;
            const char *w = p;
            while (p < le && *p != ' ' && *p != '\t' && *p != '\r')
                p++;
            if (p > w && field++ > 0 && !is_local_name(w, (size_t)(p - w))) {
                char *name = xstrndup(w, (size_t)(p - w));
                obf_add_host(o, name);
                free(name);
            }
        }
        p = nl ? nl + 1 : end;
    }
}

void obf_parse_passwd(struct obf *o, const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *c1 = memchr(p, ':', (size_t)(le - p));
        const char *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(le - c1 - 1)) : NULL;
        if (c1 && c2 && c1 > p) {
            unsigned long uid = 0;
            const char *u = c2 + 1;
            bool ok = u < le && is_digit(*u);
            for (; u < le && is_digit(*u) && uid < 1000000000ul; u++)
                uid = uid * 10 + (unsigned long)(*u - '0');
            if (ok && u < le && *u == ':' && uid >= 1000 && uid != 65534)
                add_literal(o, OK_USER, p, (size_t)(c1 - p));
        }
        p = nl ? nl + 1 : end;
    }
}

/* The names processes looked up (collector dns): whole names only (their
 * first label alone may be any word); addresses are found as addresses. */
static void add_looked_up(struct obf *o, const struct report *r)
{
    const struct table *t = report_find_table(r, NM_DNS_NAMES);
    for (size_t i = 0; t && i < t->nrows; i++) {
        const char *name = table_str(t, i, "name");
        unsigned char a[16];
        if (!name || is_local_name(name, strlen(name)) || inet_pton(AF_INET, name, a) == 1 ||
            inet_pton(AF_INET6, name, a) == 1)
            continue;
        add_literal(o, OK_HOST, name, strlen(name));
    }
}

void obf_load_host(struct obf *o, const struct report *r)
{
    obf_add_host(o, kv_get(&r->host, "hostname"));
    add_looked_up(o, r);
    char line[256];
    if (hostfs_read_line("/etc/hostname", line, sizeof line) == 0)
        obf_add_host(o, line);
    struct strbuf sb = STRBUF_INIT;
    if (hostfs_read("/etc/hosts", &sb, 0) == 0 && sb.len)
        obf_parse_hosts(o, sb.buf, sb.len);
    if (hostfs_read("/etc/passwd", &sb, 0) == 0 && sb.len)
        obf_parse_passwd(o, sb.buf, sb.len);
    sb_free(&sb);
}

/* ---- matching ---- */

static const char *placeholder(struct obf *o, struct oent *e)
{
    if (!e->placeholder) {
        unsigned k = ++o->next[e->kind];
        e->num = k;
        switch (e->kind) {
        case OK_HOST: e->placeholder = xasprintf("host%u", k); break;
        case OK_USER: e->placeholder = xasprintf("user%u", k); break;
        case OK_MAC: e->placeholder = xasprintf("mac%u", k); break;
        case OK_IPV4:
            e->placeholder = xasprintf("240.%u.%u.%u", (k >> 16) & 15u, (k >> 8) & 255u, k & 255u);
            break;
        default: e->placeholder = xasprintf("2001:db8::%x", k); break;
        }
    }
    return e->placeholder;
}

static const char *address(struct obf *o, enum okind kind, const uint8_t *key, size_t klen,
                           const char *text, size_t tlen)
{
    for (size_t i = 0; i < o->n; i++)
        if (o->v[i].kind == kind && memcmp(o->v[i].key, key, klen) == 0)
            return placeholder(o, &o->v[i]);
    xgrow(&o->v, &o->cap, o->n + 1, sizeof *o->v);
    struct oent *e = &o->v[o->n++];
    *e = (struct oent){.kind = kind, .real = xstrndup(text, tlen), .len = tlen};
    memcpy(e->key, key, klen);
    return placeholder(o, e);
}

/* aa:bb:cc:dd:ee:ff or aa-bb-...; returns its length or 0. */
static size_t match_mac(const char *s, uint8_t mac[6])
{
    char sep = 0;
    for (int g = 0; g < 6; g++) {
        const char *q = s + g * 3;
        if (!is_hex(q[0]) || !is_hex(q[1]))
            return 0;
        if (g < 5) {
            if (q[2] != ':' && q[2] != '-')
                return 0;
            if (sep && q[2] != sep)
                return 0;
            sep = q[2];
        }
        char h[3] = {q[0], q[1], 0};
        mac[g] = (uint8_t)strtoul(h, NULL, 16);
    }
    char after = s[17];
    if (is_hex(after) || after == ':' || after == sep)
        return 0;
    return 17;
}

/* aabb.ccdd.eeff (Cisco's form); returns its length or 0.  No hex digit or
 * '.' may continue it ("1234.5678.9abc.def0" is something else). */
static size_t match_mac_dotted(const char *s, uint8_t mac[6])
{
    for (int g = 0; g < 3; g++) {
        const char *q = s + g * 5;
        for (int k = 0; k < 4; k++)
            if (!is_hex(q[k]))
                return 0;
        if (g < 2 && q[4] != '.')
            return 0;
        for (int k = 0; k < 2; k++) {
            char h[3] = {q[2 * k], q[2 * k + 1], 0};
            mac[g * 2 + k] = (uint8_t)strtoul(h, NULL, 16);
        }
    }
    if (is_hex(s[14]) || (s[14] == '.' && is_hex(s[15])))
        return 0;
    return 14;
}

static size_t match_ipv4(const char *s, uint8_t a[4])
{
    size_t i = 0;
    for (int g = 0; g < 4; g++) {
        if (g && s[i++] != '.')
            return 0;
        unsigned v = 0, d = 0;
        while (d < 3 && is_digit(s[i])) {
            v = v * 10 + (unsigned)(s[i++] - '0');
            d++;
        }
        if (!d || v > 255 || is_digit(s[i]))
            return 0;
        a[g] = (uint8_t)v;
    }
    if (s[i] == '.' && is_digit(s[i + 1]))
        return 0; /* a longer dotted number */
    return i;
}

/* A cut address: 2 or 3 dotted decimal groups, maybe with the dot after
 * the last ("192.0.", "10.20.3"), not part of a longer dotted number.
 * Returns its length; *groups and *dot describe it. */
static size_t match_ipv4_part(const char *s, unsigned *groups, bool *dot)
{
    size_t i = 0;
    unsigned g = 0;
    *dot = false;
    for (;;) {
        unsigned v = 0, d = 0;
        while (d < 3 && is_digit(s[i])) {
            v = v * 10 + (unsigned)(s[i++] - '0');
            d++;
        }
        if (!d || v > 255 || is_digit(s[i]))
            return 0;
        g++;
        if (s[i] != '.' || g == 4)
            break;
        if (!is_digit(s[i + 1])) {
            *dot = true;
            i++;
            break;
        }
        if (g == 3)
            return 0; /* four groups or more: an address or a longer number */
        i++;
    }
    if (g < 2 || g > 3)
        return 0;
    *groups = g;
    return i;
}

static size_t match_ipv6(const char *s, bool prev_word, uint8_t a[16])
{
    size_t n = 0, colons = 0;
    while (is_hex(s[n]) || s[n] == ':' || s[n] == '.') {
        colons += s[n] == ':';
        n++;
        if (n > 45)
            return 0;
    }
    if (colons < 2)
        return 0;
    bool embedded = prev_word || is_alnum(s[n]) || s[n] == '_';
    /* "fe80::1:" at the end of a sentence: trailing punctuation is not part of it */
    while (n && (s[n - 1] == '.' || (s[n - 1] == ':' && !(n >= 2 && s[n - 2] == ':'))))
        n--;
    char buf[64];
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (inet_pton(AF_INET6, buf, a) != 1)
        return 0;
    if (embedded) {
        /* Glued to a word ("ip_fe80::1"): C++ names ("std::vector" gives
         * "d::", "Abc::def") are too; an address there has 3+ groups, or 2
         * with a decimal digit. */
        unsigned groups = 0;
        bool digit = false;
        for (size_t k = 0; k < n; k++) {
            groups += is_hex(buf[k]) && (k == 0 || !is_hex(buf[k - 1]));
            digit = digit || is_digit(buf[k]);
        }
        if (groups < 2 || (groups == 2 && !digit))
            return 0;
    }
    return n;
}

static bool keep_ipv4(const uint8_t a[4])
{
    return a[0] == 127 || (a[0] == 0 && a[1] == 0 && a[2] == 0 && a[3] == 0) ||
           (a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255);
}

static bool keep_ipv6(const uint8_t a[16])
{
    static const uint8_t zero[16];
    if (memcmp(a, zero, 15) == 0 && (a[15] == 0 || a[15] == 1))
        return true; /* :: and ::1 */
    return memcmp(a, zero, 10) == 0 && a[10] == 0xff && a[11] == 0xff && a[12] == 127;
}

static bool keep_mac(const uint8_t m[6])
{
    bool zero = true, ff = true;
    for (int i = 0; i < 6; i++) {
        zero = zero && m[i] == 0;
        ff = ff && m[i] == 0xff;
    }
    return zero || ff;
}

/* Names inside identifiers: a name glued to a word by '_' or '-' is
 * replaced when it has at least this many characters ("user_cloudsdk",
 * "cloudsdk-10.0.0.2", a JIT symbol "runsc_rpc"); a shorter one is more
 * often a word of its own there (host "vm" in vm_area_alloc, kvm-clock). */
#define GLUED_MIN 4

static bool is_glue(char c) { return c == '_' || c == '-'; }

/* A literal name may start at i: the previous character is no letter or
 * digit, nor, for a host, a '.' that continues a dotted name ("sys.vm").
 * *glued: it is '_' or '-'. */
static bool name_start(const char *s, size_t i, bool dotted, bool *glued)
{
    *glued = false;
    if (i == 0)
        return true;
    char p = s[i - 1];
    if (is_alnum(p))
        return false;
    *glued = is_glue(p);
    return !(dotted && p == '.' && i >= 2 && is_alnum(s[i - 2]));
}

static bool name_end(const char *s, size_t j, bool dotted, bool *glued)
{
    *glued = is_glue(s[j]);
    return !is_alnum(s[j]) && !(dotted && s[j] == '.' && is_alnum(s[j + 1]));
}

/* The longest registered name at s + i, whole by the rules above. */
static struct oent *match_name(struct obf *o, const char *s, size_t i)
{
    struct oent *best = NULL;
    bool glued_before, glued_host;
    if (!name_start(s, i, false, &glued_before))
        return NULL; /* no name of either kind starts here */
    bool start_host = name_start(s, i, true, &glued_host);
    for (size_t k = 0; k < o->n; k++) {
        struct oent *e = &o->v[k];
        bool host = e->kind == OK_HOST, glued_after;
        if ((!host && e->kind != OK_USER) || (host && !start_host) || (best && e->len <= best->len))
            continue;
        if (strnlen(s + i, e->len) == e->len && eq_literal(s + i, e->real, e->len, host) &&
            name_end(s, i + e->len, host, &glued_after) &&
            (e->len >= GLUED_MIN || (!glued_before && !glued_after)))
            best = e;
    }
    return best;
}

/* Whether a comm cut to 15 bytes may end at j: the word ending there (back
 * to a blank, quote, bracket, '/', '=' or ',') is 15 bytes long. */
static bool comm_end(const char *s, size_t j)
{
    size_t b = j;
    while (b > 0 && !strchr(" \t\"'([{/=,", s[b - 1]))
        b--;
    return j - b == COMM_MAX;
}

/* The placeholder of a cut address (run: its text, g groups, dot after the
 * last): the matching part of the placeholder of a full address it begins
 * ("192.0.2" of 192.0.2.2 -> "240.0.0"), else, when it must go (cut_point),
 * an ipv4-prefix placeholder of its own.  NULL = leave it. */
static const char *cut_address(struct obf *o, const char *run, size_t len, unsigned g, bool dot,
                               bool cut_point, char *buf, size_t bn)
{
    for (size_t k = 0; k < o->n; k++) {
        struct oent *e = &o->v[k];
        if (e->kind != OK_IPV4 || e->len <= len || memcmp(e->real, run, len) != 0)
            continue;
        /* Away from a cut point only whole groups: "10.2" is no part of 10.20.30.40. */
        if (!cut_point && !dot && e->real[len] != '.')
            continue;
        const char *ph = placeholder(o, e);
        size_t n = 0;
        for (unsigned seen = 0; ph[n] && !(ph[n] == '.' && ++seen == g); n++)
            ;
        snprintf(buf, bn, "%.*s%s", (int)n, ph, dot ? "." : "");
        return buf;
    }
    if (!cut_point)
        return NULL;
    for (size_t k = 0; k < o->n; k++)
        if (o->v[k].kind == OK_IPV4P && o->v[k].len == len && memcmp(o->v[k].real, run, len) == 0)
            return o->v[k].placeholder;
    xgrow(&o->v, &o->cap, o->n + 1, sizeof *o->v);
    struct oent *e = &o->v[o->n++];
    unsigned num = ++o->next[OK_IPV4P];
    *e = (struct oent){.kind = OK_IPV4P, .real = xstrndup(run, len), .len = len, .num = num};
    e->placeholder = g == 2 ? xasprintf("240.%u%s", num & 255u, dot ? "." : "")
                            : xasprintf("240.%u.%u%s", (num >> 8) & 255u, num & 255u,
                                        dot ? "." : "");
    return e->placeholder;
}

char *obf_text(struct obf *o, const char *s)
{
    if (!s)
        return NULL;
    struct strbuf out = STRBUF_INIT;
    size_t done = 0, changed = 0;
    char cutbuf[32];
    for (size_t i = 0; s[i];) {
        char prev = i ? s[i - 1] : '\0';
        size_t m = 0;
        const char *rep = NULL;
        /* Addresses stand wherever they are, glued to letters or '_' too
         * ("connect_192.0.2.2"): only a character that would continue them
         * (a hex digit or ':' for MAC/IPv6, a digit or '.' for IPv4) hides
         * one. */
        bool hex_start = !is_hex(prev) && prev != ':';
        bool dec_start = !is_digit(prev) && prev != '.';
        /* A MAC's groups are exactly 2 digits: a hex letter before it
         * ("mac02:fc:...") cannot belong to it. */
        if (prev != ':' && is_hex(s[i])) {
            uint8_t mac[6];
            m = match_mac(s + i, mac);
            if (m && prev == '-' && s[i + 2] == '-' && i >= 2 && is_hex(s[i - 2]))
                m = 0; /* one more "xx-" group before it: not a MAC */
            /* the dotted form only as a word of its own or after '_'/'-':
             * glued to letters it reads as a version ("v2024.1127.0600") */
            if (!m && prev != '.' && !is_alnum(prev))
                m = match_mac_dotted(s + i, mac);
            if (m)
                rep = keep_mac(mac) ? "" : address(o, OK_MAC, mac, 6, s + i, m);
        }
        if (!m && hex_start && prev != '.' && (is_hex(s[i]) || s[i] == ':')) {
            uint8_t a6[16];
            m = match_ipv6(s + i, is_alnum(prev) || prev == '_', a6);
            if (m)
                rep = keep_ipv6(a6) ? "" : address(o, OK_IPV6, a6, 16, s + i, m);
        }
        if (!m && dec_start && is_digit(s[i])) {
            uint8_t a4[4];
            m = match_ipv4(s + i, a4);
            if (m)
                rep = keep_ipv4(a4) ? "" : address(o, OK_IPV4, a4, 4, s + i, m);
        }
        if (!m && dec_start && is_digit(s[i]) && !o->no_prefixes) {
            /* A cut address: at the end of a 15-byte string (a comm), or
             * ending in '.' glued to a name ("cloudsdk-192.0."), or a whole
             * group prefix of an address seen in full. */
            unsigned g;
            bool dot;
            size_t k = match_ipv4_part(s + i, &g, &dot);
            if (k) {
                /* "ld-2.36.so": the word goes on, nothing was cut there. */
                bool cut = comm_end(s, i + k) ||
                           (dot && is_word(prev) && !is_word(s[i + k]));
                rep = cut_address(o, s + i, k, g, dot, cut, cutbuf, sizeof cutbuf);
                m = rep ? k : 0;
            }
        }
        if (!m) {
            struct oent *best = match_name(o, s, i);
            if (best) {
                m = best->len;
                rep = placeholder(o, best);
            }
        }
        if (m && rep && *rep) {
            sb_addn(&out, s + done, i - done);
            sb_add(&out, rep);
            done = i + m;
            changed++;
        }
        i += m ? m : 1;
    }
    if (!changed) {
        sb_free(&out);
        return NULL;
    }
    sb_add(&out, s + done);
    return sb_detach(&out);
}

/* ---- the model walk ---- */

struct walk {
    struct obf *o;
    size_t changed;
    bool dry; /* only register what is seen; change nothing */
};

static void fix(struct walk *w, char **p)
{
    char *t = *p ? obf_text(w->o, *p) : NULL;
    if (t && w->dry) {
        free(t);
    } else if (t) {
        free(*p);
        *p = t;
        w->changed++;
    }
}

static void fix_kv(struct walk *w, struct kvlist *l)
{
    for (size_t i = 0; i < l->n; i++) {
        fix(w, &l->v[i].key);
        fix(w, &l->v[i].title);
        fix(w, &l->v[i].value);
    }
}

static void fix_entry(struct walk *w, struct model_entry *e)
{
    fix(w, &e->name);
    fix(w, &e->title);
    fix(w, &e->unit);
    fix(w, &e->resource);
}

static char *profile_fix(void *ctx, const char *s)
{
    struct walk *w = ctx;
    char *t = obf_text(w->o, s);
    if (t && w->dry) {
        free(t);
        return NULL;
    }
    w->changed += t != NULL;
    return t;
}

static size_t walk_report(struct obf *o, struct report *r, bool dry);

size_t obfuscate_report(struct obf *o, struct report *r)
{
    /* First every address seen in full, so that a cut one ("192.0.2" in a
     * comm) finds its placeholder wherever it comes in the walk. */
    o->no_prefixes = true;
    walk_report(o, r, true);
    o->no_prefixes = false;
    return walk_report(o, r, false);
}

static size_t walk_report(struct obf *o, struct report *r, bool dry)
{
    struct walk w = {o, 0, dry};
    /* The hostname fact first: it becomes host1 whatever the walk meets. */
    fix_kv(&w, &r->host);
    fix_kv(&w, &r->caps);
    fix(&w, &r->window.target);
    if (r->command) {
        fix(&w, &r->command->line);
        fix(&w, &r->command->user);
        fix(&w, &r->command->error);
    }
    for (size_t i = 0; i < r->nseries; i++)
        fix_entry(&w, &r->series[i]->hdr);
    for (size_t i = 0; i < r->ntables; i++) {
        struct table *t = r->tables[i];
        fix_entry(&w, &t->hdr); /* a table's unit is "": nothing to change */
        fix(&w, &t->note);
        for (size_t c = 0; c < t->ncols; c++) {
            fix(&w, &t->cols[c].name);
            fix(&w, &t->cols[c].title);
            fix(&w, &t->cols[c].unit);
        }
        for (size_t c = 0; c < t->nrows * t->ncols; c++)
            if (t->cells[c].kind == CELL_STR)
                fix(&w, &t->cells[c].str);
    }
    for (size_t i = 0; i < r->nmetrics; i++) {
        fix(&w, &r->metrics[i].name);
        fix(&w, &r->metrics[i].title);
        fix(&w, &r->metrics[i].unit);
        fix(&w, &r->metrics[i].resource);
    }
    for (size_t i = 0; i < r->nfindings; i++) {
        struct finding *f = &r->findings[i];
        fix(&w, &f->id);
        fix(&w, &f->resource);
        fix(&w, &f->title);
        for (size_t k = 0; k < f->nevidence; k++)
            fix(&w, &f->evidence[k]);
        fix(&w, &f->recommendation);
        fix(&w, &f->culprit);
    }
    for (size_t i = 0; i < r->nthresholds; i++) {
        fix(&w, &r->thresholds[i].id);
        fix(&w, &r->thresholds[i].title);
        fix(&w, &r->thresholds[i].unit);
    }
    for (size_t i = 0; i < r->nuse; i++) {
        fix(&w, &r->use[i].resource);
        fix(&w, &r->use[i].util.text);
        fix(&w, &r->use[i].sat.text);
        fix(&w, &r->use[i].err.text);
    }
    for (size_t i = 0; i < r->nledger; i++) {
        fix(&w, &r->ledger[i].name);
        fix(&w, &r->ledger[i].title);
        fix(&w, &r->ledger[i].reason);
        fix(&w, &r->ledger[i].notes);
    }
    for (size_t i = 0; i < r->nhists; i++)
        fix_entry(&w, &r->hists[i]->hdr);
    for (size_t i = 0; i < r->nprofiles; i++) {
        struct profile *p = r->profiles[i];
        fix(&w, &p->name);
        fix(&w, &p->title);
        fix(&w, &p->unit);
        profile_map_strings(p, profile_fix, &w);
    }
    fix(&w, &r->headline);
    fix(&w, &r->tool_version);
    return w.changed;
}

/* ---- the map ---- */

static void add_escaped(struct strbuf *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f || c == '\\')
            sb_addf(out, "\\x%02x", c);
        else
            sb_addc(out, (char)c);
    }
}

static int cmp_used(const void *a, const void *b)
{
    const struct oent *x = *(const struct oent *const *)a, *y = *(const struct oent *const *)b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return (x->num > y->num) - (x->num < y->num);
}

void obf_map_text(const struct obf *o, struct strbuf *out)
{
    sb_add(out, "# perfreport --obfuscate: placeholder, real value, kind.  Keep this file "
                "private; it is not part of the bundle.\n");
    const struct oent **used = xcalloc(o->n ? o->n : 1, sizeof *used);
    size_t nu = 0;
    for (size_t i = 0; i < o->n; i++)
        if (o->v[i].placeholder)
            used[nu++] = &o->v[i];
    if (nu > 1)
        qsort(used, nu, sizeof *used, cmp_used);
    for (size_t i = 0; i < nu; i++) {
        add_escaped(out, used[i]->placeholder);
        sb_addc(out, '\t');
        add_escaped(out, used[i]->real);
        sb_addc(out, '\t');
        sb_add(out, k_kind[used[i]->kind]);
        sb_addc(out, '\n');
    }
    free(used);
}

int obf_write_map(const struct obf *o, int dir_fd, const char *name, const char *shown,
                  char *path_out, size_t pn, char *err, size_t en)
{
    size_t bl = strlen(shown);
    while (bl > 1 && shown[bl - 1] == '/')
        bl--;
    char file[NAME_MAX + 1];
    int w = snprintf(path_out, pn, "%.*s.obfuscation-map", (int)bl, shown);
    int wf = snprintf(file, sizeof file, "%s.obfuscation-map", name);
    if (w < 0 || (size_t)w >= pn || wf < 0 || (size_t)wf >= sizeof file || strchr(name, '/')) {
        snprintf(err, en, "obfuscation map name too long");
        return -ENAMETOOLONG;
    }
    struct strbuf sb = STRBUF_INIT;
    obf_map_text(o, &sb);
    int fd = openat(dir_fd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        snprintf(err, en, "cannot create %s: %s", path_out, strerror(e));
        sb_free(&sb);
        return -e;
    }
    int rc = 0;
    if (fchmod(fd, 0600) != 0)
        rc = -errno;
    for (size_t off = 0; rc == 0 && off < sb.len;) {
        ssize_t k = write(fd, sb.buf + off, sb.len - off);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
        } else {
            off += (size_t)k;
        }
    }
    if (rc == 0 && fsync(fd) != 0)
        rc = -errno;
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc) {
        snprintf(err, en, "cannot write %s: %s", path_out, strerror(-rc));
        unlinkat(dir_fd, file, 0);
    }
    sb_free(&sb);
    return rc;
}
