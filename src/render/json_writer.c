#include "json_writer.h"
#include "escape.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void jw_init(struct jw *w, struct strbuf *sb, bool pretty)
{
    *w = (struct jw){.sb = sb, .pretty = pretty};
}

int jw_finish(struct jw *w)
{
    if (w->depth != 0 || w->after_key)
        w->error = true;
    if (w->pretty && !w->error)
        sb_addc(w->sb, '\n');
    return w->error ? -1 : 0;
}

static void newline(struct jw *w)
{
    if (!w->pretty || w->flat_from)
        return;
    sb_addc(w->sb, '\n');
    for (int i = 0; i < w->depth; i++)
        sb_add(w->sb, "  ");
}

/* Everything that starts a value calls this: comma, indentation, and the
 * check that object members have keys. */
static void before_value(struct jw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0 && w->is_obj[w->depth])
        w->error = true; /* value inside an object without a key */
    if (w->depth > 0) {
        if (w->has_items[w->depth])
            sb_addc(w->sb, ',');
        w->has_items[w->depth] = true;
        newline(w);
    } else {
        if (w->has_items[0])
            w->error = true; /* a second top-level value */
        w->has_items[0] = true;
    }
}

static void begin(struct jw *w, char c, bool obj, bool flat)
{
    before_value(w);
    sb_addc(w->sb, c);
    if (w->depth >= JW_MAX_DEPTH) {
        w->error = true;
        return;
    }
    w->depth++;
    w->has_items[w->depth] = false;
    w->is_obj[w->depth] = obj;
    if (flat && !w->flat_from)
        w->flat_from = w->depth;
}

static void end(struct jw *w, char c, bool obj)
{
    if (w->depth == 0 || w->is_obj[w->depth] != obj || w->after_key) {
        w->error = true;
        return;
    }
    bool had = w->has_items[w->depth];
    w->depth--;
    if (had)
        newline(w);
    if (w->flat_from == w->depth + 1)
        w->flat_from = 0;
    sb_addc(w->sb, c);
}

void jw_obj_begin(struct jw *w) { begin(w, '{', true, false); }
void jw_obj_end(struct jw *w) { end(w, '}', true); }
void jw_arr_begin(struct jw *w) { begin(w, '[', false, false); }
void jw_arr_begin_flat(struct jw *w) { begin(w, '[', false, true); }
void jw_arr_end(struct jw *w) { end(w, ']', false); }

void jw_key(struct jw *w, const char *key)
{
    if (w->depth == 0 || !w->is_obj[w->depth] || w->after_key) {
        w->error = true;
        return;
    }
    if (w->has_items[w->depth])
        sb_addc(w->sb, ',');
    w->has_items[w->depth] = true;
    newline(w);
    sb_addc(w->sb, '"');
    esc_json(w->sb, key ? key : "");
    sb_add(w->sb, w->pretty && !w->flat_from ? "\": " : "\":");
    w->after_key = true;
}

void jw_str(struct jw *w, const char *s)
{
    if (!s) {
        jw_null(w);
        return;
    }
    before_value(w);
    sb_addc(w->sb, '"');
    esc_json(w->sb, s);
    sb_addc(w->sb, '"');
}

void jw_format_num(double v, char *out, size_t n)
{
    if (!isfinite(v))
        snprintf(out, n, "null");
    else if (v == 0)
        snprintf(out, n, "0"); /* also folds -0 */
    else if (v == trunc(v) && fabs(v) < 1e15)
        snprintf(out, n, "%.0f", v);
    else
        snprintf(out, n, "%.6g", v); /* exponent form is valid JSON too */
}

/* The shortest %g text from 6 digits up that strtod reads back as v: the
 * same text as jw_format_num whenever that one is already exact. */
static void format_exact(double v, char *out, size_t n)
{
    jw_format_num(v, out, n);
    if (!isfinite(v) || strtod(out, NULL) == v)
        return;
    for (int prec = 7; prec <= 17; prec++) {
        snprintf(out, n, "%.*g", prec, v);
        if (strtod(out, NULL) == v)
            return;
    }
}

void jw_num(struct jw *w, double v)
{
    char buf[40];
    if (w->exact)
        format_exact(v, buf, sizeof buf);
    else
        jw_format_num(v, buf, sizeof buf);
    before_value(w);
    sb_add(w->sb, buf);
}

void jw_bool(struct jw *w, bool b)
{
    before_value(w);
    sb_add(w->sb, b ? "true" : "false");
}

void jw_null(struct jw *w)
{
    before_value(w);
    sb_add(w->sb, "null");
}

void jw_kstr(struct jw *w, const char *key, const char *s)
{
    jw_key(w, key);
    jw_str(w, s);
}

void jw_knum(struct jw *w, const char *key, double v)
{
    jw_key(w, key);
    jw_num(w, v);
}

void jw_kbool(struct jw *w, const char *key, bool b)
{
    jw_key(w, key);
    jw_bool(w, b);
}
