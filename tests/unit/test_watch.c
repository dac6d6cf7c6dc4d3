/* perfreport watch: the --when parser, the conditions judged on synthetic
 * readings, the cooldown and hourly cap, and a real PSI trigger armed. */
#include "harness.h"
#include "rule_util.h"
#include "test_util.h"
#include "../../src/analyze/analyze.h"
#include "../../src/codec/report_json.h"
#include "../../src/model/model.h"
#include "../../src/render/renderer.h"
#include "../../src/util/xalloc.h"
#include "../../src/watch/cond.h"
#include "../../src/watch/gov.h"
#include "../../src/watch/psi_trigger.h"
#include "../../src/watch/ring.h"
#include "../../src/render/charts.h"
#include "../../src/util/strbuf.h"
#include <string.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

static int parse(const char *s, struct watch_cond *c, char *err, size_t n)
{
    err[0] = '\0';
    return watch_cond_parse(s, c, err, n);
}

TEST(watch_cond_parse_good)
{
    struct watch_cond c;
    char err[256], trig[64];
    REQUIRE(parse("cpu.util_pct>90 for 10s", &c, err, sizeof err) == 0);
    CHECK(c.src == WSRC_CPU_UTIL);
    CHECK_NUM(c.threshold, 90, 0);
    CHECK_NUM(c.for_s, 10, 0);
    CHECK(!c.or_equal);
    CHECK_STR(c.text, "cpu.util_pct>90 for 10s");

    REQUIRE(parse("  cpu.util_pct >= 85.5% \tfor 2m ", &c, err, sizeof err) == 0);
    CHECK(c.or_equal);
    CHECK_NUM(c.threshold, 85.5, 1e-12);
    CHECK_NUM(c.for_s, 120, 0);
    CHECK_STR(c.text, "cpu.util_pct>=85.5 for 120s");

    REQUIRE(parse("cpu.util_pct>70", &c, err, sizeof err) == 0);
    CHECK_NUM(c.for_s, 0, 0); /* one sample */
    CHECK_STR(c.text, "cpu.util_pct>70");

    /* PSI: the window defaults to avg10's 10 s; stall and window in us */
    REQUIRE(parse("psi.memory.some>20", &c, err, sizeof err) == 0);
    CHECK(c.src == WSRC_PSI && c.psi_res == WATCH_PSI_MEMORY && !c.psi_full);
    CHECK_STR(watch_psi_res_name(c.psi_res), "memory");
    CHECK_STR(c.text, "psi.memory.some>20 for 10s");
    watch_psi_trigger_text(&c, trig, sizeof trig);
    CHECK_STR(trig, "some 2000000 10000000");

    REQUIRE(parse("psi.io.full>5 for 500ms", &c, err, sizeof err) == 0);
    CHECK(c.psi_res == WATCH_PSI_IO && c.psi_full);
    watch_psi_trigger_text(&c, trig, sizeof trig);
    CHECK_STR(trig, "full 25000 500000");

    /* a tiny share still waits for some stall, never for none */
    REQUIRE(parse("psi.cpu.some>0.00001 for 1s", &c, err, sizeof err) == 0);
    watch_psi_trigger_text(&c, trig, sizeof trig);
    CHECK_STR(trig, "some 1 1000000");

    REQUIRE(parse("memory.oom", &c, err, sizeof err) == 0);
    CHECK(c.src == WSRC_OOM);
    CHECK_STR(c.text, "memory.oom");
}

/* Each bad expression is refused with a message quoting the bad part. */
TEST(watch_cond_parse_refuses)
{
    static const struct {
        const char *expr, *msg;
    } bad[] = {
        {"", "'(end)': expected a condition name"},
        {"cpu.util>90", "'cpu.util': unknown condition"},
        {"cpu.util_pctx>90", "'cpu.util_pctx': unknown condition"},
        {"psi.memory.avg10>20", "'psi.memory.avg10': unknown condition"},
        {"cpu.util_pct", "'(end)': expected '>'"},
        {"cpu.util_pct<90", "'<90': expected '>'"},
        {"cpu.util_pct>>90", "'>90': expected a percentage"},
        {"cpu.util_pct>", "'(end)': expected a percentage"},
        {"cpu.util_pct>90x", "'90x': expected a percentage"},
        {"cpu.util_pct>nan", "'nan': expected a percentage"},
        {"cpu.util_pct>1e999", "'1e999': expected a percentage"},
        {"cpu.util_pct>100", "'100': a threshold is from 0 to below 100 %"},
        {"psi.memory.some>0", "'0': a PSI threshold is above 0"},
        {"psi.memory.some>20 for 30s", "'30s': a PSI window is 0.5 to 10 s"},
        {"psi.memory.some>20 for 100ms", "'100ms': a PSI window is 0.5 to 10 s"},
        {"cpu.util_pct>90 for 2h", "'2h': expected a duration"},
        {"cpu.util_pct>90 for 10parsecs", "'10parsecs': expected a duration"},
        {"cpu.util_pct>90 for 2 hours", "'hours': unexpected text"},
        {"cpu.util_pct>90 for 61m", "'61m': at most 3600 s"},
        {"cpu.util_pct>90 for", "'for': unexpected text"},
        {"cpu.util_pct>90 and more", "'and more': unexpected text"},
        {"memory.oom>0", "'>0': memory.oom is an event"},
        {"memory.oom for 10s", "'for 10s': memory.oom is an event"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct watch_cond c;
        char err[256];
        if (parse(bad[i].expr, &c, err, sizeof err) != -1)
            test_fail(__FILE__, __LINE__, "'%s' was accepted", bad[i].expr);
        else if (!strstr(err, bad[i].msg))
            test_fail(__FILE__, __LINE__, "'%s': message \"%s\", expected \"%s\"", bad[i].expr,
                      err, bad[i].msg);
    }
    /* a long bad part is cut, not copied whole */
    char longexpr[300];
    memset(longexpr, 'a', sizeof longexpr - 1);
    longexpr[sizeof longexpr - 1] = '\0';
    struct watch_cond c;
    char err[256];
    CHECK(parse(longexpr, &c, err, sizeof err) == -1);
    CHECK(strlen(err) < 200);
}

/* Readings at 1 Hz over (t-1, t]: "for 10s" fires after the tenth reading
 * above, once per excursion. */
TEST(watch_cond_feed_for_duration)
{
    struct watch_cond c;
    char err[256];
    REQUIRE(parse("cpu.util_pct>90 for 10s", &c, err, sizeof err) == 0);
    struct watch_cond_state s;
    watch_cond_state_init(&s);
    int fired_at[8], nfired = 0;
    for (int t = 1; t <= 40; t++) {
        double v = t <= 9 ? 95 : t == 10 ? 50 : t <= 25 ? 99 : t == 26 ? NAN : 91;
        if (watch_cond_feed(&c, &s, t - 1, t, v) && nfired < 8)
            fired_at[nfired++] = t;
    }
    /* 1-9: nine seconds above, then a dip: nothing.  11-25: fires at 20
     * (ten seconds since 10), not again while above.  26 unreadable ends
     * the excursion; 27-40 fires at 36. */
    REQUIRE(nfired == 2);
    CHECK(fired_at[0] == 20);
    CHECK(fired_at[1] == 36);

    /* at the threshold: '>' waits, '>=' fires */
    REQUIRE(parse("cpu.util_pct>90", &c, err, sizeof err) == 0);
    watch_cond_state_init(&s);
    CHECK(!watch_cond_feed(&c, &s, 0, 1, 90));
    CHECK(watch_cond_feed(&c, &s, 1, 2, 90.1));
    CHECK(!watch_cond_feed(&c, &s, 2, 3, 99)); /* same excursion */
    REQUIRE(parse("cpu.util_pct>=90", &c, err, sizeof err) == 0);
    watch_cond_state_init(&s);
    CHECK(watch_cond_feed(&c, &s, 0, 1, 90));

    /* readings a little early still count the seconds asked for */
    REQUIRE(parse("cpu.util_pct>50 for 3s", &c, err, sizeof err) == 0);
    watch_cond_state_init(&s);
    CHECK(!watch_cond_feed(&c, &s, 0, 1.0005, 60));
    CHECK(!watch_cond_feed(&c, &s, 1.0005, 2.0, 60));
    CHECK(watch_cond_feed(&c, &s, 2.0, 2.9995, 60));
}

TEST(watch_cond_feed_oom)
{
    struct watch_cond c;
    char err[256];
    REQUIRE(parse("memory.oom", &c, err, sizeof err) == 0);
    struct watch_cond_state s;
    watch_cond_state_init(&s);
    CHECK(!watch_cond_feed(&c, &s, 0, 1, 0));
    CHECK(watch_cond_feed(&c, &s, 1, 2, 1));
    CHECK(watch_cond_feed(&c, &s, 2, 3, 2)); /* every kill is an event */
    CHECK(!watch_cond_feed(&c, &s, 3, 4, NAN));
}

TEST(watch_gov_cooldown_and_cap)
{
    struct watch_gov g;
    double until;
    watch_gov_init(&g, 300, 2);
    CHECK(watch_gov_decide(&g, 100, &until) == WATCH_CAPTURE);
    watch_gov_started(&g, 100);
    watch_gov_ended(&g, 130);
    /* the cooldown runs from the capture's end */
    CHECK(watch_gov_decide(&g, 200, &until) == WATCH_COOLDOWN);
    CHECK_NUM(until, 430, 1e-9);
    CHECK(watch_gov_decide(&g, 430, &until) == WATCH_CAPTURE);
    watch_gov_started(&g, 430);
    watch_gov_ended(&g, 460);
    /* two started within the hour: the cap, until the first is an hour old */
    CHECK(watch_gov_decide(&g, 800, &until) == WATCH_HOURLY_CAP);
    CHECK_NUM(until, 3700, 1e-9);
    CHECK(watch_gov_decide(&g, 3699.5, &until) == WATCH_HOURLY_CAP);
    CHECK(watch_gov_decide(&g, 3700, &until) == WATCH_CAPTURE);
    CHECK_STR(watch_verdict_name(WATCH_HOURLY_CAP), "max-per-hour");

    /* no cooldown: back to back, up to the cap */
    watch_gov_init(&g, 0, 3);
    for (int i = 0; i < 3; i++) {
        CHECK(watch_gov_decide(&g, i, NULL) == WATCH_CAPTURE);
        watch_gov_started(&g, i);
        watch_gov_ended(&g, i + 0.5);
    }
    CHECK(watch_gov_decide(&g, 3, NULL) == WATCH_HOURLY_CAP);
}

/* The kernel takes the trigger lines we write (a line cut short or a
 * window past its limits is refused with EINVAL). */
TEST(watch_psi_trigger_armed)
{
    if (geteuid() != 0 || access("/proc/pressure/memory", F_OK) != 0) {
        test_skip("needs root and /proc/pressure");
        return;
    }
    /* windows of whole 2 s: the kernel's rule without CAP_SYS_RESOURCE */
    static const char *const exprs[] = {"psi.memory.some>20", "psi.io.full>5 for 2s",
                                        "psi.cpu.some>99.9 for 4s"};
    for (size_t i = 0; i < sizeof exprs / sizeof exprs[0]; i++) {
        struct watch_cond c;
        char err[256];
        REQUIRE(parse(exprs[i], &c, err, sizeof err) == 0);
        int fd = psi_trigger_open(&c, err, sizeof err);
        if (fd < 0) {
            test_fail(__FILE__, __LINE__, "%s: %s", exprs[i], err);
            continue;
        }
        struct pollfd p = {.fd = fd, .events = POLLPRI};
        CHECK(poll(&p, 1, 0) >= 0);
        CHECK(!(p.revents & (POLLERR | POLLNVAL)));
        close(fd);
    }
    /* the cpu avg10 of the reason is a share */
    struct watch_cond c;
    char err[256];
    REQUIRE(parse("psi.cpu.some>10", &c, err, sizeof err) == 0);
    double v = psi_trigger_avg10(&c);
    CHECK(v >= 0 && v <= 100);
}

/* The reason a watch capture records: said under the title of report.md
 * and index.html, kept through report.json, and as hostile as any host
 * text when a bundle is read back. */
TEST(watch_trigger_in_report)
{
    static const char *reason = "psi.memory.some>20 for 10s: avg10 34.0 % at 2026-11-27 "
                                "12:03:04 +0000 <script>x</script> [l](javascript:x)";
    struct report *r = report_new();
    r->tool_version = xstrdup("0.1.0");
    r->window.planned_s = r->window.actual_s = 3;
    r->window.interval_s = 1;
    r->window.target = xstrdup("system-wide");
    kv_add(&r->host, "hostname", "Host name", "web-1");
    kv_add(&r->host, "trigger", "Triggered by", reason);
    struct mem_sink m = {0};
    struct out_sink out = {mem_sink_write, &m, NULL};
    for (size_t i = 0; renderer_registry[i]; i++)
        CHECK(renderer_registry[i]->render(r, &out) == 0);
    const char *md = mem_get(&m, "report.md"), *html = mem_get(&m, "index.html");
    REQUIRE(md && html);
    CHECK_CONTAINS(md, "**Triggered by** psi.memory.some");
    CHECK_CONTAINS(md, "20 for 10s: avg10 34.0 % at 2026-11-27 12:03:04 +0000");
    CHECK_CONTAINS(html, "<strong>Triggered by</strong> psi.memory.some&gt;20 for 10s");
    CHECK_NOT_CONTAINS(html, "<script>x");
    CHECK_NOT_CONTAINS(md, "[l](javascript:x)");
    char *js = test_report_json(r);
    REQUIRE(js);
    struct report *back = test_report_parse(js);
    REQUIRE(back);
    CHECK_STR(kv_get(&back->host, "trigger"), reason);
    report_free(back);
    free(js);
    mem_free(&m);
    report_free(r);
}

/* A staging report of one tick with series a (value v) and b (2v). */
static void stage(struct report *r, double v)
{
    report_clear_ticks(r);
    report_add_tick(r, 0);
    series_set(r, report_series(r, "a", "A", "%", "cpu"), v);
    series_set(r, report_series(r, "b", "B", "/s", "disk"), 2 * v);
}

/* The ring keeps the last `before` samples, oldest first, and puts them in
 * front of a window on its clock: ticks before 0, values where they
 * belong, a series only the ring had made, the window's own untouched. */
TEST(watch_ring_prepend_before_window)
{
    struct watch_ring ring;
    REQUIRE(watch_ring_init(&ring, 5) == 0);
    struct report *st = report_new();
    for (int k = 0; k < 8; k++) { /* samples at 100..107 s: 103..107 kept */
        stage(st, k);
        watch_ring_push(&ring, 100.0 + k, st);
    }
    CHECK(ring.n == 5);
    struct report *r = report_new();
    r->window.interval_s = 1;
    report_add_tick(r, 1);
    series_set(r, report_series(r, "a", "A", "%", "cpu"), 50);
    report_add_tick(r, 2);
    series_set(r, report_series(r, "a", "A", "%", "cpu"), 60);
    /* window t = 0 at 108.5 s: the samples are at -5.5 .. -1.5 */
    CHECK(watch_ring_prepend(&ring, r, 108.5, 0) == 5);
    REQUIRE(r->nticks == 7);
    CHECK_NUM(r->ticks[0], -5.5, 1e-9);
    CHECK_NUM(r->ticks[4], -1.5, 1e-9);
    CHECK_NUM(r->ticks[5], 1, 0);
    const struct series *a = report_find_series(r, "a"), *b = report_find_series(r, "b");
    REQUIRE(a && b);
    CHECK(a->n == 7 && b->n == 7);
    CHECK_NUM(a->v[0], 3, 0);
    CHECK_NUM(a->v[4], 7, 0);
    CHECK_NUM(a->v[5], 50, 0);
    CHECK_NUM(a->v[6], 60, 0);
    CHECK_NUM(b->v[0], 6, 0);
    CHECK(isnan(b->v[5]) && isnan(b->v[6]));
    CHECK_STR(b->hdr.unit, "/s");
    CHECK(r->ngaps == 0); /* one a second, and the start-up is not a gap */
    /* samples at or before t_from are left out */
    struct report *r2 = report_new();
    report_add_tick(r2, 1);
    CHECK(watch_ring_prepend(&ring, r2, 108.5, 105.0) == 2);
    CHECK(r2->nticks == 3);
    watch_ring_clear(&ring);
    CHECK(watch_ring_prepend(&ring, r2, 108.5, 0) == 0);
    report_free(r2);
    report_free(r);
    report_free(st);
    watch_ring_free(&ring);
}

/* The ring's memory is fixed at start: more series than it holds are
 * counted and left out, --before beyond the limit is refused, 0 keeps
 * nothing. */
TEST(watch_ring_bounded)
{
    struct watch_ring ring;
    CHECK(watch_ring_init(&ring, WATCH_BEFORE_MAX_S + 1) != 0);
    REQUIRE(watch_ring_init(&ring, 0) == 0);
    struct report *st = report_new();
    stage(st, 1);
    watch_ring_push(&ring, 1, st);
    CHECK(ring.n == 0);
    REQUIRE(watch_ring_init(&ring, 3) == 0);
    report_free(st);
    st = report_new();
    report_add_tick(st, 0);
    for (int i = 0; i < WATCH_RING_MAX_SERIES + 10; i++) {
        char name[32];
        snprintf(name, sizeof name, "s%d", i);
        series_set(st, report_series(st, name, name, "", "disk"), i);
    }
    for (int k = 0; k < 10; k++)
        watch_ring_push(&ring, k, st);
    CHECK(ring.nseries == WATCH_RING_MAX_SERIES);
    CHECK(ring.series_left_out == 100);
    CHECK(ring.n == 3);
    report_free(st);
    watch_ring_free(&ring);
}

/* The trigger on every chart: a line at its moment, the reason (host
 * text, escaped) as its title, the axis from the first tick before 0; and
 * trigger_s kept through report.json. */
TEST(watch_trigger_marked_on_charts)
{
    struct report *r = report_new();
    r->tool_version = xstrdup("0.1.0");
    r->window.planned_s = r->window.actual_s = 2;
    r->window.interval_s = 1;
    r->window.target = xstrdup("system-wide");
    kv_add(&r->host, "trigger", "Triggered by", "cpu.util_pct>90: 97 % <b>x</b>");
    double pre[] = {-4, -3, -2};
    report_add_tick(r, 1);
    struct series *s = report_series(r, "cpu.util_pct", "CPU utilisation", "%", "cpu");
    s->chart = true;
    series_set(r, s, 95);
    report_add_tick(r, 2);
    series_set(r, s, 96);
    report_prepend_ticks(r, pre, 3);
    s->v[0] = 1, s->v[1] = 2, s->v[2] = 93;
    r->window.triggered = true;
    r->window.trigger_s = -2;
    struct strbuf sb = STRBUF_INIT;
    svg_series_render(r, s, &sb);
    const char *svg = sb_str(&sb);
    CHECK_CONTAINS(svg, ">trigger</text><title>Triggered by cpu.util_pct&gt;90: 97 % &lt;b&gt;");
    CHECK_NOT_CONTAINS(svg, "<b>x");
    CHECK_CONTAINS(svg, "<title>window open</title>");
    /* the first tick (-4) at the plot's left edge, the trigger 2/6 along */
    CHECK_CONTAINS(svg, "<line x1=\"244.0\" y1=\"28.0\" x2=\"244.0\"");
    /* the heat map's clock is the plot's: from -4, not from 0 */
    CHECK_CONTAINS(svg, " data-t0=\"-4\" data-t1=\"2\" ");
    /* the heading summarises the window (95, 96), not the 1 and 2 before */
    CHECK_CONTAINS(svg, ">window: min 95 \xC2\xB7 avg 95.5 \xC2\xB7 max 96 %</text>");
    CHECK_CONTAINS(svg, "<title>CPU utilisation (%): window: min 95, avg 95.5, max 96</title>");
    sb_free(&sb);
    char *js = test_report_json(r);
    REQUIRE(js);
    CHECK_CONTAINS(js, "\"trigger_s\": -2");
    struct report *back = test_report_parse(js);
    REQUIRE(back);
    CHECK(back->window.triggered);
    CHECK_NUM(back->window.trigger_s, -2, 0);
    CHECK(back->nticks == 5);
    CHECK_NUM(back->ticks[0], -4, 0);
    report_free(back);
    free(js);
    report_free(r);
}

/* The high-water mark: within the cooldown a trigger of the same kind
 * captures only when at least a tenth worse than the last capture of it;
 * another kind does not; the hourly cap still holds. */
TEST(watch_gov_high_water)
{
    struct watch_gov g;
    double until;
    watch_gov_init(&g, 300, 3);
    CHECK(watch_gov_decide_kind(&g, 100, 0, 30, &until) == WATCH_CAPTURE);
    watch_gov_started_kind(&g, 100, 0, 30);
    watch_gov_ended(&g, 130);
    CHECK(watch_gov_decide_kind(&g, 140, 0, 30, &until) == WATCH_COOLDOWN);
    CHECK_NUM(until, 430, 0);
    CHECK(watch_gov_decide_kind(&g, 140, 0, 32.9, NULL) == WATCH_COOLDOWN);
    CHECK(watch_gov_decide_kind(&g, 140, 0, NAN, NULL) == WATCH_COOLDOWN);
    CHECK(watch_gov_decide_kind(&g, 140, 1, 99, NULL) == WATCH_COOLDOWN); /* no capture of kind 1 yet */
    CHECK(watch_gov_decide_kind(&g, 140, 0, 33, NULL) == WATCH_CAPTURE);
    watch_gov_started_kind(&g, 140, 0, 45);
    watch_gov_ended(&g, 170);
    CHECK(watch_gov_decide_kind(&g, 180, 0, 46, NULL) == WATCH_COOLDOWN); /* the mark is 45 now */
    CHECK(watch_gov_decide_kind(&g, 180, 0, 60, NULL) == WATCH_CAPTURE);
    watch_gov_started_kind(&g, 180, 0, 60);
    watch_gov_ended(&g, 200);
    /* three in the hour: even a worse one waits */
    CHECK(watch_gov_decide_kind(&g, 210, 0, 99, &until) == WATCH_HOURLY_CAP);
    CHECK_NUM(until, 3700, 0);
}

/* A finding list as text: id, severity, title, evidence and rank, one
 * finding a line, to compare two judgements whole. */
static char *findings_text(const struct report *r)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < r->nfindings; i++) {
        const struct finding *f = &r->findings[i];
        sb_addf(&sb, "%s %d %.6g %s", f->id, (int)f->sev, f->score, f->title);
        for (size_t k = 0; k < f->nevidence; k++)
            sb_addf(&sb, " | %s", f->evidence[k]);
        sb_addc(&sb, '\n');
    }
    return sb_detach(&sb);
}

/* A report of a `secs` s window at one tick a second, as a capture writes
 * it, with the charted series cpu.util_pct in *cpu (no ticks yet). */
static struct report *window_report(double secs, struct series **cpu)
{
    struct report *r = report_new();
    r->tool_version = xstrdup("0.1.0");
    r->window.planned_s = r->window.actual_s = secs;
    r->window.interval_s = 1;
    r->window.target = xstrdup("system-wide");
    *cpu = report_series(r, "cpu.util_pct", "CPU utilisation", "%", "cpu");
    (*cpu)->chart = true;
    return r;
}

/* A watch capture as the pipeline makes it: a 10 s window of 10 ticks with
 * the CPU at 97 % and a task in D state through all of it, judged; then
 * (capture_analysed) 40 samples from before the trigger at 5 % put in
 * front, the trigger 1 s before the window. */
static struct report *watch_capture(void)
{
    static const char *const dcols[] = {"pid", "tid", "comm", "ticks_in_d", "stuck_s",
                                        "stuck_ticks", "at_end", "wchan", "fs", "fs_kind",
                                        "mount", "mount_how", "fstype", NULL};
    struct series *u;
    struct report *r = window_report(10, &u);
    for (int i = 1; i <= 10; i++) {
        report_add_tick(r, i);
        series_set(r, u, 97);
    }
    report_metric(r, "cpu.count", "CPUs", "", "cpu", 2);
    report_metric(r, "cpu.util_pct", "CPU utilisation", "%", "cpu", 97);
    report_metric(r, "cpu.runq_per_cpu", "", "", "cpu", 0.1);
    struct table *t = report_table(r, "proc.dstate", "tasks in D", "process");
    for (const char *const *c = dcols; *c; c++)
        table_add_col(t, *c, *c, "", 0);
    size_t row = table_add_row(t);
    table_set_num(t, row, "pid", 800);
    table_set_num(t, row, "tid", 800);
    table_set_str(t, row, "comm", "walker");
    table_set_num(t, row, "ticks_in_d", 10);
    table_set_num(t, row, "stuck_s", 9.5);
    table_set_num(t, row, "stuck_ticks", 10);
    table_set_num(t, row, "at_end", 1);
    table_set_str(t, row, "wchan", "request_wait_answer");
    table_set_str(t, row, "fs", "fuse");
    table_set_str(t, row, "fs_kind", "fuse");
    table_set_str(t, row, "mount", "/mnt/fz");
    table_set_str(t, row, "mount_how", "path");
    table_set_str(t, row, "fstype", "fuse.sshfs");
    analyze_run(r);
    r->window.triggered = true;
    r->window.trigger_s = -1;
    r->window.trigger_what = xstrdup("cpu.util_pct 97 % at 12:03:04 UTC");
    double pre[40];
    for (int k = 0; k < 40; k++)
        pre[k] = k - 40;
    report_prepend_ticks(r, pre, 40);
    for (int k = 0; k < 40; k++)
        u->v[k] = 5;
    rank_headline(r);
    return r;
}

/* A watch bundle judged again (render, diff and history read report.json
 * and run the analysis) says what the capture said: the samples before the
 * trigger are charted, not judged ("10 of 10 samples", not "of 50"; the D
 * state through the whole window stays critical), and the headline keeps
 * its trigger sentence. */
TEST(watch_bundle_judged_again_as_captured)
{
    struct report *r = watch_capture();
    REQUIRE(r->headline);
    CHECK_CONTAINS(r->headline, "Triggered by cpu.util_pct 97 % at 12:03:04 UTC; 39 s before, "
                                "11 s after.");
    const struct finding *cpu = report_find_finding(r, "cpu.saturation");
    REQUIRE(cpu);
    CHECK(evidence_has(r, "cpu.saturation", "in 10 of 10 samples"));
    CHECK(sev_of(r, "proc.uninterruptible") == SEV_CRITICAL);
    char *js = test_report_json(r);
    REQUIRE(js);
    CHECK_CONTAINS(js, "\"trigger\": \"cpu.util_pct 97 % at 12:03:04 UTC\"");
    struct report *back = test_report_parse(js);
    REQUIRE(back);
    CHECK(back->nticks == 50);
    CHECK(report_window_first_tick(back) == 40);
    char err[256];
    REQUIRE(thresholds_load(back, NULL, err, sizeof err) == 0);
    analyze_run(back); /* as bundle_load_judged */
    CHECK_STR(back->headline, r->headline);
    char *a = findings_text(r), *b = findings_text(back);
    CHECK_STR(b, a);
    CHECK(evidence_has(back, "cpu.saturation", "in 10 of 10 samples"));
    CHECK(sev_of(back, "proc.uninterruptible") == SEV_CRITICAL);
    CHECK(evidence_has(back, "proc.uninterruptible", "through 10 of the window's 10 ticks"));
    free(a);
    free(b);
    report_free(back);
    free(js);
    report_free(r);
}

/* The gaps of a watch bundle read back are the capture's: none between the
 * samples from before the trigger and the window (4 s apart at a 1 s
 * interval), the window's own late first tick still one, and no tick
 * before the window is said to end one.  Ticks before 0 without a trigger
 * are refused. */
TEST(watch_bundle_gaps_read_back)
{
    struct series *s;
    struct report *r = window_report(6, &s);
    const double win[] = {3.5, 4.5, 5.5}; /* the first 3.5 s after the start: a gap */
    for (size_t i = 0; i < 3; i++) {
        report_add_tick(r, win[i]);
        series_set(r, s, 50);
    }
    REQUIRE(r->ngaps == 1);
    const double pre[] = {-7, -6, -5};
    report_prepend_ticks(r, pre, 3);
    r->window.triggered = true;
    r->window.trigger_s = -5;
    r->window.trigger_what = xstrdup("cpu.util_pct 95 % at 12:03:04 UTC");
    for (size_t i = 0; i < 3; i++)
        s->v[i] = 10;
    CHECK(r->ngaps == 1);
    for (size_t i = 0; i < r->nticks; i++)
        CHECK(report_gap_before(r, i) == (i == 3));
    char *js = test_report_json(r);
    REQUIRE(js);
    struct report *back = test_report_parse(js);
    REQUIRE(back);
    CHECK(back->ngaps == 1);
    CHECK_NUM(back->gaps[0].start_s, 0, 0);
    CHECK_NUM(back->gaps[0].len_s, 3.5, 0);
    for (size_t i = 0; i < back->nticks; i++)
        CHECK(report_gap_before(back, i) == (i == 3));
    report_free(back);
    free(js);
    /* the same ticks with no trigger: refused */
    r->window.triggered = false;
    js = test_report_json(r);
    REQUIRE(js);
    CHECK_NOT_CONTAINS(js, "trigger");
    back = NULL;
    char err[512] = "";
    CHECK(report_from_json(js, strlen(js), &back, err, sizeof err) != 0);
    CHECK(back == NULL);
    CHECK_CONTAINS(err, "series.ticks[0] is -7, before the window, in a bundle with no");
    report_free(back);
    free(js);
    report_free(r);
}

/* A staging report of one tick with `n` series named PREFIX0.. at value v. */
static void stage_many(struct report *st, const char *prefix, int n, double v)
{
    report_clear_ticks(st);
    report_add_tick(st, 0);
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "%s%d", prefix, i);
        series_set(st, report_series(st, name, name, "", "disk"), v);
    }
}

/* Device churn: the places of series whose values have all left the ring
 * go to new ones (a set of 128 disks gone, 128 new ones kept once the old
 * ones' last values are overwritten), the values left out meanwhile are
 * said in the capture's ledger, and a clear forgets the series. */
TEST(watch_ring_reclaims_gone_series)
{
    struct watch_ring ring;
    REQUIRE(watch_ring_init(&ring, 3) == 0);
    struct report *old = report_new(), *neu = report_new();
    for (int k = 0; k < 5; k++) { /* pushes 0..4: a0..a127 */
        stage_many(old, "a", WATCH_RING_MAX_SERIES, 1);
        watch_ring_push(&ring, 100 + k, old);
    }
    for (int k = 5; k < 15; k++) { /* pushes 5..14: b0..b127 only */
        stage_many(neu, "b", WATCH_RING_MAX_SERIES, 2);
        watch_ring_push(&ring, 100 + k, neu);
    }
    /* pushes 5 and 6 had no room (a's last values still kept), push 7
     * overwrote them */
    CHECK(ring.series_left_out == 2 * WATCH_RING_MAX_SERIES);
    CHECK(ring.nseries == WATCH_RING_MAX_SERIES);
    struct report *r = report_new();
    r->window.interval_s = 1;
    report_add_tick(r, 1);
    CHECK(watch_ring_prepend(&ring, r, 115, 0) == 3); /* pushes 12..14 */
    const struct series *b = report_find_series(r, "b127");
    REQUIRE(b);
    CHECK_NUM(b->v[0], 2, 0);
    CHECK_NUM(b->v[2], 2, 0);
    CHECK(report_find_series(r, "a0") == NULL);
    const struct ledger_entry *e = NULL;
    for (size_t i = 0; i < r->nledger; i++)
        if (strcmp(r->ledger[i].name, WATCH_RING_LEDGER) == 0)
            e = &r->ledger[i];
    REQUIRE(e && e->notes);
    CHECK_CONTAINS(e->notes, "256 values of series beyond the 128 the ring holds");
    CHECK(e->status == CS_RAN);
    watch_ring_clear(&ring);
    CHECK(ring.nseries == 0 && ring.series_left_out == 0 && ring.n == 0);
    stage_many(old, "c", 2, 3);
    watch_ring_push(&ring, 200, old);
    CHECK(ring.nseries == 2);
    report_free(r);
    report_free(old);
    report_free(neu);
    watch_ring_free(&ring);
}

/* The charted collectors started afresh forget the devices they saw: a
 * series of an interface gone (planted in the staging report, as the net
 * collector leaves one) is not in the new one, and sampling goes on. */
TEST(watch_sampler_refresh_forgets_gone_devices)
{
    char err[256];
    struct watch_sampler *s = watch_sampler_start(err, sizeof err);
    if (!s) {
        test_skip(err);
        return;
    }
    struct watch_ring ring;
    REQUIRE(watch_ring_init(&ring, 4) == 0);
    watch_sampler_tick(s, &ring);
    struct report *st = watch_sampler_staging(s);
    size_t had = st->nseries;
    CHECK(had > 0);
    series_set(st, report_series(st, "net.rx_kib_per_s.veth0gone", "veth0gone", "KiB/s",
                                 "network"), 1);
    CHECK(report_find_series(st, "net.rx_kib_per_s.veth0gone") != NULL);
    REQUIRE(watch_sampler_refresh(s, err, sizeof err) == 0);
    watch_sampler_tick(s, &ring);
    watch_sampler_tick(s, &ring);
    st = watch_sampler_staging(s);
    CHECK(report_find_series(st, "net.rx_kib_per_s.veth0gone") == NULL);
    CHECK(st->nseries > 0);
    CHECK(ring.n == 3);
    watch_ring_free(&ring);
    watch_sampler_free(s);
}
