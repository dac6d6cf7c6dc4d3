/* A small streaming JSON writer over a strbuf.  The writer places commas,
 * colons and (optionally) indentation itself, so callers only say what comes
 * next.  Strings go through esc_json(), so the output is also safe inside an
 * HTML <script type="application/json"> block. */
#ifndef PERFREPORT_JSON_WRITER_H
#define PERFREPORT_JSON_WRITER_H
#include "../util/strbuf.h"
#include <stdbool.h>

#define JW_MAX_DEPTH 32

struct jw {
    struct strbuf *sb; /* not owned */
    bool pretty;       /* newline + 2-space indent per level */
    int depth;
    int flat_from;     /* depth at which a flat (one-line) container began; 0 = none */
    bool has_items[JW_MAX_DEPTH + 1];
    bool is_obj[JW_MAX_DEPTH + 1];
    bool after_key;    /* a key was written; the next value follows its colon */
    bool error;        /* misuse: unbalanced, too deep, value without key... */
    bool exact;        /* numbers read back as the same double (set after jw_init) */
};

void jw_init(struct jw *w, struct strbuf *sb, bool pretty);
/* 0 when every container was closed and no misuse happened, else -1. */
int jw_finish(struct jw *w);

void jw_obj_begin(struct jw *w);
void jw_obj_end(struct jw *w);
void jw_arr_begin(struct jw *w);
/* An array printed on one line even in pretty mode (for long number lists). */
void jw_arr_begin_flat(struct jw *w);
void jw_arr_end(struct jw *w);

void jw_key(struct jw *w, const char *key);
void jw_str(struct jw *w, const char *s); /* NULL -> null */
/* NAN/inf -> null; integral values without decimals; else 6 significant digits,
 * or with `exact` as many more (up to 17) as it takes to read back the same
 * double: report.json is the data a bundle is re-rendered from. */
void jw_num(struct jw *w, double v);
void jw_bool(struct jw *w, bool b);
void jw_null(struct jw *w);

/* key + value in one call */
void jw_kstr(struct jw *w, const char *key, const char *s);
void jw_knum(struct jw *w, const char *key, double v);
void jw_kbool(struct jw *w, const char *key, bool b);

/* The number text jw_num() would write ("null" for non-finite); out >= 32 bytes. */
void jw_format_num(double v, char *out, size_t n);
#endif
