/* The TCP event collector (src/collect/tcpevents.c): endpoint and state
 * formatting, resets outside the window, and the retransmit rule. */
#include "harness.h"
#include "../../src/analyze/analyze.h"
#include "../../src/collect/tcpevents.h"
#include "../../src/model/model.h"
#include "../../src/util/strbuf.h"
#include <arpa/inet.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

TEST(tcp_endpoint_format)
{
    char buf[80];
    uint8_t a[16] = {0};
    inet_pton(AF_INET, "10.0.0.1", a);
    CHECK_STR(tcp_fmt_endpoint(AF_INET, a, 45678, buf, sizeof buf), "10.0.0.1:45678");
    uint8_t b[16];
    inet_pton(AF_INET6, "fe80::1", b);
    CHECK_STR(tcp_fmt_endpoint(AF_INET6, b, 5001, buf, sizeof buf), "[fe80::1]:5001");
    inet_pton(AF_INET6, "::ffff:127.0.0.1", b);
    CHECK_STR(tcp_fmt_endpoint(AF_INET6, b, 80, buf, sizeof buf), "[::ffff:127.0.0.1]:80");
    CHECK_STR(tcp_fmt_endpoint(99, b, 7, buf, sizeof buf), "?:7");
    char st[24];
    CHECK_STR(tcp_state_name(1, st, sizeof st), "ESTABLISHED");
    CHECK_STR(tcp_state_name(15, st, sizeof st), "STATE_15");
}

TEST(tcp_resets_outside_the_window_listed_with_time)
{
    struct report *r = report_new();
    struct te_data d;
    memset(&d, 0, sizeof d);
    d.nrst = 2;
    d.rst = calloc(2, sizeof *d.rst);
    d.rst[0].family = AF_INET;
    inet_pton(AF_INET, "127.0.0.1", d.rst[0].saddr);
    inet_pton(AF_INET, "127.0.0.1", d.rst[0].daddr);
    d.rst[0].sport = 5001;
    d.rst[0].dport = 40000;
    d.rst[0].before = 3;
    d.rst[0].first_s = -1.25;
    d.rst[0].last_s = -1.0;
    d.rst[1] = d.rst[0];
    d.rst[1].dport = 40001;
    d.rst[1].before = 0;
    d.rst[1].count = 2;
    d.rst[1].first_s = 0.5;
    d.rst[1].last_s = 0.75;
    tcpevents_fill(r, &d, 10);
    te_data_free(&d);
    CHECK_NUM(report_metric_value(r, "tcp.bpf_resets_sent"), 2, 1e-9);
    CHECK_NUM(report_metric_value(r, "tcp.bpf_resets_sent_per_s"), 0.2, 1e-9);
    CHECK_NUM(report_metric_value(r, "tcp.bpf_resets_outside"), 3, 1e-9);
    const struct table *t = report_find_table(r, "tcp.resets");
    REQUIRE(t && t->nrows == 2);
    CHECK_STR(table_str(t, 0, "dst"), "127.0.0.1:40001"); /* the window's first */
    CHECK_STR(table_str(t, 1, "dst"), "127.0.0.1:40000");
    CHECK_NUM(table_num(t, 1, "count"), 0, 1e-9);
    CHECK_NUM(table_num(t, 1, "before"), 3, 1e-9);
    CHECK_NUM(table_num(t, 1, "first_s"), -1.25, 1e-9);
    CHECK_NUM(table_num(t, 1, "last_s"), -1.0, 1e-9);
    report_free(r);
}

static struct report *tcp_model(double retrans_per_s_bpf, double proc_pct)
{
    struct report *r = report_new();
    struct te_data d;
    memset(&d, 0, sizeof d);
    d.nrt = 2;
    d.rt = calloc(2, sizeof *d.rt);
    d.rt[0].family = AF_INET;
    inet_pton(AF_INET, "10.0.0.1", d.rt[0].saddr);
    inet_pton(AF_INET, "10.0.0.2", d.rt[0].daddr);
    d.rt[0].sport = 45678;
    d.rt[0].dport = 5001;
    d.rt[0].state = 1;
    d.rt[0].count = (uint64_t)(retrans_per_s_bpf * 10) - 1;
    d.rt[1] = d.rt[0];
    d.rt[1].dport = 80;
    d.rt[1].count = 1;
    d.states[1][4] = 3;
    tcpevents_fill(r, &d, 10);
    te_data_free(&d);
    if (!isnan(proc_pct)) {
        report_metric(r, "tcp.retrans_pct", "", "%", "network", proc_pct);
        report_metric(r, "tcp.retrans_segs", "", "", "network", 100);
    }
    char err[256];
    thresholds_load(r, NULL, err, sizeof err);
    analyze_run(r);
    return r;
}

TEST(tcp_retransmits_name_worst_connection)
{
    struct report *r = tcp_model(50, 7.5);
    const struct table *t = report_find_table(r, "tcp.retransmits");
    REQUIRE(t && t->nrows == 2);
    CHECK_STR(table_str(t, 0, "src"), "10.0.0.1:45678");
    CHECK_STR(table_str(t, 0, "dst"), "10.0.0.2:5001");
    CHECK_STR(table_str(t, 0, "state"), "ESTABLISHED");
    const struct table *sc = report_find_table(r, "tcp.state_changes");
    REQUIRE(sc && sc->nrows == 1);
    CHECK_STR(table_str(sc, 0, "to"), "FIN_WAIT1");
    const struct finding *f = report_find_finding(r, "net.tcp_retransmits");
    REQUIRE(f);
    CHECK(f->sev == SEV_CRITICAL);
    CHECK_CONTAINS(f->title, "7.5% of segments");
    CHECK_CONTAINS(f->title, "worst 10.0.0.1:45678 -> 10.0.0.2:5001 (499 retransmits)");
    report_free(r);
}

TEST(tcp_retransmits_other_namespace_boundary)
{
    /* No /proc signal at all: the tracepoint rate decides, 5/s warns. */
    struct report *r = tcp_model(5, NAN);
    const struct finding *f = report_find_finding(r, "net.tcp_retransmits");
    REQUIRE(f);
    CHECK(f->sev == SEV_WARNING);
    CHECK_CONTAINS(f->title, ":5001");
    int ns = 0;
    for (size_t i = 0; i < f->nevidence; i++)
        ns |= strstr(f->evidence[i], "another network namespace") != NULL;
    CHECK(ns);
    report_free(r);
    r = tcp_model(4.9, 0.0);
    CHECK(report_find_finding(r, "net.tcp_retransmits") == NULL);
    report_free(r);
}
