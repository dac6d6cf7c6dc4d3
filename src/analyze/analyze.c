/* analyze_run: thresholds (defaults when none were loaded), series threshold
 * lines for the charts, rules, USE table, ranking and headline. */
#include "analyze.h"
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Series whose chart shows a threshold line: series name -> threshold id. */
static const struct {
    const char *series, *thr;
} chart_lines[] = {
    {NM_CPU_UTIL_PCT, "cpu.util_pct"},
    {NM_CPU_RUNQ_PER_CPU, "cpu.runq_per_cpu"},
    {NM_CPU_STEAL_PCT, "cpu.steal_pct"},
    {NM_CPU_SOFTIRQ_PCT, "cpu.softirq_pct"},
    {NM_MEM_AVAILABLE_PCT, "mem.available_pct"},
    {NM_MEM_PGMAJFAULT_PER_S, "mem.pgmajfault_per_s"},
    {NM_SWAP_USED_PCT, "swap.used_pct"},
    {NM_NET_DROPS_PER_S, "net.drops_per_s"},
    {NM_PSI_CPU_SOME_PCT, "psi.some_pct"},
    {NM_PSI_IO_SOME_PCT, "psi.some_pct"},
    {NM_PSI_MEMORY_SOME_PCT, "psi.some_pct"},
    {NM_PSI_CPU_FULL_PCT, "psi.full_pct"},
    {NM_PSI_IO_FULL_PCT, "psi.full_pct"},
    {NM_PSI_MEMORY_FULL_PCT, "psi.full_pct"},
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
    const struct table *d = report_find_table(r, NM_DISK);
    for (size_t i = 0; d && i < d->nrows; i++) {
        const char *dev = table_str(d, i, "device");
        if (!dev)
            continue;
        char name[256];
        snprintf(name, sizeof name, NMF_DISK_SERIES, dev, "util_pct");
        line(report_find_series(r, name), report_find_threshold(r, "disk.util_pct"));
        snprintf(name, sizeof name, NMF_DISK_SERIES, dev, "aqu_sz");
        line(report_find_series(r, name), report_find_threshold(r, "disk.aqu_sz"));
        snprintf(name, sizeof name, NMF_DISK_SERIES, dev, "await_ms");
        line(report_find_series(r, name), thr_disk_await(r, table_str(d, i, "class")));
    }
}

/* "strace -p PID" in a finding's advice becomes the culprit's own pid when
 * its culprit names one ("perl (pid 4242)": proc_label's form, the comm
 * first), so the command can be pasted.  Only a "(pid N)" that ends the
 * culprit is ours: a process named "x (pid 1)" must not pick the pid. */
static void advice_with_pid(struct finding *f)
{
    if (!f->culprit || !f->recommendation)
        return;
    size_t len = strlen(f->culprit), n = 0;
    if (len < 8 || f->culprit[len - 1] != ')')
        return;
    const char *end = f->culprit + len - 1, *digits = end;
    while (digits > f->culprit && digits[-1] >= '0' && digits[-1] <= '9')
        digits--;
    n = (size_t)(end - digits);
    char pid[24];
    if (n == 0 || n >= sizeof pid || digits - f->culprit < 5 ||
        strncmp(digits - 5, "(pid ", 5) != 0)
        return;
    memcpy(pid, digits, n);
    pid[n] = '\0';
    struct strbuf sb = STRBUF_INIT;
    const char *s = f->recommendation;
    for (const char *p = s; *p;) {
        bool word = strncmp(p, "PID", 3) == 0 && (p == s || !isalnum((unsigned char)p[-1])) &&
                    !isalnum((unsigned char)p[3]);
        if (word) {
            sb_add(&sb, pid);
            p += 3;
        } else {
            sb_addc(&sb, *p++);
        }
    }
    finding_set_recommendation(f, sb_str(&sb));
    sb_free(&sb);
}

void analyze_run(struct report *r)
{
    if (r->nthresholds == 0) {
        char err[16];
        thresholds_load(r, NULL, err, sizeof err); /* defaults only: cannot fail */
    }
    set_chart_lines(r);
    threads_join(r);
    rules_run(r);
    use_fill(r);
    rank_findings(r);
    for (size_t i = 0; i < r->nfindings; i++)
        advice_with_pid(&r->findings[i]);
    rank_headline(r);
}
