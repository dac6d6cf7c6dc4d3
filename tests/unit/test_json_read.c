/* The strict JSON reader (src/util/json_read.c): what it accepts, what it
 * refuses and the messages that say where. */
#include "harness.h"
#include "../../src/render/json_writer.h"
#include "../../src/util/json_read.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/xalloc.h"
#include <float.h>
#include <math.h>
#include <stdlib.h>

static struct json *parse(const char *text, char *err, size_t n)
{
    struct json *v = NULL;
    if (json_parse(text, strlen(text), &v, err, n) != 0)
        return NULL;
    return v;
}

/* The message json_parse gives for text, "" when it parses. */
static const char *error_of(const char *text, size_t len)
{
    static char err[256];
    struct json *v = NULL;
    err[0] = '\0';
    int rc = json_parse(text, len, &v, err, sizeof err);
    if (rc == 0) {
        json_free(v);
        return "";
    }
    if (v || !err[0])
        return "(failed without a message, or left a tree)";
    return err;
}
#define ERR(lit) error_of((lit), sizeof(lit) - 1)

TEST(json_read_values_and_lookups)
{
    char err[256];
    struct json *v = parse(" {\"a\": [1, -2.5, 3e2, 0, -0, true, false, null],\n"
                           "  \"s\": \"x\\\"y\\\\z\\/\\b\\f\\n\\r\\t\", \"o\": {}, \"e\": []}\r\n",
                           err, sizeof err);
    REQUIRE(v);
    CHECK(v->type == JSON_OBJ && v->n == 4);
    const struct json *a = json_get(v, "a");
    REQUIRE(json_is(a, JSON_ARR) && a->n == 8);
    CHECK_NUM(a->u.items[0].u.num, 1, 0);
    CHECK_NUM(a->u.items[1].u.num, -2.5, 0);
    CHECK_NUM(a->u.items[2].u.num, 300, 0);
    CHECK(a->u.items[5].type == JSON_BOOL && a->u.items[5].b);
    CHECK(a->u.items[6].type == JSON_BOOL && !a->u.items[6].b);
    double d = 0;
    CHECK(json_num_or_null(&a->u.items[7], &d) && isnan(d));
    CHECK(!json_num_or_null(&a->u.items[5], &d));
    long long ll;
    CHECK(json_int(&a->u.items[2], 0, 1000, &ll) && ll == 300);
    CHECK(!json_int(&a->u.items[1], -10, 10, &ll)); /* not integral */
    CHECK(!json_int(&a->u.items[2], 0, 299, &ll));  /* out of range */
    CHECK_STR(json_str(json_get(v, "s")), "x\"y\\z/\b\f\n\r\t");
    CHECK(json_get(v, "s")->n == 11);
    CHECK(json_is(json_get(v, "o"), JSON_OBJ) && json_get(v, "o")->n == 0);
    CHECK(json_is(json_get(v, "e"), JSON_ARR) && json_get(v, "e")->n == 0);
    CHECK(json_get(v, "missing") == NULL);
    CHECK(json_get(a, "a") == NULL); /* not an object */
    CHECK(json_str(a) == NULL);
    CHECK(json_get(NULL, "a") == NULL);
    json_free(v);
    /* a bare scalar is a document too */
    v = parse("\"only\"", err, sizeof err);
    REQUIRE(v);
    CHECK_STR(json_str(v), "only");
    json_free(v);
}

TEST(json_read_unicode_escapes_and_utf8)
{
    char err[256];
    /* é (2 bytes), € (3), 😀 as a surrogate pair (4), and raw UTF-8 kept */
    struct json *v = parse("[\"\\u00e9\\u20AC\\ud83d\\ude00\", \"raw é€😀\"]", err, sizeof err);
    REQUIRE(v);
    CHECK_STR(json_str(&v->u.items[0]), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    CHECK_STR(json_str(&v->u.items[1]), "raw \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    json_free(v);
    CHECK_CONTAINS(ERR("\"\\ud83d\""), "not followed by a \\u low surrogate");
    CHECK_CONTAINS(ERR("\"\\ud83dx\""), "not followed by a \\u low surrogate");
    CHECK_CONTAINS(ERR("\"\\ud83d\\u0041\""), "not a low surrogate");
    CHECK_CONTAINS(ERR("\"\\ude00\""), "low surrogate without a high one");
    CHECK_CONTAINS(ERR("\"\\u12G4\""), "four hex digits");
    CHECK_CONTAINS(ERR("\"\\u0000\""), "NUL");
    CHECK_CONTAINS(ERR("\"\\x41\""), "invalid escape");
    /* bad UTF-8: a lone continuation byte, an overlong '/', an encoded
     * surrogate, above U+10FFFF, a sequence cut short, a byte never valid */
    CHECK_CONTAINS(ERR("\"a\x80\""), "invalid UTF-8 (byte 0x80)");
    CHECK_CONTAINS(ERR("\"\xc0\xaf\""), "invalid UTF-8");
    CHECK_CONTAINS(ERR("\"\xe0\x80\xaf\""), "invalid UTF-8");
    CHECK_CONTAINS(ERR("\"\xed\xa0\x80\""), "invalid UTF-8");
    CHECK_CONTAINS(ERR("\"\xf4\x90\x80\x80\""), "invalid UTF-8");
    CHECK_CONTAINS(ERR("\"\xe2\x82\""), "invalid UTF-8");
    CHECK_CONTAINS(ERR("\"\xff\""), "invalid UTF-8");
    /* raw control characters and NUL inside a string, NUL outside */
    CHECK_CONTAINS(ERR("\"a\tb\""), "control character 0x09");
    CHECK_CONTAINS(ERR("\"a\0b\""), "control character 0x00");
    CHECK_CONTAINS(ERR("[1,\0 2]"), "byte 0x00");
    CHECK_CONTAINS(ERR("\xef\xbb\xbf{}"), "byte-order mark");
}

TEST(json_read_numbers)
{
    char err[256];
    struct json *v = parse("[1.7976931348623157e308, -1e-400, 4.9e-324, 123456789012345678901234567890,"
                           " 0.1, 1E+2, 2e-1]", err, sizeof err);
    REQUIRE(v && v->type == JSON_NUMS && v->n == 7); /* numbers only: one array of doubles */
    CHECK(v->u.nums[0] == DBL_MAX);
    CHECK(v->u.nums[1] == 0); /* underflow reads as (minus) zero */
    CHECK(v->u.nums[2] > 0 && v->u.nums[2] < 1e-320);
    CHECK_NUM(v->u.nums[3], 1.2345678901234568e29, 1e14);
    CHECK(v->u.nums[4] == 0.1);
    CHECK(v->u.nums[5] == 100);
    CHECK(v->u.nums[6] == 0.2);
    json_free(v);
    CHECK_CONTAINS(ERR("1e309"), "out of range");
    CHECK_CONTAINS(ERR("[-1e400]"), "out of range");
    CHECK_CONTAINS(ERR("01"), "leading zero");
    CHECK_CONTAINS(ERR("-"), "expected a digit");
    CHECK_CONTAINS(ERR("1."), "after the decimal point");
    CHECK_CONTAINS(ERR("1.e5"), "after the decimal point");
    CHECK_CONTAINS(ERR("1e"), "exponent");
    CHECK_CONTAINS(ERR("+1"), "expected a value");
    CHECK_CONTAINS(ERR(".5"), "expected a value");
    CHECK_CONTAINS(ERR("NaN"), "expected a value");
    CHECK_CONTAINS(ERR("Infinity"), "expected a value");
    CHECK_CONTAINS(ERR("0x10"), "after the value");
    /* a long but valid number is read; one past the bound is refused */
    struct strbuf sb = STRBUF_INIT;
    for (int i = 0; i < 1023; i++)
        sb_addc(&sb, i ? '0' : '1');
    CHECK_CONTAINS(error_of(sb.buf, sb.len), "out of range");
    sb_reset(&sb);
    sb_add(&sb, "0.");
    for (int i = 0; i < 1021; i++)
        sb_addc(&sb, '5');
    CHECK_STR(error_of(sb.buf, sb.len), "");
    sb_addc(&sb, '5');
    CHECK_CONTAINS(error_of(sb.buf, sb.len), "longer than 1023");
    sb_free(&sb);
}

/* What jw_num writes with `exact` reads back as the same double. */
TEST(json_read_writer_numbers_round_trip)
{
    const double vals[] = {0.1, 1.0 / 3, 2.0 / 3 * 1e-7, 6.857142857142858, 123456.7890123,
                           1e300 / 7, -5e-324, 1e15 + 0.5, 4503599627370497.0, 9.87654321e21,
                           DBL_MAX, -DBL_MIN, 2.00043, 100};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        struct strbuf sb = STRBUF_INIT;
        struct jw w;
        jw_init(&w, &sb, false);
        w.exact = true;
        jw_num(&w, vals[i]);
        REQUIRE(jw_finish(&w) == 0);
        char err[128];
        struct json *v = parse(sb.buf, err, sizeof err);
        REQUIRE(v);
        if (v->u.num != vals[i])
            test_fail(__FILE__, __LINE__, "%.17g written as %s reads back as %.17g", vals[i],
                      sb.buf, v->u.num);
        json_free(v);
        sb_free(&sb);
    }
    /* without `exact` numbers stay short: 6 significant digits */
    struct strbuf sb = STRBUF_INIT;
    struct jw w;
    jw_init(&w, &sb, false);
    jw_num(&w, 1.0 / 3);
    CHECK_STR(sb.buf, "0.333333");
    sb_free(&sb);
}

TEST(json_read_structure_errors_name_line_and_column)
{
    CHECK_STR(ERR("{\"a\": 1,\n  \"b\" 2}"), "line 2, column 7: expected ':' after a key, found '2'");
    CHECK_STR(ERR("[1, 2,]"), "line 1, column 7: expected a value, found ']'");
    CHECK_STR(ERR("{\"a\": 1,}"), "line 1, column 9: expected a key (a string), found '}'");
    CHECK_STR(ERR("[1 2]"), "line 1, column 4: expected ',' or ']', found '2'");
    CHECK_STR(ERR("{\"a\": 1 \"b\": 2}"), "line 1, column 9: expected ',' or '}', found '\"'");
    CHECK_STR(ERR("{1: 2}"), "line 1, column 2: expected a key (a string), found '1'");
    CHECK_STR(ERR("[] []"), "line 1, column 4: unexpected '[' after the value");
    CHECK_STR(ERR("tru"), "line 1, column 4: unexpected end of input (truncated?): expected true");
    CHECK_STR(ERR("nul1"), "line 1, column 4: expected null, found '1'");
    CHECK_STR(ERR(""), "line 1, column 1: unexpected end of input (truncated?): expected a value");
    CHECK_STR(ERR("  \n "), "line 2, column 2: unexpected end of input (truncated?): expected a value");
    CHECK_CONTAINS(ERR("// comment\n{}"), "expected a value, found '/'");
    CHECK_CONTAINS(ERR("{'a': 1}"), "byte 0x27");
    CHECK_STR(ERR("{\"a\": 1, \"b\": {\"c\": 2, \"c\": 3}}"),
              "line 1, column 31: duplicate key \"c\" in an object");
    /* duplicates among many keys (the sorted check) */
    struct strbuf sb = STRBUF_INIT;
    sb_addc(&sb, '{');
    for (int i = 0; i < 100; i++)
        sb_addf(&sb, "%s\"k%d\": %d", i ? ", " : "", i == 99 ? 42 : i, i);
    sb_addc(&sb, '}');
    CHECK_CONTAINS(error_of(sb.buf, sb.len), "duplicate key \"k42\"");
    sb_free(&sb);
}

/* Every prefix of a valid document is refused as truncated (or, for a
 * prefix ending in a complete number, read as something else is not
 * possible here: the document is an object). */
TEST(json_read_truncated_documents)
{
    const char doc[] = "{\"schema\": 1, \"s\": \"caf\xc3\xa9 \\u00e9\\ud83d\\ude00\", "
                       "\"a\": [1.5, -2e3, true, false, null, {\"x\": []}]}";
    size_t len = sizeof doc - 1;
    CHECK_STR(error_of(doc, len), "");
    for (size_t n = 0; n < len; n++) {
        const char *e = error_of(doc, n);
        if (!*e)
            test_fail(__FILE__, __LINE__, "a prefix of %zu bytes was accepted", n);
    }
    CHECK_CONTAINS(error_of(doc, 25), "unterminated string (truncated?)");
    CHECK_CONTAINS(error_of(doc, 24), "invalid UTF-8"); /* cut inside é */
    CHECK_CONTAINS(error_of(doc, len - 1), "unexpected end of input (truncated?)");
}

TEST(json_read_depth_limit)
{
    struct strbuf sb = STRBUF_INIT;
    for (int i = 0; i < JSON_MAX_DEPTH; i++)
        sb_addc(&sb, '[');
    for (int i = 0; i < JSON_MAX_DEPTH; i++)
        sb_addc(&sb, ']');
    CHECK_STR(error_of(sb.buf, sb.len), "");
    sb_reset(&sb);
    for (int i = 0; i <= JSON_MAX_DEPTH; i++)
        sb_add(&sb, "{\"a\":");
    sb_add(&sb, "1");
    for (int i = 0; i <= JSON_MAX_DEPTH; i++)
        sb_addc(&sb, '}');
    CHECK_CONTAINS(error_of(sb.buf, sb.len), "nested deeper than 64 levels");
    /* a hostile depth (a million brackets) fails fast, without recursing */
    sb_reset(&sb);
    for (int i = 0; i < 1000000; i++)
        sb_addc(&sb, '[');
    CHECK_CONTAINS(error_of(sb.buf, sb.len), "nested deeper");
    sb_free(&sb);
}

/* A large flat array: items are stored exactly, not one node per realloc
 * step (ASan/valgrind would see a leak or overrun here). */
TEST(json_read_large_array)
{
    struct strbuf sb = STRBUF_INIT;
    sb_addc(&sb, '[');
    for (int i = 0; i < 200000; i++)
        sb_addf(&sb, "%s[%d,\"s%d\"]", i ? "," : "", i, i);
    sb_addc(&sb, ']');
    struct json *v = NULL;
    char err[128];
    REQUIRE(json_parse(sb.buf, sb.len, &v, err, sizeof err) == 0);
    REQUIRE(v->n == 200000);
    CHECK_NUM(v->u.items[199999].u.items[0].u.num, 199999, 0);
    CHECK_STR(json_str(&v->u.items[123].u.items[1]), "s123");
    json_free(v);
    sb_free(&sb);
}

TEST(json_read_error_buffer_bounds)
{
    char small[8];
    struct json *v = (struct json *)1;
    CHECK(json_parse("[", 1, &v, small, sizeof small) != 0);
    CHECK(v == NULL);
    CHECK(strlen(small) == sizeof small - 1); /* cut, terminated */
    CHECK(json_parse("[", 1, &v, small, 0) != 0);
}

/* Arrays of numbers and nulls are arrays of doubles (NAN for null); the
 * first item of another kind makes an ordinary array of them. */
TEST(json_read_number_arrays_packed)
{
    char err[256];
    struct json *v = parse("{\"a\": [1, null, -2.5], \"b\": [null], \"c\": [1, 2, \"x\", 3],"
                           " \"d\": [[1], [], [null, 4]], \"e\": [], \"f\": [true, 1]}",
                           err, sizeof err);
    REQUIRE(v);
    const double *d;
    uint32_t n;
    const struct json *a = json_get(v, "a");
    REQUIRE(a->type == JSON_NUMS && json_nums(a, &d, &n) && n == 3);
    CHECK(d[0] == 1 && isnan(d[1]) && d[2] == -2.5);
    CHECK(json_nums(json_get(v, "b"), &d, &n) && n == 1 && isnan(d[0]));
    const struct json *c = json_get(v, "c");
    REQUIRE(c->type == JSON_ARR && c->n == 4);
    CHECK(c->u.items[1].type == JSON_NUM && c->u.items[1].u.num == 2);
    CHECK_STR(json_str(&c->u.items[2]), "x");
    CHECK(c->u.items[3].u.num == 3);
    CHECK(!json_nums(c, &d, &n));
    const struct json *dd = json_get(v, "d");
    REQUIRE(dd->type == JSON_ARR && dd->n == 3);
    CHECK(json_nums(&dd->u.items[0], &d, &n) && n == 1 && d[0] == 1);
    CHECK(json_nums(&dd->u.items[1], &d, &n) && n == 0 && !d);
    CHECK(json_nums(&dd->u.items[2], &d, &n) && n == 2 && isnan(d[0]) && d[1] == 4);
    CHECK(json_nums(json_get(v, "e"), &d, &n) && n == 0);
    CHECK(json_get(v, "f")->type == JSON_ARR && json_get(v, "f")->u.items[1].u.num == 1);
    CHECK_STR(json_type_name(JSON_NUMS), "an array of numbers");
    json_free(v);
    /* large ones too (a block of their own), and errors inside them */
    struct strbuf sb = STRBUF_INIT;
    sb_addc(&sb, '[');
    for (int i = 0; i < 100000; i++)
        sb_addf(&sb, "%s%d", i ? "," : "", i);
    sb_add(&sb, "]");
    v = parse(sb.buf, err, sizeof err);
    REQUIRE(v && v->type == JSON_NUMS && v->n == 100000);
    CHECK(v->u.nums[99999] == 99999);
    json_free(v);
    sb.len--;
    sb_add(&sb, ",nul]");
    CHECK_CONTAINS(error_of(sb.buf, sb.len), "expected null");
    sb_free(&sb);
}

/* The memory bound holds whatever the text: what a tree would cost 8 or 16
 * times its size is refused before it is allocated. */
TEST(json_read_memory_bound)
{
    struct strbuf zeros = STRBUF_INIT, empties = STRBUF_INIT, strs = STRBUF_INIT,
                  keys = STRBUF_INIT;
    sb_addc(&zeros, '[');
    sb_addc(&empties, '[');
    sb_addc(&strs, '[');
    sb_addc(&keys, '{');
    for (int i = 0; i < 1000000; i++) {
        sb_add(&zeros, i ? ",0" : "0");
        sb_add(&empties, i ? ",[]" : "[]");
        sb_add(&strs, i ? ",\"\"" : "\"\"");
        sb_addf(&keys, "%s\"%d\":0", i ? "," : "", i);
    }
    sb_addc(&zeros, ']');
    sb_addc(&empties, ']');
    sb_addc(&strs, ']');
    sb_addc(&keys, '}');
    struct strbuf *docs[] = {&zeros, &empties, &strs, &keys};
    for (size_t i = 0; i < 4; i++) {
        struct json *v = NULL;
        char err[256];
        /* as much memory as text: not enough for any of them */
        int rc = json_parse_bounded(docs[i]->buf, docs[i]->len, docs[i]->len, &v, err, sizeof err);
        CHECK(rc != 0 && !v);
        CHECK_CONTAINS(err, "of memory to hold: refused");
        /* 96 bytes a value is enough for each (the worst, members: 24 in
         * the tree and up to 48 more on the scratch while gathered) */
        rc = json_parse_bounded(docs[i]->buf, docs[i]->len, 96u * 1000000, &v, err, sizeof err);
        if (rc != 0)
            test_fail(__FILE__, __LINE__, "doc %zu: %s", i, err);
        json_free(v);
        sb_free(docs[i]);
    }
}
