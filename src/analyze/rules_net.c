/* Network findings: drops, retransmits, listen overflows, resets. */
#include "analyze_internal.h"
#include "../util/strbuf.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

void rule_net_drops(struct report *r, const struct rule *self)
{
    struct sig s = sig_metric(r, "net.drops_per_s", NM_NET_DROPS_PER_S, NM_NET_DROPS_PER_S);
    if (s.sev < SEV_WARNING)
        return;
    const struct table *ifs = report_find_table(r, NM_NET_IFACE);
    long row = -1;
    double bd = 0;
    for (size_t i = 0; ifs && i < ifs->nrows; i++) {
        double dr = num0(table_num(ifs, i, "rx_drops_per_s")) + num0(table_num(ifs, i, "tx_drops_per_s"));
        if (dr > bd) {
            bd = dr;
            row = (long)i;
        }
    }
    const char *ifn = row >= 0 ? table_str(ifs, (size_t)row, "iface") : NULL;
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Packet drops: %.1f/s", s.v);
    if (ifn)
        sb_addf(&t, ", most on %s (rx %.1f/s, tx %.1f/s)", ifn,
                num0(table_num(ifs, (size_t)row, "rx_drops_per_s")),
                num0(table_num(ifs, (size_t)row, "tx_drops_per_s")));
    struct finding *f = rule_add(r, self, s.sev, &t);
    sig_evidence(f, "Packet drops, all interfaces", &s);
    for (size_t i = 0, shown = 0; ifs && i < ifs->nrows && shown < 4; i++) {
        double rx = num0(table_num(ifs, i, "rx_drops_per_s")), tx = num0(table_num(ifs, i, "tx_drops_per_s"));
        if (rx + tx <= 0)
            continue;
        const char *n = table_str(ifs, i, "iface");
        finding_evidence(f, "%s: rx drops %.1f/s, tx drops %.1f/s at %.0f packets/s in", n ? n : "?",
                         rx, tx, num0(table_num(ifs, i, "rx_pkts_per_s")));
        shown++;
    }
    double errs = report_metric_value(r, NM_NET_ERRS_PER_S);
    if (!isnan(errs) && errs > 0)
        finding_evidence(f, "Interface errors %.1f/s", errs);
    struct sig sirq = sig_metric(r, "cpu.softirq_pct", NM_CPU_SOFTIRQ_PCT, NULL);
    sig_evidence(f, "CPU time in soft interrupts", &sirq);
    if (ifn)
        finding_set_culprit(f, ifn);
    f->score = rank_score(s.sev, s.excess, s.cov, sirq.sev >= SEV_WARNING);
}

/* Row of `table` with the largest numeric `col` plus its "src -> dst" into
 * buf; -1 when the table is absent or empty. */
static long tcp_worst_conn(const struct report *r, const char *table, const char *col, char *buf,
                    size_t n)
{
    const struct table *t = report_find_table(r, table);
    long row = table_argmax(t, col);
    if (row < 0 || !(table_num(t, (size_t)row, col) > 0))
        return -1;
    const char *src = table_str(t, (size_t)row, "src"), *dst = table_str(t, (size_t)row, "dst");
    snprintf(buf, n, "%s -> %s", src ? src : "?", dst ? dst : "?");
    return row;
}

void rule_net_tcp_retransmits(struct report *r, const struct rule *self)
{
    struct sig s = sig_metric(r, "tcp.retrans_pct", NM_TCP_RETRANS_PCT, NULL);
    double segs = report_metric_value(r, NM_TCP_RETRANS_SEGS);
    /* One or two retransmits on an idle host make a big percentage of nothing. */
    bool by_proc = s.sev >= SEV_WARNING && !(!isnan(segs) && segs < 3);
    /* The tracepoint sees every network namespace; /proc/net/snmp only ours.
     * Without a /proc signal, judge the tracepoint's rate on its own. */
    struct sig bs = sig_metric(r, "tcp.retrans_per_s", NM_TCP_BPF_RETRANSMITS_PER_S, NULL);
    char worst[160];
    long wrow = tcp_worst_conn(r, NM_TCP_RETRANSMITS, "retransmits", worst, sizeof worst);
    const struct table *wt = report_find_table(r, NM_TCP_RETRANSMITS);
    bool by_bpf = !by_proc && bs.sev >= SEV_WARNING && wrow >= 0;
    if (!by_proc && !by_bpf)
        return;
    double rate = report_metric_value(r, NM_TCP_RETRANS_SEGS_PER_S);
    struct strbuf t = STRBUF_INIT;
    if (by_proc) {
        sb_addf(&t, "TCP retransmits: %.1f%% of segments sent", s.v);
        if (!isnan(segs))
            sb_addf(&t, " (%.0f retransmitted%s", segs, isnan(rate) ? ")" : ", ");
        if (!isnan(segs) && !isnan(rate))
            sb_addf(&t, "%.1f/s)", rate);
    } else {
        sb_addf(&t, "TCP retransmits: %.1f/s seen by the kernel tracepoint",
                bs.v);
    }
    if (wrow >= 0)
        sb_addf(&t, "; worst %s (%.0f retransmits)", worst,
                table_num(wt, (size_t)wrow, "retransmits"));
    struct finding *f = rule_add(r, self, by_proc ? s.sev : bs.sev, &t);
    sig_evidence(f, "Retransmitted share of TCP segments", &s);
    double out = report_metric_value(r, NM_TCP_OUT_SEGS_PER_S);
    if (!isnan(out))
        finding_evidence(f, "TCP segments sent %.0f/s", out);
    sig_evidence(f, "Retransmits counted by the tcp_retransmit_skb tracepoint", &bs);
    if (by_bpf)
        finding_evidence(f, "This namespace's /proc/net/snmp counters do not show these "
                            "retransmits: they happen in another network namespace (a container "
                            "or netns); the tracepoint sees all of them");
    if (wrow >= 0) {
        const char *st = table_str(wt, (size_t)wrow, "state");
        finding_evidence(f, "Worst connection %s: %.0f retransmits (%.1f/s), socket state %s",
                         worst, table_num(wt, (size_t)wrow, "retransmits"),
                         table_num(wt, (size_t)wrow, "per_s"), st ? st : "?");
    }
    struct sig drops = sig_metric(r, "net.drops_per_s", NM_NET_DROPS_PER_S, NULL);
    sig_evidence(f, "Packet drops on this host", &drops);
    if (wrow >= 0)
        finding_set_culprit(f, worst);
    const struct sig *lead = by_proc ? &s : &bs;
    f->score = rank_score(lead->sev, lead->excess, NAN, drops.sev >= SEV_WARNING);
}

void rule_net_listen_overflow(struct report *r, const struct rule *self)
{
    struct sig s = sig_metric(r, "tcp.listen_overflows", NM_TCP_LISTEN_OVERFLOWS, NULL);
    if (s.sev < SEV_WARNING)
        return;
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "Listen queue overflowed %.0f time%s: a server did not accept() connections fast "
                "enough", s.v, plural(s.v));
    struct finding *f = rule_add(r, self, s.sev, &t);
    sig_evidence(f, "Listen queue overflows in the window", &s);
    double drops = report_metric_value(r, NM_TCP_LISTEN_DROPS);
    if (!isnan(drops))
        finding_evidence(f, "Connection attempts dropped at listen sockets: %.0f", drops);
    f->score = rank_score(s.sev, s.excess, NAN, 0);
}

void rule_net_tcp_resets(struct report *r, const struct rule *self)
{
    struct sig s = sig_metric(r, "tcp.resets_per_s", NM_TCP_OUT_RSTS_PER_S, NULL);
    /* As for retransmits: the tracepoint covers other namespaces too. */
    struct sig bs = sig_metric(r, "tcp.resets_per_s", NM_TCP_BPF_RESETS_SENT_PER_S, NULL);
    bool by_bpf = s.sev < SEV_WARNING && bs.sev >= SEV_WARNING;
    if (s.sev < SEV_WARNING && !by_bpf)
        return;
    const struct sig *lead = by_bpf ? &bs : &s;
    char worst[160];
    long wrow = tcp_worst_conn(r, NM_TCP_RESETS, "count", worst, sizeof worst);
    const struct table *wt = report_find_table(r, NM_TCP_RESETS);
    struct strbuf t = STRBUF_INIT;
    sb_addf(&t, "TCP resets: %.0f/s sent", lead->v);
    if (wrow >= 0) {
        const char *dir = table_str(wt, (size_t)wrow, "direction");
        sb_addf(&t, "; most on %s (%.0f %s)", worst, table_num(wt, (size_t)wrow, "count"),
                dir ? dir : "");
    }
    struct finding *f = rule_add(r, self, lead->sev, &t);
    sig_evidence(f, "TCP resets sent", &s);
    if (by_bpf)
        finding_evidence(f, "Counted by the tcp_send_reset tracepoint (%.0f/s); this "
                            "namespace's /proc counters do not show them (another network "
                            "namespace)", bs.v);
    double er = report_metric_value(r, NM_TCP_ESTAB_RESETS), af = report_metric_value(r, NM_TCP_ATTEMPT_FAILS);
    if (!isnan(er))
        finding_evidence(f, "Established connections reset in the window: %.0f", er);
    if (!isnan(af))
        finding_evidence(f, "Failed connection attempts in the window: %.0f", af);
    for (size_t i = 0, k = 0; wt && i < wt->nrows && k < 3; i++, k++)
        finding_evidence(f, "Resets %s on %s -> %s: %.0f", table_str(wt, i, "direction"),
                         table_str(wt, i, "src"), table_str(wt, i, "dst"),
                         table_num(wt, i, "count"));
    double outside = report_metric_value(r, NM_TCP_BPF_RESETS_OUTSIDE);
    if (!isnan(outside) && outside > 0)
        finding_evidence(f, "%.0f more reset%s while perfreport started or finished (outside the "
                            "window, not in the rate; listed with their times in the resets "
                            "table)", outside, plural(outside));
    if (wrow >= 0)
        finding_set_culprit(f, worst);
    f->score = rank_score(lead->sev, lead->excess, NAN, 0);
}


void rule_net_rcvbuf_drops(struct report *r, const struct rule *self)
{
    /* A handful of drops is noise whatever share of few datagrams it is. */
    struct sig n = sig_metric(r, "udp.rcvbuf_drops", NM_UDP_RCVBUF_ERRORS, NULL);
    if (n.sev < SEV_WARNING)
        return;
    struct sig share = sig_metric(r, "udp.rcvbuf_drop_pct", NM_UDP_RCVBUF_DROP_PCT, NULL);
    /* Severity is the share lost; without the delivered count, a rate alone. */
    enum severity sev = share.sev >= SEV_WARNING ? share.sev : SEV_INFO;
    double rate = report_metric_value(r, NM_UDP_RCVBUF_ERRORS_PER_S);
    const struct table *t = report_find_table(r, NM_NET_UDP_DROPS);
    bool top = t && t->nrows > 0;
    const char *local = top ? table_str(t, 0, "local") : NULL;
    const char *proc = top ? table_str(t, 0, "process") : NULL;
    double pid = top ? table_num(t, 0, "pid") : NAN;
    char reader[160] = "";
    if (proc && !isnan(pid))
        snprintf(reader, sizeof reader, "%s (pid %.0f)", proc, pid);
    struct strbuf title = STRBUF_INIT;
    sb_add(&title, "UDP receive buffers overflowed: ");
    if (!isnan(share.v))
        sb_addf(&title, "%.1f%% of datagrams dropped (%.0f/s)", share.v, num0(rate));
    else
        sb_addf(&title, "%.0f datagrams dropped (%.0f/s)", n.v, num0(rate));
    if (local)
        sb_addf(&title, ", most at %s", local);
    if (reader[0])
        sb_addf(&title, " read by %s", reader);
    struct finding *f = rule_add(r, self, sev, &title);
    sig_evidence(f, "Datagrams dropped for a full receive buffer, of those received", &share);
    sig_evidence(f, "Drops in the window (RcvbufErrors, UDP and UDP-Lite, IPv4 and IPv6)", &n);
    double in = report_metric_value(r, NM_UDP_IN_DATAGRAMS);
    if (!isnan(in))
        finding_evidence(f, "Datagrams delivered to the programs: %.0f", in);
    for (size_t i = 0; t && i < t->nrows && i < 3; i++) {
        const char *p = table_str(t, i, "process");
        double ppid = table_num(t, i, "pid");
        char who[160] = "no process found holding it (closed before the end?)";
        if (p && !isnan(ppid))
            snprintf(who, sizeof who, "read by %s (pid %.0f)", p, ppid);
        finding_evidence(f, "Socket %s %s: %.0f drops (%.1f/s), %s; %.1f KiB queued at the end",
                         table_str(t, i, "proto"), table_str(t, i, "local"),
                         table_num(t, i, "drops"), num0(table_num(t, i, "drops_per_s")), who,
                         num0(table_num(t, i, "rx_queue_kib")));
    }
    if (reader[0])
        finding_set_culprit(f, reader);
    else if (local)
        finding_set_culprit(f, local);
    const struct sig *lead = share.sev >= SEV_WARNING ? &share : &n;
    f->score = rank_score(sev, lead->excess, NAN, 0);
}
