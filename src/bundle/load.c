#include "load.h"
#include "../model/model.h"
#include "../model/profile.h"
#include "../model/profile_sites.h"
#include "../model/run_command.h"
#include "../render/charts.h"
#include "../render/folded.h"
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
 * run has ~30 facts, ~150 metrics, ~30 series, ~25 tables, ~20 histograms),
 * so that loading stays well under a second whatever the file holds. */
#define MAX_FACTS 4096
#define MAX_ENTRIES 16384 /* series, tables, metrics, histograms, collectors */
#define MAX_COLUMNS 1024
#define MAX_PROFILES 64

static int too_many(struct ld *l, uint32_t n, uint32_t max, const char *what)
{
    if (n <= max)
        return 0;
    return bad(l, "%u %s, more than the %u a bundle may have: refused", n, what, max);
}

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
    if (!v || json_num_or_null(v, out))
        return true;
    bad(l, "%s: \"%s\" is %s, expected a number or null", what, key, json_type_name(v->type));
    return false;
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
            kv_add_num(kv, name, title, num, unit);
        } else if (v->type == JSON_STR || v->type == JSON_NULL) {
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
    const struct json *ticks = s ? field(l, s, "ticks", "series", JSON_ARR) : NULL;
    const struct json *items = ticks ? field(l, s, "items", "series", JSON_ARR) : NULL;
    if (!items || too_many(l, items->n, MAX_ENTRIES, "series") != 0)
        return -1;
    for (uint32_t i = 0; i < ticks->n; i++) {
        const struct json *t = &ticks->u.items[i];
        if (t->type != JSON_NUM)
            return bad(l, "series.ticks[%u] is %s, expected a number", i, json_type_name(t->type));
        if (i && t->u.num < r->ticks[i - 1])
            return bad(l, "series.ticks[%u] goes back in time (%g after %g)", i, t->u.num,
                       r->ticks[i - 1]);
        report_add_tick(r, t->u.num);
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
        struct series *se = report_series(r, name, title, unit ? unit : "", res ? res : "other");
        const struct json *vals = field(l, it, "values", what, JSON_ARR);
        if (!vals || !opt_bool(l, it, "chart", what, &se->chart))
            return -1;
        if (vals->n != ticks->n)
            return bad(l, "series \"%.80s\" has %u values for %u ticks", name, vals->n, ticks->n);
        se->v = vals->n ? xmalloc(vals->n * sizeof *se->v) : NULL;
        se->cap = se->n = vals->n;
        for (uint32_t k = 0; k < vals->n; k++)
            if (!json_num_or_null(&vals->u.items[k], &se->v[k]))
                return bad(l, "series \"%.80s\": value %u is %s, expected a number or null", name,
                           k, json_type_name(vals->u.items[k].type));
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
        table_add_col(t, cname, ctitle, cunit, (int)dec);
    }
    /* A row holds its cells in column order, keyed by the column's name. */
    for (uint32_t i = 0; i < rows->n; i++) {
        const struct json *row = &rows->u.items[i];
        if (row->type != JSON_OBJ || row->n != t->ncols)
            return bad(l, "%s row %u is not an object with one member per column", tw, i);
        size_t ri = table_add_row(t);
        for (uint32_t c = 0; c < row->n; c++) {
            const struct json_member *m = &row->u.members[c];
            struct cell *cl = &t->cells[ri * t->ncols + c];
            if (strcmp(m->key, t->cols[c].name) != 0)
                return bad(l, "%s row %u: member %u is \"%.80s\", expected the column \"%.80s\"",
                           tw, i, c, m->key, t->cols[c].name);
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
            !opt_str(l, v, "title", what, &title) || !opt_str(l, v, "resource", what, &res))
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
    if (json_parse(text, len, &root, jerr, sizeof jerr) != 0) {
        snprintf(err, errlen, "report.json: %s", jerr);
        return -1;
    }
    struct ld l = {.r = report_new(), .where = "report.json", .err = err, .errlen = errlen};
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

/* dir/name into out: a regular file (not a symlink, FIFO or device) of at
 * most max bytes.  -errno (ENOENT when absent) after a message. */
static int read_in(struct bl *b, const char *name, size_t max, struct strbuf *out)
{
    sb_reset(out);
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
    /* read to the end, never past max (the file may still grow); a buffer
     * the size fstat gave, not a MiB zeroed for every small file */
    size_t expect = rc == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
    while (rc == 0) {
        size_t want = out->len < max ? max - out->len + 1 : 1;
        size_t left = expect > out->len ? expect - out->len + 1 : 4096;
        if (want > left)
            want = left;
        if (want > (1u << 20))
            want = 1u << 20;
        xgrow(&out->buf, &out->cap, out->len + want + 1, 1);
        ssize_t got = read(fd, out->buf + out->len, want);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = -errno;
            bl_fail(b, "%s/%s: %s", b->dir, name, strerror(-rc));
            break;
        }
        if (got == 0)
            break;
        out->len += (size_t)got;
        out->buf[out->len] = '\0';
        if (out->len > max) {
            rc = -EFBIG;
            bl_fail(b, "%s/%s is larger than %zu MiB: refused", b->dir, name, max >> 20);
        }
    }
    close(fd);
    return rc;
}

/* dir/name read and checked against its size and SHA-256 in the manifest:
 * a file the manifest does not vouch for is not used. */
static int read_checked(struct bl *b, const char *name, size_t max, struct strbuf *out)
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
    long long size;
    const char *hex = json_str(json_get(ent, "sha256"));
    if (!json_int(json_get(ent, "size"), 0, (long long)max, &size) || !hex || strlen(hex) != 64)
        return bl_fail(b, "%s/manifest.json: the entry of %s has no usable size and sha256", b->dir,
                       name);
    if (read_in(b, name, max, out) != 0)
        return -1;
    if (out->len != (size_t)size)
        return bl_fail(b,
                       "%s/%s is %zu bytes, but manifest.json says %lld: the file was "
                       "truncated or changed after the bundle was written; refused",
                       b->dir, name, out->len, size);
    uint8_t d[32];
    char got[65];
    sha256(out->buf ? out->buf : "", out->len, d);
    for (int i = 0; i < 32; i++)
        snprintf(got + 2 * i, 3, "%02x", d[i]);
    if (strcmp(got, hex) != 0)
        return bl_fail(b,
                       "%s/%s does not match its SHA-256 in manifest.json: the file was "
                       "changed after the bundle was written; refused",
                       b->dir, name);
    return 0;
}

/* Re-adds the stacks of `from` to `to` with the kinds perfreport's folded
 * files cannot spell: the first frame of each stack is the process, and an
 * unnamed frame is a bracketed label ("[bash exited]", "[truncated]") --
 * the symbolizer's only names that both begin with '[' and end with ']'. */
struct rekind {
    struct profile *to;
    struct pframe *f;
    size_t cap;
};

static int rekind_stack(void *ctx, const struct profile *p, const uint32_t *path, size_t depth,
                        uint64_t self)
{
    struct rekind *k = ctx;
    xgrow(&k->f, &k->cap, depth + 1, sizeof *k->f);
    for (size_t d = 0; d < depth; d++) {
        const char *name = profile_node_name(p, path[d]);
        size_t n = strlen(name);
        enum frame_kind kind = profile_node_kind(p, path[d]);
        if (d == 0)
            kind = FRAME_PROCESS;
        else if (kind == FRAME_USER && n >= 2 && name[0] == '[' && name[n - 1] == ']')
            kind = FRAME_UNKNOWN;
        k->f[d] = (struct pframe){name, n, (uint8_t)kind};
    }
    profile_add_frames(k->to, k->f, depth, self);
    return 0;
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

/* One profile from its .folded file; NULL after a message. */
static struct profile *load_profile(struct bl *b, const char *name, const char *title,
                                    const char *unit, const char *file, double total)
{
    struct strbuf text = STRBUF_INIT;
    struct profile *tmp = NULL, *p = NULL;
    if (read_checked(b, file, BUNDLE_MAX_FOLDED, &text) != 0)
        goto out;
    tmp = profile_new(name, title, unit);
    struct flame_parse_stats st = {0};
    folded_parse(tmp, text.buf ? text.buf : "", text.len, &st);
    if (st.malformed || st.mixed || tmp->base) {
        if (st.nbad)
            bl_fail(b, "%s/%s line %zu: %s", b->dir, file, st.bad_line[0], st.bad_why[0]);
        else
            bl_fail(b, "%s/%s is not perfreport's folded stacks", b->dir, file);
        goto out;
    }
    p = profile_new(name, title, unit);
    struct rekind k = {.to = p};
    profile_walk_stacks(tmp, rekind_stack, &k);
    free(k.f);
    if (!isnan(total) && (double)profile_total(p) != total) {
        bl_fail(b, "%s/%s holds %llu, but report.json says %.0f: refused", b->dir, file,
                (unsigned long long)profile_total(p), total);
        profile_free(p);
        p = NULL;
        goto out;
    }
    if (keep_pprof(b, p) != 0) {
        profile_free(p);
        p = NULL;
    }
out:
    profile_free(tmp);
    sb_free(&text);
    return p;
}

/* Profiles named by report.json's "profiles"; a bundle written before it
 * had them lists its .folded files in the manifest's "files". */
static int load_profiles(struct bl *b, struct report *r, const struct json *root,
                         const struct json *manifest)
{
    const struct json *ps = json_get(root, "profiles");
    if (ps && ps->type != JSON_ARR)
        return bl_fail(b, "%s/report.json: \"profiles\" is %s, expected an array", b->dir,
                       json_type_name(ps->type));
    if (ps && ps->n > MAX_PROFILES)
        return bl_fail(b, "%s/report.json: %u profiles, more than the %u a bundle may have: "
                          "refused", b->dir, ps->n, MAX_PROFILES);
    if (ps) {
        for (uint32_t i = 0; i < ps->n; i++) {
            const struct json *it = &ps->u.items[i];
            const char *name = json_str(json_get(it, "name")),
                       *file = json_str(json_get(it, "file"));
            const char *title = json_str(json_get(it, "title")),
                       *unit = json_str(json_get(it, "unit"));
            double total = NAN;
            if (!name || !*name || !file || (unit && !plain_unit(unit)) ||
                (json_get(it, "total") && !json_num_or_null(json_get(it, "total"), &total)))
                return bl_fail(b,
                               "%s/report.json: profiles[%u] is not {name, title, unit, "
                               "file, total}",
                               b->dir, i);
            struct profile probe = {.name = (char *)name};
            char want[512];
            flame_filename(&probe, "folded", want, sizeof want);
            if (strcmp(want, file) != 0) /* only the name the writer gives it */
                return bl_fail(b,
                               "%s/report.json: profile \"%.80s\" names the file \"%.80s\", "
                               "expected \"%s\"",
                               b->dir, name, file, want);
            if (report_find_profile(r, name))
                return bl_fail(b, "%s/report.json: profile \"%.80s\" appears twice", b->dir, name);
            struct profile *p =
                load_profile(b, name, title ? title : name, unit ? unit : "", file, total);
            if (!p)
                return -1;
            report_add_profile(r, p);
        }
        return 0;
    }
    static const struct {
        const char *name, *title, *unit;
    } known[] = {{"cpu", "On-CPU profile", "samples"}, {"offcpu", "Off-CPU time", "us"}};
    const struct json *files = json_get(manifest, "files");
    for (uint32_t i = 0; files && files->type == JSON_ARR && i < files->n; i++) {
        const char *f = json_str(&files->u.items[i]);
        size_t n = f ? strlen(f) : 0;
        if (n <= 7 || n > 200 || strcmp(f + n - 7, ".folded") != 0 || strchr(f, '/') || f[0] == '.')
            continue;
        char name[208];
        snprintf(name, sizeof name, "%.*s", (int)(n - 7), f);
        const char *title = name, *unit = "samples";
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
            if (strcmp(known[k].name, name) == 0)
                title = known[k].title, unit = known[k].unit;
        if (report_find_profile(r, name))
            continue;
        if (r->nprofiles >= MAX_PROFILES)
            return bl_fail(b, "%s/manifest.json: more than %u .folded files: refused", b->dir,
                           MAX_PROFILES);
        struct profile *p = load_profile(b, name, title, unit, f, NAN);
        if (!p)
            return -1;
        report_add_profile(r, p);
    }
    return 0;
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
    if (json_parse(text.buf ? text.buf : "", text.len, &man, jerr, sizeof jerr) != 0) {
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

/* Everything after the directory is open: manifest.json, report.json
 * (at most max_report bytes, checked against the manifest) and, with
 * `profiles`, the .folded files. */
static int load_opened(struct bl *b, size_t max_report, bool profiles, struct report **out)
{
    const char *dir = b->dir;
    struct strbuf text = STRBUF_INIT;
    struct json *man = NULL, *rep = NULL;
    struct report *r = NULL;
    char jerr[256];
    int rc = -1;
    int e = read_in(b, "manifest.json", BUNDLE_MAX_MANIFEST, &text);
    if (e == -ENOENT) {
        bl_fail(b, "%s is not a perfreport bundle: it has no manifest.json", dir);
        goto out;
    }
    if (e != 0)
        goto out;
    if (json_parse(text.buf ? text.buf : "", text.len, &man, jerr, sizeof jerr) != 0) {
        bl_fail(b, "%s/manifest.json: %s", dir, jerr);
        goto out;
    }
    long long mschema, rschema;
    if (check_manifest(b, man, &mschema) != 0)
        goto out;
    e = read_checked(b, "report.json", max_report, &text);
    if (e != 0)
        goto out;
    if (json_parse(text.buf ? text.buf : "", text.len, &rep, jerr, sizeof jerr) != 0) {
        bl_fail(b, "%s/report.json: %s", dir, jerr);
        goto out;
    }
    sb_free(&text);
    char where[PATH_MAX + 32];
    snprintf(where, sizeof where, "%s/report.json", dir);
    struct ld l = {.r = report_new(), .where = where, .err = b->err, .errlen = b->errlen};
    r = l.r;
    if (fill(&l, rep) != 0)
        goto out;
    rschema = json_get(rep, "schema")->u.num; /* fill checked it */
    if (rschema != mschema) {
        bl_fail(b, "%s: report.json has schema %lld but manifest.json %lld: refused", dir, rschema,
                mschema);
        goto out;
    }
    if (profiles && load_profiles(b, r, rep, man) != 0)
        goto out;
    *out = r;
    r = NULL;
    rc = 0;
out:
    report_free(r);
    json_free(rep);
    json_free(man);
    sb_free(&text);
    return rc;
}

int bundle_load(const char *dir, struct report **out, char *err, size_t errlen)
{
    struct bl b = {.dir = dir, .err = err, .errlen = errlen};
    *out = NULL;
    b.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (b.dfd < 0) {
        int e = errno;
        struct stat st;
        /* O_DIRECTORY|O_NOFOLLOW fails on a symlink with ENOTDIR or ELOOP */
        if (e == ELOOP || (e == ENOTDIR && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)))
            return bl_fail(&b, "%s is a symbolic link: give the bundle directory itself", dir);
        if (e == ENOTDIR)
            return bl_fail(&b, "%s is not a directory (nor a bundle)", dir);
        return bl_fail(&b, "%s: %s", dir, strerror(e));
    }
    int rc = load_opened(&b, BUNDLE_MAX_REPORT, true, out);
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
