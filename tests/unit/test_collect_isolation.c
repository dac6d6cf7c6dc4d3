/* Collectors measure: what they write must not depend on anything else in
 * the report they are given.  Each /proc collector runs twice over the same
 * captured readings, once into an empty staging report and once into one
 * that holds what the rest of the run owns (thresholds, the window and its
 * target, host facts), set to values no collector could mistake for its
 * own; the two outputs must be identical.  A collector that took a chart
 * line from the thresholds or named the target from the window (disk and
 * runqlat once did) fails here. */
#include "harness.h"
#include "collect_life.h"
#include "../../src/collect/collector.h"
#include "../../src/collect/cpu.h"
#include "../../src/collect/disk.h"
#include "../../src/collect/memory.h"
#include "../../src/collect/net.h"
#include "../../src/collect/psi.h"
#include "../../src/model/model.h"
#include "../../src/run/probe.h"
#include "../../src/util/hostfs.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the run, not the collector, puts in a report, at odd values. */
static void poison(struct report *r)
{
    static const char *const ids[] = {"cpu.util_pct",      "cpu.runq_per_cpu", "mem.available_pct",
                                      "psi.some_pct",      "psi.full_pct",     "disk.util_pct",
                                      "disk.aqu_sz",       "net.drops_per_s",  "disk.await_ms.virtio"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        report_add_threshold(r, ids[i], "poison", "", 1.5, 2.5, false);
    r->window.target = xstrdup("POISON target");
    r->window.planned_s = 12345;
    r->window.interval_s = 7;
    kv_add(&r->host, "hostname", "Host name", "POISON");
    kv_add_num(&r->host, "cpus", "Online CPUs", 97, "");
}

/* Everything a collector can write, as text: series (values and lines),
 * metrics, tables (cells and notes), histograms and the ledger notes. */
static char *digest(const struct report *r)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < r->nseries; i++) {
        const struct series *s = r->series[i];
        sb_addf(&sb, "S %s %s %s %d %g %g:", s->hdr.name, s->hdr.title, s->hdr.unit, s->chart,
                s->warn, s->crit);
        for (size_t k = 0; k < s->n; k++)
            sb_addf(&sb, " %.9g", s->v[k]);
        sb_addc(&sb, '\n');
    }
    for (size_t i = 0; i < r->nmetrics; i++)
        sb_addf(&sb, "M %s %.9g %s\n", r->metrics[i].name, r->metrics[i].value,
                r->metrics[i].unit ? r->metrics[i].unit : "");
    for (size_t i = 0; i < r->ntables; i++) {
        const struct table *t = r->tables[i];
        sb_addf(&sb, "T %s rows %zu note %s\n", t->hdr.name, t->nrows, t->note ? t->note : "");
        for (size_t row = 0; row < t->nrows; row++)
            for (size_t c = 0; c < t->ncols; c++) {
                const char *s = table_str(t, row, t->cols[c].name);
                sb_addf(&sb, " %s=%s/%.9g", t->cols[c].name, s ? s : "",
                        table_num(t, row, t->cols[c].name));
            }
        sb_addc(&sb, '\n');
    }
    for (size_t i = 0; i < r->nhists; i++)
        sb_addf(&sb, "H %s %llu\n", r->hists[i]->hdr.name, (unsigned long long)r->hists[i]->count);
    for (size_t i = 0; i < r->nledger; i++)
        sb_addf(&sb, "L %s %s\n", r->ledger[i].name, r->ledger[i].notes ? r->ledger[i].notes : "");
    return sb_detach(&sb);
}

TEST(collectors_write_the_same_whatever_the_report_holds)
{
    static const char *const t01[] = {"t0", "t1"};
    static const char *const real[] = {"real/t0", "real/t1"};
    static const struct {
        const struct collector *c;
        const char *topic;
        const char *const *dirs;
    } cases[] = {{&collector_cpu, "cpu", t01},   {&collector_memory, "memory", t01},
                 {&collector_psi, "psi", t01},   {&collector_disk, "disk", real},
                 {&collector_net, "net", real}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct report *clean = report_new(), *dirty = report_new();
        poison(dirty);
        static const double times[] = {0, 1};
        char *a = digest(life_play(cases[i].c, cases[i].topic, cases[i].dirs, times, 2, clean));
        char *b = digest(life_play(cases[i].c, cases[i].topic, cases[i].dirs, times, 2, dirty));
        CHECK(strlen(a) > 40); /* it did write something */
        if (strcmp(a, b) != 0)
            test_fail(__FILE__, __LINE__, "collector %s wrote differently into a report that "
                      "holds the run's thresholds and window:\n--- empty\n%s--- poisoned\n%s",
                      cases[i].c->name, a, b);
        free(a);
        free(b);
        report_free(clean);
        report_free(dirty);
    }
}
