#include "harness.h"
#include "test_util.h"
#include "../../src/model/model.h"
#include "../../src/render/charts.h"
#include "../../src/render/escape.h"
#include "../../src/render/flame_colors.h"
#include "../../src/render/html.h"
#include "../../src/render/markdown.h"
#include "../../src/render/renderer.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/xalloc.h"
#include "assets.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <strings.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

extern const struct renderer renderer_html;
extern const struct renderer renderer_charts;


/* 12 one-second ticks; CPU series with a gap and both thresholds, a disk
 * series with a hostile device name. */
static struct report *sample_report(void)
{
    struct report *r = report_new();
    r->tool_version = xstrdup("0.1-test");
    r->window.planned_s = 12;
    r->window.actual_s = 12;
    r->window.interval_s = 1;
    r->window.start_wall.tv_sec = 1700000000;
    r->window.target = xstrdup("system-wide");
    kv_add(&r->host, "hostname", "Hostname", "web-01 <b>&");
    static const double cpu[] = {12.5, 40, 55.25, 71, 88, NAN, NAN, 97.5, 96, 93, 60, 42};
    static const double dsk[] = {1, 2, 3, 150000, 2, 1, 0, 0, 5, 5, 5, 5};
    struct series *s = report_series(r, "cpu.util_pct", "CPU utilisation", "%", "cpu");
    struct series *d =
        report_series(r, "disk.v<d>a.util_pct", "Disk <script>x</script> util", "KiB/s", "disk");
    for (int i = 0; i < 12; i++) {
        report_add_tick(r, i + 1.0);
        series_set(r, s, cpu[i]);
        series_set(r, d, dsk[i]);
    }
    s->warn = 70;
    s->crit = 90;
    s->chart = true;
    d->chart = true;
    struct finding *f =
        report_add_finding(r, "cpu.saturation", SEV_CRITICAL, "cpu",
                           "CPU saturated: 97.5 % busy for 4 of 12 s (critical >= 90 %)");
    f->score = 9.5;
    f = report_add_finding(r, "proc.evil", SEV_WARNING, "process",
                           "Process `x|y` <img src=x onerror=alert(1)> uses 40 % CPU");
    f->score = 4;
    struct table *t = report_table(r, "proc.top_cpu", "Top processes by CPU", "process");
    table_add_col(t, "pid", "PID", "", 0);
    table_add_col(t, "comm", "Command", "", -1);
    table_add_col(t, "cpu_pct", "CPU %", "%", 1);
    table_add_col(t, "rss_kib", "RSS KiB", "KiB", 0);
    table_add_col(t, "threads", "Threads", "", 0);
    table_add_col(t, "fds", "FDs", "", 0);
    table_add_col(t, "cmdline", "Command line", "", -1);
    static const char *comms[] = {"burner", "evil|<script>", "kworker/0:1", "postgres"};
    for (int i = 0; i < 4; i++) {
        size_t row = table_add_row(t);
        table_set_num(t, row, "pid", 1000 + i * 37);
        table_set_str(t, row, "comm", comms[i]);
        table_set_num(t, row, "cpu_pct", 97.5 / (i + 1));
        table_set_num(t, row, "rss_kib", 12345.0 * (i + 1));
        table_set_num(t, row, "threads", i + 1);
        table_set_num(t, row, "fds", 10 * i);
        table_set_str(t, row, "cmdline",
                      i == 1 ? "/usr/bin/evil --url=http://x.example/a?b=c&d=<img src=x onerror=y> "
                               "--a-very-long-option-name-that-goes-on-and-on=1234567890abcdef"
                             : "/usr/lib/some/daemon --config /etc/some/daemon.conf --verbose");
    }
    report_set_headline(r, "CPU saturated: 97.5 % busy for 4 of 12 s (critical >= 90 %)");
    return r;
}

static char *tmp_write(const char *data, size_t len, const char *suffix)
{
    char *path = xasprintf("/tmp/perfreport-html-XXXXXX%s", suffix);
    int fd = mkstemps(path, (int)strlen(suffix));
    if (fd < 0) {
        free(path);
        return NULL;
    }
    ssize_t w = write(fd, data, len);
    close(fd);
    if (w != (ssize_t)len) {
        unlink(path);
        free(path);
        return NULL;
    }
    return path;
}

/* 1 = well-formed, 0 = not, -1 = xmllint unavailable. */
static int xml_wellformed(const char *data, size_t len)
{
    if (system("command -v xmllint >/dev/null 2>&1") != 0)
        return -1;
    char *path = tmp_write(data, len, ".xml");
    if (!path)
        return 0;
    char *cmd = xasprintf("xmllint --noout --nonet '%s'", path);
    int rc = system(cmd);
    free(cmd);
    unlink(path);
    free(path);
    return rc == 0;
}

/* True if any tag (text between '<' and '>') contains `attr`. */
static bool tag_has(const char *html, const char *attr)
{
    for (const char *p = strchr(html, '<'); p; p = strchr(p + 1, '<')) {
        const char *e = strchr(p, '>');
        if (!e)
            return false;
        char *tag = xstrndup(p, (size_t)(e - p));
        bool hit = strcasestr(tag, attr) != NULL;
        free(tag);
        if (hit)
            return true;
    }
    return false;
}

TEST(chart_svg_matches_golden_and_is_valid_xml)
{
    struct report *r = sample_report();
    struct strbuf sb = STRBUF_INIT;
    svg_series_render(r, report_find_series(r, "cpu.util_pct"), &sb);
    const char *golden = fixture("golden/chart.svg");
    const char *upd = getenv("PERFREPORT_UPDATE_GOLDEN");
    if (upd && strcmp(upd, "1") == 0) {
        FILE *f = fopen(golden, "wb");
        REQUIRE(f);
        fwrite(sb.buf, 1, sb.len, f);
        fclose(f);
    }
    size_t glen = 0;
    char *want = test_slurp(golden, &glen);
    REQUIRE(want);
    CHECK(glen == sb.len && memcmp(want, sb.buf, glen) == 0);
    if (system("command -v xmllint >/dev/null 2>&1") == 0) {
        char *cmd = xasprintf("xmllint --noout --nonet '%s'", golden);
        CHECK(system(cmd) == 0);
        free(cmd);
    }
    free(want);
    sb_free(&sb);
    report_free(r);
}

/* Ticks fall on round clock seconds even when the window did not start on
 * one; without a start time the axis counts seconds. */
TEST(chart_svg_clock_ticks)
{
    struct report *r = sample_report();
    r->window.start_wall.tv_nsec = 250000000; /* 22:13:20.25 */
    struct strbuf sb = STRBUF_INIT;
    svg_series_render(r, report_find_series(r, "cpu.util_pct"), &sb);
    CHECK_NOT_CONTAINS(sb_str(&sb), ">22:13:20</text>");
    CHECK_CONTAINS(sb_str(&sb), ">22:13:22</text>");
    sb_reset(&sb);
    r->window.start_wall = (struct timespec){0, 0};
    svg_series_render(r, report_find_series(r, "cpu.util_pct"), &sb);
    CHECK_CONTAINS(sb_str(&sb), ">0s</text>");
    CHECK_CONTAINS(sb_str(&sb), ">12s</text>");
    CHECK_CONTAINS(sb_str(&sb), ">time (s)</text>");
    sb_free(&sb);
    report_free(r);
}

TEST(chart_svg_content)
{
    struct report *r = sample_report();
    struct strbuf sb = STRBUF_INIT;
    svg_series_render(r, report_find_series(r, "cpu.util_pct"), &sb);
    const char *s = sb_str(&sb);
    CHECK(strncmp(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 640 180\"", 61) == 0);
    /* y axis 0..100 by 25 (max(97.5, crit 90) -> 100) */
    CHECK_CONTAINS(s, ">100</text>");
    CHECK_CONTAINS(s, ">25</text>");
    CHECK_NOT_CONTAINS(s, ">125</text>");
    /* UTC clock labels every 2 s through the 12 s window from 22:13:20 */
    CHECK_CONTAINS(s, ">22:13:20</text>");
    CHECK_CONTAINS(s, ">22:13:32</text>");
    CHECK_NOT_CONTAINS(s, ">22:13:34</text>");
    CHECK_CONTAINS(s, ">time (UTC)</text>");
    /* thresholds: amber warn, red crit, dashed; labels at 4.5:1 or more */
    CHECK_CONTAINS(s, "stroke=\"#b45309\" stroke-width=\"1.2\" stroke-dasharray=\"5 4\"");
    CHECK_CONTAINS(s, "fill=\"#b45309\">warn 70</text>");
    CHECK_CONTAINS(s, ">warn 70</text>");
    CHECK_CONTAINS(s, ">crit 90</text>");
    /* summary: min 12.5 avg (12.5+40+55.25+71+88+97.5+96+93+60+42)/10 = 65.53 max 97.5 */
    CHECK_CONTAINS(s, "min 12.5 \xC2\xB7 avg 65.5 \xC2\xB7 max 97.5 %");
    /* the NAN gap splits the line into two runs: exactly two 'M' in the stroke path */
    const char *line = strstr(s, "<path d=\"M");
    REQUIRE(line);
    line = strstr(line + 1, "<path d=\"M"); /* skip the axis path */
    REQUIRE(line);
    line = strstr(line + 1, "<path d=\"M"); /* skip the area */
    REQUIRE(line);
    const char *end = strchr(line + 9, '"');
    int moves = 0;
    for (const char *p = line + 9; p < end; p++)
        moves += *p == 'M';
    CHECK(moves == 2);
    /* per-point hover titles: 10 finite points */
    int titles = 0;
    for (const char *p = strstr(s, "<circle"); p; p = strstr(p + 1, "<circle"))
        titles++;
    CHECK(titles == 10);
    CHECK_CONTAINS(s, "<title>8 s: 97.5 %</title>");
    CHECK_NOT_CONTAINS(s, "<script");
    CHECK_NOT_CONTAINS(s, "id=");
    sb_free(&sb);

    /* hostile title is escaped; large values get a k suffix */
    svg_series_render(r, r->series[1], &sb);
    s = sb_str(&sb);
    CHECK_NOT_CONTAINS(s, "<script");
    CHECK_CONTAINS(s, "Disk &lt;script&gt;x&lt;/script&gt; util (KiB/s)");
    CHECK_CONTAINS(s, "max 150k KiB/s");
    CHECK(xml_wellformed(sb.buf, sb.len) != 0);
    sb_free(&sb);
    report_free(r);
}

TEST(chart_svg_no_data_and_flat)
{
    struct report *r = report_new();
    struct series *s = report_series(r, "x.y", "Empty", "", "cpu");
    for (int i = 0; i < 3; i++) {
        report_add_tick(r, i + 1.0);
        series_set(r, s, NAN);
    }
    struct strbuf sb = STRBUF_INIT;
    svg_series_render(r, s, &sb);
    CHECK_CONTAINS(sb_str(&sb), "no data in this window");
    CHECK(xml_wellformed(sb.buf, sb.len) != 0);
    sb_reset(&sb);
    for (size_t i = 0; i < s->n; i++)
        s->v[i] = 0;
    svg_series_render(r, s, &sb);
    CHECK_CONTAINS(sb_str(&sb), ">1</text>"); /* flat zero: axis 0..1 */
    CHECK_CONTAINS(sb_str(&sb), "min 0 \xC2\xB7 avg 0 \xC2\xB7 max 0");
    sb_free(&sb);
    report_free(r);
}

/* Host text that would be markup, a link, a table or a control sequence if
 * anything parsed it: every place of the model that holds host text gets
 * these, and the page must show them as text. */
static const char *const odd_texts[] = {
    "<script>alert(1)</script>",
    "<img src=x onerror=y>",
    "Inline <b onclick=z>bold</b> text and \x01 control.",
    "[js](javascript:alert(1)) and <http://auto.example/> and ![t](http://e.example/i.png)",
    "| a | b |\n|---|---|\n| 1 | x |",
    "<!-- comment --> <?pi x?> <![CDATA[ y ]]> &lt;ok&gt; &amp; &#0; &#x1F600;",
    "```html\n<script>alert(1)</script>\n```",
    "\xff\xfe bad utf8 \xc3\x28 \x7f \x02 \x1b[31m",
    "# heading\n\n- list <div onclick=\"x\">",
    NULL};

/* Puts s into every host-text place of r. */
static void plant(struct report *r, const char *s, int i)
{
    char name[32];
    snprintf(name, sizeof name, "odd.%d", i);
    struct finding *f = report_add_finding(r, name, SEV_WARNING, "process", s);
    finding_evidence(f, "%s", s);
    f->recommendation = xstrdup(s);
    struct table *t = report_table(r, name, s, "process");
    table_add_col(t, "comm", s, "", -1);
    table_add_col(t, "n", "N", "", 0);
    size_t row = table_add_row(t);
    table_set_str(t, row, "comm", s);
    table_set_num(t, row, "n", i);
    struct ledger_entry *e = report_ledger(r, name, s);
    ledger_set(e, CS_FAILED, s);
    kv_add(&r->host, name, s, s);
    struct use_row *u = report_add_use(r, s);
    use_cell_set(&u->util, SEV_WARNING, "%s", s);
}

/* Whether any tag is one host text could have made: a script, image,
 * frame or object element, an attribute named on..., a reference (href,
 * src, xlink:href) that leaves the page; or a control byte anywhere.
 * Attribute values may hold host text (a heading's anchor), so they are
 * skipped, not searched. */
static bool unsafe(const char *h)
{
    if (strchr(h, '\x01') || strchr(h, '\x1b') || strchr(h, '\x7f'))
        return true;
    for (const char *p = strchr(h, '<'); p; p = strchr(p, '<')) {
        p++;
        if (strncmp(p, "!--", 3) == 0 || strncmp(p, "![CDATA[", 8) == 0 || *p == '!') {
            p++;
            continue;
        }
        static const char *const bad[] = {"script", "img", "iframe", "object", "embed", "b "};
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            if (strncasecmp(p, bad[i], strlen(bad[i])) == 0 &&
                !(i == 0 && strncmp(p, "script>//<![CDATA[", 18) == 0))
                return true;
        while (*p && !isspace((unsigned char)*p) && *p != '>')
            p++;
        for (;;) {
            while (isspace((unsigned char)*p) || *p == '/')
                p++;
            if (!*p || *p == '>')
                break;
            const char *name = p;
            while (*p && !isspace((unsigned char)*p) && *p != '=' && *p != '>')
                p++;
            size_t nl = (size_t)(p - name);
            if (nl >= 2 && strncasecmp(name, "on", 2) == 0)
                return true;
            if (*p != '=')
                continue;
            p++;
            const char *val = p;
            if (*p == '"' || *p == '\'') {
                char q = *p++;
                val = p;
                const char *e = strchr(p, q);
                if (!e)
                    return true;
                p = e + 1;
            } else {
                while (*p && !isspace((unsigned char)*p) && *p != '>')
                    p++;
            }
            bool ref = (nl == 4 && strncasecmp(name, "href", 4) == 0) ||
                       (nl == 3 && strncasecmp(name, "src", 3) == 0) ||
                       (nl == 10 && strncasecmp(name, "xlink:href", 10) == 0);
            if (ref && *val != '#')
                return true;
        }
    }
    return false;
}

TEST(html_tables_charts_from_the_model)
{
    struct report *r = sample_report();
    struct strbuf out = STRBUF_INIT;
    html_document(r, &out);
    const char *h = sb_str(&out);
    /* typed cells: numeric columns right-aligned from the model's numbers */
    CHECK_CONTAINS(h, "<thead><tr><th class=\"num\">PID</th><th>Command</th>"
                      "<th class=\"num\">CPU %</th>");
    CHECK_CONTAINS(h, "<tr><td class=\"num\">1037</td><td>evil|&lt;script&gt;</td>"
                      "<td class=\"num\">48.8</td>");
    /* a long command line keeps a minimum width */
    CHECK_CONTAINS(h, "<td class=\"wide\"><code>/usr/bin/evil --url=http://x.example/a?b=c&amp;d="
                      "&lt;img src=x onerror=y&gt;");
    /* both charts inline, without a namespace URL; no image file referenced */
    CHECK_CONTAINS(h, "<figure class=\"chart\">\n<svg viewBox=\"0 0 640 180\"");
    CHECK_NOT_CONTAINS(h, "chart-cpu.util_pct.svg");
    CHECK_NOT_CONTAINS(h, "xmlns=");
    /* headings carry the anchors the contents line links to */
    CHECK_CONTAINS(h, "<h2 id=\"findings\">Findings</h2>");
    CHECK_CONTAINS(h, "<a href=\"#findings\">Findings</a>");
    CHECK_CONTAINS(h, "<a href=\"#cpu\">CPU</a>");
    /* a section behind the findings: folded, its anchor on its body so a
     * link to it opens it */
    CHECK_CONTAINS(h, "<details class=\"section\"><summary><h2>CPU</h2></summary>\n"
                      "<div class=\"section-body\" id=\"cpu\">");
    CHECK(strstr(h, "<h2 id=\"use-check\">") < strstr(h, "<div class=\"appendix\">"));
    CHECK(!unsafe(h));
    CHECK(xml_wellformed(out.buf, out.len) != 0);
    sb_free(&out);
    report_free(r);
}

/* A cell is coloured by the severity the model gave it, never by its words:
 * a USE cell judged critical is red whatever it says, and a process named
 * "critical" is not. */
TEST(html_severity_class_comes_from_the_model)
{
    struct report *r = sample_report();
    struct use_row *u = report_add_use(r, "CPU");
    use_cell_set(&u->util, SEV_CRITICAL, "97.5%% busy");
    use_cell_set(&u->sat, SEV_NONE, "warning");
    use_cell_set(&u->err, SEV_WARNING, "ok");
    struct table *t = report_find_table(r, "proc.top_cpu");
    table_set_str(t, 0, "comm", "critical");
    struct strbuf out = STRBUF_INIT;
    html_document(r, &out);
    const char *h = sb_str(&out);
    CHECK_CONTAINS(h, "<td class=\"sev sev-critical\"><strong>critical</strong> \xC2\xB7 97.5% busy</td>");
    CHECK_CONTAINS(h, "<td class=\"sev sev-ok\">ok \xC2\xB7 warning</td>");
    CHECK_CONTAINS(h, "<td class=\"sev sev-warning\"><strong>warning</strong> \xC2\xB7 ok</td>");
    CHECK_CONTAINS(h, "<td>critical</td>");
    sb_free(&out);
    report_free(r);
}

TEST(html_document_is_wellformed_and_self_contained)
{
    struct report *r = sample_report();
    for (int i = 0; odd_texts[i]; i++)
        plant(r, odd_texts[i], i);
    struct strbuf out = STRBUF_INIT;
    html_document(r, &out);
    const char *h = sb_str(&out);
    CHECK(strncmp(h, "<!DOCTYPE html>\n<html lang=\"en\">", 31) == 0);
    CHECK_CONTAINS(h, "<meta charset=\"utf-8\" />");
    CHECK_CONTAINS(h, "<meta name=\"viewport\"");
    CHECK_CONTAINS(h, "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:;");
    CHECK_CONTAINS(h, "<title>web-01 &lt;b&gt;&amp;: CPU saturated: 97.5 % busy");
    CHECK_CONTAINS(h, "<header class=\"banner banner-critical\">");
    CHECK_CONTAINS(h, "2023-11-14 22:13:20 UTC");
    /* the banner comes before everything in the body */
    const char *body = strstr(h, "<body>");
    REQUIRE(body);
    CHECK(strstr(body, "<header class=\"banner") == body + 7);
    /* the CSS is inlined */
    CHECK_CONTAINS(h, ".banner-critical");
    CHECK_CONTAINS(h, "<table>");
    CHECK_CONTAINS(h, "<svg viewBox=");
    /* every odd text is there, as text */
    CHECK_CONTAINS(h, "&lt;script&gt;alert(1)&lt;/script&gt;");
    CHECK_CONTAINS(h, "Inline &lt;b onclick=z&gt;bold&lt;/b&gt; text and   control.");
    CHECK_CONTAINS(h, "[js](javascript:alert(1)) and &lt;http://auto.example/&gt;");
    CHECK_CONTAINS(h, "| a | b |");
    CHECK_CONTAINS(h, "&lt;!-- comment --&gt;");
    CHECK_CONTAINS(h, "\xEF\xBF\xBD\xEF\xBF\xBD bad utf8 \xEF\xBF\xBD(");
    CHECK(!unsafe(h));
    CHECK_NOT_CONTAINS(h, "<a href=\"javascript");
    /* nothing that points outside: no URL in any tag (host text may quote a
     * URL, which then shows as plain text), no fetches from CSS */
    CHECK(!tag_has(h, "http:"));
    CHECK(!tag_has(h, "https:"));
    CHECK(!tag_has(h, "//"));
    CHECK(!tag_has(h, "src="));
    CHECK_CONTAINS(h, "--url=http://x.example/a?b=c&amp;d=&lt;img src=x onerror=y&gt;");
    CHECK_NOT_CONTAINS(h, "url(");
    CHECK_NOT_CONTAINS(h, "@import");
    CHECK(xml_wellformed(out.buf, out.len) != 0);
    sb_free(&out);
    report_free(r);
}

TEST(html_headline_not_repeated_after_banner)
{
    struct report *r = sample_report();
    struct strbuf out = STRBUF_INIT;
    html_document(r, &out);
    /* in <title>, in the banner and as finding 1; the verdict paragraph
     * that report.md opens with is not repeated under the banner */
    int seen = 0;
    for (const char *p = strstr(sb_str(&out), "CPU saturated: 97.5"); p;
         p = strstr(p + 1, "CPU saturated: 97.5"))
        seen++;
    CHECK(seen == 3);
    const char *banner_end = strstr(sb_str(&out), "</header>");
    REQUIRE(banner_end);
    /* nor the title: the banner names the host */
    CHECK_NOT_CONTAINS(banner_end, "<h1");
    /* host, window and start are said once, in the banner */
    CHECK_CONTAINS(sb_str(&out), "<p class=\"banner-meta\">Host web-01 &lt;b&gt;&amp; · ");
    CHECK_NOT_CONTAINS(banner_end, "Host web-01");
    int host = 0;
    for (const char *p = strstr(sb_str(&out), "web-01 &lt;b&gt;&amp;"); p;
         p = strstr(p + 1, "web-01 &lt;b&gt;&amp;"))
        host++;
    CHECK(host == 3); /* <title>, the banner and the System facts */
    sb_free(&out);
    report_free(r);
}

TEST(css_asset_is_xml_safe_and_offline)
{
    CHECK(asset_report_css_len > 1000);
    CHECK(!memchr(asset_report_css, '<', asset_report_css_len));
    CHECK(!memchr(asset_report_css, '&', asset_report_css_len));
    CHECK_NOT_CONTAINS(asset_report_css, "url(");
    CHECK_NOT_CONTAINS(asset_report_css, "@import");
    CHECK_NOT_CONTAINS(asset_report_css, "@font-face");
}

struct dir_sink {
    char dir[256];
    int files;
};

static int dir_write(void *ctx, const char *name, const char *data, size_t len)
{
    struct dir_sink *d = ctx;
    char *path = xasprintf("%s/%s", d->dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    free(path);
    if (fd < 0)
        return -errno;
    ssize_t w = write(fd, data, len);
    close(fd);
    if (w != (ssize_t)len)
        return -EIO;
    d->files++;
    return 0;
}

static void rm_dir(const char *dir)
{
    char *cmd = xasprintf("rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "  could not remove %s\n", dir);
    free(cmd);
}

TEST(renderers_registered_and_write_files)
{
    bool html = false, charts = false;
    for (size_t i = 0; renderer_registry[i]; i++) {
        html |= strcmp(renderer_registry[i]->name, "html") == 0;
        charts |= strcmp(renderer_registry[i]->name, "charts") == 0;
    }
    CHECK(html && charts);

    struct report *r = sample_report();
    struct dir_sink d = {.files = 0};
    /* PERFREPORT_HTML_SAMPLE=DIR keeps a rendered sample for tests/browser. */
    const char *keep = getenv("PERFREPORT_HTML_SAMPLE");
    if (keep && *keep) {
        snprintf(d.dir, sizeof d.dir, "%s", keep);
        if (mkdir(d.dir, 0700) != 0 && errno != EEXIST) {
            test_fail(__FILE__, __LINE__, "mkdir %s: %s", d.dir, strerror(errno));
            report_free(r);
            return;
        }
    } else {
        snprintf(d.dir, sizeof d.dir, "/tmp/perfreport-html-XXXXXX");
        REQUIRE(mkdtemp(d.dir));
    }
    struct out_sink sink = {dir_write, &d, NULL};
    CHECK(renderer_charts.render(r, &sink) == 0);
    CHECK(d.files == 2);
    CHECK(renderer_html.render(r, &sink) == 0);
    CHECK(d.files == 3);

    char path[512];
    char name[256];
    chart_filename(r->series[1], name, sizeof name);
    CHECK_STR(name, "chart-disk.v_d_a.util_pct.svg");
    snprintf(path, sizeof path, "%s/%s", d.dir, name);
    size_t len = 0;
    char *svg = test_slurp(path, &len);
    CHECK(svg && strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    CHECK(svg && xml_wellformed(svg, len) != 0);
    free(svg);

    snprintf(path, sizeof path, "%s/index.html", d.dir);
    char *html_text = test_slurp(path, &len);
    REQUIRE(html_text);
    CHECK_CONTAINS(html_text, "<header class=\"banner banner-critical\">");
    CHECK_CONTAINS(html_text, "CPU saturated: 97.5 % busy for 4 of 12 s (critical &gt;= 90 %)");
    /* the finding whose title carries markup shows it as text */
    CHECK_CONTAINS(html_text, "&lt;img src=x onerror=alert(1)&gt;");
    CHECK(!tag_has(html_text, "onerror"));
    /* both charted series are inline */
    int svgs = 0;
    for (const char *p = strstr(html_text, "<svg "); p; p = strstr(p + 1, "<svg "))
        svgs++;
    CHECK(svgs == 2);
    CHECK_CONTAINS(html_text, "<td>evil|&lt;script&gt;</td>");
    CHECK_CONTAINS(html_text, "<td class=\"num\">97.5</td>");
    CHECK(xml_wellformed(html_text, len) != 0);
    free(html_text);
    if (!(keep && *keep))
        rm_dir(d.dir);
    report_free(r);
}

/* Each odd text alone in a report: the page stays well-formed and safe
 * wherever it lands. */
TEST(html_odd_host_text_stays_safe_and_wellformed)
{
    for (int i = 0; odd_texts[i]; i++) {
        struct report *r = sample_report();
        plant(r, odd_texts[i], i);
        struct strbuf out = STRBUF_INIT;
        html_document(r, &out);
        const char *h = sb_str(&out);
        if (unsafe(h) || xml_wellformed(out.buf, out.len) == 0)
            test_fail(__FILE__, __LINE__, "case %d unsafe or not well-formed", i);
        sb_free(&out);
        report_free(r);
    }
}

/* ---- the flame graphs' legend: kinds told apart ------------------------------ */

static double srgb_lin(int c)
{
    double v = c / 255.0;
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

/* WCAG relative luminance and hue (degrees) of "rgb(r,g,b)". */
static void rgb_of(const char *s, double *lum, double *hue)
{
    int r = 0, g = 0, b = 0;
    CHECK(sscanf(s, "rgb(%d,%d,%d)", &r, &g, &b) == 3);
    *lum = 0.2126 * srgb_lin(r) + 0.7152 * srgb_lin(g) + 0.0722 * srgb_lin(b);
    double mx = fmax(r, fmax(g, b)), mn = fmin(r, fmin(g, b)), d = mx - mn, h = 0;
    if (d > 0)
        h = mx == r ? fmod((g - b) / d, 6) : mx == g ? (b - r) / d + 2 : (r - g) / d + 4;
    *hue = fmod(h * 60 + 360, 360);
}

/* The legend's user and kernel swatches (the graph keeps its light
 * background in dark mode too, so one measure covers both): 1.2:1 in
 * luminance at least and 90 degrees apart in hue, in every palette that
 * paints by kind.  The off-CPU graph's (io) were violet beside blue: 1.48:1
 * and 32 degrees apart; now amber, 2.40:1 and 159 degrees. */
TEST(flame_legend_user_kernel_distinct)
{
    static const char *const palettes[] = {"hot", "io", "mem", "kernel"};
    for (size_t i = 0; i < sizeof palettes / sizeof palettes[0]; i++) {
        struct flame_colorer c;
        char user[32], kern[32];
        flame_colorer_init(&c, palettes[i], FLAME_SHADE_NAME, 0);
        flame_frame_color(&c, "legend", FRAME_USER, false, user, sizeof user);
        flame_frame_color(&c, "legend", FRAME_KERNEL, false, kern, sizeof kern);
        double lu, hu, lk, hk;
        rgb_of(user, &lu, &hu);
        rgb_of(kern, &lk, &hk);
        double ratio = (fmax(lu, lk) + 0.05) / (fmin(lu, lk) + 0.05);
        double dh = fabs(hu - hk);
        if (dh > 180)
            dh = 360 - dh;
        if (!(ratio >= 1.2 && dh >= 90) && strcmp(palettes[i], "kernel") != 0)
            fprintf(stderr, "  %s: user %s, kernel %s: %.2f:1, %.0f degrees apart\n", palettes[i],
                    user, kern, ratio, dh);
        if (strcmp(palettes[i], "kernel") != 0) /* one hue for all: no legend of kinds to read */
            CHECK(ratio >= 1.2 && dh >= 90);
    }
}
