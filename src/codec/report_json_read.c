/* report.json read back into the model (report_from_json), the inverse of
 * report_json_write.c.  The text is hostile: every value is checked for its
 * type and range, every kind of entry counted against a cap, and the model
 * it makes bounded in memory like the tree it is made from. */
#include "report_json_read.h"
#include "report_json.h"
#include "../model/model.h"
#include "../model/run_command.h"
#include "../render/escape.h"
#include "../util/json_read.h"
#include "../util/xalloc.h"
#include "../version.h"
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int ld_bad(struct ld *l, const char *fmt, ...)
{
    if (l->failed)
        return -1;
    l->failed = true;
    int k = snprintf(l->err, l->errlen, "%s: ", l->where);
    if (k >= 0 && (size_t)k < l->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(l->err + k, l->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* The model finds entries by name in linear time, and report.json may be
 * hostile: entries of each kind are capped far above a real bundle's (a busy
 * run has ~30 facts, ~150 metrics, ~30 series, ~25 tables, ~20 histograms,
 * ~40 collectors), so that loading stays well under a second whatever the
 * file holds. */
#define MAX_FACTS 1024
#define MAX_ENTRIES 4096 /* series, tables, metrics, histograms, collectors */
#define MAX_COLUMNS 1024

static int too_many(struct ld *l, uint32_t n, uint32_t max, const char *what)
{
    if (n <= max)
        return 0;
    return ld_bad(l, "%u %s, more than the %u a bundle may have: refused", n, what, max);
}

/* The model made from a document is bounded like the document's tree
 * (json_parse_bounded): each value, cell and string counts what it costs
 * the heap, and the load stops when the model would pass max_mem. */
static size_t str_cost(const char *s)
{
    return s ? ((strlen(s) + 1 + 15) & ~(size_t)15) + 16 : 0; /* as malloc rounds */
}

static int spend(struct ld *l, size_t bytes)
{
    if (bytes <= l->max_mem - l->mem) {
        l->mem += bytes;
        return 0;
    }
    return ld_bad(l, "the model would take more than %zu MiB of memory: refused",
                  l->max_mem >> 20);
}

/* No count or measure perfreport writes passes 2^64 (its counters are 64
 * bits); a larger number is forged, and "%.0f" would print it as up to 309
 * digits in a headline. */
#define MAX_MAGNITUDE 18446744073709551616.0
static bool in_range(double v) { return isnan(v) || fabs(v) <= MAX_MAGNITUDE; }

/* ---- typed fields ---------------------------------------------------------
 * `what` names the object in messages ("series \"cpu.util_pct\"").  Keys
 * some schema-1 writers did not write yet are optional with a default. */

static const struct json *field(struct ld *l, const struct json *obj, const char *key,
                                const char *what, enum json_type t)
{
    const struct json *v = json_get(obj, key);
    if (!v) {
        ld_bad(l, "%s: \"%s\" is missing", what, key);
        return NULL;
    }
    if (v->type != t) {
        ld_bad(l, "%s: \"%s\" is %s, expected %s", what, key, json_type_name(v->type),
               json_type_name(t));
        return NULL;
    }
    return v;
}

/* A required string. */
static const char *req_str(struct ld *l, const struct json *obj, const char *key, const char *what)
{
    const struct json *v = field(l, obj, key, what, JSON_STR);
    return v ? v->u.str : NULL;
}

/* A string, or NULL for null or absent; false on another type. */
static bool opt_str(struct ld *l, const struct json *obj, const char *key, const char *what,
                    const char **out)
{
    const struct json *v = json_get(obj, key);
    *out = NULL;
    if (!v || v->type == JSON_NULL)
        return true;
    if (v->type != JSON_STR) {
        ld_bad(l, "%s: \"%s\" is %s, expected a string or null", what, key,
               json_type_name(v->type));
        return false;
    }
    *out = v->u.str;
    return true;
}

/* Whether u can be a unit: the renderers print a number and its unit as
 * one piece of their own text ("12 ms", "3 per CPU"), so a unit may not
 * hold anything a format could read as markup.  Every unit perfreport
 * writes is a few letters, digits, spaces and "%/.-_". */
#define MAX_UNIT 24
bool ld_plain_unit(const char *u)
{
    size_t n = 0;
    for (; u[n]; n++) {
        char c = u[n];
        if (n >= MAX_UNIT || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                               (c >= '0' && c <= '9') || strchr(" %/.-_", c)))
            return false;
    }
    return true;
}

/* An optional unit (NULL for null or absent), checked by ld_plain_unit. */
static bool opt_unit(struct ld *l, const struct json *obj, const char *what, const char **out)
{
    if (!opt_str(l, obj, "unit", what, out))
        return false;
    if (*out && !ld_plain_unit(*out)) {
        ld_bad(l, "%s: \"unit\" is not a unit (at most %d letters, digits, spaces and %%/.-_)",
               what, MAX_UNIT);
        return false;
    }
    return true;
}

/* A number; null (how NAN is written) and absence give NAN. */
static bool opt_num(struct ld *l, const struct json *obj, const char *key, const char *what,
                    double *out)
{
    const struct json *v = json_get(obj, key);
    *out = NAN;
    if (!v)
        return true;
    if (!json_num_or_null(v, out)) {
        ld_bad(l, "%s: \"%s\" is %s, expected a number or null", what, key,
               json_type_name(v->type));
        return false;
    }
    if (!in_range(*out)) {
        ld_bad(l, "%s: \"%s\" is %g, beyond +-2^64: refused", what, key, *out);
        return false;
    }
    return true;
}

static bool opt_bool(struct ld *l, const struct json *obj, const char *key, const char *what,
                     bool *out)
{
    const struct json *v = json_get(obj, key);
    *out = false;
    if (!v)
        return true;
    if (v->type != JSON_BOOL) {
        ld_bad(l, "%s: \"%s\" is %s, expected true or false", what, key, json_type_name(v->type));
        return false;
    }
    *out = v->b;
    return true;
}

/* An optional array or object: NULL when absent, an error on another type. */
static bool opt_container(struct ld *l, const struct json *obj, const char *key, const char *what,
                          enum json_type t, const struct json **out)
{
    const struct json *v = json_get(obj, key);
    *out = NULL;
    if (!v)
        return true;
    if (v->type != t) {
        ld_bad(l, "%s: \"%s\" is %s, expected %s", what, key, json_type_name(v->type),
               json_type_name(t));
        return false;
    }
    *out = v;
    return true;
}

/* ---- the schema ------------------------------------------------------------ */

/* The document's "schema": an integer this program reads (1..REPORT_SCHEMA). */
int ld_check_schema(struct ld *l, const struct json *root, long long *schema)
{
    const struct json *s = json_get(root, "schema");
    const char *version = json_str(json_get(json_get(root, "tool"), "version"));
    char by[96] = "";
    if (version)
        snprintf(by, sizeof by, " by perfreport %.40s", version);
    if (!s)
        return ld_bad(l, "no \"schema\": not a perfreport bundle file");
    if (!json_int(s, 1, REPORT_SCHEMA, schema)) {
        if (s->type == JSON_NUM && s->u.num > REPORT_SCHEMA && s->u.num == trunc(s->u.num))
            return ld_bad(l,
                          "written%s with report schema %g, newer than this perfreport (%s) "
                          "reads (schema 1 to %d); render it with that version or a newer one",
                          by, s->u.num, PERFREPORT_VERSION, REPORT_SCHEMA);
        if (s->type == JSON_NUM)
            return ld_bad(l,
                          "unknown report schema %g%s (this perfreport, %s, reads schema 1 to "
                          "%d)",
                          s->u.num, by, PERFREPORT_VERSION, REPORT_SCHEMA);
        return ld_bad(l, "\"schema\" is %s, expected a number", json_type_name(s->type));
    }
    return 0;
}

/* ---- report.json sections -------------------------------------------------- */

/* The unit of a numeric fact in a bundle written before report.json said
 * it: the name's suffix (src/model/NAMES.md). */
static const char *unit_from_key(const char *key)
{
    static const struct {
        const char *suffix, *unit;
    } sfx[] = {{"_kib", "KiB"}, {"_ms", "ms"}, {"_per_s", "/s"}, {"_s", "s"}, {"_pct", "%"}};
    size_t n = strlen(key);
    for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
        size_t k = strlen(sfx[i].suffix);
        if (n > k && strcmp(key + n - k, sfx[i].suffix) == 0)
            return sfx[i].unit;
    }
    return "";
}

/* "host"/"capabilities": values in report.json's object, titles and units
 * in "facts" (absent in older bundles: the key is the title then). */
static int load_facts(struct ld *l, const struct json *root, const char *key, struct kvlist *kv)
{
    const struct json *obj, *facts, *labels = NULL;
    if (!opt_container(l, root, key, "report", JSON_OBJ, &obj) ||
        !opt_container(l, root, "facts", "report", JSON_OBJ, &facts))
        return -1;
    if ((facts && !opt_container(l, facts, key, "facts", JSON_OBJ, &labels)) ||
        (obj && too_many(l, obj->n, MAX_FACTS, key) != 0))
        return -1;
    for (uint32_t i = 0; obj && i < obj->n; i++) {
        const char *name = obj->u.members[i].key;
        const struct json *v = &obj->u.members[i].val;
        /* written in the same order: the same position first */
        const struct json *lab = labels && i < labels->n && !strcmp(labels->u.members[i].key, name)
                                     ? &labels->u.members[i].val
                                     : json_get(labels, name);
        const char *title = NULL, *unit = NULL;
        char what[160];
        snprintf(what, sizeof what, "facts.%s.\"%.80s\"", key, name);
        if (lab &&
            (!opt_str(l, lab, "title", what, &title) || !opt_unit(l, lab, what, &unit)))
            return -1;
        if (!facts && v->type != JSON_STR)
            unit = unit_from_key(name);
        if (unit) {
            double num;
            if (!json_num_or_null(v, &num))
                return ld_bad(l, "%s.\"%.80s\" is %s, expected a number (its unit is \"%.20s\")",
                              key, name, json_type_name(v->type), unit);
            if (!in_range(num))
                return ld_bad(l, "%s.\"%.80s\" is %g, beyond +-2^64: refused", key, name, num);
            if (spend(l, 64 + str_cost(name) + str_cost(title) + str_cost(unit)) != 0)
                return -1;
            kv_add_num(kv, name, title, num, unit);
        } else if (v->type == JSON_STR || v->type == JSON_NULL) {
            if (spend(l, 64 + str_cost(name) + str_cost(title) + str_cost(json_str(v))) != 0)
                return -1;
            kv_add(kv, name, title, json_str(v));
        } else {
            return ld_bad(l, "%s.\"%.80s\" is %s, expected a string", key, name,
                          json_type_name(v->type));
        }
    }
    return 0;
}

/* "2024-05-01T12:00:00Z" exactly. */
bool parse_iso8601_utc(const char *s, time_t *out)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
    if (strlen(s) != sizeof shape - 1)
        return false;
    for (size_t i = 0; shape[i]; i++)
        if (shape[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != shape[i])
            return false;
    int v[6], pos[6] = {0, 5, 8, 11, 14, 17}, len[6] = {4, 2, 2, 2, 2, 2};
    for (int k = 0; k < 6; k++) {
        v[k] = 0;
        for (int i = 0; i < len[k]; i++)
            v[k] = v[k] * 10 + (s[pos[k] + i] - '0');
    }
    /* from 1970 on: a window start is a real time (0 means none; before it
     * the text would not be written the same way) */
    if (v[0] < 1970 || v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 || v[4] > 59 ||
        v[5] > 59)
        return false;
    struct tm tm = {.tm_year = v[0] - 1900,
                    .tm_mon = v[1] - 1,
                    .tm_mday = v[2],
                    .tm_hour = v[3],
                    .tm_min = v[4],
                    .tm_sec = v[5]};
    *out = timegm(&tm);
    return *out > 0;
}

static int load_window(struct ld *l, const struct json *root)
{
    struct report *r = l->r;
    const struct json *w = field(l, root, "window", "report", JSON_OBJ);
    const char *start, *target, *trig_what;
    double ns, trig;
    if (!w || !opt_str(l, w, "start", "window", &start) ||
        !opt_num(l, w, "planned_s", "window", &r->window.planned_s) ||
        !opt_num(l, w, "actual_s", "window", &r->window.actual_s) ||
        !opt_num(l, w, "interval_s", "window", &r->window.interval_s) ||
        !opt_bool(l, w, "interrupted", "window", &r->window.interrupted) ||
        !opt_str(l, w, "target", "window", &target) || !opt_num(l, w, "start_ns", "window", &ns) ||
        !opt_num(l, w, "trigger_s", "window", &trig) ||
        !opt_str(l, w, "trigger", "window", &trig_what))
        return -1;
    if (!isnan(trig)) {
        r->window.triggered = true;
        r->window.trigger_s = trig;
        if (trig_what && strlen(trig_what) > WINDOW_TRIGGER_MAX)
            return ld_bad(l, "window: \"trigger\" is longer than %d bytes", WINDOW_TRIGGER_MAX);
        r->window.trigger_what = xstrdup(trig_what);
    } else if (trig_what) {
        return ld_bad(l, "window: \"trigger\" without \"trigger_s\"");
    }
    if (start) {
        time_t t;
        if (!parse_iso8601_utc(start, &t))
            return ld_bad(l, "window: \"start\" is not a time like 2024-05-01T12:00:00Z");
        r->window.start_wall.tv_sec = t;
        if (!isnan(ns)) {
            if (ns < 0 || ns >= 1e9 || ns != trunc(ns))
                return ld_bad(
                    l, "window: \"start_ns\" is not a whole number of nanoseconds below 1e9");
            r->window.start_wall.tv_nsec = (long)ns;
        }
    }
    if (isnan(r->window.interval_s))
        r->window.interval_s = 0;
    r->window.target = xstrdup(target);
    return 0;
}

/* "command" (json_command.c): optional, absent for a run without one. */
static int load_command(struct ld *l, const struct json *root)
{
    const struct json *o = json_get(root, "command");
    if (!o || o->type == JSON_NULL)
        return 0;
    if (o->type != JSON_OBJ)
        return ld_bad(l, "\"command\" is %s, expected an object", json_type_name(o->type));
    const char *line, *user, *end, *sig, *error;
    double pid, status, wall;
    bool core, ended;
    if (!opt_str(l, o, "line", "command", &line) || !opt_str(l, o, "user", "command", &user) ||
        !opt_str(l, o, "end", "command", &end) || !opt_str(l, o, "signal", "command", &sig) ||
        !opt_str(l, o, "error", "command", &error) || !opt_num(l, o, "pid", "command", &pid) ||
        !opt_num(l, o, "exit_status", "command", &status) ||
        !opt_num(l, o, "wall_s", "command", &wall) ||
        !opt_bool(l, o, "core_dumped", "command", &core) ||
        !opt_bool(l, o, "ended_window", "command", &ended))
        return -1;
    int e = cmd_end_parse(end);
    if (e < 0)
        return ld_bad(l, "command: \"end\" is not exited, killed, running or not_started");
    if (!(pid >= 0 && pid <= 4194304 && pid == trunc(pid)))
        return ld_bad(l, "command: \"pid\" is not a process id");
    int signo = -1;
    if (e == CMD_EXITED && !(status >= 0 && status <= 255 && status == trunc(status)))
        return ld_bad(l, "command: \"exit_status\" is not a status in [0, 255]");
    if (e == CMD_KILLED && (signo = cmd_signal_parse(sig)) < 0)
        return ld_bad(l, "command: \"signal\" is not a signal name");
    struct run_command *c = run_command_new();
    c->line = xstrdup(line);
    c->user = xstrdup(user);
    c->error = xstrdup(error);
    c->pid = (int)pid;
    c->end = (enum cmd_end)e;
    c->exit_status = e == CMD_EXITED ? (int)status : -1;
    c->term_signal = e == CMD_KILLED ? signo : 0;
    c->core_dumped = core;
    c->wall_s = isfinite(wall) && wall >= 0 ? wall : NAN;
    c->ended_window = ended;
    l->r->command = c;
    return 0;
}

/* "series": the ticks, then each series' values, one per tick.  The gaps
 * are not read: report_add_tick finds them again from the same ticks and
 * interval, exactly as the run did (none between a watch bundle's ticks
 * from before its trigger and its window's). */
static int load_series(struct ld *l, const struct json *root)
{
    struct report *r = l->r;
    const struct json *s = field(l, root, "series", "report", JSON_OBJ);
    const struct json *tj = s ? json_get(s, "ticks") : NULL;
    const double *ticks = NULL;
    uint32_t nticks = 0;
    if (!s)
        return -1;
    if (!tj)
        return ld_bad(l, "series: \"ticks\" is missing");
    if (!json_nums(tj, &ticks, &nticks))
        return ld_bad(l, "series: \"ticks\" is %s, expected an array of numbers",
                      json_type_name(tj->type));
    const struct json *items = field(l, s, "items", "series", JSON_ARR);
    if (!items || too_many(l, items->n, MAX_ENTRIES, "series") != 0 ||
        too_many(l, nticks, REPORT_MAX_TICKS, "ticks") != 0 ||
        spend(l, (size_t)nticks * sizeof(double)) != 0)
        return -1;
    for (uint32_t i = 0; i < nticks; i++) {
        double t = ticks[i];
        if (isnan(t))
            return ld_bad(l, "series.ticks[%u] is null, expected a number", i);
        if (!in_range(t))
            return ld_bad(l, "series.ticks[%u] is %g, beyond +-2^64: refused", i, t);
        if (i && t < r->ticks[i - 1])
            return ld_bad(l, "series.ticks[%u] goes back in time (%g after %g)", i, t,
                          r->ticks[i - 1]);
        /* Before 0 only in a watch bundle (its samples from before the
         * trigger); anywhere else they would be judged out of the window. */
        if (t < 0 && !r->window.triggered)
            return ld_bad(l, "series.ticks[%u] is %g, before the window, in a bundle with no "
                          "\"window.trigger_s\"", i, t);
        report_add_tick(r, t);
    }
    for (uint32_t i = 0; i < items->n; i++) {
        const struct json *it = &items->u.items[i];
        char what[48];
        snprintf(what, sizeof what, "series.items[%u]", i);
        if (it->type != JSON_OBJ)
            return ld_bad(l, "%s is %s, expected an object", what, json_type_name(it->type));
        const char *name = req_str(l, it, "name", what), *title, *unit, *res;
        if (!name || !opt_str(l, it, "title", what, &title) ||
            !opt_unit(l, it, what, &unit) || !opt_str(l, it, "resource", what, &res))
            return -1;
        if (report_find_series(r, name))
            return ld_bad(l, "series \"%.80s\" appears twice", name);
        const struct json *vj = json_get(it, "values");
        const double *vals = NULL;
        uint32_t nvals = 0;
        if (!vj)
            return ld_bad(l, "%s: \"values\" is missing", what);
        if (!json_nums(vj, &vals, &nvals))
            return ld_bad(l, "series \"%.80s\": \"values\" is %s, expected an array of numbers "
                          "and nulls", name, json_type_name(vj->type));
        if (nvals != nticks)
            return ld_bad(l, "series \"%.80s\" has %u values for %u ticks", name, nvals, nticks);
        if (spend(l, 128 + str_cost(name) + str_cost(title) + str_cost(unit) + str_cost(res) +
                         (size_t)nvals * sizeof(double)) != 0)
            return -1;
        struct series *se = report_series(r, name, title, unit ? unit : "", res ? res : "other");
        if (!opt_bool(l, it, "chart", what, &se->chart))
            return -1;
        for (uint32_t k = 0; k < nvals; k++)
            if (!in_range(vals[k]))
                return ld_bad(l, "series \"%.80s\": value %u is %g, beyond +-2^64: refused", name,
                              k, vals[k]);
        se->v = nvals ? xmalloc(nvals * sizeof *se->v) : NULL;
        se->cap = se->n = nvals;
        if (nvals)
            memcpy(se->v, vals, nvals * sizeof *se->v);
        /* moved, not doubled: the tree's copy goes now */
        json_release_nums(l->tree, (struct json *)vj);
        /* warn/crit are threshold lines: analysis draws them again */
    }
    return 0;
}

static int load_table(struct ld *l, const struct json *it, const char *what)
{
    const char *name = req_str(l, it, "name", what), *title, *res, *note;
    if (!name || !opt_str(l, it, "title", what, &title) ||
        !opt_str(l, it, "resource", what, &res) || !opt_str(l, it, "note", what, &note))
        return -1;
    if (report_find_table(l->r, name))
        return ld_bad(l, "table \"%.80s\" appears twice", name);
    if (spend(l, 256 + str_cost(name) + str_cost(title) + str_cost(res) + str_cost(note)) != 0)
        return -1;
    struct table *t = report_table(l->r, name, title, res ? res : "other");
    if (note)
        table_set_note(t, note);
    char tw[128];
    snprintf(tw, sizeof tw, "table \"%.80s\"", name);
    const struct json *cols = field(l, it, "columns", tw, JSON_ARR);
    const struct json *rows = cols ? field(l, it, "rows", tw, JSON_ARR) : NULL;
    if (!rows || too_many(l, cols->n, MAX_COLUMNS, "columns") != 0)
        return -1;
    for (uint32_t c = 0; c < cols->n; c++) {
        const struct json *col = &cols->u.items[c];
        char cw[160];
        snprintf(cw, sizeof cw, "%s column %u", tw, c);
        if (col->type != JSON_OBJ)
            return ld_bad(l, "%s is %s, expected an object", cw, json_type_name(col->type));
        const char *cname = req_str(l, col, "name", cw), *ctitle, *cunit;
        long long dec = 0;
        const struct json *d = json_get(col, "decimals");
        if (!cname || !opt_str(l, col, "title", cw, &ctitle) ||
            !opt_unit(l, col, cw, &cunit))
            return -1;
        /* -1: a column of text (--baseline's "baseline.changes") */
        if (d && !json_int(d, -1, 17, &dec))
            return ld_bad(l, "%s: \"decimals\" is not a whole number from -1 to 17", cw);
        if (table_col(t, cname) >= 0)
            return ld_bad(l, "%s: column \"%.80s\" appears twice", tw, cname);
        if (spend(l, 64 + str_cost(cname) + str_cost(ctitle) + str_cost(cunit)) != 0)
            return -1;
        table_add_col(t, cname, ctitle, cunit, (int)dec);
    }
    /* A row holds its cells in column order, keyed by the column's name. */
    for (uint32_t i = 0; i < rows->n; i++) {
        const struct json *row = &rows->u.items[i];
        if (row->type != JSON_OBJ || row->n != t->ncols)
            return ld_bad(l, "%s row %u is not an object with one member per column", tw, i);
        if (spend(l, t->ncols * sizeof(struct cell)) != 0)
            return -1;
        size_t ri = table_add_row(t);
        for (uint32_t c = 0; c < row->n; c++) {
            const struct json_member *m = &row->u.members[c];
            struct cell *cl = &t->cells[ri * t->ncols + c];
            if (strcmp(m->key, t->cols[c].name) != 0)
                return ld_bad(l, "%s row %u: member %u is \"%.80s\", expected the column \"%.80s\"",
                              tw, i, c, m->key, t->cols[c].name);
            if (m->val.type == JSON_NUM && !in_range(m->val.u.num))
                return ld_bad(l, "%s row %u: \"%.80s\" is %g, beyond +-2^64: refused", tw, i,
                              m->key, m->val.u.num);
            if (m->val.type == JSON_STR && spend(l, str_cost(m->val.u.str)) != 0)
                return -1;
            if (m->val.type == JSON_NUM)
                *cl = (struct cell){.kind = CELL_NUM, .num = m->val.u.num};
            else if (m->val.type == JSON_STR)
                *cl = (struct cell){.kind = CELL_STR, .str = xstrdup(m->val.u.str)};
            else if (m->val.type == JSON_NULL)
                *cl = (struct cell){.kind = CELL_EMPTY};
            else
                return ld_bad(l, "%s row %u: \"%.80s\" is %s, expected a number, a string or null",
                              tw, i, m->key, json_type_name(m->val.type));
        }
    }
    return 0;
}

static int load_tables(struct ld *l, const struct json *root)
{
    const struct json *tabs = field(l, root, "tables", "report", JSON_ARR);
    if (!tabs || too_many(l, tabs->n, MAX_ENTRIES, "tables") != 0)
        return -1;
    for (uint32_t i = 0; i < tabs->n; i++) {
        char what[32];
        snprintf(what, sizeof what, "tables[%u]", i);
        if (tabs->u.items[i].type != JSON_OBJ)
            return ld_bad(l, "%s is %s, expected an object", what,
                          json_type_name(tabs->u.items[i].type));
        if (load_table(l, &tabs->u.items[i], what) != 0)
            return -1;
    }
    return 0;
}

static int load_metrics(struct ld *l, const struct json *root)
{
    const struct json *m = field(l, root, "metrics", "report", JSON_OBJ);
    if (!m || too_many(l, m->n, MAX_ENTRIES, "metrics") != 0)
        return -1;
    for (uint32_t i = 0; i < m->n; i++) {
        const char *name = m->u.members[i].key, *unit, *title, *res;
        const struct json *v = &m->u.members[i].val;
        char what[128];
        double value;
        snprintf(what, sizeof what, "metric \"%.80s\"", name);
        if (v->type != JSON_OBJ)
            return ld_bad(l, "%s is %s, expected an object", what, json_type_name(v->type));
        if (!opt_num(l, v, "value", what, &value) || !opt_unit(l, v, what, &unit) ||
            !opt_str(l, v, "title", what, &title) || !opt_str(l, v, "resource", what, &res) ||
            spend(l, sizeof(struct metric) + 16 + str_cost(name) + str_cost(title) +
                         str_cost(unit) + str_cost(res)) != 0)
            return -1;
        report_metric(l->r, name, title ? title : name, unit ? unit : "", res ? res : "other",
                      value);
    }
    return 0;
}

/* Bucket b of a log2 histogram spans [2^b, 2^(b+1)), bucket 0 from 0. */
static int bucket_of(double lo, double hi)
{
    int e;
    if (!(hi > 0) || frexp(hi, &e) != 0.5 || e < 2 || e - 2 >= HIST_BUCKETS)
        return -1;
    int b = e - 2;
    return lo == (b == 0 ? 0 : ldexp(1.0, b)) ? b : -1;
}

static int load_hists(struct ld *l, const struct json *root)
{
    const struct json *hs;
    if (!opt_container(l, root, "histograms", "report", JSON_ARR, &hs) ||
        (hs && too_many(l, hs->n, MAX_ENTRIES, "histograms") != 0))
        return -1;
    for (uint32_t i = 0; hs && i < hs->n; i++) {
        const struct json *it = &hs->u.items[i];
        char what[40];
        snprintf(what, sizeof what, "histograms[%u]", i);
        if (it->type != JSON_OBJ)
            return ld_bad(l, "%s is %s, expected an object", what, json_type_name(it->type));
        const char *name = req_str(l, it, "name", what), *title, *unit, *res;
        double count;
        if (!name || !opt_str(l, it, "title", what, &title) ||
            !opt_unit(l, it, what, &unit) || !opt_str(l, it, "resource", what, &res) ||
            !opt_num(l, it, "count", what, &count))
            return -1;
        if (report_find_hist(l->r, name))
            return ld_bad(l, "histogram \"%.80s\" appears twice", name);
        if (spend(l, sizeof(struct hist) + 32 + str_cost(name) + str_cost(title) +
                         str_cost(unit) + str_cost(res)) != 0)
            return -1;
        struct hist *h = report_hist(l->r, name, title, unit ? unit : "", res ? res : "other");
        char hw[128];
        snprintf(hw, sizeof hw, "histogram \"%.80s\"", name);
        const struct json *bk = field(l, it, "buckets", hw, JSON_ARR);
        if (!bk || !opt_num(l, it, "sum", hw, &h->sum) || !opt_num(l, it, "max", hw, &h->max))
            return -1;
        for (uint32_t k = 0; k < bk->n; k++) {
            const struct json *b = &bk->u.items[k];
            double lo, hi;
            long long n;
            if (b->type != JSON_OBJ || !json_num_or_null(json_get(b, "lo"), &lo) ||
                !json_num_or_null(json_get(b, "hi"), &hi) ||
                !json_int(json_get(b, "count"), 0, 1LL << 53, &n))
                return ld_bad(l, "%s bucket %u is not {lo, hi, count}", hw, k);
            int idx = bucket_of(lo, hi);
            if (idx < 0)
                return ld_bad(l, "%s bucket %u: [%g, %g) is not a log2 bucket", hw, k, lo, hi);
            if (h->buckets[idx])
                return ld_bad(l, "%s bucket %u: [%g, %g) appears twice", hw, k, lo, hi);
            hist_add_bucket(h, (unsigned)idx, (uint64_t)n);
        }
        if (!isnan(count) && count != (double)h->count)
            return ld_bad(l, "%s: \"count\" %.0f is not the sum of its buckets (%llu)", hw, count,
                          (unsigned long long)h->count);
    }
    return 0;
}

static int load_ledger(struct ld *l, const struct json *root)
{
    const struct json *cs = field(l, root, "collectors", "report", JSON_ARR);
    if (!cs || too_many(l, cs->n, MAX_ENTRIES, "collectors") != 0)
        return -1;
    for (uint32_t i = 0; i < cs->n; i++) {
        const struct json *it = &cs->u.items[i];
        char what[40];
        snprintf(what, sizeof what, "collectors[%u]", i);
        if (it->type != JSON_OBJ)
            return ld_bad(l, "%s is %s, expected an object", what, json_type_name(it->type));
        const char *name = req_str(l, it, "name", what), *title, *status, *reason, *notes;
        double ms;
        if (!name || !opt_str(l, it, "title", what, &title) ||
            !(status = req_str(l, it, "status", what)) ||
            !opt_str(l, it, "reason", what, &reason) || !opt_str(l, it, "notes", what, &notes) ||
            !opt_num(l, it, "duration_ms", what, &ms))
            return -1;
        if (spend(l, sizeof(struct ledger_entry) + 16 + str_cost(name) + str_cost(title) +
                         str_cost(reason) + str_cost(notes)) != 0)
            return -1;
        enum coll_status st = CS_PENDING;
        while (st <= CS_TIMED_OUT && strcmp(coll_status_name(st), status) != 0)
            st++;
        if (st > CS_TIMED_OUT)
            return ld_bad(l, "collector \"%.80s\": unknown status \"%.40s\"", name, status);
        struct ledger_entry *e = report_ledger(l->r, name, title);
        e->status = st;
        e->duration_ms = ms;
        free(e->reason);
        e->reason = xstrdup(reason);
        free(e->notes);
        e->notes = xstrdup(notes);
    }
    return 0;
}

int ld_fill(struct ld *l, const struct json *root)
{
    struct report *r = l->r;
    long long schema;
    if (root->type != JSON_OBJ)
        return ld_bad(l, "the top level is %s, expected an object", json_type_name(root->type));
    if (ld_check_schema(l, root, &schema) != 0)
        return -1;
    const struct json *tool = field(l, root, "tool", "report", JSON_OBJ);
    const char *name = tool ? req_str(l, tool, "name", "tool") : NULL, *version;
    if (!name || !opt_str(l, tool, "version", "tool", &version))
        return -1;
    if (strcmp(name, "perfreport") != 0)
        return ld_bad(l, "written by \"%.40s\", not by perfreport", name);
    /* The bundle being written from this is in this program's schema; the
     * version stays the one that gathered the data. */
    r->schema = REPORT_SCHEMA;
    r->tool_version = xstrdup(version);
    if (load_facts(l, root, "host", &r->host) != 0 ||
        load_facts(l, root, "capabilities", &r->caps) != 0 || load_window(l, root) != 0 ||
        load_command(l, root) != 0 || !opt_bool(l, root, "failed", "report", &r->failed) || load_metrics(l, root) != 0 ||
        load_series(l, root) != 0 || load_tables(l, root) != 0 || load_hists(l, root) != 0 ||
        load_ledger(l, root) != 0)
        return -1;
    /* --case-id and --label as the options take them, so a planted one
     * cannot be what no run could write */
    const char *id = kv_get(&r->host, "case_id"), *label = kv_get(&r->host, "label"), *why;
    if (id && (why = text_plain_why(id, RUN_CASE_ID_MAX, RUN_CASE_ID_CHARS)))
        return ld_bad(l, "host.case_id %s", why);
    if (label && (why = text_plain_why(label, RUN_LABEL_MAX, NULL)))
        return ld_bad(l, "host.label %s", why);
    return 0;
}

int report_from_json(const char *text, size_t len, struct report **out, char *err, size_t errlen)
{
    struct json *root;
    char jerr[256];
    *out = NULL;
    if (json_parse_bounded(text, len, BUNDLE_TREE_MEM(len), &root, jerr, sizeof jerr) != 0) {
        snprintf(err, errlen, "report.json: %s", jerr);
        return -1;
    }
    struct ld l = {.r = report_new(), .where = "report.json", .err = err, .errlen = errlen,
                   .max_mem = BUNDLE_MODEL_MEM(len), .tree = root};
    int rc = ld_fill(&l, root);
    json_free(root);
    if (rc != 0) {
        report_free(l.r);
        return -1;
    }
    *out = l.r;
    return 0;
}
