/* The strict JSON reader and the report.json loader on top of it (bundles
 * read back by `perfreport render`).  Invariants: a refusal says why,
 * printably; an accepted document has terminated strings of the length it
 * says, and written again with the report writer (json_writer.c) it reads
 * back as the same tree; a report.json the loader accepts, written again,
 * loads again and writes the same text. */
#include "fuzz.h"
#include "replay/load.h"
#include "model/model.h"
#include "codec/report_json.h"
#include "render/json_writer.h"
#include "util/json_read.h"
#include "util/strbuf.h"
#include <math.h>

static void write_tree(struct jw *w, const struct json *v)
{
    switch (v->type) {
    case JSON_NULL: jw_null(w); break;
    case JSON_BOOL: jw_bool(w, v->b); break;
    case JSON_NUM: jw_num(w, v->u.num); break;
    case JSON_STR:
        FUZZ_ASSERT(strlen(v->u.str) == v->n);
        jw_str(w, v->u.str);
        break;
    case JSON_ARR:
        jw_arr_begin(w);
        for (uint32_t i = 0; i < v->n; i++)
            write_tree(w, &v->u.items[i]);
        jw_arr_end(w);
        break;
    case JSON_NUMS: /* NAN stands for null, which jw_num writes as null */
        jw_arr_begin(w);
        for (uint32_t i = 0; i < v->n; i++)
            jw_num(w, v->u.nums[i]);
        jw_arr_end(w);
        break;
    case JSON_OBJ:
        jw_obj_begin(w);
        for (uint32_t i = 0; i < v->n; i++) {
            jw_key(w, v->u.members[i].key);
            write_tree(w, &v->u.members[i].val);
        }
        jw_obj_end(w);
        break;
    default: FUZZ_ASSERT(!"unknown type");
    }
}

static bool same(const struct json *a, const struct json *b)
{
    if (a->type != b->type || a->n != b->n)
        return false;
    switch (a->type) {
    case JSON_BOOL: return a->b == b->b;
    case JSON_NUM: return a->u.num == b->u.num; /* -0 == 0: the writer folds -0 */
    case JSON_STR: return memcmp(a->u.str, b->u.str, a->n) == 0;
    case JSON_ARR:
        for (uint32_t i = 0; i < a->n; i++)
            if (!same(&a->u.items[i], &b->u.items[i]))
                return false;
        return true;
    case JSON_NUMS:
        for (uint32_t i = 0; i < a->n; i++)
            if (!(a->u.nums[i] == b->u.nums[i] || (isnan(a->u.nums[i]) && isnan(b->u.nums[i]))))
                return false;
        return true;
    case JSON_OBJ:
        for (uint32_t i = 0; i < a->n; i++)
            if (strcmp(a->u.members[i].key, b->u.members[i].key) != 0 ||
                !same(&a->u.members[i].val, &b->u.members[i].val))
                return false;
        return true;
    default: return true;
    }
}

static char *report_text(const struct report *r)
{
    struct strbuf sb = STRBUF_INIT;
    FUZZ_ASSERT(json_report_render(r, &sb) == 0);
    return sb_detach(&sb);
}

static void report_round_trip(const char *text, size_t size)
{
    struct report *r = NULL;
    char err[512];
    if (report_from_json(text, size, &r, err, sizeof err) != 0) {
        FUZZ_ASSERT(r == NULL && err[0]);
        return;
    }
    char *a = report_text(r);
    struct report *r2 = NULL;
    if (report_from_json(a, strlen(a), &r2, err, sizeof err) != 0) {
        fprintf(stderr, "written report.json does not load again: %s\n", err);
        FUZZ_ASSERT(0);
    }
    char *b = report_text(r2);
    FUZZ_ASSERT(strcmp(a, b) == 0);
    free(a);
    free(b);
    report_free(r2);
    report_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_bytes(data, size);
    char err[256];
    struct json *v = NULL;
    if (json_parse(text, size, &v, err, sizeof err) != 0) {
        FUZZ_ASSERT(v == NULL && err[0]);
        for (const char *p = err; *p; p++)
            FUZZ_ASSERT((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x7f);
        free(text);
        return 0;
    }
    /* the writer's depth limit is lower than the reader's */
    struct strbuf sb = STRBUF_INIT;
    struct jw w;
    jw_init(&w, &sb, false);
    w.exact = true;
    write_tree(&w, v);
    if (jw_finish(&w) == 0) {
        struct json *again = NULL;
        FUZZ_ASSERT(json_parse(sb.buf, sb.len, &again, err, sizeof err) == 0);
        FUZZ_ASSERT(same(v, again));
        json_free(again);
    }
    sb_free(&sb);
    json_free(v);
    report_round_trip(text, size);
    free(text);
    return 0;
}
