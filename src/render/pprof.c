/* pprof profiles from the profile trie (see pprof.h for what maps to what).
 * Field numbers are profile.proto's (github.com/google/pprof/proto). */
#include "pprof.h"
#include "charts.h"
#include "renderer.h"
#include "escape.h"
#include "protobuf.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../model/profile.h"
#include "../model/profile_sites.h"
#include "../util/strbuf.h"
#include "../util/strmap.h"
#include "../util/xalloc.h"
#include "../version.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* message Profile */
enum {
    PF_SAMPLE_TYPE = 1, PF_SAMPLE = 2, PF_MAPPING = 3, PF_LOCATION = 4, PF_FUNCTION = 5,
    PF_STRING_TABLE = 6, PF_TIME_NANOS = 9, PF_DURATION_NANOS = 10, PF_PERIOD_TYPE = 11,
    PF_PERIOD = 12, PF_COMMENT = 13,
};
enum { VT_TYPE = 1, VT_UNIT = 2 };                                     /* ValueType */
enum { SA_LOCATION_ID = 1, SA_VALUE = 2, SA_LABEL = 3 };               /* Sample */
enum { LA_KEY = 1, LA_STR = 2, LA_NUM = 3 };                           /* Label */
enum {                                                                 /* Mapping */
    MA_ID = 1, MA_MEMORY_START = 2, MA_MEMORY_LIMIT = 3, MA_FILE_OFFSET = 4, MA_FILENAME = 5,
    MA_BUILD_ID = 6, MA_HAS_FUNCTIONS = 7, MA_HAS_FILENAMES = 8, MA_HAS_LINE_NUMBERS = 9,
    MA_HAS_INLINE_FRAMES = 10,
};
enum { LO_ID = 1, LO_MAPPING_ID = 2, LO_ADDRESS = 3, LO_LINE = 4 };    /* Location */
enum { LI_FUNCTION_ID = 1, LI_LINE = 2 };                              /* Line */
enum { FU_ID = 1, FU_NAME = 2, FU_SYSTEM_NAME = 3, FU_FILENAME = 4 };   /* Function */

/* Mappings the frame kinds tell; files have theirs from the sites. */
enum { MAP_NONE = 0, MAP_KERNEL, MAP_JIT, MAP_COUNT };
static const char *const map_names[MAP_COUNT] = {NULL, "[kernel]", "[jit]"};

#define MAX_VALUES 2

struct pp {
    struct strbuf *out;
    struct strmap strs;     /* string -> table index + 1 */
    uint64_t nstrs;
    struct strbuf strtab;   /* encoded string_table fields, in index order */
    uint64_t *fn_of_str;    /* per string index: its function without a file; 0 none */
    size_t cap_fn_of_str;
    struct strmap funcs;    /* "name:file" string ids -> function id */
    uint64_t nfuncs;
    struct strbuf funcbuf;  /* encoded Function messages */
    struct strmap locs;     /* "mapping|fid:line,..." -> location id */
    uint64_t nlocs;
    struct strbuf locbuf;   /* encoded Location messages */
    uint64_t map_id[MAP_COUNT]; /* 0 until used */
    uint64_t *file_map_id;  /* per profile mapping: its id, 0 until used */
    uint64_t nmaps;
    struct strbuf mapbuf;   /* encoded Mapping messages of files */
    struct profile_labelled *stacks; /* labelled stacks by node, merged */
    size_t nstacks;
    uint32_t *node_loc;     /* per node that ends a location: its id; 0 unknown */
    size_t cap_node_loc;
    uint64_t *ids;          /* scratch: a sample's location ids */
    size_t cap_ids;
    struct strbuf msg, sub; /* scratch messages */
    struct strbuf key;      /* scratch map key */
    size_t nvalues;
    uint64_t mult[MAX_VALUES]; /* value = count x mult */
    uint64_t comm_key, pid_key, tid_key, cgroup_key, container_key;
};

/* s with every invalid UTF-8 byte as U+FFFD (malloc'd), or NULL when s is
 * valid: profile.proto is proto3, whose readers (protobuf-go among them)
 * refuse a whole profile over one string field that is not UTF-8, and frame
 * and process names are host bytes. */
static char *utf8_fixed(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = strlen(s), i = 0;
    unsigned cp;
    while (i < len) {
        size_t n = utf8_decode(u + i, len - i, &cp);
        if (!n)
            break;
        i += n;
    }
    if (i == len)
        return NULL;
    struct strbuf sb = STRBUF_INIT;
    sb_addn(&sb, s, i);
    while (i < len) {
        size_t n = utf8_decode(u + i, len - i, &cp);
        if (n)
            sb_addn(&sb, s + i, n);
        else
            sb_add(&sb, "\xEF\xBF\xBD");
        i += n ? n : 1;
    }
    return sb_detach(&sb);
}

static uint64_t str_id(struct pp *pp, const char *s)
{
    char *fixed = utf8_fixed(s);
    if (fixed)
        s = fixed;
    void **slot = strmap_slot(&pp->strs, s);
    if (!*slot) {
        *slot = (void *)(uintptr_t)(pp->nstrs + 1);
        pb_bytes(&pp->strtab, PF_STRING_TABLE, s, strlen(s));
        free(fixed);
        return pp->nstrs++;
    }
    free(fixed);
    return (uint64_t)(uintptr_t)*slot - 1;
}

/* Id from a key map, or 0 with *fresh set when the key is new (the caller
 * then encodes the record with the returned id). */
static uint64_t key_id(struct strmap *m, const char *key, uint64_t *count, bool *fresh)
{
    void **slot = strmap_slot(m, key);
    *fresh = !*slot;
    if (*fresh)
        *slot = (void *)(uintptr_t)++*count;
    return (uint64_t)(uintptr_t)*slot;
}

/* "file:line" -> file (into *file, owned by the caller) and line; a source
 * without a numeric ":line" suffix is all file, line 0. */
static char *split_source(const char *src, int64_t *line)
{
    *line = 0;
    const char *colon = strrchr(src, ':');
    if (colon && colon[1]) {
        char *end;
        long long v = strtoll(colon + 1, &end, 10);
        if (!*end && colon[1] >= '0' && colon[1] <= '9' && v > 0) {
            *line = v;
            return xstrndup(src, (size_t)(colon - src));
        }
    }
    return xstrdup(src);
}

static uint64_t function_id(struct pp *pp, const struct profile *p, uint32_t node, int64_t *line)
{
    const char *name = profile_node_name(p, node);
    const struct profile_site *site = profile_node_site(p, node);
    const char *src = profile_node_source(p, node);
    char *file;
    if (site && site->file != PROFILE_NONE) { /* the drain's: where the address was */
        file = xstrdup(profile_str(p, site->file));
        *line = site->line;
    } else {
        file = src ? split_source(src, line) : NULL;
        if (!src)
            *line = 0;
    }
    uint64_t name_id = str_id(pp, name), file_id = file && *file ? str_id(pp, file) : 0;
    free(file);
    bool fresh;
    uint64_t id;
    if (!file_id) { /* the usual case, without a map lookup of its own */
        xgrow(&pp->fn_of_str, &pp->cap_fn_of_str, (size_t)name_id + 1, sizeof *pp->fn_of_str);
        fresh = !pp->fn_of_str[name_id];
        if (fresh)
            pp->fn_of_str[name_id] = ++pp->nfuncs;
        id = pp->fn_of_str[name_id];
    } else {
        char key[48];
        snprintf(key, sizeof key, "%llu:%llu", (unsigned long long)name_id,
                 (unsigned long long)file_id);
        id = key_id(&pp->funcs, key, &pp->nfuncs, &fresh);
    }
    if (fresh) {
        struct strbuf *m = &pp->sub;
        sb_reset(m);
        pb_uint(m, FU_ID, id);
        pb_int(m, FU_NAME, (int64_t)name_id);
        pb_int(m, FU_SYSTEM_NAME, (int64_t)name_id);
        if (file_id)
            pb_int(m, FU_FILENAME, (int64_t)file_id);
        pb_bytes(&pp->funcbuf, PF_FUNCTION, m->buf, m->len);
    }
    return id;
}

/* The id of the profile's mapping m (index + 1), encoded on first use. */
static uint64_t file_mapping(struct pp *pp, const struct profile *p, uint32_t m)
{
    const struct profile_mapping *pm = &p->sites->maps[m - 1];
    if (pp->file_map_id[m - 1])
        return pp->file_map_id[m - 1];
    uint64_t id = pp->file_map_id[m - 1] = ++pp->nmaps;
    sb_reset(&pp->sub);
    pb_uint(&pp->sub, MA_ID, id);
    pb_uint(&pp->sub, MA_MEMORY_START, pm->start);
    pb_uint(&pp->sub, MA_MEMORY_LIMIT, pm->limit);
    pb_uint(&pp->sub, MA_FILE_OFFSET, pm->offset);
    pb_int(&pp->sub, MA_FILENAME, (int64_t)str_id(pp, profile_str(p, pm->path)));
    if (pm->build_id != PROFILE_NONE)
        pb_int(&pp->sub, MA_BUILD_ID, (int64_t)str_id(pp, profile_str(p, pm->build_id)));
    /* names come from the drain's symbolizer; lines and inline frames where
     * DWARF had them (pprof then does not symbolize the binary again) */
    pb_uint(&pp->sub, MA_HAS_FUNCTIONS, 1);
    pb_uint(&pp->sub, MA_HAS_FILENAMES, 1);
    pb_uint(&pp->sub, MA_HAS_LINE_NUMBERS, 1);
    pb_uint(&pp->sub, MA_HAS_INLINE_FRAMES, 1);
    pb_bytes(&pp->mapbuf, PF_MAPPING, pp->sub.buf, pp->sub.len);
    return id;
}

static uint64_t mapping_of(struct pp *pp, enum frame_kind k)
{
    int m = k == FRAME_KERNEL ? MAP_KERNEL : k == FRAME_JIT ? MAP_JIT : MAP_NONE;
    if (m != MAP_NONE && !pp->map_id[m])
        pp->map_id[m] = ++pp->nmaps;
    return pp->map_id[m];
}

/* Appends v to a map key in base 32 with a terminator: short, never NUL,
 * and cheaper than printf for millions of keys. */
static void key_num(struct strbuf *key, uint64_t v, char end)
{
    char buf[16];
    size_t n = 0;
    do {
        buf[n++] = (char)('0' + (v & 31));
        v >>= 5;
    } while (v);
    buf[n++] = end;
    sb_addn(key, buf, n);
}

/* The location of path[first..last]: a frame and the inline frames after it
 * (root-first), i.e. functions inlined into it, deepest last.  Cached by the
 * node that ends it: the same node always makes the same location. */
static uint64_t location_id(struct pp *pp, const struct profile *p, const uint32_t *path,
                            size_t first, size_t last)
{
    uint32_t end = path[last];
    if (end < pp->cap_node_loc && pp->node_loc[end])
        return pp->node_loc[end];
    uint64_t mapping = mapping_of(pp, profile_node_kind(p, path[first])), addr = 0;
    const struct profile_site *site = profile_node_site(p, path[first]);
    if (site && site->mapping) {
        mapping = file_mapping(pp, p, site->mapping);
        addr = site->addr;
    }
    struct strbuf *key = &pp->key;
    sb_reset(key);
    uint64_t fids[64];
    int64_t lines[64];
    size_t n = last - first + 1;
    uint64_t *fid = n <= 64 ? fids : xmalloc(n * sizeof *fid);
    int64_t *line = n <= 64 ? lines : xmalloc(n * sizeof *line);
    key_num(key, mapping, '|');
    key_num(key, addr, '@');
    /* profile.proto: the last line is the caller the others were inlined into */
    for (size_t i = 0; i < n; i++) {
        fid[i] = function_id(pp, p, path[last - i], &line[i]);
        key_num(key, fid[i], ':');
        key_num(key, (uint64_t)line[i], ',');
    }
    bool fresh;
    uint64_t id = key_id(&pp->locs, sb_str(key), &pp->nlocs, &fresh);
    if (fresh) {
        struct strbuf *m = &pp->msg;
        sb_reset(m);
        pb_uint(m, LO_ID, id);
        if (mapping)
            pb_uint(m, LO_MAPPING_ID, mapping);
        if (addr)
            pb_uint(m, LO_ADDRESS, addr);
        for (size_t i = 0; i < n; i++) {
            sb_reset(&pp->sub);
            pb_uint(&pp->sub, LI_FUNCTION_ID, fid[i]);
            if (line[i])
                pb_int(&pp->sub, LI_LINE, line[i]);
            pb_bytes(m, LO_LINE, pp->sub.buf, pp->sub.len);
        }
        pb_bytes(&pp->locbuf, PF_LOCATION, m->buf, m->len);
    }
    if (fid != fids)
        free(fid);
    if (line != lines)
        free(line);
    /* ids fit 32 bits: there is at most one location per node */
    xgrow(&pp->node_loc, &pp->cap_node_loc, (size_t)end + 1, sizeof *pp->node_loc);
    pp->node_loc[end] = (uint32_t)id;
    return id;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    if (b && a > (uint64_t)INT64_MAX / b)
        return (uint64_t)INT64_MAX; /* values are int64 in profile.proto */
    return a * b;
}

static void str_label(struct pp *pp, struct strbuf *m, uint64_t key, const char *v)
{
    sb_reset(&pp->sub);
    pb_int(&pp->sub, LA_KEY, (int64_t)key);
    pb_int(&pp->sub, LA_STR, (int64_t)str_id(pp, v));
    pb_bytes(m, SA_LABEL, pp->sub.buf, pp->sub.len);
}

static void num_label(struct pp *pp, struct strbuf *m, uint64_t key, uint64_t v)
{
    sb_reset(&pp->sub);
    pb_int(&pp->sub, LA_KEY, (int64_t)key);
    pb_int(&pp->sub, LA_NUM, (int64_t)v);
    pb_bytes(m, SA_LABEL, pp->sub.buf, pp->sub.len);
}

/* One Sample of count on the locations pp->ids[0..n), with the labels of
 * lab (NULL: only comm, when known). */
static void emit_sample(struct pp *pp, const struct profile *p, size_t n, uint64_t count,
                        const struct profile_label *lab, const char *comm)
{
    uint64_t values[MAX_VALUES];
    for (size_t i = 0; i < pp->nvalues; i++)
        values[i] = mul_sat(count, pp->mult[i]);
    struct strbuf *m = &pp->msg;
    sb_reset(m);
    pb_packed(m, SA_LOCATION_ID, pp->ids, n);
    pb_packed(m, SA_VALUE, values, pp->nvalues);
    if (lab)
        comm = profile_str(p, lab->comm);
    if (comm)
        str_label(pp, m, pp->comm_key, comm);
    if (lab && lab->pid)
        num_label(pp, m, pp->pid_key, lab->pid);
    if (lab && lab->tid)
        num_label(pp, m, pp->tid_key, lab->tid);
    if (lab && lab->cgroup != PROFILE_NONE)
        str_label(pp, m, pp->cgroup_key, profile_str(p, lab->cgroup));
    if (lab && lab->container != PROFILE_NONE)
        str_label(pp, m, pp->container_key, profile_str(p, lab->container));
    pb_bytes(pp->out, PF_SAMPLE, m->buf, m->len);
}

static int add_sample(void *ctx, const struct profile *p, const uint32_t *path, size_t depth,
                      uint64_t self)
{
    struct pp *pp = ctx;
    size_t start = 0;
    const char *comm = NULL;
    if (depth && profile_node_kind(p, path[0]) == FRAME_PROCESS) {
        comm = profile_node_name(p, path[0]);
        start = 1;
    }
    xgrow(&pp->ids, &pp->cap_ids, depth + 1, sizeof *pp->ids);
    size_t n = 0;
    for (size_t j = start; j < depth;) {
        size_t e = j;
        while (e + 1 < depth && profile_node_kind(p, path[e + 1]) == FRAME_INLINE)
            e++;
        pp->ids[n++] = location_id(pp, p, path, j, e);
        j = e + 1;
    }
    for (size_t i = 0, k = n ? n - 1 : 0; i < k; i++, k--) { /* leaf first */
        uint64_t t = pp->ids[i];
        pp->ids[i] = pp->ids[k];
        pp->ids[k] = t;
    }
    /* a Sample per process that ran the stack, then what no process
     * claims (stacks from a folded file); together exactly self */
    uint32_t leaf = depth ? path[depth - 1] : PROFILE_ROOT;
    size_t lo = 0, hi = pp->nstacks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (pp->stacks[mid].node < leaf)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t left = self;
    for (size_t i = lo; i < pp->nstacks && pp->stacks[i].node == leaf && left; i++) {
        uint64_t c = pp->stacks[i].count < left ? pp->stacks[i].count : left;
        emit_sample(pp, p, n, c, &p->sites->labels[pp->stacks[i].label], comm);
        left -= c;
    }
    if (left)
        emit_sample(pp, p, n, left, NULL, comm);
    return 0;
}

static int labelled_cmp(const void *a, const void *b)
{
    const struct profile_labelled *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return (x->label > y->label) - (x->label < y->label);
}

/* The profile's labelled stacks sorted by (node, label), equal ones merged. */
static void sort_stacks(struct pp *pp, const struct profile *p)
{
    const struct profile_sites *s = p->sites;
    if (!s || !s->nstacks)
        return;
    pp->stacks = xmalloc(s->nstacks * sizeof *pp->stacks);
    memcpy(pp->stacks, s->stacks, s->nstacks * sizeof *pp->stacks);
    qsort(pp->stacks, s->nstacks, sizeof *pp->stacks, labelled_cmp);
    size_t n = 0;
    for (size_t i = 0; i < s->nstacks; i++) {
        if (n && pp->stacks[n - 1].node == pp->stacks[i].node &&
            pp->stacks[n - 1].label == pp->stacks[i].label)
            pp->stacks[n - 1].count += pp->stacks[i].count;
        else
            pp->stacks[n++] = pp->stacks[i];
    }
    pp->nstacks = n;
}

static void value_type(struct pp *pp, struct strbuf *b, uint32_t field, const char *type,
                       const char *unit)
{
    sb_reset(&pp->sub);
    pb_int(&pp->sub, VT_TYPE, (int64_t)str_id(pp, type));
    pb_int(&pp->sub, VT_UNIT, (int64_t)str_id(pp, unit));
    pb_bytes(b, field, pp->sub.buf, pp->sub.len);
}

void pprof_encode(const struct report *r, const struct profile *p, struct strbuf *out)
{
    struct pp pp = {.out = out};
    str_id(&pp, ""); /* index 0 is "" by profile.proto's rule */
    pp.comm_key = str_id(&pp, "comm");
    if (p->sites && p->sites->nstacks) { /* label keys, only where labels are */
        pp.pid_key = str_id(&pp, "pid");
        pp.tid_key = str_id(&pp, "thread");
        pp.cgroup_key = str_id(&pp, "cgroup");
        pp.container_key = str_id(&pp, "container");
    }
    if (p->sites && p->sites->nmaps)
        pp.file_map_id = xcalloc(p->sites->nmaps, sizeof *pp.file_map_id);
    sort_stacks(&pp, p);
    const char *name = p->name ? p->name : "profile";
    const char *unit = p->unit ? p->unit : "";
    double hz = r ? report_metric_value(r, NM_PROFILE_HZ) : NAN;
    uint64_t period = 0;
    const char *period_type = NULL, *period_unit = NULL;
    if (strcmp(unit, "samples") == 0) {
        value_type(&pp, out, PF_SAMPLE_TYPE, "samples", "count");
        pp.mult[pp.nvalues++] = 1;
        if (strcmp(name, "cpu") == 0 && hz >= 1 && hz <= 1e9) {
            period = (uint64_t)llround(1e9 / hz);
            value_type(&pp, out, PF_SAMPLE_TYPE, "cpu", "nanoseconds");
            pp.mult[pp.nvalues++] = period;
            period_type = "cpu";
            period_unit = "nanoseconds";
        }
    } else if (strcmp(unit, "us") == 0) {
        const char *type = strcmp(name, "offcpu") == 0 ? "wait" : name;
        value_type(&pp, out, PF_SAMPLE_TYPE, type, "nanoseconds");
        pp.mult[pp.nvalues++] = 1000;
        period_type = type;
        period_unit = "nanoseconds";
    } else {
        value_type(&pp, out, PF_SAMPLE_TYPE, name, *unit ? unit : "count");
        pp.mult[pp.nvalues++] = 1;
    }
    char comment[256];
    snprintf(comment, sizeof comment, "%s (perfreport %s)", p->title && *p->title ? p->title : name,
             PERFREPORT_VERSION);
    uint64_t comment_id = str_id(&pp, comment);

    profile_walk_stacks(p, add_sample, &pp);

    /* the files first: readers take the first mapping for the main binary */
    sb_addn(out, pp.mapbuf.buf ? pp.mapbuf.buf : "", pp.mapbuf.len);
    for (int m = 1; m < MAP_COUNT; m++) {
        if (!pp.map_id[m])
            continue;
        sb_reset(&pp.sub);
        pb_uint(&pp.sub, MA_ID, pp.map_id[m]);
        pb_int(&pp.sub, MA_FILENAME, (int64_t)str_id(&pp, map_names[m]));
        pb_uint(&pp.sub, MA_HAS_FUNCTIONS, 1);
        pb_bytes(out, PF_MAPPING, pp.sub.buf, pp.sub.len);
    }
    sb_addn(out, pp.locbuf.buf ? pp.locbuf.buf : "", pp.locbuf.len);
    sb_addn(out, pp.funcbuf.buf ? pp.funcbuf.buf : "", pp.funcbuf.len);
    sb_addn(out, pp.strtab.buf, pp.strtab.len);
    if (r && r->window.start_wall.tv_sec > 0)
        pb_int(out, PF_TIME_NANOS,
               (int64_t)r->window.start_wall.tv_sec * 1000000000 + r->window.start_wall.tv_nsec);
    if (r && r->window.actual_s > 0 && r->window.actual_s < 1e9)
        pb_int(out, PF_DURATION_NANOS, (int64_t)llround(r->window.actual_s * 1e9));
    if (period_type) {
        value_type(&pp, out, PF_PERIOD_TYPE, period_type, period_unit);
        if (period)
            pb_int(out, PF_PERIOD, (int64_t)period);
    }
    pb_int(out, PF_COMMENT, (int64_t)comment_id);

    strmap_free(&pp.strs, NULL);
    strmap_free(&pp.funcs, NULL);
    strmap_free(&pp.locs, NULL);
    sb_free(&pp.strtab);
    sb_free(&pp.funcbuf);
    sb_free(&pp.locbuf);
    sb_free(&pp.mapbuf);
    free(pp.file_map_id);
    free(pp.stacks);
    sb_free(&pp.msg);
    sb_free(&pp.sub);
    sb_free(&pp.key);
    free(pp.fn_of_str);
    free(pp.node_loc);
    free(pp.ids);
}

int pprof_gzip(const char *data, size_t len, struct strbuf *out)
{
    /* zlib counts in 32 bits; a profile this large is not one to write */
    if (len > (1u << 31))
        return -EFBIG;
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: a gzip header and trailer instead of zlib's */
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -ENOMEM;
    uLong bound = deflateBound(&z, (uLong)len);
    Bytef *buf = xmalloc(bound);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    z.next_out = buf;
    z.avail_out = (uInt)bound;
    /* the bound is for one call that finishes the stream */
    int rc = deflate(&z, Z_FINISH) == Z_STREAM_END ? 0 : -EIO;
    if (rc == 0)
        sb_addn(out, (const char *)buf, (size_t)z.total_out);
    deflateEnd(&z);
    free(buf);
    return rc;
}

static int render_pprof(const struct report *r, const struct out_sink *out)
{
    int first_err = 0;
    for (size_t i = 0; i < r->nprofiles; i++) {
        struct strbuf raw = STRBUF_INIT, gz = STRBUF_INIT;
        const struct profile_sites *s = r->profiles[i]->sites;
        int rc = 0;
        if (s && s->kept_pprof) { /* re-rendered: the run's file, with its sites */
            sb_addn(&gz, s->kept_pprof, s->kept_pprof_len);
        } else {
            pprof_encode(r, r->profiles[i], &raw);
            rc = pprof_gzip(raw.buf ? raw.buf : "", raw.len, &gz);
        }
        sb_free(&raw);
        if (rc == 0) {
            char name[512];
            flame_filename(r->profiles[i], "pb.gz", name, sizeof name);
            rc = out->write(out->ctx, name, gz.buf ? gz.buf : "", gz.len);
        }
        sb_free(&gz);
        if (rc && !first_err)
            first_err = rc;
    }
    return first_err;
}

const struct renderer renderer_pprof = {"pprof", render_pprof};
