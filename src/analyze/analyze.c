/* analyze_run: thresholds (defaults when none were loaded), series threshold
 * lines for the charts, rules, USE table, ranking and headline. */
#include "analyze.h"
#include "analyze_internal.h"
#include <stdio.h>
#include <string.h>

/* Series whose chart shows a threshold line: series name -> threshold id. */
static const struct {
    const char *series, *thr;
} chart_lines[] = {
    {"cpu.util_pct", "cpu.util_pct"},
    {"cpu.runq_per_cpu", "cpu.runq_per_cpu"},
    {"cpu.steal_pct", "cpu.steal_pct"},
    {"cpu.softirq_pct", "cpu.softirq_pct"},
    {"mem.available_pct", "mem.available_pct"},
    {"mem.pgmajfault_per_s", "mem.pgmajfault_per_s"},
    {"swap.used_pct", "swap.used_pct"},
    {"net.drops_per_s", "net.drops_per_s"},
    {"psi.cpu.some.pct", "psi.some_pct"},
    {"psi.io.some.pct", "psi.some_pct"},
    {"psi.memory.some.pct", "psi.some_pct"},
    {"psi.cpu.full.pct", "psi.full_pct"},
    {"psi.io.full.pct", "psi.full_pct"},
    {"psi.memory.full.pct", "psi.full_pct"},
};

static void line(struct series *s, const struct threshold *t)
{
    if (!s || !t)
        return;
    s->warn = t->warn;
    s->crit = t->crit;
}

static void set_chart_lines(struct report *r)
{
    for (size_t i = 0; i < sizeof chart_lines / sizeof chart_lines[0]; i++)
        line(report_find_series(r, chart_lines[i].series),
             report_find_threshold(r, chart_lines[i].thr));
    const struct table *d = report_find_table(r, "disk");
    for (size_t i = 0; d && i < d->nrows; i++) {
        const char *dev = table_str(d, i, "device");
        if (!dev)
            continue;
        char name[256];
        snprintf(name, sizeof name, "disk.%s.util_pct", dev);
        line(report_find_series(r, name), report_find_threshold(r, "disk.util_pct"));
        snprintf(name, sizeof name, "disk.%s.aqu_sz", dev);
        line(report_find_series(r, name), report_find_threshold(r, "disk.aqu_sz"));
        snprintf(name, sizeof name, "disk.%s.await_ms", dev);
        line(report_find_series(r, name), thr_disk_await(r, table_str(d, i, "class")));
    }
}

void analyze_run(struct report *r)
{
    if (r->nthresholds == 0) {
        char err[16];
        thresholds_load(r, NULL, err, sizeof err); /* defaults only: cannot fail */
    }
    set_chart_lines(r);
    rules_run(r);
    use_fill(r);
    rank_findings(r);
    rank_headline(r);
}
