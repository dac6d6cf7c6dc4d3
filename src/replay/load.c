#include "load.h"
#include "../model/model.h"
#include "../model/profile.h"
#include "../model/profile_sites.h"
#include "../model/run_command.h"
#include "../render/charts.h"
#include "../flame/folded.h"
#include "../util/json_read.h"
#include "../util/sha256.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include "../version.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Filling a report from report.json's tree.  `where` (the file, as shown in
 * messages) prefixes every message; the first one wins. */
struct ld {
    struct report *r;
    const char *where;
    char *err;
    size_t errlen;
    bool failed;
    size_t mem, max_mem; /* bytes of model made so far, and the bound (spend) */
    struct json *tree;   /* report.json's, whose large number arrays go once copied */
};

static int bad(struct ld *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct ld *l, const char *fmt, ...)
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
#define MAX_PROFILES 64

static int too_many(struct ld *l, uint32_t n, uint32_t max, const char *what)
{
    if (n <= max)
        return 0;
    return bad(l, "%u %s, more than the %u a bundle may have: refused", n, what, max);
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
    return bad(l, "the model would take more than %zu MiB of memory: refused",
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
        bad(l, "%s: \"%s\" is missing", what, key);
        return NULL;
    }
    if (v->type != t) {
        bad(l, "%s: \"%s\" is %s, expected %s", what, key, json_type_name(v->type),
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
        bad(l, "%s: \"%s\" is %s, expected a string or null", what, key, json_type_name(v->type));
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
static bool plain_unit(const char *u)
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

/* An optional unit (NULL for null or absent), checked by plain_unit. */
static bool opt_unit(struct ld *l, const struct json *obj, const char *what, const char **out)
{
    if (!opt_str(l, obj, "unit", what, out))
        return false;
    if (*out && !plain_unit(*out)) {
        bad(l, "%s: \"unit\" is not a unit (at most %d letters, digits, spaces and %%/.-_)",
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
        bad(l, "%s: \"%s\" is %s, expected a number or null", what, key,
            json_type_name(v->type));
        return false;
    }
    if (!in_range(*out)) {
        bad(l, "%s: \"%s\" is %g, beyond +-2^64: refused", what, key, *out);
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
        bad(l, "%s: \"%s\" is %s, expected true or false", what, key, json_type_name(v->type));
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
        bad(l, "%s: \"%s\" is %s, expected %s", what, key, json_type_name(v->type),
            json_type_name(t));
        return false;
    }
    *out = v;
    return true;
}

/* ---- the schema ------------------------------------------------------------ */

/* The document's "schema": an integer this program reads (1..REPORT_SCHEMA). */
static int check_schema(struct ld *l, const struct json *root, long long *schema)
{
    const struct json *s = json_get(root, "schema");
    const char *version = json_str(json_get(json_get(root, "tool"), "version"));
    char by[96] = "";
    if (version)
        snprintf(by, sizeof by, " by perfreport %.40s", version);
    if (!s)
        return bad(l, "no \"schema\": not a perfreport bundle file");
    if (!json_int(s, 1, REPORT_SCHEMA, schema)) {
        if (s->type == JSON_NUM && s->u.num > REPORT_SCHEMA && s->u.num == trunc(s->u.num))
            return bad(l,
                       "written%s with report schema %g, newer than this perfreport (%s) "
                       "reads (schema 1 to %d); render it with that version or a newer one",
                       by, s->u.num, PERFREPORT_VERSION, REPORT_SCHEMA);
        if (s->type == JSON_NUM)
            return bad(l,
                       "unknown report schema %g%s (this perfreport, %s, reads schema 1 to "
                       "%d)",
                       s->u.num, by, PERFREPORT_VERSION, REPORT_SCHEMA);
        return bad(l, "\"schema\" is %s, expected a number", json_type_name(s->type));
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
                return bad(l, "%s.\"%.80s\" is %s, expected a number (its unit is \"%.20s\")", key,
                           name, json_type_name(v->type), unit);
            if (!in_range(num))
                return bad(l, "%s.\"%.80s\" is %g, beyond +-2^64: refused", key, name, num);
            if (spend(l, 64 + str_cost(name) + str_cost(title) + str_cost(unit)) != 0)
                return -1;
            kv_add_num(kv, name, title, num, unit);
        } else if (v->type == JSON_STR || v->type == JSON_NULL) {
            if (spend(l, 64 + str_cost(name) + str_cost(title) + str_cost(json_str(v))) != 0)
                return -1;
            kv_add(kv, name, title, json_str(v));
        } else {
            return bad(l, "%s.\"%.80s\" is %s, expected a string", key, name,
                       json_type_name(v->type));
        }
    }
    return 0;
}

/* "2024-05-01T12:00:00Z" exactly. */
static bool parse_iso8601_utc(const char *s, time_t *out)
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
    const char *start, *target;
    double ns;
    if (!w || !opt_str(l, w, "start", "window", &start) ||
        !opt_num(l, w, "planned_s", "window", &r->window.planned_s) ||
        !opt_num(l, w, "actual_s", "window", &r->window.actual_s) ||
        !opt_num(l, w, "interval_s", "window", &r->window.interval_s) ||
        !opt_bool(l, w, "interrupted", "window", &r->window.interrupted) ||
        !opt_str(l, w, "target", "window", &target) || !opt_num(l, w, "start_ns", "window", &ns))
        return -1;
    if (start) {
        time_t t;
        if (!parse_iso8601_utc(start, &t))
            return bad(l, "window: \"start\" is not a time like 2024-05-01T12:00:00Z");
        r->window.start_wall.tv_sec = t;
        if (!isnan(ns)) {
            if (ns < 0 || ns >= 1e9 || ns != trunc(ns))
                return bad(l,
                           "window: \"start_ns\" is not a whole number of nanoseconds below 1e9");
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
        return bad(l, "\"command\" is %s, expected an object", json_type_name(o->type));
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
        return bad(l, "command: \"end\" is not exited, killed, running or not_started");
    if (!(pid >= 0 && pid <= 4194304 && pid == trunc(pid)))
        return bad(l, "command: \"pid\" is not a process id");
    int signo = -1;
    if (e == CMD_EXITED && !(status >= 0 && status <= 255 && status == trunc(status)))
        return bad(l, "command: \"exit_status\" is not a status in [0, 255]");
    if (e == CMD_KILLED && (signo = cmd_signal_parse(sig)) < 0)
        return bad(l, "command: \"signal\" is not a signal name");
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
 * interval, exactly as the run did. */
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
        return bad(l, "series: \"ticks\" is missing");
    if (!json_nums(tj, &ticks, &nticks))
        return bad(l, "series: \"ticks\" is %s, expected an array of numbers",
                   json_type_name(tj->type));
    const struct json *items = field(l, s, "items", "series", JSON_ARR);
    if (!items || too_many(l, items->n, MAX_ENTRIES, "series") != 0 ||
        too_many(l, nticks, REPORT_MAX_TICKS, "ticks") != 0 ||
        spend(l, (size_t)nticks * sizeof(double)) != 0)
        return -1;
    for (uint32_t i = 0; i < nticks; i++) {
        double t = ticks[i];
        if (isnan(t))
            return bad(l, "series.ticks[%u] is null, expected a number", i);
        if (!in_range(t))
            return bad(l, "series.ticks[%u] is %g, beyond +-2^64: refused", i, t);
        if (i && t < r->ticks[i - 1])
            return bad(l, "series.ticks[%u] goes back in time (%g after %g)", i, t,
                       r->ticks[i - 1]);
        report_add_tick(r, t);
    }
    for (uint32_t i = 0; i < items->n; i++) {
        const struct json *it = &items->u.items[i];
        char what[48];
        snprintf(what, sizeof what, "series.items[%u]", i);
        if (it->type != JSON_OBJ)
            return bad(l, "%s is %s, expected an object", what, json_type_name(it->type));
        const char *name = req_str(l, it, "name", what), *title, *unit, *res;
        if (!name || !opt_str(l, it, "title", what, &title) ||
            !opt_unit(l, it, what, &unit) || !opt_str(l, it, "resource", what, &res))
            return -1;
        if (report_find_series(r, name))
            return bad(l, "series \"%.80s\" appears twice", name);
        const struct json *vj = json_get(it, "values");
        const double *vals = NULL;
        uint32_t nvals = 0;
        if (!vj)
            return bad(l, "%s: \"values\" is missing", what);
        if (!json_nums(vj, &vals, &nvals))
            return bad(l, "series \"%.80s\": \"values\" is %s, expected an array of numbers "
                          "and nulls", name, json_type_name(vj->type));
        if (nvals != nticks)
            return bad(l, "series \"%.80s\" has %u values for %u ticks", name, nvals, nticks);
        if (spend(l, 128 + str_cost(name) + str_cost(title) + str_cost(unit) + str_cost(res) +
                         (size_t)nvals * sizeof(double)) != 0)
            return -1;
        struct series *se = report_series(r, name, title, unit ? unit : "", res ? res : "other");
        if (!opt_bool(l, it, "chart", what, &se->chart))
            return -1;
        for (uint32_t k = 0; k < nvals; k++)
            if (!in_range(vals[k]))
                return bad(l, "series \"%.80s\": value %u is %g, beyond +-2^64: refused", name,
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
        return bad(l, "table \"%.80s\" appears twice", name);
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
            return bad(l, "%s is %s, expected an object", cw, json_type_name(col->type));
        const char *cname = req_str(l, col, "name", cw), *ctitle, *cunit;
        long long dec = 0;
        const struct json *d = json_get(col, "decimals");
        if (!cname || !opt_str(l, col, "title", cw, &ctitle) ||
            !opt_unit(l, col, cw, &cunit))
            return -1;
        /* -1: a column of text (--baseline's "baseline.changes") */
        if (d && !json_int(d, -1, 17, &dec))
            return bad(l, "%s: \"decimals\" is not a whole number from -1 to 17", cw);
        if (table_col(t, cname) >= 0)
            return bad(l, "%s: column \"%.80s\" appears twice", tw, cname);
        if (spend(l, 64 + str_cost(cname) + str_cost(ctitle) + str_cost(cunit)) != 0)
            return -1;
        table_add_col(t, cname, ctitle, cunit, (int)dec);
    }
    /* A row holds its cells in column order, keyed by the column's name. */
    for (uint32_t i = 0; i < rows->n; i++) {
        const struct json *row = &rows->u.items[i];
        if (row->type != JSON_OBJ || row->n != t->ncols)
            return bad(l, "%s row %u is not an object with one member per column", tw, i);
        if (spend(l, t->ncols * sizeof(struct cell)) != 0)
            return -1;
        size_t ri = table_add_row(t);
        for (uint32_t c = 0; c < row->n; c++) {
            const struct json_member *m = &row->u.members[c];
            struct cell *cl = &t->cells[ri * t->ncols + c];
            if (strcmp(m->key, t->cols[c].name) != 0)
                return bad(l, "%s row %u: member %u is \"%.80s\", expected the column \"%.80s\"",
                           tw, i, c, m->key, t->cols[c].name);
            if (m->val.type == JSON_NUM && !in_range(m->val.u.num))
                return bad(l, "%s row %u: \"%.80s\" is %g, beyond +-2^64: refused", tw, i,
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
                return bad(l, "%s row %u: \"%.80s\" is %s, expected a number, a string or null", tw,
                           i, m->key, json_type_name(m->val.type));
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
            return bad(l, "%s is %s, expected an object", what,
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
            return bad(l, "%s is %s, expected an object", what, json_type_name(v->type));
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
            return bad(l, "%s is %s, expected an object", what, json_type_name(it->type));
        const char *name = req_str(l, it, "name", what), *title, *unit, *res;
        double count;
        if (!name || !opt_str(l, it, "title", what, &title) ||
            !opt_unit(l, it, what, &unit) || !opt_str(l, it, "resource", what, &res) ||
            !opt_num(l, it, "count", what, &count))
            return -1;
        if (report_find_hist(l->r, name))
            return bad(l, "histogram \"%.80s\" appears twice", name);
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
                return bad(l, "%s bucket %u is not {lo, hi, count}", hw, k);
            int idx = bucket_of(lo, hi);
            if (idx < 0)
                return bad(l, "%s bucket %u: [%g, %g) is not a log2 bucket", hw, k, lo, hi);
            if (h->buckets[idx])
                return bad(l, "%s bucket %u: [%g, %g) appears twice", hw, k, lo, hi);
            hist_add_bucket(h, (unsigned)idx, (uint64_t)n);
        }
        if (!isnan(count) && count != (double)h->count)
            return bad(l, "%s: \"count\" %.0f is not the sum of its buckets (%llu)", hw, count,
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
            return bad(l, "%s is %s, expected an object", what, json_type_name(it->type));
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
            return bad(l, "collector \"%.80s\": unknown status \"%.40s\"", name, status);
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

static int fill(struct ld *l, const struct json *root)
{
    struct report *r = l->r;
    long long schema;
    if (root->type != JSON_OBJ)
        return bad(l, "the top level is %s, expected an object", json_type_name(root->type));
    if (check_schema(l, root, &schema) != 0)
        return -1;
    const struct json *tool = field(l, root, "tool", "report", JSON_OBJ);
    const char *name = tool ? req_str(l, tool, "name", "tool") : NULL, *version;
    if (!name || !opt_str(l, tool, "version", "tool", &version))
        return -1;
    if (strcmp(name, "perfreport") != 0)
        return bad(l, "written by \"%.40s\", not by perfreport", name);
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
    int rc = fill(&l, root);
    json_free(root);
    if (rc != 0) {
        report_free(l.r);
        return -1;
    }
    *out = l.r;
    return 0;
}

/* ---- the bundle directory -------------------------------------------------- */

struct bl {
    int dfd;
    const char *dir; /* as given, for messages */
    char *err;
    size_t errlen;
    const struct json *integrity; /* manifest.json's list */
};

static int bl_fail(struct bl *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bl_fail(struct bl *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->err, b->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* dir/name opened for reading: a regular file (not a symlink, FIFO or
 * device) of at most max bytes, its size in *size.  The fd, or -errno
 * (-ENOENT when absent) after a message. */
static int open_in(struct bl *b, const char *name, size_t max, size_t *size)
{
    int fd = openat(b->dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP)
            bl_fail(b, "%s/%s is a symbolic link: refused", b->dir, name);
        else
            bl_fail(b, "%s/%s: %s", b->dir, name, strerror(e));
        return -e;
    }
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0) {
        rc = -errno;
        bl_fail(b, "%s/%s: %s", b->dir, name, strerror(-rc));
    } else if (!S_ISREG(st.st_mode)) {
        rc = -EINVAL;
        bl_fail(b, "%s/%s is not a regular file: refused", b->dir, name);
    } else if ((unsigned long long)st.st_size > max) {
        rc = -EFBIG;
        bl_fail(b, "%s/%s is larger than %zu MiB: refused", b->dir, name, max >> 20);
    }
    if (rc) {
        close(fd);
        return rc;
    }
    *size = (size_t)st.st_size;
    return fd;
}

/* Up to want bytes of fd into buf; 0 at the end, -errno after a message. */
static ssize_t read_some(struct bl *b, int fd, const char *name, char *buf, size_t want)
{
    for (;;) {
        ssize_t got = read(fd, buf, want);
        if (got >= 0)
            return got;
        if (errno != EINTR) {
            int e = errno;
            bl_fail(b, "%s/%s: %s", b->dir, name, strerror(e));
            return -e;
        }
    }
}

/* dir/name into out (open_in's rules): read to the end, never past max
 * (the file may still grow), into one buffer of the size fstat gave.
 * -errno (-ENOENT when absent) after a message. */
static int read_in(struct bl *b, const char *name, size_t max, struct strbuf *out)
{
    sb_reset(out);
    size_t expect;
    int fd = open_in(b, name, max, &expect);
    if (fd < 0)
        return fd;
    int rc = 0;
    for (;;) {
        if (out->len + 1 >= out->cap) { /* the size first; a file that grows gets more */
            size_t cap = out->cap ? out->cap + (1u << 20) : expect + 2;
            out->buf = xrealloc(out->buf, cap);
            out->cap = cap;
        }
        size_t want = out->cap - out->len - 1;
        if (want > max + 1 - out->len)
            want = max + 1 - out->len;
        ssize_t got = read_some(b, fd, name, out->buf + out->len, want);
        if (got < 0)
            rc = (int)got;
        if (got <= 0)
            break;
        out->len += (size_t)got;
        out->buf[out->len] = '\0';
        if (out->len > max) {
            rc = -EFBIG;
            bl_fail(b, "%s/%s is larger than %zu MiB: refused", b->dir, name, max >> 20);
            break;
        }
    }
    close(fd);
    return rc;
}

/* The manifest's size and SHA-256 of name (a file of at most max bytes): a
 * file the manifest does not vouch for is not used.  -1 after a message. */
static int vouched(struct bl *b, const char *name, size_t max, long long *size, const char **hex)
{
    const struct json *ent = NULL;
    for (uint32_t i = 0; i < b->integrity->n; i++) {
        const struct json *it = &b->integrity->u.items[i];
        const char *n = json_str(json_get(it, "name"));
        if (!n || strcmp(n, name) != 0)
            continue;
        if (ent)
            return bl_fail(b, "%s/manifest.json lists %s twice: refused", b->dir, name);
        ent = it;
    }
    if (!ent)
        return bl_fail(b, "%s/manifest.json does not list %s with its checksum: refused", b->dir,
                       name);
    *hex = json_str(json_get(ent, "sha256"));
    if (!json_int(json_get(ent, "size"), 0, (long long)max, size) || !*hex || strlen(*hex) != 64)
        return bl_fail(b, "%s/manifest.json: the entry of %s has no usable size and sha256", b->dir,
                       name);
    return 0;
}

/* Whether len bytes hashed to d are what the manifest says; -1 after a
 * message when not. */
static int check_digest(struct bl *b, const char *name, size_t len, long long size,
                        const uint8_t d[32], const char *hex)
{
    if (len != (size_t)size)
        return bl_fail(b,
                       "%s/%s is %zu bytes, but manifest.json says %lld: the file was "
                       "truncated or changed after the bundle was written; refused",
                       b->dir, name, len, size);
    char got[65];
    for (int i = 0; i < 32; i++)
        snprintf(got + 2 * i, 3, "%02x", d[i]);
    if (strcmp(got, hex) != 0)
        return bl_fail(b,
                       "%s/%s does not match its SHA-256 in manifest.json: the file was "
                       "changed after the bundle was written; refused",
                       b->dir, name);
    return 0;
}

/* dir/name read whole and checked against its size and SHA-256. */
static int read_checked(struct bl *b, const char *name, size_t max, struct strbuf *out)
{
    long long size;
    const char *hex;
    if (vouched(b, name, max, &size, &hex) != 0 || read_in(b, name, max, out) != 0)
        return -1;
    uint8_t d[32];
    sha256(out->buf ? out->buf : "", out->len, d);
    return check_digest(b, name, out->len, size, d, hex);
}

/* dir/name (at most max bytes, vouched for by the manifest, whose size goes
 * to *size first) fed to fn a line at a time as it is read, without its
 * "\n", and checked against its size and SHA-256 at the end: the caller
 * throws away what fn made when this fails.  Only a line (at most
 * BUNDLE_MAX_LINE bytes: a longer one fails) and a read buffer are held,
 * never the file. */
static int stream_checked(struct bl *b, const char *name, size_t max, long long *size,
                          void (*fn)(void *ctx, const char *line, size_t len, size_t lineno),
                          void *ctx)
{
    const char *hex;
    size_t expect;
    if (vouched(b, name, max, size, &hex) != 0)
        return -1;
    int fd = open_in(b, name, max, &expect);
    if (fd < 0)
        return -1;
    enum { CHUNK_BYTES = 1 << 20 };
    char *chunk = xmalloc(CHUNK_BYTES);
    struct strbuf part = STRBUF_INIT; /* a line that spans reads */
    struct sha256 h;
    sha256_init(&h);
    size_t total = 0, lineno = 0;
    int rc = 0;
    while (rc == 0) {
        ssize_t got = read_some(b, fd, name, chunk, CHUNK_BYTES);
        if (got < 0)
            rc = -1;
        if (got <= 0)
            break;
        sha256_update(&h, chunk, (size_t)got);
        total += (size_t)got;
        if (total > max) {
            rc = bl_fail(b, "%s/%s is larger than %zu MiB: refused", b->dir, name, max >> 20);
            break;
        }
        const char *s = chunk, *end = chunk + got;
        while (s < end) {
            const char *nl = memchr(s, '\n', (size_t)(end - s));
            const char *le = nl ? nl : end;
            if (part.len + (size_t)(le - s) > BUNDLE_MAX_LINE) {
                rc = bl_fail(b, "%s/%s line %zu is longer than %u KiB: refused", b->dir, name,
                             lineno + 1, BUNDLE_MAX_LINE >> 10);
                break;
            }
            if (!nl) {
                sb_addn(&part, s, (size_t)(le - s));
                break;
            }
            if (part.len) {
                sb_addn(&part, s, (size_t)(le - s));
                fn(ctx, part.buf, part.len, ++lineno);
                sb_reset(&part);
            } else {
                fn(ctx, s, (size_t)(le - s), ++lineno);
            }
            s = nl + 1;
        }
    }
    if (rc == 0 && part.len)
        fn(ctx, part.buf, part.len, ++lineno);
    close(fd);
    free(chunk);
    sb_free(&part);
    if (rc)
        return -1;
    uint8_t d[32];
    sha256_final(&h, d);
    return check_digest(b, name, total, *size, d, hex);
}

/* The run's pprof file of p, when the manifest lists one, kept for the
 * renderer to write as it is: it carries the addresses, mappings, source
 * lines and process labels that the folded file does not.  Its bytes are
 * only copied, never parsed.  -1 after a message (checksum, size, a
 * symbolic link). */
static int keep_pprof(struct bl *b, struct profile *p)
{
    char name[512];
    flame_filename(p, "pb.gz", name, sizeof name);
    bool listed = false;
    for (uint32_t i = 0; i < b->integrity->n && !listed; i++) {
        const char *n = json_str(json_get(&b->integrity->u.items[i], "name"));
        listed = n && strcmp(n, name) == 0;
    }
    if (!listed)
        return 0; /* an older bundle: encoded again from the folded file */
    /* removed since (an export, which a kept bundle may be trimmed of):
     * encoded again too, with names and counts only; a diff or --baseline
     * needs none of it */
    struct stat st;
    if (fstatat(b->dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
        return 0;
    struct strbuf gz = STRBUF_INIT;
    int rc = read_checked(b, name, BUNDLE_MAX_PPROF, &gz);
    if (rc == 0)
        profile_keep_pprof(p, gz.buf ? gz.buf : "", gz.len);
    sb_free(&gz);
    return rc ? -1 : 0;
}

/* A profile to load: report.json's entry (or the manifest's file). */
struct pspec {
    char *name, *title, *unit, *file; /* owned */
    double total;                     /* NAN: not said */
};

static void pspecs_free(struct pspec *ps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(ps[i].name);
        free(ps[i].title);
        free(ps[i].unit);
        free(ps[i].file);
    }
    free(ps);
}

struct fold_ctx {
    struct folded_parser fp;
    bool sized;            /* the profile's bounds are set */
    const long long *size; /* the file's, as the manifest says */
};

static void fold_line(void *ctx, const char *line, size_t len, size_t lineno)
{
    struct fold_ctx *c = ctx;
    if (!c->sized) {
        uint32_t cap = BUNDLE_PROFILE_NODES((size_t)*c->size);
        profile_set_bounds(c->fp.p, cap, cap);
        c->sized = true;
    }
    folded_line(&c->fp, line, len, lineno);
}

/* One profile from its .folded file, streamed; NULL after a message. */
static struct profile *load_profile(struct bl *b, const struct pspec *ps)
{
    struct profile *p = profile_new(ps->name, ps->title, ps->unit);
    long long size = 0;
    struct fold_ctx c = {.size = &size};
    folded_init(&c.fp, p);
    /* perfreport's own conventions for the kinds folded text cannot spell */
    c.fp.bundle_kinds = true;
    profile_bulk_limit(c.fp.bulk, BUNDLE_BULK_IDS);
    int rc = stream_checked(b, ps->file, BUNDLE_MAX_FOLDED, &size, fold_line, &c);
    folded_finish(&c.fp);
    const struct flame_parse_stats *st = &c.fp.st;
    if (rc != 0)
        goto bad;
    if (st->malformed || st->mixed || p->base) {
        if (st->nbad)
            bl_fail(b, "%s/%s line %zu: %s", b->dir, ps->file, st->bad_line[0], st->bad_why[0]);
        else
            bl_fail(b, "%s/%s is not perfreport's folded stacks", b->dir, ps->file);
        goto bad;
    }
    if (profile_over_bounds(p)) {
        bl_fail(b, "%s/%s holds more than %u distinct frames or names for its %lld bytes: "
                   "refused", b->dir, ps->file, (unsigned)BUNDLE_PROFILE_NODES((size_t)size),
                size);
        goto bad;
    }
    if (!isnan(ps->total) && (double)profile_total(p) != ps->total) {
        bl_fail(b, "%s/%s holds %llu, but report.json says %.0f: refused", b->dir, ps->file,
                (unsigned long long)profile_total(p), ps->total);
        goto bad;
    }
    if (keep_pprof(b, p) == 0)
        return p;
bad:
    profile_free(p);
    return NULL;
}

/* The profiles to load: named by report.json's "profiles"; a bundle written
 * before it had them lists its .folded files in the manifest's "files".
 * Taken from the trees before they go, so that the profiles are loaded
 * without them.  -1 after a message. */
static int profile_specs(struct bl *b, const struct json *root, const struct json *manifest,
                         struct pspec **out, size_t *nout)
{
    struct pspec *ps = xcalloc(MAX_PROFILES, sizeof *ps);
    size_t n = 0;
    const struct json *list = json_get(root, "profiles");
    *out = NULL;
    *nout = 0;
    if (list && list->type != JSON_ARR) {
        bl_fail(b, "%s/report.json: \"profiles\" is %s, expected an array", b->dir,
                json_type_name(list->type));
        goto bad;
    }
    if (list && list->n > MAX_PROFILES) {
        bl_fail(b, "%s/report.json: %u profiles, more than the %u a bundle may have: refused",
                b->dir, list->n, MAX_PROFILES);
        goto bad;
    }
    for (uint32_t i = 0; list && i < list->n; i++) {
        const struct json *it = &list->u.items[i];
        const char *name = json_str(json_get(it, "name")), *file = json_str(json_get(it, "file"));
        const char *title = json_str(json_get(it, "title")), *unit = json_str(json_get(it, "unit"));
        double total = NAN;
        if (!name || !*name || !file || (unit && !plain_unit(unit)) ||
            (json_get(it, "total") && !json_num_or_null(json_get(it, "total"), &total))) {
            bl_fail(b, "%s/report.json: profiles[%u] is not {name, title, unit, file, total}",
                    b->dir, i);
            goto bad;
        }
        struct profile probe = {.name = (char *)name};
        char want[512];
        flame_filename(&probe, "folded", want, sizeof want);
        if (strcmp(want, file) != 0) { /* only the name the writer gives it */
            bl_fail(b, "%s/report.json: profile \"%.80s\" names the file \"%.80s\", expected \"%s\"",
                    b->dir, name, file, want);
            goto bad;
        }
        for (size_t k = 0; k < n; k++)
            if (strcmp(ps[k].name, name) == 0) {
                bl_fail(b, "%s/report.json: profile \"%.80s\" appears twice", b->dir, name);
                goto bad;
            }
        ps[n++] = (struct pspec){xstrdup(name), xstrdup(title ? title : name),
                                 xstrdup(unit ? unit : ""), xstrdup(file), total};
    }
    static const struct {
        const char *name, *title, *unit;
    } known[] = {{"cpu", "On-CPU profile", "samples"}, {"offcpu", "Off-CPU time", "us"}};
    const struct json *files = list ? NULL : json_get(manifest, "files");
    for (uint32_t i = 0; files && files->type == JSON_ARR && i < files->n; i++) {
        const char *f = json_str(&files->u.items[i]);
        size_t len = f ? strlen(f) : 0;
        if (len <= 7 || len > 200 || strcmp(f + len - 7, ".folded") != 0 || strchr(f, '/') ||
            f[0] == '.')
            continue;
        char name[208];
        snprintf(name, sizeof name, "%.*s", (int)(len - 7), f);
        const char *title = name, *unit = "samples";
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            if (strcmp(known[k].name, name) == 0)
                title = known[k].title, unit = known[k].unit;
        bool seen = false;
        for (size_t k = 0; k < n && !seen; k++)
            seen = strcmp(ps[k].name, name) == 0;
        if (seen)
            continue;
        if (n >= MAX_PROFILES) {
            bl_fail(b, "%s/manifest.json: more than %u .folded files: refused", b->dir,
                    MAX_PROFILES);
            goto bad;
        }
        ps[n++] = (struct pspec){xstrdup(name), xstrdup(title), xstrdup(unit), xstrdup(f), NAN};
    }
    *out = ps;
    *nout = n;
    return 0;
bad:
    pspecs_free(ps, n);
    return -1;
}

/* manifest.json: a perfreport manifest of a schema this program reads,
 * with its integrity list. */
static int check_manifest(struct bl *b, const struct json *m, long long *schema)
{
    char where[PATH_MAX + 32];
    snprintf(where, sizeof where, "%s/manifest.json", b->dir);
    struct ld l = {.where = where, .err = b->err, .errlen = b->errlen};
    if (m->type != JSON_OBJ)
        return bad(&l, "the top level is %s, not a perfreport manifest", json_type_name(m->type));
    const char *tool = json_str(json_get(json_get(m, "tool"), "name"));
    if (!tool || strcmp(tool, "perfreport") != 0)
        return bad(&l, "not a perfreport manifest (no \"tool\": {\"name\": \"perfreport\"})");
    if (check_schema(&l, m, schema) != 0)
        return -1;
    b->integrity = json_get(m, "integrity");
    if (!json_is(b->integrity, JSON_ARR))
        return bad(&l, "no \"integrity\" list (sizes and SHA-256 of the files): refused");
    return 0;
}

int bundle_manifest_read(int dfd, const char *shown, struct json **out, char *err, size_t errlen)
{
    struct bl b = {.dfd = dfd, .dir = shown, .err = err, .errlen = errlen};
    struct strbuf text = STRBUF_INIT;
    struct json *man = NULL;
    char jerr[256];
    long long schema;
    *out = NULL;
    int e = read_in(&b, "manifest.json", BUNDLE_MAX_MANIFEST, &text);
    if (e == -ENOENT)
        bl_fail(&b, "%s has no manifest.json", shown);
    if (e != 0) {
        sb_free(&text);
        return -1;
    }
    if (json_parse_bounded(text.buf ? text.buf : "", text.len, BUNDLE_TREE_MEM(text.len), &man,
                           jerr, sizeof jerr) != 0) {
        bl_fail(&b, "%s/manifest.json: %s", shown, jerr);
        sb_free(&text);
        return -1;
    }
    sb_free(&text);
    if (check_manifest(&b, man, &schema) != 0) {
        json_free(man);
        return -1;
    }
    *out = man;
    return 0;
}

bool bundle_manifest_start(const struct json *man, struct timespec *out)
{
    const struct json *w = json_get(man, "window");
    const char *start = json_str(json_get(w, "start"));
    long long ns = 0;
    time_t t;
    if (!start || !parse_iso8601_utc(start, &t) ||
        (json_get(w, "start_ns") && !json_int(json_get(w, "start_ns"), 0, 999999999, &ns)))
        return false;
    out->tv_sec = t;
    out->tv_nsec = (long)ns;
    return true;
}

/* Everything after the directory is open: manifest.json, report.json
 * (at most max_report bytes, checked against the manifest) and, with
 * `profiles`, the .folded files, once report.json's text and tree are
 * gone: besides the model, one file's worth is held at a time. */
static int load_opened(struct bl *b, size_t max_report, bool profiles, struct report **out)
{
    const char *dir = b->dir;
    struct strbuf text = STRBUF_INIT;
    struct json *man = NULL, *rep = NULL;
    struct report *r = NULL;
    struct pspec *specs = NULL;
    size_t nspecs = 0;
    char jerr[256];
    int rc = -1;
    int e = read_in(b, "manifest.json", BUNDLE_MAX_MANIFEST, &text);
    if (e == -ENOENT) {
        bl_fail(b, "%s is not a perfreport bundle: it has no manifest.json", dir);
        goto out;
    }
    if (e != 0)
        goto out;
    if (json_parse_bounded(text.buf ? text.buf : "", text.len, BUNDLE_TREE_MEM(text.len), &man,
                           jerr, sizeof jerr) != 0) {
        bl_fail(b, "%s/manifest.json: %s", dir, jerr);
        goto out;
    }
    long long mschema, rschema;
    if (check_manifest(b, man, &mschema) != 0)
        goto out;
    e = read_checked(b, "report.json", max_report, &text);
    if (e != 0)
        goto out;
    size_t rlen = text.len;
    if (json_parse_bounded(text.buf ? text.buf : "", rlen, BUNDLE_TREE_MEM(rlen), &rep, jerr,
                           sizeof jerr) != 0) {
        bl_fail(b, "%s/report.json: %s", dir, jerr);
        goto out;
    }
    sb_free(&text);
    char where[PATH_MAX + 32];
    snprintf(where, sizeof where, "%s/report.json", dir);
    struct ld l = {.r = report_new(), .where = where, .err = b->err, .errlen = b->errlen,
                   .max_mem = BUNDLE_MODEL_MEM(rlen), .tree = rep};
    r = l.r;
    if (fill(&l, rep) != 0)
        goto out;
    rschema = json_get(rep, "schema")->u.num; /* fill checked it */
    if (rschema != mschema) {
        bl_fail(b, "%s: report.json has schema %lld but manifest.json %lld: refused", dir, rschema,
                mschema);
        goto out;
    }
    if (profiles && profile_specs(b, rep, man, &specs, &nspecs) != 0)
        goto out;
    json_free(rep);
    rep = NULL;
    for (size_t i = 0; i < nspecs; i++) {
        struct profile *p = load_profile(b, &specs[i]);
        if (!p)
            goto out;
        report_add_profile(r, p);
    }
    *out = r;
    r = NULL;
    rc = 0;
out:
    pspecs_free(specs, nspecs);
    report_free(r);
    json_free(rep);
    json_free(man);
    sb_free(&text);
    return rc;
}

/* The bundle directory `dir`, opened by the loader's rules; -1 after a
 * message. */
static int open_bundle(struct bl *b, const char *dir)
{
    b->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (b->dfd >= 0)
        return 0;
    int e = errno;
    struct stat st;
    /* O_DIRECTORY|O_NOFOLLOW fails on a symlink with ENOTDIR or ELOOP */
    if (e == ELOOP || (e == ENOTDIR && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)))
        return bl_fail(b, "%s is a symbolic link: give the bundle directory itself", dir);
    if (e == ENOTDIR)
        return bl_fail(b, "%s is not a directory (nor a bundle)", dir);
    return bl_fail(b, "%s: %s", dir, strerror(e));
}

int bundle_load(const char *dir, struct report **out, char *err, size_t errlen)
{
    struct bl b = {.dir = dir, .err = err, .errlen = errlen};
    *out = NULL;
    if (open_bundle(&b, dir) != 0)
        return -1;
    int rc = load_opened(&b, BUNDLE_MAX_REPORT, true, out);
    close(b.dfd);
    return rc;
}

int bundle_probe(const char *dir, char *err, size_t errlen)
{
    struct bl b = {.dir = dir, .err = err, .errlen = errlen};
    if (open_bundle(&b, dir) != 0)
        return -1;
    struct json *man = NULL;
    int rc = bundle_manifest_read(b.dfd, dir, &man, err, errlen);
    long long size;
    const char *hex;
    if (rc == 0) {
        b.integrity = json_get(man, "integrity"); /* an array: the read checked it */
        rc = vouched(&b, "report.json", BUNDLE_MAX_REPORT, &size, &hex);
    }
    json_free(man);
    close(b.dfd);
    return rc;
}

int bundle_load_report_at(int dfd, const char *shown, size_t max_report, struct report **out,
                          char *err, size_t errlen)
{
    struct bl b = {.dfd = dfd, .dir = shown, .err = err, .errlen = errlen};
    *out = NULL;
    return load_opened(&b, max_report < BUNDLE_MAX_REPORT ? max_report : BUNDLE_MAX_REPORT, false,
                       out);
}
