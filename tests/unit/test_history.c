/* perfreport history's pure parts (src/replay/history.c, history_render.c)
 * on synthetic analysed reports: relative links, worst-first order, the
 * grouping by host, recurring findings, the key metrics, and escaping of
 * host-controlled text in every view. */
#include "harness.h"
#include "../../src/replay/history.h"
#include "../../src/replay/history_render.h"
#include "../../src/model/model.h"
#include "../../src/render/doc.h"
#include "../../src/util/json_read.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

TEST(history_relpath_cases)
{
    static const char *const cases[][3] = {
        {"/a/b", "/a/b", "."},
        {"/a/b", "/a/b/c", "c"},
        {"/a/b/page", "/a/b/x/y", "../x/y"},
        {"/a/bc", "/a/b", "../b"},   /* a shared prefix that is not a component */
        {"/a/b", "/a/bc", "../bc"},
        {"/", "/x/y", "x/y"},
        {"/x/y", "/", "../.."},
        {"/p/q/r/", "/p/s", "../../s"}, /* trailing slash */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *r = history_relpath(cases[i][0], cases[i][1]);
        CHECK_STR(r, cases[i][2]);
        free(r);
    }
    CHECK(history_relpath("a/b", "/c") == NULL);
    CHECK(history_relpath("/a", "c") == NULL);
}

/* An analysed-looking report: host, start time, findings (sev, score), and a
 * charted series with its metric. */
static struct report *run(const char *host, time_t start, const char *ids, enum severity sev,
                          double score, double util)
{
    struct report *r = report_new();
    kv_add(&r->host, "hostname", "Host name", host);
    r->window.start_wall.tv_sec = start;
    r->window.actual_s = 5;
    report_add_tick(r, 1);
    struct series *s = report_series(r, "cpu.util_pct", "CPU utilisation", "%", "cpu");
    s->chart = true;
    series_set(r, s, util);
    report_metric(r, "cpu.util_pct", "CPU utilisation", "%", "cpu", util);
    report_metric(r, "cpu.count", "CPUs", "", "cpu", 2); /* no series: not key */
    char buf[200];
    snprintf(buf, sizeof buf, "%s", ids);
    for (char *save = NULL, *id = strtok_r(buf, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
        struct finding *f = report_add_finding(r, id, sev, "cpu", "title");
        f->score = score;
        score -= 1;
    }
    report_set_headline(r, r->nfindings ? "Something is wrong" : "No findings.");
    return r;
}

static struct history *sample(void)
{
    struct history *h = history_new();
    struct {
        const char *host;
        time_t t;
        const char *ids;
        enum severity sev;
        double score, util;
    } rs[] = {
        {"b", 1000, "cpu.saturation", SEV_WARNING, 210, 50},
        {"a", 2000, "", SEV_NONE, 0, 10},
        {"a", 3000, "cpu.saturation,mem.pressure", SEV_CRITICAL, 320, 99},
        {"a", 4000, "cpu.saturation", SEV_WARNING, 205, 70},
        {"a", 5000, "cpu.saturation", SEV_WARNING, 230, 75},
    };
    for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++) {
        struct report *r = run(rs[i].host, rs[i].t, rs[i].ids, rs[i].sev, rs[i].score, rs[i].util);
        char path[32], abs[64];
        snprintf(path, sizeof path, "d/run%zu", i);
        snprintf(abs, sizeof abs, "/fleet/d/run%zu", i);
        history_add_run(h, r, path, abs, i != 1);
        report_free(r);
    }
    history_finish(h);
    return h;
}

TEST(history_groups_hosts_worst_first)
{
    struct history *h = sample();
    REQUIRE(h->nruns == 5 && h->nhosts == 2);
    /* host "b" (newest run warning) and "a" (newest warning, worst critical): a first */
    CHECK_STR(h->hosts[0].name, "a");
    CHECK_STR(h->hosts[1].name, "b");
    const struct history_host *a = &h->hosts[0];
    REQUIRE(a->nruns == 4);
    /* worst first: critical 320, warning 230, warning 205, none */
    CHECK(h->runs[a->runs[0]].start == 3000);
    CHECK(h->runs[a->runs[1]].start == 5000);
    CHECK(h->runs[a->runs[2]].start == 4000);
    CHECK(h->runs[a->runs[3]].start == 2000);
    for (size_t i = 0; i < 4; i++)
        CHECK(h->runs[a->by_time[i]].start == (time_t)(2000 + 1000 * i));
    CHECK(a->worst == SEV_CRITICAL && a->latest == SEV_WARNING);
    /* the same severity and score: the newer first */
    struct history_run x = {.sev = SEV_INFO, .score = 1, .start = 5, .path = "p"};
    struct history_run y = x;
    y.start = 6;
    CHECK(history_run_cmp(&y, &x) < 0 && history_run_cmp(&x, &y) > 0);
    history_free(h);
}

TEST(history_recurring_counts)
{
    struct history *h = sample();
    REQUIRE(h->nrecurring == 2);
    const struct history_recurring *c = &h->recurring[0];
    CHECK_STR(c->id, "cpu.saturation");
    CHECK(c->runs == 4 && c->hosts == 2);
    CHECK(c->first == 1000 && c->last == 5000);
    CHECK(c->worst == SEV_CRITICAL);
    CHECK_STR(h->recurring[1].id, "mem.pressure");
    CHECK(h->recurring[1].runs == 1 && h->recurring[1].hosts == 1);
    history_free(h);
}

TEST(history_key_metrics_only_charted)
{
    struct history *h = sample();
    REQUIRE(h->nmetrics == 1);
    CHECK_STR(h->metrics[0].name, "cpu.util_pct");
    CHECK(h->runs[2].nvalues == 1 && h->runs[2].values[0] == 99);
    history_free(h);
}

TEST(history_doc_cell_href_encodes)
{
    struct doc_cell c = {0};
    doc_cell_href(&c, "../a b/\"x\"<y>/%#?(z)/index.html");
    CHECK_STR(c.href, "../a%20b/%22x%22%3Cy%3E/%25%23%3F%28z%29/index.html");
    free(c.href);
}

TEST(history_views_escape_host_text)
{
    struct history *h = history_new();
    const char *evil = "<script>x</script>|](javascript:y)&\"";
    struct report *r = run(evil, 7200, "cpu.saturation", SEV_CRITICAL, 300, 90);
    history_add_run(h, r, "dir/<b>\"", "/f/dir/<b>\"", true);
    report_free(r);
    history_skip(h, "bad|<i>", "report.json <changed>");
    history_finish(h);
    size_t n = 0;
    struct history_file *f = history_render(h, "/f/page", &n);
    REQUIRE(n >= 4); /* md, html, json, and the charts */
    CHECK_STR(f[0].name, "history.md");
    CHECK_STR(f[1].name, "index.html");
    CHECK_STR(f[2].name, "history.json");
    const char *html = sb_str(&f[1].body), *md = sb_str(&f[0].body);
    CHECK(strstr(html, "<script>x") == NULL);
    CHECK(strstr(html, "&lt;script&gt;x&lt;/script&gt;") != NULL);
    CHECK(strstr(html, "<b>") == NULL && strstr(html, "<i>") == NULL);
    CHECK(strstr(html, "href=\"../dir/%3Cb%3E%22/index.html\"") != NULL);
    CHECK(strstr(md, "](../dir/%3Cb%3E%22/index.html)") != NULL);
    CHECK(strstr(md, "\\|") != NULL); /* the pipe cannot split a table cell */
    CHECK(strstr(md, "report.json \\<changed>") != NULL || strstr(md, "report.json &lt;changed") != NULL);
    struct json *j = NULL;
    char err[200];
    REQUIRE(json_parse(sb_str(&f[2].body), f[2].body.len, &j, err, sizeof err) == 0);
    const struct json *hosts = json_get(j, "hosts");
    REQUIRE(hosts && hosts->n == 1);
    CHECK_STR(json_str(json_get(&hosts->u.items[0], "hostname")), evil);
    json_free(j);
    /* the charts are the report's line charts, one per series, escaped too */
    bool sev = false;
    for (size_t i = 3; i < n; i++) {
        sev |= strcmp(f[i].name, "severity-0.svg") == 0;
        CHECK(strstr(sb_str(&f[i].body), "<svg") == sb_str(&f[i].body));
        CHECK(strstr(sb_str(&f[i].body), "<script") == NULL);
    }
    CHECK(sev);
    history_files_free(f, n);
    history_free(h);
}
