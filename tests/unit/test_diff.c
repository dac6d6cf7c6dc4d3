/* perfreport diff's comparison model (src/replay/diff_compare.c) on synthetic
 * reports: findings matched by id, the spread rule at its boundaries, the
 * normalisation of the differential profiles, and the views' key words. */
#include "harness.h"
#include "../../src/replay/diff_compare.h"
#include "../../src/replay/diff_render.h"
#include "../../src/model/model.h"
#include "../../src/model/profile.h"
#include "../../src/model/profile_diff.h"
#include "../../src/util/strbuf.h"
#include <math.h>
#include <string.h>

static const struct diff_finding *find(const struct diff *d, const char *id)
{
    for (size_t i = 0; i < d->nfindings; i++) {
        const struct finding *f = d->findings[i].neu ? d->findings[i].neu : d->findings[i].old;
        if (strcmp(f->id, id) == 0)
            return &d->findings[i];
    }
    return NULL;
}

static struct report *with_series(const char *name, const double *v, size_t n)
{
    struct report *r = report_new();
    kv_add(&r->host, "hostname", "Host name", "h");
    struct series *s = report_series(r, name, "Thing", "%", "cpu");
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        report_add_tick(r, (double)i);
        series_set(r, s, v[i]);
        sum += v[i];
    }
    report_metric(r, name, "Thing", "%", "cpu", sum / (double)n);
    return r;
}

TEST(diff_findings_matched_by_id)
{
    struct report *o = report_new(), *n = report_new();
    report_add_finding(o, "a.x", SEV_WARNING, "cpu", "A old");
    report_add_finding(o, "b.x", SEV_CRITICAL, "cpu", "B old");
    report_add_finding(o, "c.x", SEV_INFO, "cpu", "C old");
    report_add_finding(o, "e.x", SEV_WARNING, "disk", "E old");
    report_add_finding(n, "a.x", SEV_CRITICAL, "cpu", "A new");
    report_add_finding(n, "b.x", SEV_WARNING, "cpu", "B new");
    report_add_finding(n, "c.x", SEV_INFO, "cpu", "C new");
    report_add_finding(n, "d.x", SEV_INFO, "memory", "D new");
    struct diff *d = diff_compare(o, n);
    REQUIRE(d->nfindings == 5);
    CHECK(find(d, "a.x")->change == DIFF_WORSE);
    CHECK(find(d, "b.x")->change == DIFF_BETTER);
    CHECK(find(d, "c.x")->change == DIFF_SAME);
    CHECK(find(d, "d.x")->change == DIFF_NEW && !find(d, "d.x")->old);
    CHECK(find(d, "e.x")->change == DIFF_RESOLVED && !find(d, "e.x")->neu);
    /* new first, then worse, resolved, better, same */
    CHECK(d->findings[0].change == DIFF_NEW);
    CHECK(d->findings[1].change == DIFF_WORSE);
    CHECK(d->findings[2].change == DIFF_RESOLVED);
    CHECK(d->findings[3].change == DIFF_BETTER);
    CHECK(d->findings[4].change == DIFF_SAME);
    CHECK_STR(d->headline, "New: D new (not in OLD)");
    diff_free(d);
    /* without the new one, the worse one leads */
    report_remove_finding(n, (struct finding *)report_find_finding(n, "d.x"));
    d = diff_compare(o, n);
    CHECK_STR(d->headline, "Worse: A new (critical, was warning)");
    diff_free(d);
    report_free(o);
    report_free(n);
}

TEST(diff_self_is_no_change)
{
    static const double v[] = {10, 30, 20, 40};
    struct report *r = with_series("cpu.util_pct", v, 4);
    report_add_finding(r, "cpu.saturation", SEV_CRITICAL, "cpu", "CPU saturated");
    kv_add_num(&r->host, "cpus", "Online CPUs", 2, "");
    struct diff *d = diff_compare(r, r);
    REQUIRE(d->nfindings == 1);
    CHECK(d->findings[0].change == DIFF_SAME);
    CHECK(d->nfacts == 0);
    REQUIRE(d->nmetrics == 1);
    CHECK(!d->metrics[0].beyond && d->metrics[0].spread_known);
    CHECK_STR(d->headline, "No clear change");
    diff_free(d);
    report_free(r);
}

TEST(diff_series_stats_skip_nan)
{
    struct report *r = report_new();
    struct series *s = report_series(r, "x", "X", "", "cpu");
    const double v[] = {1, NAN, 3};
    for (size_t i = 0; i < 3; i++) {
        report_add_tick(r, (double)i);
        series_set(r, s, v[i]);
    }
    double m, sd;
    diff_series_stats(r, s, &m, &sd);
    CHECK_NUM(m, 2, 1e-12);
    CHECK_NUM(sd, 1, 1e-12);
    diff_series_stats(r, NULL, &m, &sd);
    CHECK(isnan(m) && isnan(sd));
    /* a watch bundle's samples from before its trigger are not the
     * window's spread: 0 and 100 before it would make sd ~40 */
    const double pre[] = {-3, -2};
    report_prepend_ticks(r, pre, 2);
    s->v[0] = 0, s->v[1] = 100;
    diff_series_stats(r, s, &m, &sd);
    CHECK_NUM(m, 2, 1e-12);
    CHECK_NUM(sd, 1, 1e-12);
    report_free(r);
}

TEST(diff_spread_rule_boundary)
{
    /* |d| must exceed 2 sd: exactly 2 sd is inside the spread */
    CHECK(!diff_beyond_spread(10, 12, 1, 0.5));
    CHECK(diff_beyond_spread(10, 12, 0.99, 0.5));
    CHECK(diff_beyond_spread(12, 10, 0.5, 0.99));
    CHECK(!diff_beyond_spread(10, 12, 0.5, 1)); /* the larger sd counts */
    /* and at least 5% of the larger value, even with no spread at all */
    CHECK(!diff_beyond_spread(100, 104.9, 0, 0));
    CHECK(diff_beyond_spread(100, 105.3, 0, 0));
    CHECK(!diff_beyond_spread(5, 5, 0, 0));
    CHECK(!diff_beyond_spread(NAN, 5, 0, 0));
    CHECK(diff_beyond_spread(0, 1, NAN, NAN)); /* unknown spread: relative only */

    /* through the model: a jump far beyond noisy windows, and one inside */
    static const double lo[] = {10, 11, 9, 10}, hi[] = {50, 51, 49, 50}, wide[] = {0, 30, 0, 30};
    struct report *a = with_series("cpu.util_pct", lo, 4), *b = with_series("cpu.util_pct", hi, 4),
                  *c = with_series("cpu.util_pct", wide, 4);
    struct diff *d = diff_compare(a, b);
    REQUIRE(d->nmetrics == 1);
    CHECK(d->metrics[0].beyond && d->metrics[0].delta == 40);
    CHECK_STR(d->headline, "Changed: Thing 50%, was 10%");
    struct diff_file files[DIFF_MAX_FILES];
    size_t nf = diff_render(d, files);
    REQUIRE(nf >= 1);
    CHECK_STR(files[0].name, "diff.md");
    CHECK_CONTAINS(sb_str(&files[0].body), "1 of 1 metrics changed beyond their spread: Thing higher.");
    CHECK_CONTAINS(sb_str(&files[0].body), "| Thing | 10% | 50% | +40% (+400%) | 0.707% / 0.707% | higher |");
    for (size_t i = 0; i < nf; i++)
        sb_free(&files[i].body);
    diff_free(d);
    d = diff_compare(a, c); /* 10 -> 15 with sd 15 on one side */
    REQUIRE(d->nmetrics == 1);
    CHECK(!d->metrics[0].beyond);
    CHECK_STR(d->headline, "No clear change");
    diff_free(d);
    report_free(a);
    report_free(b);
    report_free(c);
}

TEST(diff_profile_normalised)
{
    struct profile *o = profile_new("cpu", "On-CPU", "samples");
    struct profile *n = profile_new("cpu", "On-CPU", "samples");
    profile_add_stack(o, (const char *[]){"main", "b"}, NULL, 2, 10);
    profile_add_stack(o, (const char *[]){"main", "c"}, NULL, 2, 30);
    profile_add_stack(o, (const char *[]){"main", "gone"}, NULL, 2, 40);
    profile_add_stack(n, (const char *[]){"main", "b"}, NULL, 2, 400);
    profile_add_stack(n, (const char *[]){"main", "c"}, NULL, 2, 400);
    struct profile *d = diff_profile(o, n, "cpu-diff", "t");
    REQUIRE(d && profile_is_diff(d));
    CHECK(profile_total(d) == 800);
    CHECK(profile_node_base(d, PROFILE_ROOT) == 800); /* OLD scaled to NEW's total */
    uint32_t b = profile_find(d, (const char *[]){"main", "b"}, 2);
    uint32_t c = profile_find(d, (const char *[]){"main", "c"}, 2);
    uint32_t g = profile_find(d, (const char *[]){"main", "gone"}, 2);
    REQUIRE(b != PROFILE_NONE && c != PROFILE_NONE && g != PROFILE_NONE);
    CHECK(profile_node_base(d, b) == 100 && d->nodes[b].total == 400);
    CHECK(profile_node_base(d, c) == 300 && d->nodes[c].total == 400);
    CHECK(profile_node_base(d, g) == 400 && d->nodes[g].total == 0);
    profile_free(d);
    /* nothing in NEW: nothing to draw; nothing in OLD (an idle run): all of
     * NEW is new, on a baseline of zero */
    struct profile *e = profile_new("cpu", "On-CPU", "samples");
    CHECK(diff_profile(o, e, "x", "t") == NULL);
    struct profile *all_new = diff_profile(e, n, "x", "t");
    REQUIRE(all_new && profile_is_diff(all_new));
    CHECK(profile_total(all_new) == 800);
    CHECK(profile_node_base(all_new, PROFILE_ROOT) == 0);
    uint32_t nb = profile_find(all_new, (const char *[]){"main", "b"}, 2);
    REQUIRE(nb != PROFILE_NONE);
    CHECK(all_new->nodes[nb].total == 400 && profile_node_base(all_new, nb) == 0);
    profile_free(all_new);
    CHECK(diff_profile(NULL, n, "x", "t") == NULL);
    profile_free(e);
    profile_free(o);
    profile_free(n);
}

TEST(diff_views_say_what_changed)
{
    struct report *o = report_new(), *n = report_new();
    kv_add(&o->host, "hostname", "Host name", "alpha");
    kv_add(&n->host, "hostname", "Host name", "beta");
    kv_add(&o->host, "governor", "Governor", "powersave");
    kv_add(&n->host, "governor", "Governor", "performance");
    kv_add_num(&o->host, "uptime_s", "Uptime", 10, "s"); /* always differs: not shown */
    kv_add_num(&n->host, "uptime_s", "Uptime", 99, "s");
    report_add_finding(n, "cpu.saturation", SEV_CRITICAL, "cpu", "CPU saturated <x>");
    /* cgroup limits: /a's quota changed; /only-old is not in NEW's table */
    struct report *sides[2] = {o, n};
    for (int s = 0; s < 2; s++) {
        struct table *t = report_table(sides[s], "cgroup", "Cgroups", "cgroup");
        table_add_col(t, "path", "Cgroup", "", 0);
        table_add_col(t, "quota_cpus", "Quota", "CPUs", 2);
        table_add_col(t, "mem_limit_kib", "Mem limit", "KiB", 0);
        size_t row = table_add_row(t);
        table_set_str(t, row, "path", "/a");
        table_set_num(t, row, "quota_cpus", s ? 2 : 1);
        table_set_num(t, row, "mem_limit_kib", 1024);
        if (!s) {
            row = table_add_row(t);
            table_set_str(t, row, "path", "/only-old");
            table_set_num(t, row, "quota_cpus", 4);
        }
    }
    struct diff *d = diff_compare(o, n);
    REQUIRE(d->nfacts == 3);
    CHECK_STR(d->facts[2].key, "cgroup /a quota_cpus");
    CHECK_STR(d->facts[2].old, "1 CPUs");
    CHECK_STR(d->facts[2].neu, "2 CPUs");
    struct diff_file files[DIFF_MAX_FILES];
    size_t nf = diff_render(d, files);
    CHECK(nf == 3); /* no profiles: no flame graphs */
    for (size_t i = 0; i < nf; i++) {
        const char *s = sb_str(&files[i].body);
        if (strcmp(files[i].name, "diff.md") == 0) {
            /* the headline quotes a title: host text, escaped (issue 30, 6) */
            CHECK_CONTAINS(s, "**New: CPU saturated \\<x> (not in OLD)**");
            CHECK_CONTAINS(s, "| **critical** · new | `cpu.saturation` | - | critical |");
            CHECK_CONTAINS(s, "performance");
            CHECK_NOT_CONTAINS(s, "Uptime");
        } else if (strcmp(files[i].name, "index.html") == 0) {
            CHECK_CONTAINS(s, "CPU saturated &lt;x&gt;");
            CHECK_NOT_CONTAINS(s, "<x>");
        } else {
            CHECK_STR(files[i].name, "diff.json");
            CHECK_CONTAINS(s, "\"change\": \"new\"");
            CHECK_CONTAINS(s, "\"old\": \"powersave\"");
        }
        sb_free(&files[i].body);
    }
    diff_free(d);
    report_free(o);
    report_free(n);
}
