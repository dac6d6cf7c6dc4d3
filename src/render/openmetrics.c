#include "openmetrics.h"
#include "escape.h"
#include "../model/model.h"
#include "../model/names.h"
#include "../util/strbuf.h"
#include "../version.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Window metrics worth a time series on a fleet dashboard: model name,
 * exported name (unit last, base units), OpenMetrics unit, scale to the
 * base unit.  The model's units are in its names (NAMES.md): _pct 0-100,
 * _ms, _us, _kib. */
static const struct key_metric {
    const char *model, *name, *unit;
    double scale;
    const char *help;
} key_metrics[] = {
    {NM_CPU_UTIL_PCT, "perfreport_cpu_utilization_ratio", "ratio", 0.01,
     "CPU busy time (user, nice, system, irq, softirq) over the window, 0-1."},
    {NM_CPU_IOWAIT_PCT, "perfreport_cpu_iowait_ratio", "ratio", 0.01,
     "CPU time in iowait over the window, 0-1."},
    {NM_CPU_STEAL_PCT, "perfreport_cpu_steal_ratio", "ratio", 0.01,
     "CPU time stolen by the hypervisor over the window, 0-1."},
    {NM_CPU_RUNQ_PER_CPU, "perfreport_cpu_runnable_per_cpu", "", 1,
     "Runnable tasks waiting per CPU, average over the window."},
    {NM_LOAD_LOAD1, "perfreport_load1", "", 1, "1-minute load average at the window's end."},
    {NM_SCHED_RUNQ_P99_US, "perfreport_sched_runqueue_latency_p99_seconds", "seconds", 1e-6,
     "99th percentile of run-queue latency (wakeup to running) in the window."},
    {NM_MEM_AVAILABLE_PCT, "perfreport_memory_available_ratio", "ratio", 0.01,
     "MemAvailable of MemTotal, average over the window, 0-1."},
    {NM_MEM_AVAILABLE_KIB, "perfreport_memory_available_bytes", "bytes", 1024,
     "MemAvailable, average over the window."},
    {NM_SWAP_USED_PCT, "perfreport_swap_used_ratio", "ratio", 0.01,
     "Swap in use, average over the window, 0-1."},
    {NM_MEM_PGMAJFAULT_PER_S, "perfreport_memory_major_faults_per_second", "", 1,
     "Major page faults per second over the window."},
    {NM_MEM_PGSCAN_DIRECT_PER_S, "perfreport_memory_direct_scan_pages_per_second", "", 1,
     "Pages scanned by direct reclaim per second over the window."},
    {NM_MEM_OOM_KILL, "perfreport_memory_oom_kills", "", 1, "OOM kills in the window."},
    {NM_PSI_CPU_SOME_PCT, "perfreport_pressure_cpu_some_ratio", "ratio", 0.01,
     "Share of the window some task waited for a CPU (PSI), 0-1."},
    {NM_PSI_MEMORY_SOME_PCT, "perfreport_pressure_memory_some_ratio", "ratio", 0.01,
     "Share of the window some task stalled on memory (PSI), 0-1."},
    {NM_PSI_MEMORY_FULL_PCT, "perfreport_pressure_memory_full_ratio", "ratio", 0.01,
     "Share of the window all non-idle tasks stalled on memory (PSI), 0-1."},
    {NM_PSI_IO_SOME_PCT, "perfreport_pressure_io_some_ratio", "ratio", 0.01,
     "Share of the window some task stalled on I/O (PSI), 0-1."},
    {NM_PSI_IO_FULL_PCT, "perfreport_pressure_io_full_ratio", "ratio", 0.01,
     "Share of the window all non-idle tasks stalled on I/O (PSI), 0-1."},
    {NM_DISK_UTIL_PCT_MAX, "perfreport_disk_utilization_max_ratio", "ratio", 0.01,
     "Busy time of the busiest disk over the window, 0-1."},
    {NM_DISK_AWAIT_MS_MAX, "perfreport_disk_await_max_seconds", "seconds", 1e-3,
     "Mean I/O wait (await) of the slowest disk over the window."},
    {NM_NET_DROPS_PER_S, "perfreport_network_drops_per_second", "", 1,
     "Packets dropped per second, all interfaces, over the window."},
    {NM_NET_ERRS_PER_S, "perfreport_network_errors_per_second", "", 1,
     "Interface errors per second, all interfaces, over the window."},
    {NM_TCP_RETRANS_PCT, "perfreport_tcp_retransmit_ratio", "ratio", 0.01,
     "TCP segments retransmitted of segments sent in the window, 0-1."},
    {NM_FD_SYSTEM_PCT, "perfreport_fd_system_used_ratio", "ratio", 0.01,
     "Open file handles of the system-wide limit (fs.file-max), 0-1."},
    {NM_OFFCPU_TOTAL_MS, "perfreport_offcpu_wait_seconds", "seconds", 1e-3,
     "Blocked time of user threads in the window, summed over threads."},
    {NM_LOCK_FUTEX_WAIT_MS, "perfreport_lock_futex_wait_seconds", "seconds", 1e-3,
     "Time threads waited in contended futexes in the window, summed over threads."},
    {NM_PROFILE_SAMPLES, "perfreport_profile_samples", "", 1,
     "Non-idle on-CPU profile samples in the window."},
};

/* The shortest "%.*g" that reads back as v: 0.96375, not 0.96374999999999999. */
static void put_num(struct strbuf *out, double v)
{
    char buf[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    sb_add(out, buf);
}

void openmetrics_label_value(struct strbuf *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t len = strlen((const char *)p);
    for (size_t i = 0; i < len;) {
        unsigned cp;
        size_t n = utf8_decode(p + i, len - i, &cp);
        if (n == 0) {
            sb_add(out, "\xEF\xBF\xBD"); /* U+FFFD for the bad byte */
            i++;
            continue;
        }
        if (cp == '\\')
            sb_add(out, "\\\\");
        else if (cp == '"')
            sb_add(out, "\\\"");
        else if (cp == '\n')
            sb_add(out, "\\n");
        else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
            sb_add(out, "\xEF\xBF\xBD");
        else
            sb_addn(out, (const char *)p + i, n);
        i += n;
    }
}

/* HELP, TYPE gauge and (when unit is not empty) UNIT of one family.  HELP
 * texts are ours and hold no '\\' or newline. */
static void family(struct strbuf *out, const char *name, const char *unit, const char *help)
{
    sb_addf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
    if (unit && *unit)
        sb_addf(out, "# UNIT %s %s\n", name, unit);
}

static void sample(struct strbuf *out, const char *name, double v)
{
    sb_add(out, name);
    sb_addc(out, ' ');
    put_num(out, v);
    sb_addc(out, '\n');
}

static void gauge(struct strbuf *out, const char *name, const char *unit, const char *help,
                  double v)
{
    if (!isfinite(v))
        return; /* not measured: absent, not 0 */
    family(out, name, unit, help);
    sample(out, name, v);
}

static void finding_labels(struct strbuf *out, const char *name, const struct finding *f)
{
    sb_addf(out, "%s{id=\"", name);
    openmetrics_label_value(out, f->id);
    sb_add(out, "\",resource=\"");
    openmetrics_label_value(out, f->resource);
    sb_add(out, "\"} ");
}

void openmetrics_render(const struct report *r, const struct metrics_run *run,
                        struct strbuf *out)
{
    bool failed = run->exit_status == 3;
    family(out, "perfreport_info", "", "The perfreport version that wrote this file, and the run's case_id and label "
                                          "when given (always 1).");
    sb_add(out, "perfreport_info{version=\"");
    openmetrics_label_value(out, PERFREPORT_VERSION);
    /* the run's --case-id and --label, so an alert can name the ticket */
    const char *case_id = kv_get(&r->host, "case_id"), *label = kv_get(&r->host, "label");
    if (case_id) {
        sb_add(out, "\",case_id=\"");
        openmetrics_label_value(out, case_id);
    }
    if (label) {
        sb_add(out, "\",label=\"");
        openmetrics_label_value(out, label);
    }
    sb_add(out, "\"} 1\n");
    gauge(out, "perfreport_exit_status", "",
          "Exit status of the last run: 0 ok, 1 warning, 2 critical, 3 the run failed "
          "(no bundle), 4-6 partial bundle with worst finding none/warning/critical.",
          run->exit_status);
    if (!failed) {
        gauge(out, "perfreport_severity", "",
              "Worst finding of the last run: 0 none, 1 info, 2 warning, 3 critical.",
              report_worst_severity(r));
        family(out, "perfreport_findings", "", "Findings of the last run by severity.");
        for (enum severity s = SEV_INFO; s <= SEV_CRITICAL; s++) {
            size_t n = 0;
            for (size_t i = 0; i < r->nfindings; i++)
                n += r->findings[i].sev == s;
            sb_addf(out, "perfreport_findings{severity=\"%s\"} %zu\n", severity_name(s), n);
        }
        if (r->nfindings) {
            family(out, "perfreport_finding_severity", "",
                   "Severity of each finding of the last run: 1 info, 2 warning, 3 critical.");
            for (size_t i = 0; i < r->nfindings; i++) {
                finding_labels(out, "perfreport_finding_severity", &r->findings[i]);
                put_num(out, r->findings[i].sev);
                sb_addc(out, '\n');
            }
            family(out, "perfreport_finding_score", "",
                   "Ranking score of each finding of the last run (higher ranks first).");
            for (size_t i = 0; i < r->nfindings; i++) {
                if (!isfinite(r->findings[i].score))
                    continue;
                finding_labels(out, "perfreport_finding_score", &r->findings[i]);
                put_num(out, r->findings[i].score);
                sb_addc(out, '\n');
            }
        }
    }
    if (r->window.start_wall.tv_sec > 0) {
        gauge(out, "perfreport_window_start_timestamp_seconds", "seconds",
              "When the last run's capture window opened (Unix time).",
              (double)r->window.start_wall.tv_sec + r->window.start_wall.tv_nsec / 1e9);
        gauge(out, "perfreport_window_seconds", "seconds",
              "Length of the last run's capture window.", r->window.actual_s);
    }
    for (size_t i = 0; i < sizeof key_metrics / sizeof key_metrics[0]; i++) {
        const struct key_metric *k = &key_metrics[i];
        double v = report_metric_value(r, k->model);
        gauge(out, k->name, k->unit, k->help, v * k->scale);
    }
    gauge(out, "perfreport_run_cpu_seconds", "seconds",
          "CPU time perfreport itself used, up to the end of its analysis.",
          report_metric_value(r, NM_SELF_CPU_MS) * 1e-3);
    gauge(out, "perfreport_run_max_rss_bytes", "bytes",
          "perfreport's own peak resident memory, up to the end of its analysis.",
          report_metric_value(r, NM_SELF_MAX_RSS_KIB) * 1024);
    gauge(out, "perfreport_run_wall_seconds", "seconds",
          "perfreport's own wall time, from start to this file.", run->wall_s);
    sb_add(out, "# EOF\n");
}
