#include "harness.h"
#include "collect_life.h"
#include "../../src/collect/collector.h"
#include "../../src/collect/net.h"
#include "../../src/model/model.h"
#include "../../src/run/probe.h"
#include "../../src/util/hostfs.h"
#include <math.h>
#include <stdlib.h>

static long row_of(const struct table *t, const char *name)
{
    for (size_t i = 0; t && i < t->nrows; i++) {
        const char *s = table_str(t, i, "iface");
        if (s && strcmp(s, name) == 0)
            return (long)i;
    }
    return -1;
}

static double last_value(const struct report *r, const char *name)
{
    const struct series *s = report_find_series(r, name);
    return s && s->n ? s->v[s->n - 1] : NAN;
}

#define M(name) report_metric_value(r, name)

TEST(net_dev_parse_names)
{
    const char *text =
        "Inter-|   Receive                                                |  Transmit\n"
        " face |bytes    packets errs drop fifo frame compressed multicast|bytes\n"
        "    lo:    3267      29    0    0    0     0          0         0     3267      29    0    0    0     0       0          0\n"
        "verylongname15c:2048 2 0 0 0 0 0 0 4096 4 0 0 0 0 0 0\n"
        " we:ird: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
        " a|b: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n"
        "  bad0: 1 2 3\n"
        "  bad1: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 x\n"
        "    : 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
        "no colon here\n"
        "    lo: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n";
    struct netdevs d = {0};
    CHECK(netdev_parse(text, &d) == 5); /* bad0 bad1 empty-name no-colon dup-lo */
    REQUIRE(d.n == 4);
    CHECK_STR(d.v[0].name, "lo");
    CHECK(d.v[0].rx_bytes == 3267 && d.v[0].tx_packets == 29);
    CHECK_STR(d.v[1].name, "verylongname15c");
    CHECK(d.v[1].rx_bytes == 2048 && d.v[1].tx_bytes == 4096);
    CHECK_STR(d.v[2].name, "we:ird");
    CHECK(d.v[2].rx_bytes == 1 && d.v[2].rx_drop == 4 && d.v[2].tx_errs == 11 &&
          d.v[2].tx_drop == 12 && d.v[2].tx_compressed == 16);
    CHECK_STR(d.v[3].name, "a|b");
    netdevs_free(&d);
}

TEST(net_snmp_parse_by_name)
{
    const char *text = "Tcp: OutSegs InSegs MaxConn RetransSegs\n"
                       "Tcp: 10 20 -1 3\n"
                       "Icmp: InMsgs InErrors\n"
                       "Icmp: 1 2 3\n"
                       "Udp: InErrors RcvbufErrors\n"
                       "Tcp: 1 2\n"
                       "IpExt: InOctets\n"
                       "IpExt: 18446744073709551615\n"
                       "Lonely: Header\n";
    struct netkvs kv = {0};
    /* Icmp length mismatch, Udp header without values, Tcp values after a
     * Udp header, trailing lonely header */
    CHECK(netsnmp_parse(text, &kv) == 4);
    int64_t v = 0;
    CHECK(netkvs_get(&kv, "Tcp", "OutSegs", &v) && v == 10);
    CHECK(netkvs_get(&kv, "Tcp", "InSegs", &v) && v == 20);
    CHECK(netkvs_get(&kv, "Tcp", "MaxConn", &v) && v == -1);
    CHECK(netkvs_get(&kv, "Tcp", "RetransSegs", &v) && v == 3);
    CHECK(netkvs_get(&kv, "IpExt", "InOctets", &v) && (uint64_t)v == UINT64_MAX);
    CHECK(!netkvs_get(&kv, "Icmp", "InMsgs", &v));
    CHECK(!netkvs_get(&kv, "Udp", "InErrors", &v));
    CHECK(!netkvs_get(&kv, "tcp", "OutSegs", &v)); /* section names are exact */
    netkvs_free(&kv);
}

TEST(net_sockstat_parse)
{
    const char *text = "sockets: used 42\n"
                       "TCP: inuse 5 orphan 1 tw 3 alloc 7 mem 2\n"
                       "UDP: inuse 2 mem\n"
                       "FRAG: inuse 0 memory 0\n";
    struct netkvs kv = {0};
    CHECK(netsockstat_parse(text, &kv) == 1); /* odd UDP line */
    int64_t v = 0;
    CHECK(netkvs_get(&kv, "sockets", "used", &v) && v == 42);
    CHECK(netkvs_get(&kv, "TCP", "tw", &v) && v == 3);
    CHECK(netkvs_get(&kv, "TCP", "mem", &v) && v == 2);
    CHECK(!netkvs_get(&kv, "UDP", "inuse", &v));
    CHECK(netkvs_get(&kv, "FRAG", "memory", &v) && v == 0);
    netkvs_free(&kv);
}

/* Captured on the build host around one refused loopback connect; t1 is
 * treated as 1.000 s after t0. */
TEST(net_life_real_fixture)
{
    const char *dirs[] = {"real/t0", "real/t1"};
    const double times[] = {0.0, 1.0};
    struct report *r = life_play(&collector_net, "net", dirs, times, 2, NULL);
    const struct table *t = report_find_table(r, "net.iface");
    REQUIRE(t);
    CHECK(t->nrows == 4);
    CHECK(row_of(t, "ifb0") == 0 && row_of(t, "ifb1") == 1 && row_of(t, "eth0") == 2);
    REQUIRE(row_of(t, "lo") == 3);
    CHECK_NUM(table_num(t, 3, "rx_pkts_per_s"), 2, 1e-9);
    CHECK_NUM(table_num(t, 3, "tx_pkts_per_s"), 2, 1e-9);
    CHECK_NUM(table_num(t, 3, "rx_kib_per_s"), 100.0 / 1024.0, 1e-9);
    CHECK_NUM(table_num(t, 3, "drops"), 0, 0);
    CHECK_NUM(table_num(t, 2, "rx_kib_per_s"), 0, 0);
    CHECK_NUM(last_value(r, "net.rx_kib_per_s"), 0, 0); /* only lo moved */
    CHECK_NUM(last_value(r, "net.tx_kib_per_s"), 0, 0);
    CHECK_NUM(last_value(r, "net.drops_per_s"), 0, 0);
    CHECK_NUM(last_value(r, "tcp.retrans_segs_per_s"), 0, 0);
    const struct series *s = report_find_series(r, "net.rx_kib_per_s");
    CHECK(s && s->chart && strcmp(s->hdr.resource, "network") == 0);
    s = report_find_series(r, "net.tx_kib_per_s");
    CHECK(s && s->chart);

    CHECK_NUM(M("net.drops_per_s"), 0, 0);
    CHECK_NUM(M("net.errs_per_s"), 0, 0);
    CHECK_NUM(M("tcp.in_segs_per_s"), 2, 1e-9);
    CHECK_NUM(M("tcp.out_segs_per_s"), 2, 1e-9);
    CHECK_NUM(M("tcp.retrans_segs"), 0, 0);
    CHECK_NUM(M("tcp.retrans_pct"), 0, 0);
    CHECK_NUM(M("tcp.active_opens_per_s"), 1, 1e-9);
    CHECK_NUM(M("tcp.passive_opens_per_s"), 0, 0);
    CHECK_NUM(M("tcp.attempt_fails"), 1, 0);
    CHECK_NUM(M("tcp.out_rsts"), 1, 0);
    CHECK_NUM(M("tcp.out_rsts_per_s"), 1, 1e-9);
    CHECK_NUM(M("tcp.listen_overflows"), 0, 0);
    CHECK_NUM(M("tcp.curr_estab"), 0, 0);
    CHECK_NUM(M("udp.in_errors"), 0, 0);
    CHECK_NUM(M("sock.used"), 17, 0);
    CHECK_NUM(M("sock.tcp_inuse"), 1, 0);
    CHECK_NUM(M("sock.tcp_alloc"), 1, 0);
    CHECK_NUM(M("sock.udp_inuse"), 0, 0);
    report_free(r);
}

/* Hand-made, 2 s apart: a name with ':' and one with markup and UTF-8, a
 * 15-byte name glued to its first number, a reset wlan0, an interface that
 * vanishes and one that appears, malformed lines, snmp/netstat columns in a
 * different order in each reading, a length-mismatched Icmp pair. */
TEST(net_life_odd_fixture)
{
    const char *dirs[] = {"odd/t0", "odd/t1"};
    const double times[] = {0.0, 2.0};
    struct report *r = life_play(&collector_net, "net", dirs, times, 2, NULL);
    const struct table *t = report_find_table(r, "net.iface");
    REQUIRE(t);
    CHECK(t->nrows == 6);
    CHECK(row_of(t, "eth0") == 0 && row_of(t, "verylongname15c") == 1);
    CHECK(row_of(t, "we:ird") == 2 && row_of(t, "\xc3\xa9<x>") == 3);
    CHECK(row_of(t, "wlan0") == 4 && row_of(t, "lo") == 5);
    CHECK(row_of(t, "gone0") < 0 && row_of(t, "new0") < 0 && row_of(t, "bad0") < 0);

    CHECK_NUM(table_num(t, 0, "rx_pkts_per_s"), 1000, 1e-9);
    CHECK_NUM(table_num(t, 0, "tx_pkts_per_s"), 500, 1e-9);
    CHECK_NUM(table_num(t, 0, "rx_kib_per_s"), 1000, 1e-9);
    CHECK_NUM(table_num(t, 0, "tx_kib_per_s"), 500, 1e-9);
    CHECK_NUM(table_num(t, 0, "rx_drops_per_s"), 5, 1e-9);
    CHECK_NUM(table_num(t, 0, "tx_drops_per_s"), 2, 1e-9);
    CHECK_NUM(table_num(t, 0, "rx_errs_per_s"), 1, 1e-9);
    CHECK_NUM(table_num(t, 0, "tx_errs_per_s"), 0, 0);
    CHECK_NUM(table_num(t, 0, "drops"), 14, 0);
    CHECK_NUM(table_num(t, 0, "errs"), 2, 0);
    CHECK_NUM(table_num(t, 1, "rx_kib_per_s"), 2, 1e-9);
    CHECK_NUM(table_num(t, 2, "rx_kib_per_s"), 1, 1e-9);
    CHECK_NUM(table_num(t, 2, "rx_pkts_per_s"), 1, 1e-9);
    CHECK_NUM(table_num(t, 4, "rx_kib_per_s"), 0, 0); /* counter reset: 0, not huge */
    CHECK_NUM(table_num(t, 4, "rx_pkts_per_s"), 0, 0);
    CHECK_NUM(table_num(t, 4, "tx_kib_per_s"), 1, 1e-9);
    CHECK_NUM(table_num(t, 5, "rx_kib_per_s"), 1, 1e-9);

    /* totals leave lo out: (2048000+4096+2048)/1024/2, (1024000+2048)/1024/2 */
    CHECK_NUM(last_value(r, "net.rx_kib_per_s"), 1003, 1e-9);
    CHECK_NUM(last_value(r, "net.tx_kib_per_s"), 501, 1e-9);
    CHECK_NUM(last_value(r, "net.drops_per_s"), 7, 1e-9);
    CHECK_NUM(last_value(r, "tcp.retrans_segs_per_s"), 10, 1e-9);

    CHECK_NUM(M("net.drops_per_s"), 7, 1e-9);
    CHECK_NUM(M("net.errs_per_s"), 1, 1e-9);
    CHECK_NUM(M("tcp.in_segs_per_s"), 300, 1e-9);
    CHECK_NUM(M("tcp.out_segs_per_s"), 200, 1e-9);
    CHECK_NUM(M("tcp.retrans_segs"), 20, 0);
    CHECK_NUM(M("tcp.retrans_segs_per_s"), 10, 1e-9);
    CHECK_NUM(M("tcp.retrans_pct"), 5, 1e-9);
    CHECK_NUM(M("tcp.active_opens_per_s"), 2, 1e-9);
    CHECK_NUM(M("tcp.passive_opens_per_s"), 5, 1e-9);
    CHECK_NUM(M("tcp.attempt_fails"), 3, 0);
    CHECK_NUM(M("tcp.estab_resets"), 1, 0);
    CHECK_NUM(M("tcp.out_rsts"), 10, 0);
    CHECK_NUM(M("tcp.out_rsts_per_s"), 5, 1e-9);
    CHECK_NUM(M("tcp.listen_overflows"), 10, 0);
    CHECK_NUM(M("tcp.listen_drops"), 12, 0);
    CHECK_NUM(M("tcp.abort_on_data"), 1, 0);
    CHECK_NUM(M("tcp.abort_on_timeout"), 0, 0);
    CHECK(isnan(M("tcp.abort_on_memory"))); /* not in this netstat: absent */
    CHECK_NUM(M("tcp.curr_estab"), 11, 0);
    CHECK_NUM(M("udp.in_errors"), 3, 0);
    CHECK_NUM(M("udp.rcvbuf_errors"), 0, 0);
    CHECK_NUM(M("sock.used"), 42, 0);
    CHECK_NUM(M("sock.tcp_inuse"), 5, 0);
    CHECK_NUM(M("sock.tcp_orphan"), 1, 0);
    CHECK_NUM(M("sock.tcp_tw"), 3, 0);
    CHECK_NUM(M("sock.tcp_alloc"), 7, 0);
    CHECK_NUM(M("sock.udp_inuse"), 2, 0);
    const struct ledger_entry *e = report_ledger(r, "net", "Network");
    CHECK_CONTAINS(e->notes, "6 malformed");
    report_free(r);
}

/* Same reading twice: nothing sent, so the retransmit share is absent. */
TEST(net_retrans_pct_absent_without_sends)
{
    const char *dirs[] = {"real/t1", "real/t1"};
    const double times[] = {0.0, 1.0};
    struct report *r = life_play(&collector_net, "net", dirs, times, 2, NULL);
    CHECK(isnan(M("tcp.retrans_pct")));
    CHECK_NUM(M("tcp.out_segs_per_s"), 0, 0);
    CHECK_NUM(M("tcp.retrans_segs"), 0, 0);
    CHECK_NUM(M("sock.used"), 17, 0);
    report_free(r);
}

TEST(net_missing_files)
{
    struct collect_config cfg = {0};
    struct host_caps caps = {0};
    struct report *r = report_new();
    struct collect_ctx ctx = {.r = r, .cfg = &cfg, .caps = &caps, .now_s = 0,
                              .clock_s = collect_tick_clock};
    char root[4096], err[256] = "";
    snprintf(root, sizeof root, "%s/disk/odd/t0", fixtures_dir()); /* no /proc/net */
    hostfs_set_root(root);
    CHECK(!collector_net.can_run(&ctx, err, sizeof err));
    CHECK_CONTAINS(err, "/proc/net/dev");
    void *st = NULL;
    CHECK(collector_net.start(&ctx, &st, err, sizeof err) != 0);
    collector_net.destroy(st);
    hostfs_set_root(NULL);
    CHECK(isnan(M("tcp.in_segs_per_s")));
    report_free(r);
}

TEST(net_snmp6_parse_names)
{
    struct netkvs kv = {0};
    CHECK(netsnmp6_parse("Udp6InDatagrams                 \t12\nUdp6RcvbufErrors 3\n"
                         "Ip6InReceives -1\nlonely\nUdp6X 1 2\nUdp6Y x\n\n",
                         &kv) == 3);
    int64_t v;
    CHECK(netkvs_get(&kv, "snmp6", "Udp6InDatagrams", &v) && v == 12);
    CHECK(netkvs_get(&kv, "snmp6", "Udp6RcvbufErrors", &v) && v == 3);
    CHECK(netkvs_get(&kv, "snmp6", "Ip6InReceives", &v) && v == -1);
    CHECK(!netkvs_get(&kv, "snmp6", "Udp6Y", &v));
    netkvs_free(&kv);
}

TEST(net_udp_parse_real_and_hostile)
{
    struct strbuf sb = STRBUF_INIT;
    hostfs_set_root(fixture("net/udp/t1"));
    REQUIRE(hostfs_read("/proc/net/udp", &sb, 0) == 0);
    struct udpsocks s = {0};
    CHECK(netudp_parse(sb_str(&sb), false, &s) == 0);
    REQUIRE(s.n == 2);
    CHECK_STR(s.v[1].local, "127.0.0.1:23456");
    CHECK(s.v[1].port == 23456 && s.v[1].inode == 293880 && s.v[1].drops == 13858);
    CHECK_STR(s.v[0].local, "0.0.0.0:49502");
    CHECK(!s.v[0].v6);
    REQUIRE(hostfs_read("/proc/net/udp6", &sb, 0) == 0);
    CHECK(netudp_parse(sb_str(&sb), true, &s) == 0);
    REQUIRE(s.n == 3);
    CHECK_STR(s.v[2].local, "[::1]:53");
    CHECK(s.v[2].v6 && s.v[2].uid == 102 && s.v[2].drops == 7);
    udpsocks_free(&s);
    hostfs_set_root(NULL);
    sb_free(&sb);

    /* queued bytes; inode 0 (not bound to a file yet) left out; malformed
     * lines counted: short, bad hex, a v6 address in the v4 file, a port
     * past 4 digits, a uid past 32 bits, no "sl:" colon */
    const char *txt =
        "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n"
        "    1: 0100007F:0035 00000000:0000 07 00000000:00000A00 00:00000000 00000000     0        0 55 2 0000000000000000 9\n"
        "    2: 0100007F:0036 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 0 2 0000000000000000 9\n"
        "    3: 0100007F:0037 00000000:0000 07\n"
        "    4: 0100007G:0037 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 56 2 0000000000000000 9\n"
        "    5: 00000000000000000000000001000000:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 57 2 0 9\n"
        "    6: 0100007F:10035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 58 2 0 9\n"
        "    7: 0100007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000 4294967296        0 59 2 0 9\n"
        "    8  0100007F:0035 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 60 2 0 9\n"
        "   sl  local_address\n";
    struct udpsocks h = {0};
    CHECK(netudp_parse(txt, false, &h) == 7);
    REQUIRE(h.n == 1);
    CHECK(h.v[0].inode == 55 && h.v[0].rx_queue == 2560 && h.v[0].drops == 9);
    udpsocks_free(&h);
}

TEST(net_socket_inode_links)
{
    uint64_t ino = 0;
    CHECK(net_socket_inode("socket:[293880]", &ino) && ino == 293880);
    CHECK(!net_socket_inode("/tmp/socket:[293880]", &ino));
    CHECK(!net_socket_inode("socket:[293880", &ino));
    CHECK(!net_socket_inode("socket:[]", &ino));
    CHECK(!net_socket_inode("socket:[12]x", &ino));
    CHECK(!net_socket_inode("socket:[-1]", &ino));
    CHECK(!net_socket_inode("socket:[99999999999999999999]", &ino));
    CHECK(!net_socket_inode("pipe:[12]", &ino));
}

/* Captured on the test VM, 2 s apart: a sender floods a reader with a small
 * buffer that sleeps 1 ms per datagram; the reader's fds (t1/proc/4242),
 * a file named like its socket, truncated links and a v6 socket made in
 * the window are hand-made. */
TEST(net_life_udp_drops_and_reader)
{
    const char *dirs[] = {"udp/t0", "udp/t1"};
    const double times[] = {0.0, 2.0};
    struct report *r = life_play(&collector_net, "net", dirs, times, 2, NULL);
    CHECK_NUM(M("udp.rcvbuf_errors"), 110682 - 101474, 0);
    CHECK_NUM(M("udp.rcvbuf_errors_per_s"), (110682 - 101474) / 2.0, 1e-9);
    CHECK_NUM(M("udp.in_datagrams"), 4467 - 3267, 0);
    CHECK_NUM(M("udp.rcvbuf_drop_pct"), 9208.0 / (9208 + 1200) * 100, 1e-9);
    const struct table *t = report_find_table(r, "net.udp_drops");
    REQUIRE(t);
    REQUIRE(t->nrows == 2);
    CHECK_STR(table_str(t, 0, "local"), "127.0.0.1:23456");
    CHECK_STR(table_str(t, 0, "proto"), "udp");
    CHECK_NUM(table_num(t, 0, "drops"), 13858 - 4755, 0);
    CHECK_NUM(table_num(t, 0, "drops_per_s"), (13858 - 4755) / 2.0, 1e-9);
    CHECK_NUM(table_num(t, 0, "pid"), 4242, 0);
    CHECK_STR(table_str(t, 0, "process"), "udpsink");
    CHECK_NUM(table_num(t, 0, "rx_queue_kib"), 0, 0);
    /* made in the window: all its drops; no process holds it */
    CHECK_STR(table_str(t, 1, "local"), "[::1]:53");
    CHECK_NUM(table_num(t, 1, "drops"), 7, 0);
    CHECK(isnan(table_num(t, 1, "pid")));
    CHECK(table_str(t, 1, "process") == NULL);
    CHECK_CONTAINS(t->note, "2 sockets in all");
    report_free(r);

    /* no drops in the window: no table */
    const char *same[] = {"udp/t1", "udp/t1"};
    r = life_play(&collector_net, "net", same, times, 2, NULL);
    CHECK(report_find_table(r, "net.udp_drops") == NULL);
    CHECK_NUM(M("udp.rcvbuf_errors"), 0, 0);
    report_free(r);
}
