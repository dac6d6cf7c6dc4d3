/* Network collector (/proc/net/dev, snmp, netstat, sockstat) and its pure
 * parsers. */
#ifndef PERFREPORT_NET_H
#define PERFREPORT_NET_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct collector;
extern const struct collector collector_net;

/* One /proc/net/dev row. */
struct netdev {
    char *name; /* owned; host-controlled, stored as-is */
    uint64_t rx_bytes, rx_packets, rx_errs, rx_drop, rx_fifo, rx_frame, rx_compressed,
        rx_multicast;
    uint64_t tx_bytes, tx_packets, tx_errs, tx_drop, tx_fifo, tx_colls, tx_carrier,
        tx_compressed;
};

struct netdevs {
    struct netdev *v;
    size_t n, cap;
};

/* Parses /proc/net/dev text (appends).  The name is everything before the
 * last ':' on the line, trimmed, so neither a missing space after the colon
 * (old kernels, long names) nor a ':' inside a name confuses it.  Header
 * lines are ignored; lines with fewer than 16 numbers or a duplicate name
 * are skipped and counted in the return value. */
size_t netdev_parse(const char *text, struct netdevs *out);
void netdevs_free(struct netdevs *d);

/* Named counters from "Section: name name ..." / "Section: v v ..." line pairs
 * (/proc/net/snmp, /proc/net/netstat) or "Section: key v key v" lines
 * (/proc/net/sockstat).  Always looked up by name, never by position. */
struct netkv {
    char *sect; /* "Tcp", "TcpExt", "TCP" ... (owned) */
    char *key;  /* "RetransSegs" (owned) */
    int64_t v;  /* signed: Tcp MaxConn is -1 */
};

struct netkvs {
    struct netkv *v;
    size_t n, cap;
};

/* Header/value pairs whose lengths differ, or whose values are not numbers,
 * are skipped whole (a misaligned pair would mislabel every value) and
 * counted in the return value. */
size_t netsnmp_parse(const char *text, struct netkvs *out);
size_t netsockstat_parse(const char *text, struct netkvs *out);
bool netkvs_get(const struct netkvs *kv, const char *sect, const char *key, int64_t *v);
void netkvs_free(struct netkvs *kv);
/* /proc/net/snmp6: "Udp6RcvbufErrors   12" lines, each a counter of
 * section "snmp6" under its whole name.  Lines that are not a name and a
 * number are skipped and counted. */
size_t netsnmp6_parse(const char *text, struct netkvs *out);

/* One socket of /proc/net/udp or udp6. */
struct udpsock {
    uint64_t inode, drops, rx_queue; /* drops since the socket was made; bytes queued */
    uint32_t uid;
    uint16_t port;
    bool v6;
    char local[64]; /* "127.0.0.1:5001", "[::1]:5001" */
};
struct udpsocks {
    struct udpsock *v;
    size_t n, cap;
};
/* Parses /proc/net/udp (v6 false) or udp6 text (appends): the header and
 * sockets with inode 0 (not yet bound to a file) are left out; malformed
 * lines are skipped and counted in the return value.  Addresses are the
 * kernel's words in this host's byte order, as it prints them. */
size_t netudp_parse(const char *text, bool v6, struct udpsocks *out);
void udpsocks_free(struct udpsocks *s);
/* The inode of an fd link "socket:[12345]"; false for anything else. */
bool net_socket_inode(const char *link, uint64_t *inode);
#endif
