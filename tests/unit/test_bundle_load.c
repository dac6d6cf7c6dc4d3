/* Loading a bundle back (src/replay/load.c): report.json round trips to
 * the same text, the profiles come back with their frame kinds, and every
 * kind of bad bundle is refused with a message naming the file. */
#include "harness.h"
#include "test_util.h"
#include "../../src/bundle/bundle.h"
#include "../../src/replay/load.h"
#include "../../src/model/model.h"
#include "../../src/model/profile.h"
#include "../../src/model/profile_time.h"
#include "../../src/flame/folded.h"
#include "../../src/codec/report_json.h"
#include "../../src/render/svg_flame.h"
#include "../../src/util/sha256.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/xalloc.h"
#include "../../src/version.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* A model with every kind of thing report.json holds, and no analysis. */
static struct report *sample(void)
{
    struct report *r = report_new();
    r->tool_version = xstrdup("0.1.0");
    r->window.start_wall = (struct timespec){1714564800, 123456789};
    r->window.planned_s = 5;
    r->window.actual_s = 6.0004321;
    r->window.interval_s = 1;
    r->window.interrupted = true;
    r->window.target = xstrdup("pid 42 (x)");
    kv_add(&r->host, "hostname", "Host name", "web-<1> \"q\"");
    kv_add_num(&r->host, "cpus", "Online CPUs", 2, "");
    kv_add_num(&r->host, "uptime_s", "Uptime", 12345.678, "s");
    kv_add_num(&r->host, "mem_total_kib", "Memory", NAN, "KiB");
    kv_add(&r->caps, "psi", "PSI", "yes");
    kv_add(&r->caps, "self_cpu_ms", "perfreport's own CPU time", "12 ms");

    /* 2 -> 5.5 is more than two intervals: a gap */
    const double ticks[] = {1, 2, 5.5, 6.0004321};
    struct series *a = report_series(r, "cpu.util_pct", "CPU utilisation", "%", "cpu");
    struct series *b = report_series(r, "disk.vda.await_ms", "vda await", "ms", "disk");
    a->chart = true;
    const double av[] = {1.0 / 3, NAN, 1e-9, 12345.6789}, bv[] = {0, 0.1, 0.2, 0.30000000000000004};
    for (size_t i = 0; i < 4; i++) {
        report_add_tick(r, ticks[i]);
        series_set(r, a, av[i]);
        series_set(r, b, bv[i]);
    }

    struct table *t = report_table(r, "disk", "Disks", "disk");
    table_add_col(t, "device", "Device", "", 0);
    table_add_col(t, "util_pct", "Util", "%", 1);
    table_add_col(t, "class", "Class", "", 0);
    size_t row = table_add_row(t);
    table_set_str(t, row, "device", "vda");
    table_set_num(t, row, "util_pct", 12.345678);
    row = table_add_row(t);
    table_set_num(t, row, "util_pct", -0.5);
    table_set_str(t, row, "class", "é\t<x>");
    table_set_note(t, "a note");
    report_table(r, "empty", "Nothing", NULL);

    report_metric(r, "cpu.util_pct", "CPU utilisation", "%", "cpu", 55.55555555555556);
    report_metric(r, "load.load1", "Load", "", "cpu", NAN);
    report_metric(r, "big", "Big", "", "other", 1e19); /* below 2^64: the bound */

    struct hist *h = report_hist(r, "runqlat", "Run-queue latency", "us", "cpu");
    hist_add_bucket(h, 0, 5);
    hist_add_bucket(h, 5, 700);
    hist_add_bucket(h, 63, 1);
    h->max = 1900.5;

    struct ledger_entry *e = report_ledger(r, "cpu", "CPU");
    ledger_set(e, CS_RAN, NULL);
    e->duration_ms = 1.25;
    e = report_ledger(r, "offcpu", "Off-CPU");
    ledger_set(e, CS_SKIPPED, "BPF disabled");
    e = report_ledger(r, "net", "Network");
    ledger_set(e, CS_FAILED, "cannot read");
    ledger_note(e, "1 tick lost");
    e = report_ledger(r, "slow", "Slow");
    ledger_set(e, CS_TIMED_OUT, "deadline");
    report_ledger(r, "never", "Never");
    return r;
}

static void add_profile(struct report *r)
{
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    const char *s1[] = {"burner", "main", "burn_[x]", "do_syscall_64", "inl"};
    const uint8_t k1[] = {FRAME_PROCESS, FRAME_USER, FRAME_USER, FRAME_KERNEL, FRAME_INLINE};
    const char *s2[] = {"[worker] 1", "[worker exited]", "jitted"};
    const uint8_t k2[] = {FRAME_PROCESS, FRAME_UNKNOWN, FRAME_JIT};
    const char *s3[] = {"burner", "main", "[vdso]+0x1f", "[unknown]"};
    const uint8_t k3[] = {FRAME_PROCESS, FRAME_USER, FRAME_USER, FRAME_UNKNOWN};
    profile_add_stack(p, s1, k1, 5, 40);
    profile_add_stack(p, s1, k1, 3, 2);
    profile_add_stack(p, s2, k2, 3, 7);
    profile_add_stack(p, s3, k3, 4, 1);
    report_add_profile(r, p);
}

TEST(bundle_load_json_round_trip_is_exact)
{
    struct report *r = sample();
    char *a = test_report_json(r);
    struct report *back = test_report_parse(a);
    REQUIRE(back);
    char *b = test_report_json(back);
    CHECK_STR(b, a);
    /* what the text cannot show */
    CHECK(back->ngaps == 1 && back->gaps[0].start_s == 2);
    CHECK(back->window.start_wall.tv_nsec == 123456789);
    CHECK(back->series[0]->v[0] == 1.0 / 3 && isnan(back->series[0]->v[1]));
    CHECK(back->series[1]->v[3] == 0.30000000000000004);
    CHECK(back->host.v[2].unit && strcmp(back->host.v[2].unit, "s") == 0);
    CHECK_STR(back->host.v[2].title, "Uptime");
    CHECK(back->host.v[0].unit == NULL);
    const struct table *t = report_find_table(back, "disk");
    REQUIRE(t && t->nrows == 2 && t->ncols == 3);
    CHECK(t->cells[0 * 3 + 2].kind == CELL_EMPTY);
    CHECK(t->cells[1 * 3 + 0].kind == CELL_EMPTY);
    CHECK(t->cells[0 * 3 + 1].kind == CELL_NUM && t->cells[0 * 3 + 1].num == 12.345678);
    CHECK_STR(table_str(t, 1, "class"), "é\t<x>");
    const struct hist *h = report_find_hist(back, "runqlat");
    REQUIRE(h);
    CHECK(h->buckets[0] == 5 && h->buckets[5] == 700 && h->buckets[63] == 1 && h->count == 706);
    CHECK(isnan(h->sum) && h->max == 1900.5);
    CHECK(back->nledger == 5 && back->ledger[3].status == CS_TIMED_OUT &&
          back->ledger[4].status == CS_PENDING);
    CHECK(back->schema == REPORT_SCHEMA);
    free(a);
    free(b);
    report_free(back);
    report_free(r);
}

/* Findings, USE rows, thresholds, the headline and chart lines are
 * analysis: not loaded, made again by analyze_run. */
TEST(bundle_load_leaves_analysis_out)
{
    size_t len;
    char *text = test_slurp(fixture("golden/report.json"), &len);
    REQUIRE(text);
    struct report *r = NULL;
    char err[512];
    int rc = report_from_json(text, len, &r, err, sizeof err);
    if (rc != 0)
        test_fail(__FILE__, __LINE__, "%s", err);
    REQUIRE(rc == 0);
    CHECK(r->nfindings == 0 && r->nuse == 0 && r->nthresholds == 0 && r->headline == NULL);
    const struct series *s = report_find_series(r, "cpu.util_pct");
    REQUIRE(s);
    CHECK(isnan(s->warn) && isnan(s->crit) && s->chart);
    CHECK(r->nmetrics > 5 && r->ntables == 2 && r->nhists == 1 && r->nledger == 3);
    report_free(r);
    free(text);
}

/* report_from_json's message for text with `from` replaced by `to`. */
static const char *load_error(const char *from, const char *to)
{
    static char err[512];
    struct report *r = sample();
    char *a = test_report_json(r);
    report_free(r);
    char *at = strstr(a, from);
    if (!at) {
        free(a);
        return "(the sample has no such text)";
    }
    struct strbuf sb = STRBUF_INIT;
    sb_addn(&sb, a, (size_t)(at - a));
    sb_add(&sb, to);
    sb_add(&sb, at + strlen(from));
    free(a);
    struct report *back = NULL;
    err[0] = '\0';
    if (report_from_json(sb.buf, sb.len, &back, err, sizeof err) == 0) {
        report_free(back);
        snprintf(err, sizeof err, "(loaded)");
    } else if (back) {
        snprintf(err, sizeof err, "(failed but returned a report)");
    }
    sb_free(&sb);
    return err;
}

TEST(bundle_load_json_errors_name_the_field)
{
    CHECK_STR(load_error("\"schema\": 1", "\"schema\": 999"),
              "report.json: written by perfreport 0.1.0 with report schema 999, newer than this "
              "perfreport (" PERFREPORT_VERSION
              ") reads (schema 1 to 1); render it with that version or a "
              "newer one");
    CHECK_CONTAINS(load_error("\"schema\": 1", "\"schema\": 0"), "unknown report schema 0");
    CHECK_CONTAINS(load_error("\"schema\": 1", "\"schema\": 1.5"), "unknown report schema 1.5");
    CHECK_CONTAINS(load_error("\"schema\": 1", "\"schema\": \"1\""), "\"schema\" is a string");
    CHECK_CONTAINS(load_error("\"schema\": 1,", ""), "no \"schema\"");
    CHECK_CONTAINS(load_error("\"name\": \"perfreport\"", "\"name\": \"other\""),
                   "written by \"other\", not by perfreport");
    CHECK_STR(load_error("\"planned_s\": 5", "\"planned_s\": \"5\""),
              "report.json: window: \"planned_s\" is a string, expected a number or null");
    CHECK_CONTAINS(load_error("\"start\": \"2024-05-01T12:00:00Z\"", "\"start\": \"yesterday\""),
                   "window: \"start\" is not a time");
    CHECK_CONTAINS(load_error("\"start_ns\": 123456789", "\"start_ns\": 1e9"), "start_ns");
    CHECK_CONTAINS(load_error("\"ticks\": [1,2,5.5,", "\"ticks\": [1,2,0.5,"),
                   "series.ticks[2] goes back in time");
    CHECK_CONTAINS(load_error("0.2,0.30000000000000004]", "0.2]"),
                   "series \"disk.vda.await_ms\" has 3 values for 4 ticks");
    CHECK_CONTAINS(load_error("0.2,0.30000000000000004]", "0.2,\"x\"]"),
                   "\"values\" is an array, expected an array of numbers and nulls");
    CHECK_CONTAINS(load_error("\"uptime_s\": 12345.678", "\"uptime_s\": \"long\""),
                   "host.\"uptime_s\" is a string, expected a number (its unit is \"s\")");
    CHECK_CONTAINS(load_error("\"device\": \"vda\",", "\"dev\": \"vda\","),
                   "table \"disk\" row 0: member 0 is \"dev\", expected the column \"device\"");
    CHECK_CONTAINS(load_error("\"device\": \"vda\",", ""),
                   "row 0 is not an object with one member per column");
    CHECK_CONTAINS(load_error("\"device\": \"vda\",", "\"device\": [],"),
                   "is an array, expected a number, a string or null");
    CHECK_CONTAINS(load_error("\"decimals\": 1", "\"decimals\": 1.5"),
                   "\"decimals\" is not a whole number");
    /* forged magnitudes (issue 30, 12): no count perfreport writes passes 2^64 */
    CHECK_CONTAINS(load_error("\"value\": 1e+19", "\"value\": 1e+308"),
                   "metric \"big\": \"value\" is 1e+308, beyond +-2^64: refused");
    CHECK_CONTAINS(load_error("\"value\": 1e+19", "\"value\": -1e+20"), "beyond +-2^64");
    CHECK_CONTAINS(load_error("12.345678", "-1e308"), "row 0: \"util_pct\" is -1e+308, beyond");
    CHECK_CONTAINS(load_error("12345.678", "1e300"), "host.\"uptime_s\" is 1e+300, beyond");
    CHECK_CONTAINS(load_error("0.2,0.30000000000000004]", "0.2,1e300]"),
                   "series \"disk.vda.await_ms\": value 3 is 1e+300, beyond");
    CHECK_CONTAINS(load_error("\"ticks\": [1,2,5.5,", "\"ticks\": [1,2,5e300,"),
                   "series.ticks[2] is 5e+300, beyond");
    CHECK_CONTAINS(load_error("\"ticks\": [1,2,5.5,", "\"ticks\": [1,2,null,"),
                   "series.ticks[2] is null, expected a number");
    CHECK_CONTAINS(load_error("\"planned_s\": 5", "\"planned_s\": 1e300"),
                   "window: \"planned_s\" is 1e+300, beyond");
    CHECK_CONTAINS(load_error("\"decimals\": 1", "\"decimals\": -2"),
                   "\"decimals\" is not a whole number from -1 to 17");
    /* a number and its unit are printed as the renderers' own text: a unit
     * with markup would be markup (issue 30, 6) */
    CHECK_CONTAINS(load_error("\"unit\": \"ms\"", "\"unit\": \"<b>ms</b>\""),
                   "\"unit\" is not a unit");
    CHECK_CONTAINS(load_error("\"unit\": \"ms\"", "\"unit\": \"*ms*\""), "is not a unit");
    CHECK_CONTAINS(load_error("\"unit\": \"ms\"", "\"unit\": \"aaaaaaaaaaaaaaaaaaaaaaaaa\""),
                   "is not a unit");
    CHECK_CONTAINS(load_error("\"status\": \"timed_out\"", "\"status\": \"exploded\""),
                   "collector \"slow\": unknown status \"exploded\"");
    CHECK_CONTAINS(load_error("\"count\": 706", "\"count\": 707"),
                   "is not the sum of its buckets (706)");
    CHECK_CONTAINS(load_error("\"hi\": 64,", "\"hi\": 48,"), "[32, 48) is not a log2 bucket");
    CHECK_CONTAINS(load_error("\"name\": \"disk.vda.await_ms\"", "\"name\": \"cpu.util_pct\""),
                   "series \"cpu.util_pct\" appears twice");
    CHECK_CONTAINS(load_error("\"tables\": [", "\"tables\": {"), "line");
    CHECK_CONTAINS(load_error("\"collectors\": [", "\"collectors\": 3, \"x\": ["),
                   "\"collectors\" is a number, expected an array");
}

/* A hostile report.json cannot make loading quadratic in its size. */
TEST(bundle_load_caps_entries)
{
    struct strbuf sb = STRBUF_INIT;
    sb_add(&sb, "{\"schema\": 1, \"tool\": {\"name\": \"perfreport\"}, \"window\": {},"
                " \"metrics\": {");
    for (int i = 0; i <= 4096; i++)
        sb_addf(&sb, "%s\"m%d\": {\"value\": 1}", i ? ", " : "", i);
    sb_add(&sb, "}, \"series\": {\"ticks\": [], \"items\": []}, \"tables\": [], "
                "\"collectors\": []}");
    struct report *r = NULL;
    char err[512];
    CHECK(report_from_json(sb.buf, sb.len, &r, err, sizeof err) != 0 && !r);
    CHECK_STR(err, "report.json: 4097 metrics, more than the 4096 a bundle may have: refused");
    sb_free(&sb);
}

/* ---- bundles on disk ------------------------------------------------------- */

static char g_tmp[64];

static void rm_rf(const char *path)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "  cannot remove %s\n", path);
}

static void remove_tmpdir(void)
{
    if (g_tmp[0])
        rm_rf(g_tmp);
}

/* One scratch directory for these tests, removed at exit. */
static const char *tmpdir(void)
{
    if (!g_tmp[0]) {
        snprintf(g_tmp, sizeof g_tmp, "/tmp/perfreport-load-XXXXXX");
        if (!mkdtemp(g_tmp))
            g_tmp[0] = '\0';
        else
            atexit(remove_tmpdir);
    }
    return g_tmp;
}

/* Publishes r as tmpdir()/name; returns its path (static buffer) or NULL. */
static const char *publish(struct report *r, const char *name)
{
    static char path[256];
    char err[512], where[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir(), name);
    rm_rf(path);
    struct bundle_target t;
    if (bundle_target_open(&t, path, err, sizeof err) != 0 ||
        bundle_publish(r, &t, where, sizeof where, err, sizeof err) != 0) {
        test_fail(__FILE__, __LINE__, "publish: %s", err);
        bundle_target_close(&t);
        return NULL;
    }
    bundle_target_close(&t);
    return path;
}

static int spit(const char *dir, const char *name, const char *data, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int rc = fwrite(data, 1, len, f) == len ? 0 : -1;
    return fclose(f) == 0 ? rc : -1;
}

static int spits(const char *dir, const char *name, const char *text)
{
    return spit(dir, name, text, strlen(text));
}

static char *slurp_in(const char *dir, const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return test_slurp(path, len);
}

/* bundle_load's message for dir, or "" when it loads. */
static const char *load_dir_error(const char *dir)
{
    static char err[1024];
    struct report *r = (struct report *)1;
    err[0] = '\0';
    if (bundle_load(dir, &r, err, sizeof err) == 0) {
        report_free(r);
        return "";
    }
    if (r)
        return "(failed but returned a report)";
    return err;
}

TEST(bundle_load_published_bundle_with_profile_kinds)
{
    struct report *r = sample();
    add_profile(r);
    const char *dir = publish(r, "ok");
    REQUIRE(dir);
    struct report *back = NULL;
    char err[1024];
    int rc = bundle_load(dir, &back, err, sizeof err);
    if (rc != 0)
        test_fail(__FILE__, __LINE__, "%s", err);
    REQUIRE(rc == 0);
    /* the same report.json (analysis included: the sample has none) */
    char *a = test_report_json(r), *b = test_report_json(back);
    CHECK_STR(b, a);
    free(a);
    free(b);
    REQUIRE(back->nprofiles == 1);
    const struct profile *p = back->profiles[0], *q = r->profiles[0];
    CHECK_STR(p->title, "On-CPU profile");
    CHECK_STR(p->unit, "samples");
    CHECK(profile_total(p) == 50);
    /* kinds the folded text cannot spell come back too */
    const char *path1[] = {"burner", "main", "burn_[x]", "do_syscall_64", "inl"};
    uint32_t n = profile_find(p, path1, 5);
    REQUIRE(n != PROFILE_NONE);
    CHECK(profile_node_kind(p, n) == FRAME_INLINE);
    n = profile_find(p, path1, 1);
    CHECK(n != PROFILE_NONE && profile_node_kind(p, n) == FRAME_PROCESS);
    n = profile_find(p, path1, 3);
    CHECK(n != PROFILE_NONE && profile_node_kind(p, n) == FRAME_USER);
    const char *path2[] = {"[worker] 1", "[worker exited]", "jitted"};
    n = profile_find(p, path2, 2);
    CHECK(n != PROFILE_NONE && profile_node_kind(p, n) == FRAME_UNKNOWN);
    n = profile_find(p, path2, 1);
    CHECK(n != PROFILE_NONE && profile_node_kind(p, n) == FRAME_PROCESS);
    const char *path3[] = {"burner", "main", "[vdso]+0x1f", "[unknown]"};
    n = profile_find(p, path3, 3);
    CHECK(n != PROFILE_NONE && profile_node_kind(p, n) == FRAME_USER);
    /* and so the same folded text and the same picture */
    struct strbuf f1 = STRBUF_INIT, f2 = STRBUF_INIT;
    folded_write(q, &f1);
    folded_write(p, &f2);
    CHECK_STR(sb_str(&f2), sb_str(&f1));
    sb_reset(&f1);
    sb_reset(&f2);
    struct flame_opts o;
    flame_opts_default(&o);
    o.legend = true;
    svg_flame_render(q, &o, true, NULL, &f1);
    svg_flame_render(p, &o, true, NULL, &f2);
    CHECK(strcmp(sb_str(&f1), sb_str(&f2)) == 0);
    sb_free(&f1);
    sb_free(&f2);
    report_free(back);
    report_free(r);
}

/* A capture's stacks that write the same folded text: put_name writes ';'
 * as '_' (processes "x;y" and "x_y", which any local user can name), and a
 * process named "evil_[k]" reads back as "evil".  cpu.time numbers the
 * capture's lines (4), the profile read back has 2 stacks: the reader
 * counted the read-back profile's lines, found no line 3 and refused the
 * whole bundle (render and diff exit 3, --baseline compared nothing). */
static struct report *merging_capture(uint64_t evil_in_s1)
{
    struct report *r = sample();
    struct profile *p = profile_new("cpu", "On-CPU profile", "samples");
    const uint8_t k[] = {FRAME_PROCESS, FRAME_USER};
    const char *a[] = {"x;y", "spin"}, *b[] = {"x_y", "spin"};
    const char *c[] = {"evil_[k]", "spin"}, *d[] = {"evil", "spin"};
    uint32_t la = profile_add_stack(p, a, k, 2, 5), lb = profile_add_stack(p, b, k, 2, 3);
    uint32_t lc = profile_add_stack(p, c, k, 2, 4), ld = profile_add_stack(p, d, k, 2, 2);
    p->time = profile_time_new(1.0, 2);
    profile_time_add(p->time, la, 0, 5);
    profile_time_add(p->time, lb, 1, 3);
    profile_time_add(p->time, lc, 1, evil_in_s1);
    profile_time_add(p->time, ld, 0, 2);
    p->time->total[0] = 7;
    p->time->total[1] = 3 + evil_in_s1;
    profile_time_sort(p->time);
    report_add_profile(r, p);
    return r;
}

TEST(bundle_load_time_of_lines_that_merge)
{
    struct report *r = merging_capture(4);
    const char *dir = publish(r, "merge");
    REQUIRE(dir);
    size_t len = 0;
    char *folded = slurp_in(dir, "cpu.folded", &len);
    REQUIRE(folded);
    CHECK_STR(folded, "evil;spin 2\nevil_[k];spin 4\nx_y;spin 5\nx_y;spin 3\n");
    free(folded);
    struct report *back = NULL;
    char err[1024] = "";
    int rc = bundle_load(dir, &back, err, sizeof err);
    if (rc != 0)
        test_fail(__FILE__, __LINE__, "%s", err);
    REQUIRE(rc == 0 && back->nprofiles == 1);
    const struct profile *p = back->profiles[0];
    REQUIRE(p->time);
    /* each line's seconds in the stack it reads back as */
    const char *xy[] = {"x_y", "spin"}, *evil[] = {"evil", "spin"};
    uint32_t lxy = profile_find(p, xy, 2), levil = profile_find(p, evil, 2);
    REQUIRE(lxy != PROFILE_NONE && levil != PROFILE_NONE);
    uint64_t v[2][2] = {{0}};
    for (size_t i = 0; i < p->time->ncells; i++) {
        const struct profile_time_cell *c = &p->time->cells[i];
        CHECK(c->leaf == lxy || c->leaf == levil);
        if ((c->leaf == lxy || c->leaf == levil) && c->bucket < 2)
            v[c->leaf == levil][c->bucket] += c->value;
    }
    CHECK(v[0][0] == 5 && v[0][1] == 3); /* x;y in second 0, x_y in second 1 */
    CHECK(v[1][0] == 2 && v[1][1] == 4); /* evil in 0, evil_[k] in 1 */
    report_free(back);
    report_free(r);

    /* a .time file that breaks a rule (evil_[k]'s 5 samples in second 1 of
     * its 4) costs the profile its time, not the bundle, and the ledger
     * says why */
    r = merging_capture(5);
    dir = publish(r, "merge-bad");
    REQUIRE(dir);
    back = NULL;
    rc = bundle_load(dir, &back, err, sizeof err);
    if (rc != 0)
        test_fail(__FILE__, __LINE__, "%s", err);
    REQUIRE(rc == 0 && back->nprofiles == 1);
    CHECK(back->profiles[0]->time == NULL);
    CHECK(profile_total(back->profiles[0]) == 14);
    const char *note = NULL;
    for (size_t i = 0; i < back->nledger; i++)
        if (back->ledger[i].notes && strstr(back->ledger[i].notes, "cpu.time not read back"))
            note = back->ledger[i].notes;
    REQUIRE(note);
    CHECK_CONTAINS(note, "more than its folded count 6");
    report_free(back);
    report_free(r);
}

/* A bundle made by hand: report.json as given, a manifest of `schema`
 * vouching for it (and for `extra`, a file written with it, when set). */
static const char *hand_bundle(const char *name, const char *report, long schema, const char *extra,
                               const char *extra_text)
{
    static char dir[256];
    snprintf(dir, sizeof dir, "%s/%s", tmpdir(), name);
    rm_rf(dir);
    if (mkdir(dir, 0700) != 0)
        return NULL;
    struct strbuf m = STRBUF_INIT;
    sb_addf(&m,
            "{\"schema\": %ld, \"tool\": {\"name\": \"perfreport\", \"version\": \"9.9\"},"
            " \"integrity\": [",
            schema);
    const char *names[2] = {"report.json", extra};
    const char *texts[2] = {report, extra_text};
    for (int i = 0; i < 2 && names[i]; i++) {
        uint8_t d[32];
        sha256(texts[i], strlen(texts[i]), d);
        sb_addf(&m, "%s{\"name\": \"%s\", \"size\": %zu, \"sha256\": \"", i ? ", " : "", names[i],
                strlen(texts[i]));
        for (int k = 0; k < 32; k++)
            sb_addf(&m, "%02x", d[k]);
        sb_add(&m, "\"}");
        if (spit(dir, names[i], texts[i], strlen(texts[i])) != 0)
            return NULL;
    }
    sb_add(&m, "]}");
    int rc = spit(dir, "manifest.json", m.buf, m.len);
    sb_free(&m);
    return rc == 0 ? dir : NULL;
}

TEST(bundle_load_refuses_bad_bundles)
{
    struct report *r = sample();
    add_profile(r);
    const char *dir = publish(r, "bad");
    REQUIRE(dir);
    char bundle[256];
    snprintf(bundle, sizeof bundle, "%s", dir);
    CHECK_STR(load_dir_error(bundle), "");
    size_t len;
    char *rep = slurp_in(bundle, "report.json", &len);
    char *folded = slurp_in(bundle, "cpu.folded", NULL);
    REQUIRE(rep && folded && len > 100);
    char want[1024];

    /* truncated */
    REQUIRE(spit(bundle, "report.json", rep, len / 2) == 0);
    snprintf(want, sizeof want,
             "%s/report.json is %zu bytes, but manifest.json says %zu: the "
             "file was truncated or changed after the bundle was written; refused",
             bundle, len / 2, len);
    CHECK_STR(load_dir_error(bundle), want);
    /* one byte changed, same size */
    char *t = xstrdup(rep);
    char *at = strstr(t, "\"cpus\": 2");
    REQUIRE(at);
    at[8] = '3';
    REQUIRE(spit(bundle, "report.json", t, len) == 0);
    snprintf(want, sizeof want,
             "%s/report.json does not match its SHA-256 in manifest.json: the "
             "file was changed after the bundle was written; refused",
             bundle);
    CHECK_STR(load_dir_error(bundle), want);
    free(t);
    /* missing */
    char path[512];
    snprintf(path, sizeof path, "%s/report.json", bundle);
    REQUIRE(unlink(path) == 0);
    CHECK_CONTAINS(load_dir_error(bundle), "report.json: No such file or directory");
    /* a symlink to the real thing */
    char real[512];
    snprintf(real, sizeof real, "%s/elsewhere.json", tmpdir());
    REQUIRE(spit(tmpdir(), "elsewhere.json", rep, len) == 0);
    REQUIRE(symlink(real, path) == 0);
    snprintf(want, sizeof want, "%s/report.json is a symbolic link: refused", bundle);
    CHECK_STR(load_dir_error(bundle), want);
    REQUIRE(unlink(path) == 0);
    /* a FIFO */
    REQUIRE(mkfifo(path, 0600) == 0);
    CHECK_CONTAINS(load_dir_error(bundle), "report.json is not a regular file: refused");
    REQUIRE(unlink(path) == 0);
    REQUIRE(spit(bundle, "report.json", rep, len) == 0);
    CHECK_STR(load_dir_error(bundle), "");
    /* a changed folded file */
    folded[0] = folded[0] == 'b' ? 'c' : 'b';
    REQUIRE(spit(bundle, "cpu.folded", folded, strlen(folded)) == 0);
    CHECK_CONTAINS(load_dir_error(bundle), "cpu.folded does not match its SHA-256");
    /* the manifest: broken, without the integrity list, schema too new */
    snprintf(path, sizeof path, "%s/manifest.json", bundle);
    char *man = slurp_in(bundle, "manifest.json", &len);
    REQUIRE(man);
    REQUIRE(spit(bundle, "manifest.json", man, len - 10) == 0);
    CHECK_CONTAINS(load_dir_error(bundle), "/manifest.json: line ");
    REQUIRE(spits(bundle, "manifest.json",
                  "{\"schema\": 1, \"tool\": {\"name\": \"perfreport\"}}") == 0);
    CHECK_CONTAINS(load_dir_error(bundle), "manifest.json: no \"integrity\" list");
    REQUIRE(spits(bundle, "manifest.json",
                  "{\"schema\": 2, \"tool\": {\"name\": \"perfreport\"}}") == 0);
    CHECK_CONTAINS(load_dir_error(bundle), "with report schema 2, newer than this perfreport");
    REQUIRE(spits(bundle, "manifest.json", "[]") == 0);
    CHECK_CONTAINS(load_dir_error(bundle), "not a perfreport manifest");
    REQUIRE(unlink(path) == 0);
    snprintf(want, sizeof want, "%s is not a perfreport bundle: it has no manifest.json", bundle);
    CHECK_STR(load_dir_error(bundle), want);
    free(man);

    /* not a directory, a symlink to one, nothing there */
    snprintf(path, sizeof path, "%s/elsewhere.json", tmpdir());
    snprintf(want, sizeof want, "%s is not a directory (nor a bundle)", path);
    CHECK_STR(load_dir_error(path), want);
    snprintf(path, sizeof path, "%s/link", tmpdir());
    unlink(path);
    REQUIRE(symlink(bundle, path) == 0);
    CHECK_CONTAINS(load_dir_error(path), "is a symbolic link: give the bundle directory itself");
    snprintf(path, sizeof path, "%s/none", tmpdir());
    CHECK_CONTAINS(load_dir_error(path), "none: No such file or directory");
    free(rep);
    free(folded);
    report_free(r);
}

TEST(bundle_load_schema_and_profile_checks)
{
    struct report *r = sample();
    char *rep = test_report_json(r);
    report_free(r);
    const char *dir = hand_bundle("hand", rep, 1, NULL, NULL);
    REQUIRE(dir);
    CHECK_STR(load_dir_error(dir), "");
    /* report.json and manifest.json disagree on the schema */
    char *t = xstrdup(rep);
    char *at = strstr(t, "\"schema\": 1");
    REQUIRE(at);
    at[10] = '7';
    dir = hand_bundle("hand", t, 1, NULL, NULL);
    REQUIRE(dir);
    CHECK_CONTAINS(load_dir_error(dir), "report.json: written by perfreport 0.1.0 with report "
                                        "schema 7, newer than this perfreport");
    dir = hand_bundle("hand", t, 7, NULL, NULL);
    CHECK_CONTAINS(load_dir_error(dir), "manifest.json: written by perfreport 9.9 with report "
                                        "schema 7");
    free(t);
    /* a profile whose file the manifest does not vouch for, or a bad one */
    struct strbuf sb = STRBUF_INIT;
    const char *cut = strstr(rep, "\"profiles\": []");
    REQUIRE(cut);
    sb_addn(&sb, rep, (size_t)(cut - rep));
    sb_add(&sb, "\"profiles\": [{\"name\": \"cpu\", \"title\": \"T\", \"unit\": \"samples\", "
                "\"file\": \"cpu.folded\", \"total\": 3}]");
    sb_add(&sb, cut + strlen("\"profiles\": []"));
    dir = hand_bundle("hand", sb.buf, 1, NULL, NULL);
    CHECK_CONTAINS(load_dir_error(dir), "manifest.json does not list cpu.folded with its checksum");
    dir = hand_bundle("hand", sb.buf, 1, "cpu.folded", "a;b 1\nc 2\n");
    CHECK_STR(load_dir_error(dir), "");
    dir = hand_bundle("hand", sb.buf, 1, "cpu.folded", "a;b 1\nc 1\n");
    CHECK_CONTAINS(load_dir_error(dir), "cpu.folded holds 2, but report.json says 3: refused");
    dir = hand_bundle("hand", sb.buf, 1, "cpu.folded", "a;b 1\nc two\n");
    CHECK_CONTAINS(load_dir_error(dir), "cpu.folded line 2: missing count");
    dir = hand_bundle("hand", sb.buf, 1, "cpu.folded", "a;b 1 2\n");
    CHECK_CONTAINS(load_dir_error(dir), "is not perfreport's folded stacks");
    sb_free(&sb);
    /* a file name other than the one the writer gives the profile */
    sb_addn(&sb, rep, (size_t)(cut - rep));
    sb_add(&sb, "\"profiles\": [{\"name\": \"cpu\", \"file\": \"../etc/passwd\"}]");
    sb_add(&sb, cut + strlen("\"profiles\": []"));
    dir = hand_bundle("hand", sb.buf, 1, NULL, NULL);
    CHECK_CONTAINS(load_dir_error(dir), "profile \"cpu\" names the file \"../etc/passwd\", "
                                        "expected \"cpu.folded\"");
    sb_free(&sb);
    free(rep);
}

/* A bundle written before report.json had "facts", "profiles" and
 * "start_ns": titles fall back to the keys, units to the key's suffix,
 * the profiles to the manifest's .folded files. */
TEST(bundle_load_older_schema1_bundle)
{
    const char *rep =
        "{\"schema\": 1, \"tool\": {\"name\": \"perfreport\", \"version\": \"0.0.9\"},"
        " \"host\": {\"hostname\": \"h\", \"cpus\": 2, \"uptime_s\": 60.5, \"mem_total_kib\": "
        "null, \"forks_per_s\": 3},"
        " \"capabilities\": {\"psi\": \"yes\"},"
        " \"window\": {\"start\": \"2024-05-01T12:00:00Z\", \"planned_s\": 2, \"actual_s\": 2,"
        " \"interval_s\": 1, \"interrupted\": false, \"target\": \"system-wide\"},"
        " \"metrics\": {}, \"series\": {\"ticks\": [1, 2], \"items\": []}, \"tables\": [],"
        " \"collectors\": []}";
    const char *dir = hand_bundle("old", rep, 1, "offcpu.folded", "sleeper;[sleeper exited] 5\n");
    REQUIRE(dir);
    char path[512];
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    /* the hand manifest has no "files": add one naming the folded file */
    size_t len;
    char *man = slurp_in(dir, "manifest.json", &len);
    REQUIRE(man && len > 2);
    struct strbuf sb = STRBUF_INIT;
    sb_addn(&sb, man, len - 1);
    sb_add(&sb, ", \"files\": [\"report.json\", \"offcpu.folded\", \"offcpu.svg\"]}");
    REQUIRE(spit(dir, "manifest.json", sb.buf, sb.len) == 0);
    sb_free(&sb);
    free(man);
    struct report *r = NULL;
    char err[1024];
    int rc = bundle_load(dir, &r, err, sizeof err);
    if (rc != 0)
        test_fail(__FILE__, __LINE__, "%s", err);
    REQUIRE(rc == 0);
    CHECK_STR(kv_get(&r->host, "hostname"), "h");
    CHECK_STR(r->host.v[0].title, "hostname");
    CHECK(kv_num(&r->host, "cpus") == 2 && strcmp(r->host.v[1].unit, "") == 0);
    CHECK(strcmp(r->host.v[2].unit, "s") == 0 && strcmp(r->host.v[3].unit, "KiB") == 0);
    CHECK(isnan(kv_num(&r->host, "mem_total_kib")));
    CHECK(strcmp(r->host.v[4].unit, "/s") == 0);
    CHECK(r->window.start_wall.tv_sec == 1714564800 && r->window.start_wall.tv_nsec == 0);
    REQUIRE(r->nprofiles == 1);
    CHECK_STR(r->profiles[0]->title, "Off-CPU time");
    CHECK_STR(r->profiles[0]->unit, "us");
    CHECK(profile_total(r->profiles[0]) == 5);
    const char *fr[] = {"sleeper", "[sleeper exited]"};
    uint32_t n = profile_find(r->profiles[0], fr, 2);
    CHECK(n != PROFILE_NONE && profile_node_kind(r->profiles[0], n) == FRAME_UNKNOWN);
    report_free(r);
}
