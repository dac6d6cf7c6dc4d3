/* A strict, bounded JSON reader (RFC 8259) for the files perfreport reads
 * back (report.json, manifest.json of a bundle someone may have edited).
 *
 * Strict: exactly one value, no trailing commas or comments, no byte-order
 * mark, valid UTF-8 everywhere (no overlong forms, no encoded surrogates),
 * no raw control characters in strings, \u escapes with surrogates paired,
 * no NUL in a string (\u0000 included: the model's strings are C strings),
 * no duplicate keys in an object (two parsers could pick different ones),
 * finite numbers only.  Bounded: JSON_MAX_DEPTH nested containers,
 * JSON_MAX_TEXT bytes of input, and the memory the caller allows
 * (json_parse_bounded): the tree and the parser's scratch together never
 * exceed it, whatever the text holds ("[0,0,...]" would otherwise cost 8
 * times its size).
 *
 * Compact: an array of numbers and nulls only is one array of doubles
 * (JSON_NUMS, NAN for null: JSON has no NaN of its own); strings, keys and
 * containers live in a few large blocks owned by the document, not in an
 * allocation each.
 *
 * Ownership: json_parse() returns a tree the caller releases with
 * json_free() (on that root only); everything reachable from it is owned by
 * it. */
#ifndef PERFREPORT_JSON_READ_H
#define PERFREPORT_JSON_READ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 64
#define JSON_MAX_TEXT (1024u * 1024u * 1024u) /* 1 GiB; callers bound their files tighter */

enum json_type { JSON_NULL = 0, JSON_BOOL, JSON_NUM, JSON_STR, JSON_ARR, JSON_OBJ, JSON_NUMS };

struct json_member;
struct json {
    uint8_t type; /* enum json_type */
    bool b;       /* JSON_BOOL */
    uint32_t n;   /* JSON_STR: bytes; JSON_ARR, JSON_NUMS: items; JSON_OBJ: members */
    union {
        double num;                  /* JSON_NUM */
        char *str;                   /* JSON_STR: NUL-terminated UTF-8 */
        struct json *items;          /* JSON_ARR (an empty array is one, with n 0) */
        struct json_member *members; /* JSON_OBJ, in input order */
        double *nums;                /* JSON_NUMS: n >= 1 numbers, NAN where null */
    } u;
};
struct json_member {
    char *key; /* NUL-terminated UTF-8 */
    struct json val;
};

/* Parses text[0..len) with at most max_mem bytes of memory for the tree and
 * the scratch it is built in.  Returns 0 with *out set, or -1 with *out NULL
 * and a message "line L, column C: why" in err (columns count bytes). */
int json_parse_bounded(const char *text, size_t len, size_t max_mem, struct json **out,
                       char *err, size_t errlen);
/* json_parse_bounded without a memory bound of its own: memory is linear in
 * the input (at most 16 bytes a value).  For files read with a small cap. */
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
/* An array of numbers and nulls: JSON_NUMS, or an empty JSON_ARR; *n its
 * length and the values (NAN for null, NULL when empty).  False otherwise. */
bool json_nums(const struct json *v, const double **vals, uint32_t *n);

/* Frees the numbers of v, a JSON_NUMS array of the tree `root`, which the
 * caller has copied (a large array is freed at once, a small one with the
 * tree); v is an empty array then. */
void json_release_nums(struct json *root, struct json *v);

/* "a number", "an object"... for messages. */
const char *json_type_name(enum json_type t);
#endif
