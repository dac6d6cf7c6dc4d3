/* report.json, manifest.json and report.md over a fixed synthetic model:
 * golden files for the whole text, properties for what must always hold. */
#include "harness.h"
#include "test_util.h"
#include "../../src/model/model.h"
#include "../../src/render/charts.h"
#include "../../src/render/doc_report.h"
#include "../../src/codec/report_json.h"
#include "../../src/render/json_writer.h"
#include "../../src/render/markdown.h"
#include "../../src/render/md_common.h"
#include "../../src/render/renderer.h"
#include "../../src/render/summary.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/xalloc.h"
#include <cmark.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- an out_sink that keeps files in memory ---- */

/* Runs every registered renderer into m; returns how many failed. */
static int render_all(const struct report *r, struct mem_sink *m)
{
    struct out_sink out = {mem_sink_write, m, NULL};
    int failed = 0;
    for (size_t i = 0; renderer_registry[i]; i++)
        if (renderer_registry[i]->render(r, &out) != 0)
            failed++;
    return failed;
}

/* ---- the synthetic report ---- */

static const char *hostile[] = {"<script>alert(1)</script>", "\"><svg onload=x>", "]]>",
                                "a\x01" "b\x1b[31m", "x|y", "[link](javascript:x)"};
#define NHOSTILE (sizeof hostile / sizeof hostile[0])

static struct report *synthetic(void)
{
    struct report *r = report_new();
    r->tool_version = xstrdup("0.1.0");
    r->window.start_wall = (struct timespec){1714564800, 250000000}; /* 2024-05-01 12:00:00 UTC */
    r->window.planned_s = 3;
    r->window.actual_s = 3.004;
    r->window.interval_s = 1;
    r->window.target = xstrdup("system-wide");

    kv_add(&r->host, "hostname", "Host name", "web-1");
    kv_add(&r->host, "kernel", "Kernel", "6.18.0-test");
    kv_add(&r->host, "os", "OS", "Debian GNU/Linux 12 (bookworm)");
    kv_add_num(&r->host, "cpus", "CPUs", 2, "");
    kv_add(&r->caps, "psi", "PSI", "yes");
    kv_add(&r->caps, "pmu", "Hardware PMU", "no (cpu-clock used)");

    for (int t = 1; t <= 3; t++)
        report_add_tick(r, t);
    struct series *cpu = report_series(r, "cpu.util_pct", "CPU utilisation", "%", "cpu");
    cpu->chart = true;
    cpu->warn = 70;
    cpu->crit = 90;
    struct series *dsk = report_series(r, "disk.vd<a>.util_pct", "vd<a> utilisation", "%", "disk");
    dsk->chart = true;
    struct series *rq = report_series(r, "cpu.runq_per_cpu", "Run queue per CPU", "", "cpu");
    const double cpu_v[3] = {95.5, NAN, 97.25}, dsk_v[3] = {10, 12.5, 15}, rq_v[3] = {2.5, 2, 2.55};
    for (size_t t = 0; t < 3; t++) {
        r->nticks = t + 1; /* series_set() writes the current (last) tick */
        series_set(r, cpu, cpu_v[t]);
        series_set(r, dsk, dsk_v[t]);
        series_set(r, rq, rq_v[t]);
    }

    report_metric(r, "cpu.count", "CPUs", "", "cpu", 2);
    report_metric(r, "cpu.util_pct", "CPU utilisation", "%", "cpu", 96.375);
    report_metric(r, "cpu.runq_per_cpu", "Run queue per CPU", "", "cpu", 2.35);
    report_metric(r, "cpu.ctxsw_per_s", "Context switches", "/s", "cpu", 15234.6);
    report_metric(r, "load.load1", "Load average (1 min)", "", "cpu", NAN);
    report_metric(r, "mem.total_kib", "Memory total", "KiB", "memory", 4026532);
    report_metric(r, "mem.available_pct", "Memory available", "%", "memory", 61.04);
    report_metric(r, "mem.dirty_kib", "Dirty", "KiB", "memory", 2048);
    report_metric(r, "mem.slab_kib", "Slab", "KiB", "memory", 512);
    report_metric(r, "disk.await_ms_max", "Worst disk await", "ms", "disk", 0.84);
    report_metric(r, "fd.system_pct", "System file handles used", "%", "fd", 0.05);

    struct table *d = report_table(r, "disk", "Disks", "disk");
    table_add_col(d, "device", "Device", "", 0);
    table_add_col(d, "class", "Class", "", 0);
    table_add_col(d, "r_per_s", "Reads", "/s", 1);
    table_add_col(d, "await_ms", "Await", "ms", 2);
    table_add_col(d, "util_pct", "Util %", "%", 1);
    size_t row = table_add_row(d);
    table_set_str(d, row, "device", "vda");
    table_set_str(d, row, "class", "virtio");
    table_set_num(d, row, "r_per_s", 12.34);
    table_set_num(d, row, "await_ms", 0.84);
    table_set_num(d, row, "util_pct", 12.5);
    row = table_add_row(d);
    table_set_str(d, row, "device", "vd<a>");
    table_set_num(d, row, "util_pct", NAN);

    struct table *p = report_table(r, "proc.top_cpu", "Top processes by CPU", "process");
    table_add_col(p, "pid", "PID", "", 0);
    table_add_col(p, "comm", "Command", "", 0);
    table_add_col(p, "cpu_pct", "CPU", "%", 1);
    table_add_col(p, "cmdline", "Command line", "", 0);
    for (size_t i = 0; i < NHOSTILE; i++) {
        row = table_add_row(p);
        table_set_num(p, row, "pid", 1000 + (double)i);
        table_set_str(p, row, "comm", hostile[i]);
        table_set_num(p, row, "cpu_pct", 99.0 - (double)i * 10.5);
        table_set_str(p, row, "cmdline", hostile[(i + 1) % NHOSTILE]);
    }
    table_set_note(p, "CPU % is of one CPU; x|y <b>note</b>");

    struct finding *f = report_add_finding(r, "cpu.saturation", SEV_CRITICAL, "cpu",
                                           "CPU saturated: 96.4% busy, run queue 2.35 per CPU");
    finding_evidence(f, "CPU busy %.1f%% ≥ 90%% (critical)", 96.375);
    finding_evidence(f, "run queue %.2f per CPU ≥ 2 (critical)", 2.35);
    finding_set_recommendation(f, "Profile on-CPU time (see the flame graph) and reduce the top consumer.");
    f->score = 96.5;
    f = report_add_finding(r, "cpu.hotspot", SEV_WARNING, "process",
                           "<script>alert(1)</script> (pid 1000) uses 99% of one CPU");
    finding_evidence(f, "pid 1000 at 99.0%% of one CPU ≥ 80%% (warning)");
    finding_set_culprit(f, "<script>alert(1)</script>");
    finding_set_recommendation(f, "Check [link](javascript:x) | its hot loop.");
    f->score = 40;
    report_set_headline(r, "CPU saturated: 96.4% busy, run queue 2.35 per CPU");

    struct use_row *u = report_add_use(r, "cpu");
    use_cell_set(&u->util, SEV_CRITICAL, "%.0f%% busy", 96.375);
    use_cell_set(&u->sat, SEV_CRITICAL, "run queue %.2f/CPU", 2.35);
    use_cell_set(&u->err, SEV_NONE, "-");
    u = report_add_use(r, "memory");
    use_cell_set(&u->util, SEV_NONE, "39%% used");
    use_cell_set(&u->sat, SEV_NONE, "no swapping");
    use_cell_set(&u->err, SEV_NONE, "0 OOM kills");

    report_add_threshold(r, "cpu.util_pct", "CPU utilisation", "%", 70, 90, false);
    report_add_threshold(r, "mem.available_pct", "Memory available", "%", 20, 10, true);
    report_add_threshold(r, "net.drops_per_s", "Network drops", "/s", 1, 100, false);

    struct hist *h = report_hist(r, "runqlat", "Run-queue latency <all CPUs>", "us", "cpu");
    hist_add_bucket(h, 2, 700);
    hist_add_bucket(h, 3, 250);
    hist_add_bucket(h, 10, 50);
    h->max = 1900;
    h->sum = 60000;

    struct ledger_entry *e = report_ledger(r, "cpu", "CPU (/proc/stat)");
    ledger_set(e, CS_RAN, NULL);
    e->duration_ms = 1.25;
    e = report_ledger(r, "offcpu", "Off-CPU time (BPF)");
    ledger_set(e, CS_SKIPPED, "BPF disabled by --no-bpf");
    e = report_ledger(r, "net", "Network (/proc/net)");
    ledger_set(e, CS_FAILED, "cannot read /proc/net/dev: Permission denied");
    e->duration_ms = 0.5;
    ledger_note(e, "1 tick lost | <retry>");
    return r;
}

/* ---- golden files ---- */

TEST(render_text_golden_report_md_and_json)
{
    struct report *r = synthetic();
    struct mem_sink m = {0};
    CHECK(render_all(r, &m) == 0);
    const char *md = mem_get(&m, "report.md"), *js = mem_get(&m, "report.json");
    REQUIRE(md && js);
    CHECK_GOLDEN("golden/report.md", md);
    CHECK_GOLDEN("golden/report.json", js);
    mem_free(&m);
    report_free(r);
}

/* The tree's HTML rendering (index.html's body) beside its Markdown one. */
TEST(render_html_golden_body)
{
    struct report *r = synthetic();
    struct doc *d = doc_report(r);
    struct strbuf body = STRBUF_INIT;
    doc_render_html(r, d, &body);
    CHECK_GOLDEN("golden/report.body.html", sb_str(&body));
    sb_free(&body);
    doc_free(d);
    report_free(r);
}

TEST(render_text_registry_order)
{
    REQUIRE(renderer_registry[0] && renderer_registry[1] && renderer_registry[2]);
    CHECK_STR(renderer_registry[0]->name, "json");
    CHECK_STR(renderer_registry[1]->name, "markdown");
    size_t last = 0;
    while (renderer_registry[last + 1])
        last++;
    CHECK_STR(renderer_registry[last]->name, "manifest"); /* it hashes the others */
    struct report *r = synthetic();
    struct mem_sink m = {0};
    CHECK(render_all(r, &m) == 0);
    size_t charts = 0;
    for (size_t i = 0; i < r->nseries; i++)
        charts += r->series[i]->chart;
    /* json, manifest, markdown, summary, one file per chart and per
     * histogram, index.html */
    CHECK(m.n == 5 + charts + r->nhists);
    CHECK(mem_get(&m, "summary.md") != NULL);
    CHECK(mem_get(&m, "hist-runqlat.svg") != NULL);
    CHECK(mem_get(&m, "report.json") && mem_get(&m, "manifest.json") && mem_get(&m, "report.md"));
    CHECK(mem_get(&m, "index.html") != NULL);
    mem_free(&m);
    report_free(r);
}

static size_t lines_of(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The overview under the verdict: one row per section, its colour the
 * worst severity of its findings and USE cells, its key figures, a link to
 * the section and to the findings. */
TEST(render_overview_one_row_per_resource)
{
    struct report *r = synthetic();
    struct mem_sink m = {0};
    CHECK(render_all(r, &m) == 0);
    const char *md = mem_get(&m, "report.md");
    const char *html = mem_get(&m, "index.html");
    REQUIRE(md && html);
    const char *over = strstr(md, "## Overview\n");
    const char *find = strstr(md, "## Findings\n");
    REQUIRE(over && find && over < find);
    CHECK_CONTAINS(md, "| [CPU](#cpu) | **critical** · [1 finding](#findings) | 96% busy; run queue 2.35/CPU |");
    CHECK_CONTAINS(md, "| [Memory](#memory) | ok · nothing found | 39% used; no swapping |");
    CHECK_CONTAINS(md, "| [Processes](#processes) | **warning** · [1 finding](#findings) |");
    /* in HTML the link goes to the row's first finding itself */
    CHECK_CONTAINS(html, "<td><a href=\"#cpu\">CPU</a></td><td class=\"sev sev-critical\"><strong>"
                         "critical</strong> · <a href=\"#finding-cpusaturation\">1 finding</a></td>");
    CHECK_CONTAINS(html, "<p><span id=\"finding-cpusaturation\"></span>");
    CHECK_CONTAINS(html, "<td class=\"sev sev-ok\">ok · nothing found</td>");
    /* a USE cell judged worse than any finding colours its row too */
    struct use_row *u = NULL;
    for (size_t i = 0; i < r->nuse; i++)
        if (strcmp(r->use[i].resource, "memory") == 0)
            u = &r->use[i];
    REQUIRE(u);
    u->sat.sev = SEV_WARNING;
    mem_free(&m);
    memset(&m, 0, sizeof m);
    CHECK(render_all(r, &m) == 0);
    /* ... and says why rather than "nothing found" */
    CHECK_CONTAINS(mem_get(&m, "report.md"),
                   "| [Memory](#memory) | **warning** · [past a USE threshold, no finding](#use-check) |");
    mem_free(&m);
    /* a finding filed under CPU whose evidence includes PSI past its line
     * concerns the PSI row too */
    report_metric(r, "psi.cpu.some_pct", "PSI", "%", "psi", 40);
    struct finding *f = (struct finding *)report_find_finding(r, "cpu.saturation");
    REQUIRE(f);
    finding_add_related(f, "psi");
    memset(&m, 0, sizeof m);
    CHECK(render_all(r, &m) == 0);
    CHECK_CONTAINS(mem_get(&m, "report.md"),
                   "| [Pressure (PSI)](#pressure-psi) | **critical** · [1 finding](#findings) |");
    mem_free(&m);
    report_free(r);
}

/* Every link of report.md's contents line and of the findings' evidence
 * lines lands on a heading of index.html: the ids html.c gives headings are
 * the anchors markdown.c links to. */
TEST(render_links_land_on_headings)
{
    struct report *r = synthetic();
    struct mem_sink m = {0};
    CHECK(render_all(r, &m) == 0);
    const char *md = mem_get(&m, "report.md");
    const char *html = mem_get(&m, "index.html");
    REQUIRE(md && html);
    CHECK_CONTAINS(md, "**Contents:** [Overview](#overview) · [Findings](#findings) · ");
    CHECK_CONTAINS(md, "[CPU](#cpu)");
    /* the CPU finding points at its section and at the flame graph's */
    CHECK_CONTAINS(md, "   **Evidence:** [CPU](#cpu)");
    size_t links = 0;
    for (const char *a = html; (a = strstr(a, "<a href=\"#")); a++) {
        const char *q = a + 10, *e = strchr(q, '"');
        REQUIRE(e);
        char id[160];
        snprintf(id, sizeof id, " id=\"%.*s\"", (int)(e - q), q); /* a heading's or a section body's */
        if (!strstr(html, id))
            fprintf(stderr, "  no heading with%s\n", id);
        CHECK(strstr(html, id) != NULL);
        links++;
    }
    CHECK(links >= 8);
    CHECK_CONTAINS(html, "<h2 id=\"findings\">Findings</h2>");
    CHECK_CONTAINS(html, "<summary><h2>Pressure (PSI)</h2></summary>\n"
                         "<div class=\"section-body\" id=\"pressure-psi\">");
    mem_free(&m);
    report_free(r);
}

/* Anchors as forges make them: lowercase, punctuation dropped, spaces as
 * '-', repeats numbered. */
TEST(render_slugs_like_github)
{
    struct md_slugs sl = {0};
    CHECK_STR(md_slugs_add(&sl, "CPU"), "cpu");
    CHECK_STR(md_slugs_add(&sl, "Pressure (PSI)"), "pressure-psi");
    CHECK_STR(md_slugs_add(&sl, "Run-queue latency <all CPUs>"), "run-queue-latency-all-cpus");
    CHECK_STR(md_slugs_add(&sl, "File handles in use (system)"), "file-handles-in-use-system");
    CHECK_STR(md_slugs_add(&sl, "File handles in use (system)"), "file-handles-in-use-system-1");
    CHECK_STR(md_slugs_add(&sl, "cpu"), "cpu-1");
    CHECK_STR(md_slugs_add(&sl, "Größe · p99 ≥ 5 ms…"), "größe--p99--5-ms");
    CHECK_STR(md_slugs_add(&sl, "x_y.z"), "x_yz");
    md_slugs_free(&sl);
}

/* summary.md: the verdict, the context, what was not checked, the serious
 * findings with their first evidence and advice; host text escaped. */
TEST(render_summary_verdict_findings_and_escaping)
{
    struct report *r = synthetic();
    struct strbuf sb = STRBUF_INIT;
    summary_render(r, &sb);
    const char *s = sb_str(&sb);
    CHECK(strncmp(s, "# perfreport: ", 14) == 0);
    CHECK_CONTAINS(s, "\n**CRITICAL:** ");
    CHECK_CONTAINS(s, "Host ");
    CHECK_CONTAINS(s, "**Not checked:** Network (/proc/net) failed: cannot read /proc/net/dev");
    CHECK_CONTAINS(s, "1. **CRITICAL:** CPU saturated");
    CHECK_CONTAINS(s, "   **What to do:** Profile on-CPU time");
    CHECK_CONTAINS(s, "2. **WARNING:** \\<script>alert(1)\\</script> (pid 1000)");
    CHECK_NOT_CONTAINS(s, "## Disks"); /* no sections: that is report.md */
    char *html = cmark_markdown_to_html(s, strlen(s), CMARK_OPT_DEFAULT);
    CHECK_NOT_CONTAINS(html, "<script");
    CHECK_NOT_CONTAINS(html, "raw HTML omitted");
    free(html);
    CHECK(lines_of(s) <= 60);
    sb_free(&sb);
    report_free(r);
}

/* However many findings, summary.md stays within 60 lines: whole findings
 * in rank order, then how many more the report has. */
TEST(render_summary_at_most_60_lines)
{
    struct report *r = report_new();
    for (int i = 0; i < 30; i++) {
        struct finding *f = report_add_finding(r, "cpu.saturation", i < 25 ? SEV_WARNING : SEV_INFO,
                                               "cpu", "a finding");
        finding_set_title(f, "finding %d", i + 1);
        for (int k = 0; k < 6; k++)
            finding_evidence(f, "evidence %d.%d", i + 1, k + 1);
        finding_set_recommendation(f, "do something");
    }
    struct strbuf sb = STRBUF_INIT;
    summary_render(r, &sb);
    const char *s = sb_str(&sb);
    CHECK(lines_of(s) <= 60);
    CHECK_CONTAINS(s, "1. **WARNING:** finding 1\n   - evidence 1.1\n   - evidence 1.2\n"
                      "   - evidence 1.3\n   - (3 more in the report)\n");
    CHECK_NOT_CONTAINS(s, "evidence 1.4");
    CHECK_CONTAINS(s, "2. **WARNING:** finding 2\n");
    CHECK_NOT_CONTAINS(s, "finding 25");
    char more[96];
    size_t shown = 0;
    for (const char *p = s; (p = strstr(p, ". **WARNING:** finding ")); p++)
        shown++; /* numbered items, not the verdict line */
    snprintf(more, sizeof more, "Also in the report: %zu more findings at warning or above, 5 informational.",
             25 - shown);
    CHECK(shown >= 5);
    CHECK_CONTAINS(s, more);
    sb_free(&sb);
    report_free(r);
}

/* ---- a strict little JSON parser: returns the end of the value or NULL ---- */

static const char *js_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

static const char *js_value(const char *p, int depth);

static const char *js_string(const char *p)
{
    if (*p++ != '"')
        return NULL;
    while (*p != '"') {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20)
            return NULL; /* also catches the terminating NUL */
        if (c == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!isxdigit((unsigned char)p[i]))
                        return NULL;
                p += 5;
                continue;
            }
            if (!*p || !strchr("\"\\/bfnrt", *p))
                return NULL;
        }
        p++;
    }
    return p + 1;
}

static const char *js_number(const char *p)
{
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (isdigit((unsigned char)*p))
            p++;
    else
        return NULL;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!isdigit((unsigned char)*p))
            return NULL;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return p;
}

static const char *js_value(const char *p, int depth)
{
    if (depth > 64)
        return NULL;
    p = js_ws(p);
    if (*p == '{' || *p == '[') {
        char close = *p == '{' ? '}' : ']';
        bool obj = *p == '{';
        p = js_ws(p + 1);
        if (*p == close)
            return p + 1;
        for (;;) {
            if (obj) {
                p = js_string(js_ws(p));
                if (!p)
                    return NULL;
                p = js_ws(p);
                if (*p++ != ':')
                    return NULL;
            }
            p = js_value(p, depth + 1);
            if (!p)
                return NULL;
            p = js_ws(p);
            if (*p == ',') {
                p++;
                continue;
            }
            return *p == close ? p + 1 : NULL;
        }
    }
    if (*p == '"')
        return js_string(p);
    if (!strncmp(p, "true", 4))
        return p + 4;
    if (!strncmp(p, "false", 5))
        return p + 5;
    if (!strncmp(p, "null", 4))
        return p + 4;
    return js_number(p);
}

static bool json_valid(const char *s)
{
    const char *end = js_value(s, 0);
    return end && *js_ws(end) == '\0';
}

/* Second opinion from Python's parser when it is installed. */
static int python_json_check(const char *text)
{
    if (system("command -v python3 >/dev/null 2>&1") != 0)
        return -2;
    char path[] = "/tmp/perfreport-json-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    int ok = write(fd, text, len) == (ssize_t)len;
    close(fd);
    int rc = -1;
    if (ok) {
        char cmd[256];
        snprintf(cmd, sizeof cmd,
                 "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s", path);
        rc = system(cmd) == 0 ? 0 : -1;
    }
    unlink(path);
    return rc;
}

TEST(render_text_json_parses)
{
    CHECK(json_valid("{\"a\": [1, -2.5e3, null, true, \"x\\u003c\"]}"));
    CHECK(!json_valid("{\"a\": [1,]}"));
    CHECK(!json_valid("{\"a\": NaN}"));
    CHECK(!json_valid("[1] [2]"));

    struct report *r = synthetic();
    struct mem_sink m = {0};
    CHECK(render_all(r, &m) == 0);
    const char *js = mem_get(&m, "report.json"), *man = mem_get(&m, "manifest.json");
    REQUIRE(js && man);
    CHECK(json_valid(js));
    CHECK(json_valid(man));
    int py = python_json_check(js);
    CHECK(py == 0 || py == -2);
    py = python_json_check(man);
    CHECK(py == 0 || py == -2);
    /* host text never appears raw, even inside JSON strings */
    CHECK_NOT_CONTAINS(js, "<script");
    CHECK_NOT_CONTAINS(js, "<svg");
    CHECK_NOT_CONTAINS(js, "]]>");
    CHECK_NOT_CONTAINS(js, "\x1b");
    CHECK_CONTAINS(js, "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e");
    CHECK_CONTAINS(js, "\"a\\u0001b\\u001b[31m\"");
    mem_free(&m);
    report_free(r);
}

TEST(render_text_json_nan_is_null_and_fields)
{
    struct report *r = synthetic();
    struct strbuf sb = STRBUF_INIT;
    REQUIRE(json_report_render(r, &sb) == 0);
    const char *js = sb_str(&sb);
    CHECK_CONTAINS(js, "\"schema\": 1,");
    CHECK_CONTAINS(js, "\"start\": \"2024-05-01T12:00:00Z\"");
    CHECK_CONTAINS(js, "\"load.load1\": {\n      \"value\": null,");
    CHECK_CONTAINS(js, "\"values\": [95.5,null,97.25]");
    CHECK_CONTAINS(js, "\"ticks\": [1,2,3]");
    CHECK_CONTAINS(js, "\"warn\": null"); /* disk series has no threshold */
    CHECK_CONTAINS(js, "\"cpu.count\": {\n      \"value\": 2,");
    CHECK_CONTAINS(js, "\"util_pct\": null"); /* NAN table cell */
    CHECK_CONTAINS(js, "\"class\": null");    /* empty table cell */
    CHECK_CONTAINS(js, "\"severity\": \"critical\"");
    CHECK_CONTAINS(js, "\"status\": \"skipped\"");
    CHECK_CONTAINS(js, "\"reason\": \"BPF disabled by --no-bpf\"");
    CHECK_NOT_CONTAINS(js, "nan");
    CHECK_NOT_CONTAINS(js, "inf");
    /* findings keep the model's (ranked) order */
    const char *a = strstr(js, "\"id\": \"cpu.saturation\""), *b = strstr(js, "\"id\": \"cpu.hotspot\"");
    CHECK(a && b && a < b);
    sb_free(&sb);
    report_free(r);
}

TEST(render_text_json_writer_basics)
{
    struct strbuf sb = STRBUF_INIT;
    struct jw w;
    jw_init(&w, &sb, false);
    jw_obj_begin(&w);
    jw_knum(&w, "i", 42);
    jw_knum(&w, "neg0", -0.0);
    jw_knum(&w, "f", 0.1234567);
    jw_knum(&w, "big", 1e20);
    jw_knum(&w, "nan", NAN);
    jw_knum(&w, "inf", -INFINITY);
    jw_key(&w, "a");
    jw_arr_begin(&w);
    jw_str(&w, "x\"<");
    jw_str(&w, NULL);
    jw_bool(&w, true);
    jw_obj_begin(&w);
    jw_obj_end(&w);
    jw_arr_end(&w);
    jw_obj_end(&w);
    CHECK(jw_finish(&w) == 0);
    CHECK_STR(sb_str(&sb), "{\"i\":42,\"neg0\":0,\"f\":0.123457,\"big\":1e+20,\"nan\":null,"
                           "\"inf\":null,\"a\":[\"x\\\"\\u003c\",null,true,{}]}");
    CHECK(json_valid(sb_str(&sb)));

    /* misuse is reported, not silently written */
    sb_reset(&sb);
    jw_init(&w, &sb, false);
    jw_obj_begin(&w);
    jw_num(&w, 1); /* value without key */
    jw_obj_end(&w);
    CHECK(jw_finish(&w) != 0);
    sb_reset(&sb);
    jw_init(&w, &sb, false);
    jw_arr_begin(&w);
    CHECK(jw_finish(&w) != 0); /* unclosed */
    sb_reset(&sb);
    jw_init(&w, &sb, true);
    jw_arr_begin(&w);
    jw_obj_end(&w); /* wrong closer */
    CHECK(w.error);
    sb_free(&sb);
}

/* ---- Markdown properties ---- */

static char *md_of(const struct report *r)
{
    struct strbuf sb = STRBUF_INIT;
    markdown_render(r, &sb);
    return sb_detach(&sb);
}

/* Tables and histograms with nothing in them are one line at their
 * section's end, not a heading and "No rows." each. */
TEST(render_md_quiet_tables_are_one_line)
{
    struct report *r = synthetic();
    struct table *t = report_table(r, "net.retrans", "TCP retransmits by connection", "network");
    static const struct col_spec cols[] = {{"conn", "Connection", "", 0}, {"n", "Retransmits", "", 0}};
    table_add_cols(t, cols, ARRAY_LEN(cols));
    report_table(r, "net.resets", "TCP resets <by connection>", "network");
    struct table *noted = report_table(r, "net.states", "TCP state transitions", "network");
    table_set_note(noted, "tracepoint missing: not measured");
    report_hist(r, "net.rtt", "Round-trip time", "us", "network");
    char *md = md_of(r);
    CHECK_CONTAINS(md, "Checked, nothing to report: TCP retransmits by connection, TCP resets \\<by "
                       "connection>, Round-trip time.\n");
    CHECK_NOT_CONTAINS(md, "### TCP retransmits");
    CHECK_NOT_CONTAINS(md, "### Round-trip time");
    CHECK_NOT_CONTAINS(md, "No rows.");
    /* an empty table with a note keeps its heading: the note says why */
    CHECK_CONTAINS(md, "### TCP state transitions\n");
    CHECK_CONTAINS(md, "Note: tracepoint missing: not measured");
    free(md);
    report_free(r);
}

/* Host facts that are numbers are formatted by the renderer: sizes in
 * binary units, an uptime in days, hours and minutes, an unknown as n/a;
 * report.json keeps the numbers. */
TEST(render_host_numbers_formatted_here_kept_in_json)
{
    static const struct {
        double up;
        const char *shown;
    } ups[] = {{273906.12, "3 d 4 h 5 min"}, {86400, "1 d 0 h 0 min"}, {3600, "1 h 0 min"},
               {125.5, "2 min"}, {59.99, "59 s"}, {-3, "-"}, {NAN, "n/a"}};
    for (size_t i = 0; i < sizeof ups / sizeof ups[0]; i++) {
        struct report *r = report_new();
        kv_add_num(&r->host, "uptime_s", "Uptime", ups[i].up, "s");
        kv_add_num(&r->host, "mem_total_kib", "Memory", 24668924, "KiB");
        kv_add_num(&r->host, "cpus", "Online CPUs", 2, "");
        char *md = md_of(r);
        char want[96];
        snprintf(want, sizeof want, "- **Uptime:** %s\n", ups[i].shown);
        CHECK_CONTAINS(md, want);
        CHECK_CONTAINS(md, "- **Memory:** 23.5 GiB\n");
        CHECK_CONTAINS(md, "- **Online CPUs:** 2\n");
        CHECK_CONTAINS(md, " · 2 CPUs");
        free(md);
        report_free(r);
    }
    struct report *r = report_new();
    kv_add_num(&r->host, "mem_total_kib", "Memory", 524288, "KiB");
    kv_add_num(&r->host, "uptime_s", "Uptime", NAN, "s");
    kv_add(&r->host, "kernel", "Kernel", "6.18");
    struct mem_sink m = {0};
    REQUIRE(render_all(r, &m) == 0);
    const char *js = mem_get(&m, "report.json");
    REQUIRE(js);
    CHECK_CONTAINS(js, "\"mem_total_kib\": 524288");
    CHECK_CONTAINS(js, "\"uptime_s\": null");
    CHECK_CONTAINS(js, "\"kernel\": \"6.18\"");
    mem_free(&m);
    report_free(r);
}

/* The n-th block (blocks separated by a blank line), copied. */
static char *md_block(const char *md, int n)
{
    const char *p = md;
    for (int i = 0; i < n; i++) {
        p = strstr(p, "\n\n");
        if (!p)
            return xstrdup("");
        p += 2;
    }
    const char *e = strstr(p, "\n\n");
    return xstrndup(p, e ? (size_t)(e - p) : strlen(p));
}

TEST(render_text_md_escapes_host_strings)
{
    struct report *r = synthetic();
    char *md = md_of(r);
    bool code = false; /* inside a code span nothing is markup */
    for (size_t i = 0; md[i]; i++) {
        if (md[i] == '`' && (i == 0 || md[i - 1] != '\\'))
            code = !code;
        if (md[i] == '<' && md[i + 1] != ' ' && !code)
            CHECK(i > 0 && md[i - 1] == '\\'); /* no tag or autolink can start */
        CHECK((unsigned char)md[i] >= 0x20 || md[i] == '\n');
    }
    CHECK_CONTAINS(md, "\\<script>alert(1)\\</script>");
    CHECK_CONTAINS(md, "| x\\|y |");
    CHECK_CONTAINS(md, "[link\\](javascript:x)");
    CHECK_CONTAINS(md, "| a b [31m |"); /* controls became spaces */
    /* every table row has the same number of unescaped pipes as its header */
    const char *line = md;
    int want = -1;
    while (*line) {
        size_t len = strcspn(line, "\n");
        if (line[0] == '|') {
            int pipes = 0;
            for (size_t k = 0; k < len; k++)
                if (line[k] == '|' && (k == 0 || line[k - 1] != '\\'))
                    pipes++;
            if (want < 0)
                want = pipes;
            CHECK(pipes == want);
        } else {
            want = -1;
        }
        line += len + (line[len] == '\n');
    }

    /* cmark agrees: no raw HTML, no link but ours to a section of the same
     * document, exactly the chart and histogram images */
    char *html = cmark_markdown_to_html(md, strlen(md), CMARK_OPT_DEFAULT);
    REQUIRE(html);
    CHECK_NOT_CONTAINS(html, "raw HTML omitted");
    CHECK_NOT_CONTAINS(html, "<script");
    CHECK_NOT_CONTAINS(html, "<svg");
    for (const char *a = html; (a = strstr(a, "<a ")); a++)
        CHECK(strncmp(a, "<a href=\"#", 10) == 0);
    /* pictures are the bundle's files named in code, never images */
    CHECK_NOT_CONTAINS(html, "<img");
    CHECK_CONTAINS(html, "Chart <code>chart-cpu.util_pct.svg</code>: CPU utilisation");
    CHECK_CONTAINS(html, "Chart <code>chart-disk.vd_a_.util_pct.svg</code>: vd&lt;a&gt; utilisation");
    CHECK_CONTAINS(html, "Graph <code>hist-runqlat.svg</code>: Run-queue latency &lt;all CPUs&gt;");
    free(html);
    free(md);
    report_free(r);
}

TEST(render_text_md_headline_first_and_incomplete)
{
    struct report *r = synthetic();
    char *md = md_of(r);
    char *b0 = md_block(md, 0), *b1 = md_block(md, 1), *b2 = md_block(md, 2);
    CHECK_STR(b0, "# perfreport: web-1");
    CHECK_STR(b1, "**CRITICAL:** CPU saturated: 96.4% busy, run queue 2.35 per CPU");
    CHECK_CONTAINS(b2, "Host web-1 · kernel 6.18.0-test · 2 CPUs · 3.0 s window");
    CHECK_CONTAINS(b2, "started 2024-05-01 12:00:00 UTC");
    CHECK_NOT_CONTAINS(md, "INCOMPLETE");
    free(b0);
    free(b1);
    free(b2);
    free(md);

    r->window.interrupted = true;
    r->window.actual_s = 1.5;
    md = md_of(r);
    b1 = md_block(md, 1);
    b2 = md_block(md, 2);
    CHECK_STR(b1, "**INCOMPLETE:** the capture window was interrupted after 1.5 s of the "
                  "planned 3 s; every figure covers only that part.");
    CHECK(strncmp(b2, "**CRITICAL:** ", 14) == 0);
    free(b1);
    free(b2);
    free(md);

    /* a quiet host: no findings, still a verdict in words */
    struct report *q = report_new();
    kv_add(&q->host, "hostname", "Host name", "idle");
    report_set_headline(q, "No problems found: CPU 3% busy, memory 80% available.");
    md = md_of(q);
    b1 = md_block(md, 1);
    CHECK_STR(b1, "**OK:** No problems found: CPU 3% busy, memory 80% available.");
    CHECK_CONTAINS(md, "## Findings\n\nNo findings at warning or above.\n\nWhat a short window cannot "
                       "show: load that comes and goes over minutes or hours");
    CHECK_CONTAINS(md, "to follow the host.\n\n## USE check");
    CHECK_CONTAINS(md, "## CPU\n\nNot measured in this run (see Collectors).");
    free(b1);
    free(md);
    report_free(q);
    report_free(r);
}

TEST(render_text_md_sections_order_and_formats)
{
    struct report *r = synthetic();
    char *md = md_of(r);
    const char *heads[] = {"## Findings\n",  "## USE check\n", "## CPU\n",
                           "## Memory\n",    "## Pressure (PSI)\n", "## Disks\n",
                           "## Network\n",   "## Processes\n", "## Cgroups\n",
                           "## File descriptors\n", "## System\n", "## Collectors\n",
                           "## Appendix: thresholds\n"};
    const char *prev = md;
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        const char *h = strstr(md, heads[i]);
        CHECK(h != NULL);
        if (h) {
            if (h < prev)
                test_fail(__FILE__, __LINE__, "%s out of order", heads[i]);
            prev = h;
        }
    }
    CHECK_CONTAINS(md, "| CPU utilisation | 96.4% |");
    CHECK_CONTAINS(md, "| Memory total | 3.84 GiB |");
    CHECK_CONTAINS(md, "| Dirty | 2 MiB |");
    CHECK_CONTAINS(md, "| Slab | 512 KiB |");
    CHECK_CONTAINS(md, "| Context switches | 15235/s |");
    CHECK_CONTAINS(md, "| Load average (1 min) | - |");
    /* a time column: the unit in the cells, scaled, not in the header */
    CHECK_CONTAINS(md, "| Device | Class | Reads/s | Await | Util % |");
    CHECK_CONTAINS(md, "| vda | virtio | 12.3 | 0.84 ms | 12.5 |");
    CHECK_CONTAINS(md, "| vd\\<a> | - | - | - | - |");
    /* pictures are named as the bundle's files, not linked */
    CHECK_CONTAINS(md, "\n\nChart `chart-cpu.util_pct.svg`: CPU utilisation\n\n");
    CHECK_NOT_CONTAINS(md, "![");
    CHECK_CONTAINS(md, "| `offcpu` | skipped | BPF disabled by --no-bpf | 0 ms | - |");
    CHECK_CONTAINS(md, "| `mem.available_pct` | Memory available | 20% | 10% | lower is worse |");
    CHECK_CONTAINS(md, "1. **CRITICAL:** CPU saturated");
    CHECK_CONTAINS(md, "\n   - run queue 2.35 per CPU ≥ 2 (critical)\n");
    CHECK_CONTAINS(md, "2. **WARNING:** \\<script>");
    free(md);

    /* long tables are cut at 20 rows with a count of the rest; cmdline at 120 chars */
    struct table *t = report_find_table(r, "proc.top_cpu");
    char longcmd[300];
    memset(longcmd, 'c', sizeof longcmd - 1);
    longcmd[sizeof longcmd - 1] = '\0';
    while (t->nrows < 25) {
        size_t row = table_add_row(t);
        table_set_num(t, row, "pid", 2000 + (double)row);
        table_set_str(t, row, "comm", "filler");
        table_set_str(t, row, "cmdline", longcmd);
    }
    md = md_of(r);
    CHECK_CONTAINS(md, "… 5 more rows");
    CHECK_NOT_CONTAINS(md, "| 2020 |");
    CHECK_CONTAINS(md, "| 2019 |");
    char cut[130];
    memset(cut, 'c', 120);
    memcpy(cut + 120, "…` |", sizeof "…` |"); /* a command line, in code */
    CHECK_CONTAINS(md, cut);
    free(md);
    report_free(r);
}

TEST(render_text_manifest_lists_files_and_status)
{
    struct report *r = synthetic();
    r->window.interrupted = true;
    struct strbuf sb = STRBUF_INIT;
    REQUIRE(manifest_render(r, &sb) == 0);
    const char *m = sb_str(&sb);
    CHECK(json_valid(m));
    CHECK_CONTAINS(m, "\"complete\": false");
    CHECK_CONTAINS(m, "\"interrupted\": true");
    CHECK_CONTAINS(m, "\"severity\": \"critical\"");
    CHECK_CONTAINS(m, "\"exit_status\": 6"); /* partial (4) + critical (2) */
    CHECK_CONTAINS(m, "\"version\": \"0.1.0\"");
    CHECK_CONTAINS(m, "\"status\": \"failed\",\n      \"reason\": \"cannot read /proc/net/dev: Permission denied\"");
    CHECK_CONTAINS(m, "\"notes\": \"1 tick lost | \\u003cretry\\u003e\"");
    const char *files[] = {"\"report.json\"", "\"report.md\"", "\"index.html\"", "\"manifest.json\"",
                           "\"chart-cpu.util_pct.svg\"", "\"chart-disk.vd_a_.util_pct.svg\""};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        CHECK_CONTAINS(m, files[i]);
    CHECK_NOT_CONTAINS(m, "chart-cpu.runq_per_cpu"); /* not charted */
    /* each chart named in the manifest is one the Markdown references */
    char *md = md_of(r);
    for (size_t i = 0; i < r->nseries; i++) {
        char name[512], ref[600];
        if (!r->series[i]->chart)
            continue;
        chart_filename(r->series[i], name, sizeof name);
        snprintf(ref, sizeof ref, "Chart `%s`: ", name);
        CHECK_CONTAINS(md, ref);
    }
    free(md);

    r->window.interrupted = false;
    r->findings[0].sev = SEV_WARNING;
    sb_reset(&sb);
    REQUIRE(manifest_render(r, &sb) == 0);
    /* the failed collector still makes the bundle partial */
    CHECK_CONTAINS(sb_str(&sb), "\"complete\": false");
    CHECK_CONTAINS(sb_str(&sb), "\"exit_status\": 5");
    for (size_t i = 0; i < r->nledger; i++)
        if (r->ledger[i].status == CS_FAILED)
            r->ledger[i].status = CS_RAN;
    sb_reset(&sb);
    REQUIRE(manifest_render(r, &sb) == 0);
    CHECK_CONTAINS(sb_str(&sb), "\"complete\": true");
    CHECK_CONTAINS(sb_str(&sb), "\"exit_status\": 1");
    r->failed = true;
    sb_reset(&sb);
    REQUIRE(manifest_render(r, &sb) == 0);
    CHECK_CONTAINS(sb_str(&sb), "\"exit_status\": 3");
    sb_free(&sb);
    report_free(r);
}

/* ---- no raw unit in a table -------------------------------------------------- */

/* A unit of time or size as a word of a header: "Avg wait us", "RSS KiB"
 * (the cells carry it, scaled), or a doubled rate "Per s/s".  A rate's unit
 * glued to its title ("Calls/s", "rKiB/s") and a word in parentheses ("(s
 * from the window's start)") are not. */
static const char *raw_unit_in_header(const char *h)
{
    static const char *const units[] = {"ns", "us", "\xC2\xB5s", "ms", "s", "B", "KiB", "MiB",
                                        "GiB", "TiB"};
    if (strstr(h, " s/s") || strstr(h, "/s/s"))
        return "doubled rate";
    for (const char *p = h; *p; p++) {
        if (p > h && (isalpha((unsigned char)p[-1]) || p[-1] == '/' || p[-1] == '(' ||
                      p[-1] == '\'' || (unsigned char)p[-1] >= 0x80))
            continue;
        if (p - h >= 4 && strncmp(p - 4, "Per s", 5) == 0) /* "per second" */
            continue;
        for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
            size_t n = strlen(units[u]);
            if (strncmp(p, units[u], n) == 0 && !isalpha((unsigned char)p[n]) &&
                strncmp(p + n, "/s", 2) != 0 && p[n] != ')')
                return units[u];
        }
    }
    return NULL;
}

/* A cell's figure the formatter would have scaled: 4584 us, 2048 KiB, or
 * "us" (the formatter writes µs); "1 samples". */
static const char *raw_unit_in_cell(const char *c)
{
    if (strlen(c) > 100)
        return NULL; /* prose (a collector's notes, recorded as the run wrote them) */
    if (strstr(c, " us") && !isalpha((unsigned char)strstr(c, " us")[3]))
        return "us";
    for (const char *p = c; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > c && (isdigit((unsigned char)p[-1]) ||
                                                      p[-1] == '.' || p[-1] == ',')))
            continue;
        char *end;
        double v = strtod(p, &end);
        if (*end == ',') { /* thousands separators: "523,146,000 us" */
            for (v = 0; isdigit((unsigned char)*p) || *p == ','; p++)
                if (*p != ',')
                    v = v * 10 + (*p - '0');
        } else {
            p = end;
        }
        if (strncmp(p, " samples", 8) == 0 && v == 1)
            return "1 samples";
        static const struct {
            const char *unit;
            double over;
        } ladder[] = {{" ns", 1000}, {" \xC2\xB5s", 1000}, {" ms", 1000},  {" B", 1024},
                      {" KiB", 1024}, {" MiB", 1024},       {" GiB", 1024}};
        for (size_t u = 0; u < sizeof ladder / sizeof ladder[0]; u++) {
            size_t n = strlen(ladder[u].unit);
            /* a rate ("1024 KiB/s") has no ladder in the formatter */
            if (strncmp(p, ladder[u].unit, n) == 0 && !isalpha((unsigned char)p[n]) &&
                p[n] != '/' && v >= ladder[u].over)
                return ladder[u].unit + 1;
        }
        if (!*p)
            break;
    }
    return NULL;
}

/* Every <th> and <td> of an HTML page (markup inside dropped), and every
 * header and cell of a Markdown table: calls check(text, header). */
static size_t check_cells(const char *name, const char *doc, bool html)
{
    size_t bad = 0, seen = 0;
    struct strbuf t = STRBUF_INIT;
    const char *p = doc;
    while (p && *p) {
        bool head = false;
        const char *open = NULL, *close = NULL;
        if (html) {
            const char *th = strstr(p, "<th"), *td = strstr(p, "<td");
            open = th && (!td || th < td) ? th : td;
            if (!open)
                break;
            head = open == th;
            if (open[3] != '>' && open[3] != ' ') {
                p = open + 3;
                continue;
            }
            open = strchr(open, '>');
            close = open ? strstr(open, head ? "</th>" : "</td>") : NULL;
            if (!close)
                break;
            sb_reset(&t);
            bool tag = false;
            for (const char *q = open + 1; q < close; q++) {
                if (*q == '<')
                    tag = true;
                else if (*q == '>')
                    tag = false;
                else if (!tag)
                    sb_addc(&t, *q);
            }
            p = close + 5;
            seen++;
            const char *why = head ? raw_unit_in_header(sb_str(&t)) : raw_unit_in_cell(sb_str(&t));
            if (why) {
                fprintf(stderr, "  %s: raw unit (%s) in %s \"%s\"\n", name, why,
                        head ? "header" : "cell", sb_str(&t));
                bad++;
            }
        } else {
            const char *eol = strchr(p, '\n');
            size_t len = eol ? (size_t)(eol - p) : strlen(p);
            const char *next = eol ? eol + 1 : p + len;
            if (len && p[0] == '|') {
                head = strncmp(next, "| -", 3) == 0 || strncmp(next, "|-", 2) == 0 ||
                       strncmp(next, "| :", 3) == 0 || strncmp(next, "|:", 2) == 0;
                bool rule = strspn(p, "|-: ") == len;
                for (const char *c = p + 1; !rule && c < p + len;) {
                    const char *bar = c;
                    while (bar < p + len && !(*bar == '|' && bar[-1] != '\\'))
                        bar++;
                    sb_reset(&t);
                    sb_addn(&t, c, (size_t)(bar - c));
                    seen++;
                    const char *why = head ? raw_unit_in_header(sb_str(&t))
                                           : raw_unit_in_cell(sb_str(&t));
                    if (why) {
                        fprintf(stderr, "  %s: raw unit (%s) in %s \"%s\"\n", name, why,
                                head ? "header" : "cell", sb_str(&t));
                        bad++;
                    }
                    c = bar + 1;
                }
            }
            p = next;
        }
    }
    sb_free(&t);
    CHECK(seen > 10); /* the page's tables were read */
    return bad;
}

TEST(raw_unit_detector)
{
    CHECK(raw_unit_in_header("Avg wait us") != NULL);
    CHECK(raw_unit_in_header("Per s/s") != NULL);
    CHECK(raw_unit_in_header("RSS KiB") != NULL);
    CHECK(raw_unit_in_header("Duration ms") != NULL);
    CHECK(raw_unit_in_header("Calls/s") == NULL);
    CHECK(raw_unit_in_header("rKiB/s") == NULL);
    CHECK(raw_unit_in_header("Per s") == NULL);
    CHECK(raw_unit_in_header("Avg wait") == NULL);
    CHECK(raw_unit_in_header("First (s from the window's start)") == NULL);
    CHECK(raw_unit_in_header("I/Os") == NULL);
    CHECK(raw_unit_in_cell("4584 us") != NULL);
    CHECK(raw_unit_in_cell("172438 \xC2\xB5s") != NULL);
    CHECK(raw_unit_in_cell("2048 KiB") != NULL);
    CHECK(raw_unit_in_cell("grep (1 samples, 0.10%)") != NULL);
    CHECK(raw_unit_in_cell("(523,146,000 \xC2\xB5s, 100.00%)") != NULL);
    CHECK(raw_unit_in_cell("4.58 ms") == NULL);
    CHECK(raw_unit_in_cell("172 ms") == NULL);
    CHECK(raw_unit_in_cell("1.2 GiB") == NULL);
    CHECK(raw_unit_in_cell("12 samples") == NULL);
    CHECK(raw_unit_in_cell("status 1024") == NULL);
}

/* The golden files and the sample bundle: no table header or cell with a
 * unit the reader must convert. */
TEST(golden_tables_have_no_raw_unit)
{
    static const struct {
        const char *rel;
        bool html;
    } files[] = {
        {"golden/report.body.html", true},
        {"golden/report.md", false},
        {"../../examples/sample-bundle/index.html", true},
        {"../../examples/sample-bundle/report.md", false},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *doc = test_slurp(fixture(files[i].rel), NULL);
        if (!doc) {
            CHECK(doc != NULL);
            fprintf(stderr, "  cannot read %s\n", fixture(files[i].rel));
            continue;
        }
        CHECK(check_cells(files[i].rel, doc, files[i].html) == 0);
        free(doc);
    }
}

/* The report's flame graphs' tooltips (<title>): counts and times through
 * the formatter, "1 sample", "523 s" rather than "523,146,000 us". */
TEST(golden_flame_tooltips_have_no_raw_unit)
{
    static const char *const rels[] = {
        "golden/flame.svg",
        "../../examples/sample-bundle/cpu.svg",
        "../../examples/sample-bundle/offcpu.svg",
        "../../examples/sample-bundle/pagefault.svg",
    };
    for (size_t i = 0; i < sizeof rels / sizeof rels[0]; i++) {
        char *doc = test_slurp(fixture(rels[i]), NULL);
        CHECK(doc != NULL);
        if (!doc)
            continue;
        size_t seen = 0, bad = 0;
        for (const char *p = strstr(doc, "<title>"); p; p = strstr(p, "<title>")) {
            p += 7;
            const char *end = strstr(p, "</title>");
            if (!end)
                break;
            char *title = strndup(p, (size_t)(end - p));
            CHECK(title != NULL);
            /* the tooltip is "name (count, share)": judge the parenthesis */
            const char *paren = title ? strrchr(title, '(') : NULL;
            const char *why = paren ? raw_unit_in_cell(paren) : NULL;
            if (why) {
                fprintf(stderr, "  %s: raw unit (%s) in tooltip \"%s\"\n", rels[i], why, title);
                bad++;
            }
            seen++;
            free(title);
            p = end;
        }
        CHECK(seen > 2); /* the graph's frames were read */
        CHECK(bad == 0);
        free(doc);
    }
}
