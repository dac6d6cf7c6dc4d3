/* The USE table (utilisation / saturation / errors per resource), from the
 * same numbers and thresholds the rules use.  "-" marks what was not measured. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static enum severity worst(enum severity a, enum severity b) { return a > b ? a : b; }

/* Collects "part, part" text and the worst severity of its parts. */
struct cellb {
    struct strbuf sb;
    enum severity sev;
};

static void part(struct cellb *c, enum severity sev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void part(struct cellb *c, enum severity sev, const char *fmt, ...)
{
    if (c->sb.len)
        sb_add(&c->sb, ", ");
    va_list ap;
    va_start(ap, fmt);
    sb_vaddf(&c->sb, fmt, ap);
    va_end(ap);
    c->sev = worst(c->sev, sev);
}

static void put(struct use_cell *dst, struct cellb *c)
{
    if (c->sb.len)
        use_cell_set(dst, c->sev, "%s", sb_str(&c->sb));
    else
        use_cell_set(dst, SEV_NONE, "-");
    sb_free(&c->sb);
    *c = (struct cellb){0};
}

static void use_cpu(struct report *r)
{
    struct use_row *u = report_add_use(r, "cpu");
    struct cellb c = {0};
    struct sig util = sig_metric(r, "cpu.util_pct", NM_CPU_UTIL_PCT, NULL);
    double ncpu = report_metric_value(r, NM_CPU_COUNT);
    if (!isnan(util.v)) {
        if (!isnan(ncpu))
            part(&c, util.sev, "%.0f%% busy (%.0f CPU%s)", util.v, ncpu, ncpu == 1 ? "" : "s");
        else
            part(&c, util.sev, "%.0f%% busy", util.v);
    }
    struct sig steal = sig_metric(r, "cpu.steal_pct", NM_CPU_STEAL_PCT, NULL);
    if (steal.sev >= SEV_WARNING)
        part(&c, steal.sev, "steal %.0f%%", steal.v);
    put(&u->util, &c);

    struct sig runq = sig_metric(r, "cpu.runq_per_cpu", NM_CPU_RUNQ_PER_CPU, NULL);
    struct sig psi = sig_metric(r, "psi.some_pct", NM_PSI_CPU_SOME_PCT, NULL);
    if (!isnan(runq.v))
        part(&c, runq.sev, "run queue %.1f per CPU", runq.v);
    if (!isnan(psi.v))
        part(&c, psi.sev, "PSI some %.1f%%", psi.v);
    put(&u->sat, &c);
    put(&u->err, &c); /* no CPU error counters are collected */
}

static void use_memory(struct report *r)
{
    struct use_row *u = report_add_use(r, "memory");
    struct cellb c = {0};
    struct sig avail = sig_metric(r, "mem.available_pct", NM_MEM_AVAILABLE_PCT, NULL);
    if (!isnan(avail.v))
        part(&c, avail.sev, "%.0f%% used (%.0f%% available)", 100 - avail.v, avail.v);
    put(&u->util, &c);

    struct sig some = sig_metric(r, "psi.some_pct", NM_PSI_MEMORY_SOME_PCT, NULL);
    struct sig full = sig_metric(r, "psi.full_pct", NM_PSI_MEMORY_FULL_PCT, NULL);
    if (!isnan(some.v))
        part(&c, worst(some.sev, full.sev), "PSI some %.1f%%", some.v);
    double in = report_metric_value(r, NM_MEM_PSWPIN_PER_S), out = report_metric_value(r, NM_MEM_PSWPOUT_PER_S);
    if (!isnan(in) || !isnan(out)) {
        double io = (isnan(in) ? 0 : in) + (isnan(out) ? 0 : out);
        struct sig s = sig_value(r, "swap.pages_per_s", io, NULL);
        part(&c, s.sev, "swap %.0f pages/s", io);
    }
    struct sig majf = sig_metric(r, "mem.pgmajfault_per_s", NM_MEM_PGMAJFAULT_PER_S, NULL);
    if (!isnan(majf.v))
        part(&c, majf.sev, "major faults %.0f/s", majf.v);
    put(&u->sat, &c);

    double kills = report_metric_value(r, NM_MEM_OOM_KILL);
    /* The kernel-side victims also cover start-up and finalisation; as in
     * memory.oom, the larger count, never the sum. */
    double victims = report_metric_value(r, NM_MEM_OOM_VICTIMS);
    bool outside = !isnan(victims) && victims > (isnan(kills) ? 0 : kills);
    if (outside)
        kills = victims;
    if (!isnan(kills)) {
        struct sig s = sig_value(r, "mem.oom_kill", kills, NULL);
        part(&c, s.sev, "%.0f OOM kill%s%s", kills, kills == 1 ? "" : "s",
             outside ? " while perfreport ran" : "");
    }
    put(&u->err, &c);
}

static void use_disk(struct report *r)
{
    struct use_row *u = report_add_use(r, "disk");
    struct cellb c = {0};
    const struct table *d = report_find_table(r, NM_DISK);
    long row = table_argmax(d, "util_pct");
    if (row >= 0) {
        size_t i = (size_t)row;
        const char *dev = table_str(d, i, "device");
        struct sig s = sig_value(r, "disk.util_pct", table_num(d, i, "util_pct"), NULL);
        part(&c, s.sev, "%s %.0f%% busy", dev ? dev : "?", s.v);
    }
    put(&u->util, &c);

    /* Saturation: the disk with the worst queue or latency. */
    struct sig bq = {.v = NAN}, ba = {.v = NAN};
    const char *qdev = NULL, *adev = NULL;
    for (size_t i = 0; d && i < d->nrows; i++) {
        struct sig q = sig_value(r, "disk.aqu_sz", table_num(d, i, "aqu_sz"), NULL);
        struct sig a = sig_with(r, thr_disk_await(r, table_str(d, i, "class")),
                                table_num(d, i, "await_ms"), NULL);
        if (!isnan(q.v) && (!qdev || sig_worse(&q, &bq))) {
            bq = q;
            qdev = table_str(d, i, "device");
        }
        if (!isnan(a.v) && (!adev || sig_worse(&a, &ba))) {
            ba = a;
            adev = table_str(d, i, "device");
        }
    }
    if (qdev)
        part(&c, bq.sev, "queue %.1f (%s)", bq.v, qdev);
    if (adev)
        part(&c, ba.sev, "await %.1f ms (%s)", ba.v, adev);
    struct sig psi = sig_metric(r, "psi.some_pct", NM_PSI_IO_SOME_PCT, NULL);
    if (!isnan(psi.v))
        part(&c, psi.sev, "PSI io some %.1f%%", psi.v);
    put(&u->sat, &c);
    put(&u->err, &c); /* device errors are not collected */
}

static void use_network(struct report *r)
{
    struct use_row *u = report_add_use(r, "network");
    struct cellb c = {0};
    const struct table *ifs = report_find_table(r, NM_NET_IFACE);
    if (ifs) {
        double rx = 0, tx = 0;
        for (size_t i = 0; i < ifs->nrows; i++) {
            const char *n = table_str(ifs, i, "iface");
            if (n && strcmp(n, "lo") == 0)
                continue;
            double a = table_num(ifs, i, "rx_kib_per_s"), b = table_num(ifs, i, "tx_kib_per_s");
            rx += isnan(a) ? 0 : a;
            tx += isnan(b) ? 0 : b;
        }
        /* Link speeds are not known, so throughput carries no severity. */
        part(&c, SEV_NONE, "rx %.0f KiB/s, tx %.0f KiB/s", rx, tx);
    }
    put(&u->util, &c);

    struct sig drops = sig_metric(r, "net.drops_per_s", NM_NET_DROPS_PER_S, NULL);
    if (!isnan(drops.v))
        part(&c, drops.sev, "drops %.1f/s", drops.v);
    struct sig lo = sig_metric(r, "tcp.listen_overflows", NM_TCP_LISTEN_OVERFLOWS, NULL);
    if (!isnan(lo.v))
        part(&c, lo.sev, "listen overflows %.0f", lo.v);
    put(&u->sat, &c);

    struct sig rt = sig_metric(r, "tcp.retrans_pct", NM_TCP_RETRANS_PCT, NULL);
    double segs = report_metric_value(r, NM_TCP_RETRANS_SEGS);
    if (!isnan(rt.v))
        part(&c, !isnan(segs) && segs < 3 ? SEV_NONE : rt.sev, "TCP retransmits %.2f%%", rt.v);
    double errs = report_metric_value(r, NM_NET_ERRS_PER_S);
    if (!isnan(errs))
        part(&c, errs > 0 ? SEV_INFO : SEV_NONE, "errors %.1f/s", errs);
    struct sig rst = sig_metric(r, "tcp.resets_per_s", NM_TCP_OUT_RSTS_PER_S, NULL);
    if (!isnan(rst.v))
        part(&c, rst.sev, "resets %.1f/s", rst.v);
    /* as the finding judges them: the share lost, past a few drops */
    double ud = report_metric_value(r, NM_UDP_RCVBUF_ERRORS);
    if (!isnan(ud) && ud > 0) {
        const struct finding *f = report_find_finding(r, "net.rcvbuf_drops");
        double pct = report_metric_value(r, NM_UDP_RCVBUF_DROP_PCT);
        if (!isnan(pct))
            part(&c, f ? f->sev : SEV_NONE, "UDP receive-buffer drops %.1f%%", pct);
        else
            part(&c, f ? f->sev : SEV_NONE, "UDP receive-buffer drops %.0f", ud);
    }
    put(&u->err, &c);
}

static void use_fd(struct report *r)
{
    struct use_row *u = report_add_use(r, "fd");
    struct cellb c = {0};
    struct sig sys = sig_metric(r, "fd.system_pct", NM_FD_SYSTEM_PCT, NULL);
    if (!isnan(sys.v))
        part(&c, sys.sev, "system %.1f%% of file-max", sys.v);
    const struct table *pf = report_find_table(r, NM_PROC_FD);
    long row = table_argmax(pf, "fd_pct");
    if (row >= 0) {
        char lab[160];
        proc_label(pf, (size_t)row, lab, sizeof lab);
        struct sig s = sig_value(r, "fd.pct", table_num(pf, (size_t)row, "fd_pct"), NULL);
        part(&c, s.sev, "%s %.0f%% of its limit", lab, s.v);
    }
    put(&u->util, &c);

    row = table_argmax(pf, "fd_growth_per_min");
    if (row >= 0) {
        char lab[160];
        proc_label(pf, (size_t)row, lab, sizeof lab);
        double g = table_num(pf, (size_t)row, "fd_growth"), rate = table_num(pf, (size_t)row, "fd_growth_per_min");
        struct sig s = sig_value(r, "fd.growth_per_min", rate, NULL);
        part(&c, !isnan(g) && g < 10 ? SEV_NONE : s.sev, "fastest growth %s %+.0f/min", lab, rate);
    }
    put(&u->sat, &c);
    put(&u->err, &c); /* EMFILE failures are not counted */
}

static void use_cgroup(struct report *r)
{
    struct use_row *u = report_add_use(r, "cgroup");
    struct cellb c = {0};
    const struct table *cg = report_find_table(r, NM_CGROUP);
    long mrow = -1, trow = -1;
    struct sig bm = {.v = NAN}, bt = {.v = NAN};
    double kills = 0;
    const char *kpath = NULL;
    double kmax = 0;
    bool have_kills = false;
    for (size_t i = 0; cg && i < cg->nrows; i++) {
        struct sig m = sig_value(r, "cgroup.mem_pct", table_num(cg, i, "mem_pct"), NULL);
        if (!isnan(m.v) && (mrow < 0 || sig_worse(&m, &bm))) {
            bm = m;
            mrow = (long)i;
        }
        struct sig t = sig_value(r, "cgroup.throttled_pct", table_num(cg, i, "throttled_pct"), NULL);
        if (!isnan(t.v) && (trow < 0 || sig_worse(&t, &bt))) {
            bt = t;
            trow = (long)i;
        }
        double k = table_num(cg, i, "oom_kills");
        if (!isnan(k)) {
            have_kills = true;
            if (k > kmax) {
                kmax = k;
                kpath = table_str(cg, i, "path");
            }
            kills = kmax;
        }
    }
    if (mrow >= 0) {
        const char *p = table_str(cg, (size_t)mrow, "path");
        part(&c, bm.sev, "%s at %.0f%% of its memory limit", p ? p : "?", bm.v);
    }
    const struct finding *grow = report_find_finding(r, "cgroup.memory_growth");
    if (grow && grow->culprit)
        part(&c, grow->sev, "%s memory growing", grow->culprit);
    put(&u->util, &c);
    if (trow >= 0) {
        const char *p = table_str(cg, (size_t)trow, "path");
        /* throttled time is summed over CPUs: past 100 % say it as a factor */
        if (bt.v > 100)
            part(&c, bt.sev, "%s held back %.1fx as long as it ran", p ? p : "?", bt.v / 100);
        else
            part(&c, bt.sev, "%s throttled %.1f%% of its CPU time", p ? p : "?", bt.v);
    }
    const struct finding *io = report_find_finding(r, "cgroup.io_throttled");
    if (io && io->culprit)
        part(&c, io->sev, "%s I/O held at its limit", io->culprit);
    put(&u->sat, &c);
    if (have_kills) {
        struct sig s = sig_value(r, "mem.oom_kill", kills, NULL);
        if (kpath)
            part(&c, s.sev, "%.0f OOM kill%s (%s)", kills, kills == 1 ? "" : "s", kpath);
        else
            part(&c, s.sev, "0 OOM kills");
    }
    put(&u->err, &c);
}

void use_fill(struct report *r)
{
    use_cpu(r);
    use_memory(r);
    use_disk(r);
    use_network(r);
    use_fd(r);
    use_cgroup(r);
}
