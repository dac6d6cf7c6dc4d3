/* The protobuf writer against hand-computed bytes, and pprof profiles read
 * back by a small decoder written here (independent of the encoder). */
#include "harness.h"
#include "../../src/model/model.h"
#include "../../src/model/profile.h"
#include "../../src/model/profile_sites.h"
#include "../../src/render/pprof.h"
#include "../../src/render/protobuf.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/xalloc.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* "08 96 01" -> whether sb holds exactly those bytes */
static int bytes_are(const struct strbuf *sb, const char *hex)
{
    size_t n = 0;
    for (const char *h = hex; *h;) {
        if (*h == ' ') {
            h++;
            continue;
        }
        unsigned v;
        if (sscanf(h, "%2x", &v) != 1 || n >= sb->len || (unsigned char)sb->buf[n] != v)
            return 0;
        n++;
        h += 2;
    }
    return n == sb->len;
}

#define CHECK_BYTES(sb, hex)                                                        \
    do {                                                                            \
        if (!bytes_are((sb), (hex)))                                                \
            test_fail(__FILE__, __LINE__, "bytes differ from %s (len %zu)", (hex), \
                      (sb)->len);                                                   \
    } while (0)

TEST(pb_varints)
{
    static const struct {
        uint64_t v;
        const char *hex;
    } cases[] = {
        {0, "00"},
        {1, "01"},
        {127, "7f"},
        {128, "80 01"},
        {150, "96 01"},
        {300, "ac 02"},
        {16383, "ff 7f"},
        {16384, "80 80 01"},
        {(uint64_t)1 << 32, "80 80 80 80 10"},
        {UINT64_MAX, "ff ff ff ff ff ff ff ff ff 01"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct strbuf sb = STRBUF_INIT;
        pb_varint(&sb, cases[i].v);
        CHECK_BYTES(&sb, cases[i].hex);
        sb_free(&sb);
    }
}

TEST(pb_fields)
{
    struct strbuf sb = STRBUF_INIT;
    pb_uint(&sb, 1, 150); /* the protobuf encoding guide's first example */
    CHECK_BYTES(&sb, "08 96 01");
    sb_reset(&sb);
    pb_uint(&sb, 16, 1); /* key 16<<3 = 128 takes two bytes */
    CHECK_BYTES(&sb, "80 01 01");
    sb_reset(&sb);
    pb_int(&sb, 1, -1); /* int64: ten bytes, not zigzag */
    CHECK_BYTES(&sb, "08 ff ff ff ff ff ff ff ff ff 01");
    sb_reset(&sb);
    pb_int(&sb, 9, 1700000000000000000LL);
    CHECK_BYTES(&sb, "48 80 80 a8 b1 e3 9f e7 cb 17");
    sb_reset(&sb);
    pb_bytes(&sb, 2, "testing", 7);
    CHECK_BYTES(&sb, "12 07 74 65 73 74 69 6e 67");
    sb_reset(&sb);
    pb_bytes(&sb, 6, "", 0); /* an empty string is still a field */
    CHECK_BYTES(&sb, "32 00");
    sb_reset(&sb);
    pb_packed(&sb, 4, (const uint64_t[]){3, 270, 86942}, 3);
    CHECK_BYTES(&sb, "22 06 03 8e 02 9e a7 05");
    sb_reset(&sb);
    pb_packed(&sb, 4, NULL, 0); /* empty repeated: absent */
    CHECK(sb.len == 0);
    /* a nested message: Sample{location_id: [1, 2], value: [5]} as field 2 */
    struct strbuf m = STRBUF_INIT;
    pb_packed(&m, 1, (const uint64_t[]){1, 2}, 2);
    pb_packed(&m, 2, (const uint64_t[]){5}, 1);
    pb_bytes(&sb, 2, m.buf, m.len);
    CHECK_BYTES(&sb, "12 07 0a 02 01 02 12 01 05");
    sb_free(&m);
    sb_free(&sb);
}

/* ---- a reader for what the tests need of profile.proto ---- */

struct rd {
    const uint8_t *p, *end;
    int bad;
};

static uint64_t rd_varint(struct rd *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->bad = 1;
    return v;
}

/* Next field: its number, wire type, varint value or sub-reader. */
static int rd_field(struct rd *r, uint32_t *field, uint64_t *v, struct rd *sub)
{
    if (r->p >= r->end || r->bad)
        return 0;
    uint64_t key = rd_varint(r);
    *field = (uint32_t)(key >> 3);
    switch (key & 7) {
    case 0: *v = rd_varint(r); sub->p = sub->end = NULL; break;
    case 2: {
        uint64_t len = rd_varint(r);
        if (len > (uint64_t)(r->end - r->p)) {
            r->bad = 1;
            return 0;
        }
        *sub = (struct rd){r->p, r->p + len, 0};
        r->p += len;
        *v = len;
        break;
    }
    default: r->bad = 1; return 0;
    }
    return !r->bad;
}

#define MAXN 64
struct dec {
    char *str[MAXN];
    size_t nstr;
    uint64_t fn_name[MAXN + 1], fn_file[MAXN + 1]; /* by function id */
    uint64_t loc_fn[MAXN + 1][8], loc_line[MAXN + 1][8], loc_map[MAXN + 1], loc_addr[MAXN + 1];
    size_t loc_n[MAXN + 1];
    uint64_t map_file[MAXN + 1];
    uint64_t map_f[MAXN + 1][11]; /* by mapping id: its fields 1..10 (varint or string id) */
    size_t nmaps;
    struct {
        uint64_t loc[MAXN], val[4], lab_key, lab_str; /* lab_*: the first label */
        uint64_t lab[8][3]; /* key, str, num */
        size_t nloc, nval, nlab;
    } s[MAXN];
    size_t ns;
    uint64_t types[4][2], ntypes, period, period_type[2], time_nanos, duration_nanos;
    int bad;
};

static void packed(struct rd *sub, uint64_t *out, size_t *n, size_t max)
{
    while (sub->p < sub->end && !sub->bad && *n < max)
        out[(*n)++] = rd_varint(sub);
}

static void decode(const char *buf, size_t len, struct dec *d)
{
    memset(d, 0, sizeof *d);
    struct rd r = {(const uint8_t *)buf, (const uint8_t *)buf + len, 0}, sub, s2, s3;
    uint32_t f, f2, f3;
    uint64_t v, v2, v3;
    while (rd_field(&r, &f, &v, &sub)) {
        if (f == 6 && d->nstr < MAXN) {
            d->str[d->nstr++] = xstrndup((const char *)sub.p, (size_t)v);
        } else if (f == 1 || f == 11) { /* ValueType */
            uint64_t tv[2] = {0, 0};
            while (rd_field(&sub, &f2, &v2, &s2))
                if (f2 == 1 || f2 == 2)
                    tv[f2 - 1] = v2;
            if (f == 1 && d->ntypes < 4)
                memcpy(d->types[d->ntypes++], tv, sizeof tv);
            else if (f == 11)
                memcpy(d->period_type, tv, sizeof tv);
        } else if (f == 2 && d->ns < MAXN) {
            size_t i = d->ns++;
            while (rd_field(&sub, &f2, &v2, &s2)) {
                if (f2 == 1)
                    packed(&s2, d->s[i].loc, &d->s[i].nloc, MAXN);
                else if (f2 == 2)
                    packed(&s2, d->s[i].val, &d->s[i].nval, 4);
                else if (f2 == 3 && d->s[i].nlab < 8) {
                    uint64_t *l = d->s[i].lab[d->s[i].nlab++];
                    while (rd_field(&s2, &f3, &v3, &s3))
                        if (f3 >= 1 && f3 <= 3)
                            l[f3 - 1] = v3;
                    if (d->s[i].nlab == 1) {
                        d->s[i].lab_key = l[0];
                        d->s[i].lab_str = l[1];
                    }
                }
            }
        } else if (f == 3) { /* Mapping */
            uint64_t id = 0, file = 0, mf[11] = {0};
            while (rd_field(&sub, &f2, &v2, &s2)) {
                if (f2 == 1)
                    id = v2;
                else if (f2 == 5)
                    file = v2;
                if (f2 <= 10)
                    mf[f2] = v2;
            }
            d->nmaps++;
            if (id && id <= MAXN) {
                d->map_file[id] = file;
                memcpy(d->map_f[id], mf, sizeof mf);
            }
        } else if (f == 4) { /* Location */
            uint64_t id = 0, map = 0, addr = 0, fn[8], ln[8];
            size_t n = 0;
            while (rd_field(&sub, &f2, &v2, &s2)) {
                if (f2 == 1)
                    id = v2;
                else if (f2 == 2)
                    map = v2;
                else if (f2 == 3)
                    addr = v2;
                else if (f2 == 4 && n < 8) {
                    fn[n] = ln[n] = 0;
                    while (rd_field(&s2, &f3, &v3, &s3))
                        *(f3 == 1 ? &fn[n] : &ln[n]) = v3;
                    n++;
                }
            }
            if (id && id <= MAXN) {
                memcpy(d->loc_fn[id], fn, n * sizeof *fn);
                memcpy(d->loc_line[id], ln, n * sizeof *ln);
                d->loc_n[id] = n;
                d->loc_map[id] = map;
                d->loc_addr[id] = addr;
            }
        } else if (f == 5) { /* Function */
            uint64_t id = 0, name = 0, file = 0;
            while (rd_field(&sub, &f2, &v2, &s2))
                if (f2 == 1)
                    id = v2;
                else if (f2 == 2)
                    name = v2;
                else if (f2 == 4)
                    file = v2;
            if (id && id <= MAXN) {
                d->fn_name[id] = name;
                d->fn_file[id] = file;
            }
        } else if (f == 9) {
            d->time_nanos = v;
        } else if (f == 10) {
            d->duration_nanos = v;
        } else if (f == 12) {
            d->period = v;
        }
    }
    d->bad = r.bad;
}

static const char *S(const struct dec *d, uint64_t i) { return i < d->nstr ? d->str[i] : "?"; }

/* Sample i as "comm|leaf-location;...;root-location", a location as its
 * lines "inner<outer" with ":line" when set and "@mapping" when mapped. */
static void sample_text(const struct dec *d, size_t i, struct strbuf *sb)
{
    sb_reset(sb);
    sb_addf(sb, "%s|", d->s[i].lab_key ? S(d, d->s[i].lab_str) : "-");
    for (size_t k = 0; k < d->s[i].nloc; k++) {
        uint64_t l = d->s[i].loc[k];
        if (k)
            sb_addc(sb, ';');
        if (!l || l > MAXN) {
            sb_add(sb, "?");
            continue;
        }
        for (size_t j = 0; j < d->loc_n[l]; j++) {
            uint64_t fn = d->loc_fn[l][j];
            sb_addf(sb, "%s%s", j ? "<" : "", fn && fn <= MAXN ? S(d, d->fn_name[fn]) : "?");
            if (d->loc_line[l][j])
                sb_addf(sb, ":%llu", (unsigned long long)d->loc_line[l][j]);
        }
        if (d->loc_map[l])
            sb_addf(sb, "@%s", S(d, d->map_file[d->loc_map[l]]));
    }
}

static void dec_free(struct dec *d)
{
    for (size_t i = 0; i < d->nstr; i++)
        free(d->str[i]);
}

static char *upper_fn(void *ctx, const char *str)
{
    (void)ctx;
    char *u = xstrdup(str);
    for (char *c = u; *c; c++)
        if (*c >= 'a' && *c <= 'z')
            *c = (char)(*c - 'a' + 'A');
    return u;
}

static void add(struct profile *p, const char *const *names, const uint8_t *kinds, size_t n,
                uint64_t c)
{
    profile_add_stack(p, names, kinds, n, c);
}

TEST(pprof_cpu_profile)
{
    struct report *r = report_new();
    report_metric(r, "profile.hz", "Profile sampling rate", "Hz", "profile", 100);
    r->window.start_wall = (struct timespec){1700000000, 5};
    r->window.actual_s = 2.5;
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    const uint8_t P = FRAME_PROCESS, U = FRAME_USER, K = FRAME_KERNEL, I = FRAME_INLINE;
    /* foo with bar inlined into it and baz inlined into bar */
    add(p, (const char *[]){"app", "main", "foo", "bar", "baz"}, (const uint8_t[]){P, U, U, I, I},
        5, 5);
    add(p, (const char *[]){"app", "main", "do_sys", "ksys_read"}, (const uint8_t[]){P, U, K, K},
        4, 3);
    add(p, (const char *[]){"db", "main", "foo", "bar", "baz"}, (const uint8_t[]){P, U, U, I, I},
        5, 2);
    add(p, (const char *[]){"db", "main"}, (const uint8_t[]){P, U}, 2, 1);
    uint32_t foo = profile_find(p, (const char *[]){"app", "main", "foo"}, 3);
    REQUIRE(foo != PROFILE_NONE);
    profile_set_source(p, foo, "src/foo.c:42");
    report_add_profile(r, p);

    struct strbuf raw = STRBUF_INIT, sb = STRBUF_INIT;
    pprof_encode(r, p, &raw);
    struct dec d;
    decode(raw.buf, raw.len, &d);
    CHECK(!d.bad);
    REQUIRE(d.nstr > 0);
    CHECK_STR(d.str[0], "");
    REQUIRE(d.ntypes == 2);
    CHECK_STR(S(&d, d.types[0][0]), "samples");
    CHECK_STR(S(&d, d.types[0][1]), "count");
    CHECK_STR(S(&d, d.types[1][0]), "cpu");
    CHECK_STR(S(&d, d.types[1][1]), "nanoseconds");
    CHECK_STR(S(&d, d.period_type[0]), "cpu");
    CHECK(d.period == 10000000); /* 100 Hz */
    CHECK(d.time_nanos == 1700000000000000005ULL);
    CHECK(d.duration_nanos == 2500000000ULL);
    REQUIRE(d.ns == 4);
    const char *want[] = {
        "app|baz<bar<foo:42;main",                      /* the inline chain is one location */
        "app|ksys_read@[kernel];do_sys@[kernel];main",
        "db|main",
        "db|baz<bar<foo;main", /* the source was set on app's foo node only */
    };
    uint64_t want_count[] = {5, 3, 1, 2}, total = 0;
    for (size_t i = 0; i < d.ns; i++) {
        sample_text(&d, i, &sb);
        int found = 0;
        for (size_t k = 0; k < 4; k++)
            if (strcmp(sb_str(&sb), want[k]) == 0) {
                found = 1;
                CHECK(d.s[i].nval == 2);
                CHECK(d.s[i].val[0] == want_count[k]);
                CHECK(d.s[i].val[1] == want_count[k] * 10000000);
            }
        if (!found)
            test_fail(__FILE__, __LINE__, "unexpected sample %s", sb_str(&sb));
        CHECK_STR(S(&d, d.s[i].lab_key), "comm");
        total += d.s[i].val[0];
    }
    CHECK(total == profile_total(p));
    /* app's and db's equal chains share their locations: 5 locations in all
     * (main, foo-chain with line, foo-chain without, do_sys, ksys_read) */
    size_t nloc = 0;
    for (size_t l = 1; l <= MAXN; l++)
        nloc += d.loc_n[l] > 0;
    CHECK(nloc == 5);
    dec_free(&d);

    struct strbuf gz = STRBUF_INIT;
    REQUIRE(pprof_gzip(raw.buf, raw.len, &gz) == 0);
    CHECK(gz.len > 18 && (unsigned char)gz.buf[0] == 0x1f && (unsigned char)gz.buf[1] == 0x8b);
    /* inflate it back (windowBits 31: gzip only) */
    z_stream z;
    memset(&z, 0, sizeof z);
    REQUIRE(inflateInit2(&z, 31) == Z_OK);
    char *back = xmalloc(raw.len + 16);
    z.next_in = (Bytef *)gz.buf;
    z.avail_in = (uInt)gz.len;
    z.next_out = (Bytef *)back;
    z.avail_out = (uInt)(raw.len + 16);
    CHECK(inflate(&z, Z_FINISH) == Z_STREAM_END);
    CHECK(z.total_out == raw.len && memcmp(back, raw.buf, raw.len) == 0);
    inflateEnd(&z);
    free(back);
    sb_free(&gz);
    sb_free(&raw);
    sb_free(&sb);
    report_free(r);
}

TEST(pprof_offcpu_profile)
{
    /* no report: no window, no rate; microseconds become nanoseconds */
    struct profile *p = profile_new("offcpu", "Off-CPU time", "us");
    const uint8_t P = FRAME_PROCESS, U = FRAME_USER, K = FRAME_KERNEL;
    add(p, (const char *[]){"web", "read", "schedule"}, (const uint8_t[]){P, U, K}, 3, 1500);
    add(p, (const char *[]){"[unknown]"}, (const uint8_t[]){P}, 1, 7); /* no frames */
    struct strbuf raw = STRBUF_INIT, sb = STRBUF_INIT;
    pprof_encode(NULL, p, &raw);
    struct dec d;
    decode(raw.buf, raw.len, &d);
    CHECK(!d.bad);
    REQUIRE(d.ntypes == 1);
    CHECK_STR(S(&d, d.types[0][0]), "wait");
    CHECK_STR(S(&d, d.types[0][1]), "nanoseconds");
    CHECK(d.time_nanos == 0 && d.duration_nanos == 0 && d.period == 0);
    REQUIRE(d.ns == 2);
    uint64_t sum = 0;
    int seen_web = 0;
    for (size_t i = 0; i < d.ns; i++) {
        sample_text(&d, i, &sb);
        if (strcmp(sb_str(&sb), "web|schedule@[kernel];read") == 0) {
            seen_web = 1;
            CHECK(d.s[i].val[0] == 1500000);
        } else {
            CHECK_STR(sb_str(&sb), "[unknown]|");
        }
        sum += d.s[i].val[0];
    }
    CHECK(seen_web);
    CHECK(sum == profile_total(p) * 1000);
    dec_free(&d);
    sb_free(&raw);
    sb_free(&sb);
    profile_free(p);
}

TEST(pprof_names_are_bytes)
{
    /* host-controlled names go into the string table as they are (a ';' or
     * a newline cannot break a length-delimited field), except that bytes
     * that are not UTF-8 become U+FFFD: proto3 readers refuse them */
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    const char *odd = "we;ird\n\xff\xfe name \xc3\xa9";
    add(p, (const char *[]){"x\xc3", odd}, (const uint8_t[]){FRAME_PROCESS, FRAME_USER}, 2, 9);
    struct strbuf raw = STRBUF_INIT, sb = STRBUF_INIT;
    pprof_encode(NULL, p, &raw);
    struct dec d;
    decode(raw.buf, raw.len, &d);
    CHECK(!d.bad);
    REQUIRE(d.ns == 1 && d.ntypes == 1); /* no rate: samples/count only */
    sample_text(&d, 0, &sb);
    struct strbuf want = STRBUF_INIT;
    sb_add(&want, "x\xEF\xBF\xBD|we;ird\n\xEF\xBF\xBD\xEF\xBF\xBD name \xc3\xa9");
    CHECK_STR(sb_str(&sb), sb_str(&want));
    CHECK(d.s[0].val[0] == 9);
    dec_free(&d);
    sb_free(&want);
    sb_free(&raw);
    sb_free(&sb);
    profile_free(p);
}

/* Sample i's labels as "key=str" / "key=#num", in order, space-separated. */
static void labels_text(const struct dec *d, size_t i, struct strbuf *sb)
{
    sb_reset(sb);
    for (size_t k = 0; k < d->s[i].nlab; k++) {
        const uint64_t *l = d->s[i].lab[k];
        if (l[1])
            sb_addf(sb, "%s%s=%s", k ? " " : "", S(d, l[0]), S(d, l[1]));
        else
            sb_addf(sb, "%s%s=#%llu", k ? " " : "", S(d, l[0]), (unsigned long long)l[2]);
    }
}

/* A location as "addr:fn@file:line<fn@file:line" (innermost first). */
static void location_text(const struct dec *d, uint64_t l, struct strbuf *sb)
{
    sb_reset(sb);
    if (!l || l > MAXN)
        return;
    sb_addf(sb, "%llx:", (unsigned long long)d->loc_addr[l]);
    for (size_t j = 0; j < d->loc_n[l]; j++) {
        uint64_t fn = d->loc_fn[l][j];
        if (!fn || fn > MAXN)
            continue;
        sb_addf(sb, "%s%s@%s:%llu", j ? "<" : "", S(d, d->fn_name[fn]),
                d->fn_file[fn] ? S(d, d->fn_file[fn]) : "-", (unsigned long long)d->loc_line[l][j]);
    }
}

static uint32_t node_of(const struct profile *p, const char *const *path, size_t n)
{
    return profile_find(p, path, n);
}

TEST(pprof_sites_and_labels)
{
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    const char *s1[] = {"app", "main", "work", "inl"};
    const uint8_t k1[] = {FRAME_PROCESS, FRAME_USER, FRAME_USER, FRAME_INLINE};
    const char *s2[] = {"app", "main", "other"};
    const uint8_t k2[] = {FRAME_PROCESS, FRAME_USER, FRAME_USER};
    const char *s3[] = {"app", "main", "tick"};
    const uint8_t k3[] = {FRAME_PROCESS, FRAME_USER, FRAME_KERNEL};
    add(p, s1, k1, 4, 7);
    add(p, s2, k2, 3, 5);
    add(p, s3, k3, 3, 2); /* no labels: a stack as a folded file gives it */
    uint32_t n_main = node_of(p, s1, 2), n_work = node_of(p, s1, 3), n_inl = node_of(p, s1, 4),
             n_other = node_of(p, s2, 3);
    REQUIRE(n_main != PROFILE_NONE && n_inl != PROFILE_NONE && n_other != PROFILE_NONE);
    /* one binary in two processes at two bases: one mapping, the second
     * process's address moved by the difference */
    struct profile_site_in in = {0x1100, "/usr/bin/app", "0aBc", 0x1000, 0x3000, 0x400,
                                 "app.c", 10};
    CHECK(profile_set_site(p, n_main, &in));
    in.addr = 0x1999;
    CHECK(!profile_set_site(p, n_main, &in)); /* the first address stays */
    in = (struct profile_site_in){0x1200, "/usr/bin/app", "0aBc", 0x1000, 0x3000, 0x400,
                                  "app.c", 20};
    CHECK(profile_set_site(p, n_work, &in));
    in.file = "inl.h";
    in.line = 5;
    CHECK(profile_set_site(p, n_inl, &in));
    in = (struct profile_site_in){0x7300, "/usr/bin/app", "0aBc", 0x7000, 0x9000, 0x400, NULL, 0};
    CHECK(profile_set_site(p, n_other, &in));
    CHECK(!profile_set_site(p, n_main + 1000, &in));
    profile_add_labelled(p, n_inl, 100, 0, "app", "/system.slice/app.service", "app.service", 3);
    profile_add_labelled(p, n_inl, 200, 201, "app", NULL, NULL, 3);
    profile_add_labelled(p, n_inl, 100, 0, "app", "/system.slice/app.service", "app.service", 1);
    profile_add_labelled(p, n_other, 200, 0, "app", NULL, NULL, 5);

    struct strbuf raw = STRBUF_INIT, sb = STRBUF_INIT;
    pprof_encode(NULL, p, &raw);
    struct dec d;
    decode(raw.buf, raw.len, &d);
    CHECK(!d.bad);
    /* the file's mapping: range, file offset, build-id, has_* flags */
    uint64_t app_map = 0;
    for (uint64_t m = 1; m <= MAXN; m++)
        if (d.map_file[m] && strcmp(S(&d, d.map_file[m]), "/usr/bin/app") == 0)
            app_map = m;
    REQUIRE(app_map != 0);
    CHECK(d.nmaps == 2); /* the file and [kernel] */
    CHECK(d.map_f[app_map][2] == 0x1000 && d.map_f[app_map][3] == 0x3000);
    CHECK(d.map_f[app_map][4] == 0x400);
    CHECK_STR(S(&d, d.map_f[app_map][6]), "0aBc");
    for (int fl = 7; fl <= 10; fl++) /* has_functions, _filenames, _line_numbers, _inline_frames */
        CHECK(d.map_f[app_map][fl] == 1);

    uint64_t total = 0;
    size_t seen = 0;
    for (size_t i = 0; i < d.ns; i++) {
        total += d.s[i].val[0];
        REQUIRE(d.s[i].nloc >= 2);
        struct strbuf lab = STRBUF_INIT, leaf = STRBUF_INIT, root = STRBUF_INIT;
        labels_text(&d, i, &lab);
        location_text(&d, d.s[i].loc[0], &leaf);
        location_text(&d, d.s[i].loc[d.s[i].nloc - 1], &root);
        CHECK(d.loc_map[d.s[i].loc[d.s[i].nloc - 1]] == app_map);
        CHECK_STR(sb_str(&root), "1100:main@app.c:10");
        if (d.s[i].nloc == 2 && strstr(sb_str(&leaf), "inl")) {
            /* the inline frame is a Line of its caller's Location */
            CHECK_STR(sb_str(&leaf), "1200:inl@inl.h:5<work@app.c:20");
            if (d.s[i].val[0] == 4) {
                CHECK_STR(sb_str(&lab), "comm=app pid=#100 cgroup=/system.slice/app.service "
                                        "container=app.service");
                seen |= 1;
            } else {
                CHECK(d.s[i].val[0] == 3);
                CHECK_STR(sb_str(&lab), "comm=app pid=#200 thread=#201");
                seen |= 2;
            }
        } else if (strstr(sb_str(&leaf), "other")) {
            CHECK_STR(sb_str(&leaf), "1300:other@-:0");
            CHECK(d.s[i].val[0] == 5);
            CHECK_STR(sb_str(&lab), "comm=app pid=#200");
            seen |= 4;
        } else {
            CHECK(strstr(sb_str(&leaf), "tick") != NULL);
            CHECK(d.loc_map[d.s[i].loc[0]] != app_map && d.loc_addr[d.s[i].loc[0]] == 0);
            CHECK(d.s[i].val[0] == 2);
            CHECK_STR(sb_str(&lab), "comm=app"); /* unclaimed: the process frame's name */
            seen |= 8;
        }
        sb_free(&lab);
        sb_free(&leaf);
        sb_free(&root);
    }
    CHECK(seen == 15 && d.ns == 4);
    CHECK(total == profile_total(p));
    dec_free(&d);

    /* a kept pprof file goes when the strings are rewritten */
    profile_keep_pprof(p, "\x1f\x8b", 2);
    CHECK(p->sites->kept_pprof_len == 2 && memcmp(p->sites->kept_pprof, "\x1f\x8b", 2) == 0);
    profile_map_strings(p, upper_fn, NULL);
    CHECK(p->sites->kept_pprof == NULL);
    sb_free(&raw);
    sb_free(&sb);
    profile_free(p);
}

TEST(pprof_labels_never_exceed_the_stack)
{
    /* labelled counts above the stack's own count (a path cut short when
     * the node space ran out) are clipped: totals stay the folded file's */
    struct profile *p = profile_new("offcpu", "Off-CPU time", "us");
    const char *s1[] = {"db", "wait"};
    add(p, s1, (const uint8_t[]){FRAME_PROCESS, FRAME_KERNEL}, 2, 10);
    uint32_t leaf = profile_find(p, s1, 2);
    profile_add_labelled(p, leaf, 1, 0, "db", NULL, NULL, 8);
    profile_add_labelled(p, leaf, 2, 0, "db", NULL, NULL, 8);
    struct strbuf raw = STRBUF_INIT;
    pprof_encode(NULL, p, &raw);
    struct dec d;
    decode(raw.buf, raw.len, &d);
    CHECK(!d.bad);
    REQUIRE(d.ns == 2);
    CHECK(d.s[0].val[0] == 8000 && d.s[1].val[0] == 2000);
    dec_free(&d);
    sb_free(&raw);
    profile_free(p);
}
