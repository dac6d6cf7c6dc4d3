/* A strict, bounded JSON reader (RFC 8259) for the files perfreport reads
 * back (report.json, manifest.json of a bundle someone may have edited).
 *
 * Strict: exactly one value, no trailing commas or comments, no byte-order
 * mark, valid UTF-8 everywhere (no overlong forms, no encoded surrogates),
 * no raw control characters in strings, \u escapes with surrogates paired,
 * no NUL in a string (\u0000 included: the model's strings are C strings),
 * no duplicate keys in an object (two parsers could pick different ones),
 * finite numbers only.  Bounded: JSON_MAX_DEPTH nested containers and
 * JSON_MAX_TEXT bytes of input; memory is linear in the input.
 *
 * Ownership: json_parse() returns a tree the caller releases with
 * json_free(); everything reachable from it is owned by it. */
#ifndef PERFREPORT_JSON_READ_H
#define PERFREPORT_JSON_READ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 64
#define JSON_MAX_TEXT (1024u * 1024u * 1024u) /* 1 GiB; callers bound their files tighter */

enum json_type { JSON_NULL = 0, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ };

struct json_member;
struct json {
    uint8_t type; /* enum json_type */
    bool b;       /* JSON_BOOL */
    uint32_t n;   /* JSON_STR: bytes; JSON_ARR: items; JSON_OBJ: members */
    union {
        double num;                  /* JSON_NUM */
        char *str;                   /* JSON_STR: NUL-terminated UTF-8 */
        struct json *items;          /* JSON_ARR */
        struct json_member *members; /* JSON_OBJ, in input order */
    } u;
};
struct json_member {
    char *key; /* NUL-terminated UTF-8 */
    struct json val;
};

/* Parses text[0..len).  Returns 0 with *out set, or -1 with *out NULL and
 * a message "line L, column C: why" in err (columns count bytes). */
int json_parse(const char *text, size_t len, struct json **out, char *err, size_t errlen);
void json_free(struct json *v);

/* Lookups; each accepts NULL and a value of the wrong type (returns the
 * "absent" answer then), so that chains need no checks in between. */
const struct json *json_get(const struct json *obj, const char *key); /* NULL: absent */
const char *json_str(const struct json *v);    /* NULL unless a string */
bool json_is(const struct json *v, enum json_type t);
/* A number's value; NAN for null (how the writer spells NAN and inf);
 * false for anything else. */
bool json_num_or_null(const struct json *v, double *out);
/* An integral number in [min, max]. */
bool json_int(const struct json *v, long long min, long long max, long long *out);

/* "a number", "an object"... for messages. */
const char *json_type_name(enum json_type t);
#endif
