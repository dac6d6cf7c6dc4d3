/* Network collector: per-interface rates from /proc/net/dev and the TCP/UDP
 * counters of /proc/net/snmp + /proc/net/netstat, socket gauges from
 * /proc/net/sockstat.  These files describe the network namespace we run in.
 *
 * As in the disk collector, every reading is diffed against the previous one
 * (a backwards counter gives 0) and the deltas are summed into window totals;
 * an interface that disappears loses its baseline and starts afresh. */
#include "net.h"
#include "collector.h"
#include "model/model.h"
#include "model/names.h"
#include "util/hostfs.h"
#include "util/readfile.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsers ---------------------------------------------------------- */

#define NET_MAX_TOKENS 1024 /* TcpExt has ~130 names today */

struct tokens {
    const char *s[NET_MAX_TOKENS];
    size_t len[NET_MAX_TOKENS];
    size_t n;        /* kept tokens */
    bool overflow;   /* more than NET_MAX_TOKENS on the line */
};

static void tokenize(const char *s, size_t len, struct tokens *t)
{
    t->n = 0;
    t->overflow = false;
    size_t i = 0;
    while (i < len) {
        while (i < len && isspace((unsigned char)s[i]))
            i++;
        if (i >= len)
            break;
        size_t b = i;
        while (i < len && !isspace((unsigned char)s[i]))
            i++;
        if (t->n == NET_MAX_TOKENS) {
            t->overflow = true;
            return;
        }
        t->s[t->n] = s + b;
        t->len[t->n] = i - b;
        t->n++;
    }
}

static bool parse_u64(const char *s, size_t len, uint64_t *v)
{
    if (len == 0 || len > 20)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        uint64_t digit = (uint64_t)(s[i] - '0');
        if (x > (UINT64_MAX - digit) / 10)
            return false;
        x = x * 10 + digit;
    }
    *v = x;
    return true;
}

/* Counters print as unsigned, a few gauges as signed ("MaxConn -1"). */
static bool parse_i64(const char *s, size_t len, int64_t *v)
{
    uint64_t u;
    if (len > 0 && s[0] == '-') {
        if (!parse_u64(s + 1, len - 1, &u) || u > (uint64_t)INT64_MAX)
            return false;
        *v = -(int64_t)u;
        return true;
    }
    if (!parse_u64(s, len, &u))
        return false;
    *v = (int64_t)u; /* counters beyond 2^63 wrap; deltas are taken as unsigned */
    return true;
}

static bool netdev_has(const struct netdevs *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->v[i].name, name) == 0)
            return true;
    return false;
}

size_t netdev_parse(const char *text, struct netdevs *out)
{
    size_t skipped = 0;
    const char *p = text ? text : "";
    struct tokens *t = xmalloc(sizeof *t);
    while (*p) {
        size_t len = strcspn(p, "\n");
        const char *colon = NULL;
        for (size_t i = 0; i < len; i++)
            if (p[i] == ':')
                colon = p + i;
        bool blank = true;
        for (size_t i = 0; i < len; i++)
            if (!isspace((unsigned char)p[i]))
                blank = false;
        if (!colon) {
            /* The two header lines have '|' and no ':'; anything else is junk. */
            if (!blank && !memchr(p, '|', len))
                skipped++;
            goto next;
        }
        const char *nb = p, *ne = colon;
        while (nb < ne && isspace((unsigned char)*nb))
            nb++;
        while (ne > nb && isspace((unsigned char)ne[-1]))
            ne--;
        tokenize(colon + 1, len - (size_t)(colon + 1 - p), t);
        uint64_t v[16];
        bool ok = ne > nb && t->n >= 16;
        for (size_t k = 0; ok && k < 16; k++)
            ok = parse_u64(t->s[k], t->len[k], &v[k]);
        char *name = ok ? xstrndup(nb, (size_t)(ne - nb)) : NULL;
        if (!ok || netdev_has(out, name)) {
            free(name);
            skipped++;
            goto next;
        }
        xgrow(&out->v, &out->cap, out->n + 1, sizeof *out->v);
        struct netdev *d = &out->v[out->n++];
        *d = (struct netdev){
            .name = name,
            .rx_bytes = v[0], .rx_packets = v[1], .rx_errs = v[2], .rx_drop = v[3],
            .rx_fifo = v[4], .rx_frame = v[5], .rx_compressed = v[6], .rx_multicast = v[7],
            .tx_bytes = v[8], .tx_packets = v[9], .tx_errs = v[10], .tx_drop = v[11],
            .tx_fifo = v[12], .tx_colls = v[13], .tx_carrier = v[14], .tx_compressed = v[15],
        };
    next:
        p += len;
        if (*p == '\n')
            p++;
    }
    free(t);
    return skipped;
}

void netdevs_free(struct netdevs *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->v[i].name);
    free(d->v);
    d->v = NULL;
    d->n = d->cap = 0;
}

static void kv_push(struct netkvs *kv, const char *sect, size_t slen, const char *key,
                    size_t klen, int64_t v)
{
    xgrow(&kv->v, &kv->cap, kv->n + 1, sizeof *kv->v);
    struct netkv *e = &kv->v[kv->n++];
    e->sect = xstrndup(sect, slen);
    e->key = xstrndup(key, klen);
    e->v = v;
}

/* Splits "Sect: rest" of line [p, p+len); false when there is no section. */
static bool split_section(const char *p, size_t len, const char **sect, size_t *slen,
                          const char **rest, size_t *rlen)
{
    const char *colon = memchr(p, ':', len);
    if (!colon || colon == p)
        return false;
    for (const char *c = p; c < colon; c++)
        if (isspace((unsigned char)*c))
            return false;
    *sect = p;
    *slen = (size_t)(colon - p);
    *rest = colon + 1;
    *rlen = len - (size_t)(colon + 1 - p);
    return true;
}

size_t netsnmp_parse(const char *text, struct netkvs *out)
{
    size_t skipped = 0;
    const char *p = text ? text : "";
    struct tokens *hdr = xmalloc(sizeof *hdr);
    struct tokens *val = xmalloc(sizeof *val);
    const char *hsect = NULL;
    size_t hslen = 0;
    bool have_hdr = false;
    while (*p) {
        size_t len = strcspn(p, "\n");
        const char *sect, *rest;
        size_t slen, rlen;
        if (!split_section(p, len, &sect, &slen, &rest, &rlen)) {
            bool blank = true;
            for (size_t i = 0; i < len; i++)
                if (!isspace((unsigned char)p[i]))
                    blank = false;
            if (!blank)
                skipped++;
            have_hdr = false;
            goto next;
        }
        tokenize(rest, rlen, val);
        int64_t tmp;
        bool numeric = val->n > 0 && !val->overflow;
        for (size_t k = 0; numeric && k < val->n; k++)
            numeric = parse_i64(val->s[k], val->len[k], &tmp);
        if (!numeric) {
            /* A header: remember it until its value line comes. */
            if (have_hdr)
                skipped++; /* the previous header never got values */
            tokenize(rest, rlen, hdr);
            have_hdr = hdr->n > 0 && !hdr->overflow;
            hsect = sect;
            hslen = slen;
            goto next;
        }
        bool same = have_hdr && hslen == slen && memcmp(hsect, sect, slen) == 0;
        if (!same || hdr->n != val->n) {
            /* An orphaned header of another section is lost as well. */
            skipped += have_hdr && !same ? 2 : 1;
            have_hdr = false;
            goto next;
        }
        for (size_t k = 0; k < val->n; k++) {
            parse_i64(val->s[k], val->len[k], &tmp);
            kv_push(out, sect, slen, hdr->s[k], hdr->len[k], tmp);
        }
        have_hdr = false;
    next:
        p += len;
        if (*p == '\n')
            p++;
    }
    if (have_hdr)
        skipped++;
    free(hdr);
    free(val);
    return skipped;
}

size_t netsockstat_parse(const char *text, struct netkvs *out)
{
    size_t skipped = 0;
    const char *p = text ? text : "";
    struct tokens *t = xmalloc(sizeof *t);
    while (*p) {
        size_t len = strcspn(p, "\n");
        const char *sect, *rest;
        size_t slen, rlen;
        bool ok = split_section(p, len, &sect, &slen, &rest, &rlen);
        if (ok) {
            tokenize(rest, rlen, t);
            ok = t->n > 0 && t->n % 2 == 0 && !t->overflow;
            int64_t v;
            for (size_t k = 1; ok && k < t->n; k += 2)
                ok = parse_i64(t->s[k], t->len[k], &v);
            for (size_t k = 0; ok && k + 1 < t->n; k += 2) {
                parse_i64(t->s[k + 1], t->len[k + 1], &v);
                kv_push(out, sect, slen, t->s[k], t->len[k], v);
            }
        }
        if (!ok) {
            bool blank = true;
            for (size_t i = 0; i < len; i++)
                if (!isspace((unsigned char)p[i]))
                    blank = false;
            if (!blank)
                skipped++;
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    free(t);
    return skipped;
}

bool netkvs_get(const struct netkvs *kv, const char *sect, const char *key, int64_t *v)
{
    for (size_t i = 0; i < kv->n; i++)
        if (strcmp(kv->v[i].sect, sect) == 0 && strcmp(kv->v[i].key, key) == 0) {
            *v = kv->v[i].v;
            return true;
        }
    return false;
}

void netkvs_free(struct netkvs *kv)
{
    for (size_t i = 0; i < kv->n; i++) {
        free(kv->v[i].sect);
        free(kv->v[i].key);
    }
    free(kv->v);
    kv->v = NULL;
    kv->n = kv->cap = 0;
}

size_t netsnmp6_parse(const char *text, struct netkvs *out)
{
    size_t skipped = 0;
    text = text ? text : "";
    size_t tlen = strlen(text), pos = 0, len;
    const char *p;
    struct tokens *t = xmalloc(sizeof *t);
    while (next_line(text, tlen, &pos, &p, &len)) {
        tokenize(p, len, t);
        int64_t v;
        if (t->n == 2 && !t->overflow && parse_i64(t->s[1], t->len[1], &v))
            kv_push(out, "snmp6", 5, t->s[0], t->len[0], v);
        else if (t->n)
            skipped++;
    }
    free(t);
    return skipped;
}

/* A hex number of exactly `len` digits (at most 16). */
static bool parse_hex(const char *s, size_t len, uint64_t *v)
{
    if (len == 0 || len > 16)
        return false;
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)s[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else
            return false;
        x = x << 4 | (uint64_t)d;
    }
    *v = x;
    return true;
}

/* "0100007F:1389" (v4) or 32 hex digits ":" port (v6) into "127.0.0.1:5001".
 * The kernel prints each 32-bit word of the address as a number in this
 * host's byte order, so the words are stored back the same way. */
static bool parse_udp_addr(const char *s, size_t len, bool v6, struct udpsock *k)
{
    size_t alen = v6 ? 32 : 8;
    uint64_t port, w;
    if (len != alen + 5 || s[alen] != ':' || !parse_hex(s + alen + 1, 4, &port))
        return false;
    unsigned char addr[16];
    for (size_t i = 0; i < alen / 8; i++) {
        if (!parse_hex(s + 8 * i, 8, &w))
            return false;
        uint32_t word = (uint32_t)w;
        memcpy(addr + 4 * i, &word, 4);
    }
    char ip[INET6_ADDRSTRLEN];
    if (!inet_ntop(v6 ? AF_INET6 : AF_INET, addr, ip, sizeof ip))
        return false;
    snprintf(k->local, sizeof k->local, v6 ? "[%s]:%u" : "%s:%u", ip, (unsigned)port);
    k->port = (uint16_t)port;
    return true;
}

size_t netudp_parse(const char *text, bool v6, struct udpsocks *out)
{
    size_t skipped = 0;
    text = text ? text : "";
    size_t tlen = strlen(text), pos = 0, len;
    const char *p;
    struct tokens *t = xmalloc(sizeof *t);
    bool first = true;
    while (next_line(text, tlen, &pos, &p, &len)) {
        tokenize(p, len, t);
        /* sl: local rem st tx:rx tr:when retrnsmt uid timeout inode ref pointer drops */
        struct udpsock k = {.v6 = v6};
        uint64_t uid, q, tmp;
        const char *colon = t->n > 4 ? memchr(t->s[4], ':', t->len[4]) : NULL;
        bool ok = t->n >= 13 && !t->overflow && t->len[0] > 1 && t->s[0][t->len[0] - 1] == ':' &&
                  parse_udp_addr(t->s[1], t->len[1], v6, &k) && colon &&
                  parse_hex(colon + 1, t->len[4] - (size_t)(colon + 1 - t->s[4]), &q) &&
                  parse_u64(t->s[7], t->len[7], &uid) && uid <= UINT32_MAX &&
                  parse_u64(t->s[9], t->len[9], &k.inode) &&
                  parse_u64(t->s[12], t->len[12], &k.drops) &&
                  parse_u64(t->s[0], t->len[0] - 1, &tmp);
        if (ok) {
            k.uid = (uint32_t)uid;
            k.rx_queue = q;
            if (k.inode) {
                xgrow(&out->v, &out->cap, out->n + 1, sizeof *out->v);
                out->v[out->n++] = k;
            }
        } else if (t->n && !(first && t->len[0] == 2 && memcmp(t->s[0], "sl", 2) == 0)) {
            skipped++;
        }
        first = false;
    }
    free(t);
    return skipped;
}

void udpsocks_free(struct udpsocks *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

bool net_socket_inode(const char *link, uint64_t *inode)
{
    static const char pre[] = "socket:[";
    size_t pl = sizeof pre - 1, len = strlen(link);
    return len > pl + 1 && strncmp(link, pre, pl) == 0 && link[len - 1] == ']' &&
           parse_u64(link + pl, len - pl - 1, inode);
}

/* ---- collector -------------------------------------------------------- */

enum ctr {
    C_IN_SEGS, C_OUT_SEGS, C_RETRANS, C_ACTIVE, C_PASSIVE, C_ATTEMPT_FAILS,
    C_ESTAB_RESETS, C_OUT_RSTS, C_UDP_RCVBUF, C_UDP_INERR, C_LISTEN_OVF,
    C_LISTEN_DROPS, C_ABORT_DATA, C_ABORT_TIMEOUT, C_ABORT_MEMORY,
    /* UDP receive-buffer drops and datagrams delivered, v4 and v6, UDP and
     * UDP-Lite: C_UDP_RCVBUF .. C_UDPLITE6_RCVBUF pair with C_UDP_IN .. */
    C_UDPLITE_RCVBUF, C_UDP6_RCVBUF, C_UDPLITE6_RCVBUF,
    C_UDP_IN, C_UDPLITE_IN, C_UDP6_IN, C_UDPLITE6_IN, NCTR
};

static const struct {
    const char *sect, *key;
} ctr_src[NCTR] = {
    [C_IN_SEGS] = {"Tcp", "InSegs"},
    [C_OUT_SEGS] = {"Tcp", "OutSegs"},
    [C_RETRANS] = {"Tcp", "RetransSegs"},
    [C_ACTIVE] = {"Tcp", "ActiveOpens"},
    [C_PASSIVE] = {"Tcp", "PassiveOpens"},
    [C_ATTEMPT_FAILS] = {"Tcp", "AttemptFails"},
    [C_ESTAB_RESETS] = {"Tcp", "EstabResets"},
    [C_OUT_RSTS] = {"Tcp", "OutRsts"},
    [C_UDP_RCVBUF] = {"Udp", "RcvbufErrors"},
    [C_UDP_INERR] = {"Udp", "InErrors"},
    [C_LISTEN_OVF] = {"TcpExt", "ListenOverflows"},
    [C_LISTEN_DROPS] = {"TcpExt", "ListenDrops"},
    [C_ABORT_DATA] = {"TcpExt", "TCPAbortOnData"},
    [C_ABORT_TIMEOUT] = {"TcpExt", "TCPAbortOnTimeout"},
    [C_ABORT_MEMORY] = {"TcpExt", "TCPAbortOnMemory"},
    [C_UDPLITE_RCVBUF] = {"UdpLite", "RcvbufErrors"},
    [C_UDP6_RCVBUF] = {"snmp6", "Udp6RcvbufErrors"},
    [C_UDPLITE6_RCVBUF] = {"snmp6", "UdpLite6RcvbufErrors"},
    [C_UDP_IN] = {"Udp", "InDatagrams"},
    [C_UDPLITE_IN] = {"UdpLite", "InDatagrams"},
    [C_UDP6_IN] = {"snmp6", "Udp6InDatagrams"},
    [C_UDPLITE6_IN] = {"snmp6", "UdpLite6InDatagrams"},
};
static const enum ctr udp_rcvbuf[] = {C_UDP_RCVBUF, C_UDPLITE_RCVBUF, C_UDP6_RCVBUF,
                                      C_UDPLITE6_RCVBUF};
static const enum ctr udp_in[] = {C_UDP_IN, C_UDPLITE_IN, C_UDP6_IN, C_UDPLITE6_IN};

struct counter {
    bool has_prev, measured;
    uint64_t prev, acc;
    double prev_s, acc_s;
};

struct iface {
    char *name; /* owned */
    bool has_prev;
    struct netdev prev; /* counters only; name is NULL */
    double prev_s;
    struct netdev acc; /* summed deltas; name is NULL */
    double acc_s;
};

struct net_state {
    struct iface *v;
    size_t n, cap;
    struct counter ctr[NCTR];
    struct netkvs snmp_end, sock_end; /* latest successful readings, for gauges */
    bool have_snmp_end, have_sock_end;
    double first_s, last_s;
    size_t bad_lines;
    struct strbuf buf;
    struct udpsocks udp0; /* UDP sockets at start, by inode */
    bool have_udp0, udp_truncated;
};

static void net_destroy(void *p)
{
    struct net_state *st = p;
    if (!st)
        return;
    for (size_t i = 0; i < st->n; i++)
        free(st->v[i].name);
    free(st->v);
    netkvs_free(&st->snmp_end);
    netkvs_free(&st->sock_end);
    udpsocks_free(&st->udp0);
    sb_free(&st->buf);
    free(st);
}

static uint64_t dlt(uint64_t cur, uint64_t prev) { return cur >= prev ? cur - prev : 0; }

static void netdev_delta(const struct netdev *c, const struct netdev *p, struct netdev *d)
{
    memset(d, 0, sizeof *d);
    d->rx_bytes = dlt(c->rx_bytes, p->rx_bytes);
    d->rx_packets = dlt(c->rx_packets, p->rx_packets);
    d->rx_errs = dlt(c->rx_errs, p->rx_errs);
    d->rx_drop = dlt(c->rx_drop, p->rx_drop);
    d->tx_bytes = dlt(c->tx_bytes, p->tx_bytes);
    d->tx_packets = dlt(c->tx_packets, p->tx_packets);
    d->tx_errs = dlt(c->tx_errs, p->tx_errs);
    d->tx_drop = dlt(c->tx_drop, p->tx_drop);
}

static void netdev_add(struct netdev *acc, const struct netdev *d)
{
    acc->rx_bytes += d->rx_bytes;
    acc->rx_packets += d->rx_packets;
    acc->rx_errs += d->rx_errs;
    acc->rx_drop += d->rx_drop;
    acc->tx_bytes += d->tx_bytes;
    acc->tx_packets += d->tx_packets;
    acc->tx_errs += d->tx_errs;
    acc->tx_drop += d->tx_drop;
}

static struct iface *iface_get(struct net_state *st, const char *name)
{
    for (size_t i = 0; i < st->n; i++)
        if (strcmp(st->v[i].name, name) == 0)
            return &st->v[i];
    xgrow(&st->v, &st->cap, st->n + 1, sizeof *st->v);
    struct iface *f = &st->v[st->n++];
    memset(f, 0, sizeof *f);
    f->name = xstrdup(name);
    return f;
}

static void series_put(struct report *r, const char *name, const char *title, const char *unit,
                       bool chart, double v)
{
    struct series *s = report_series(r, name, title, unit, "network");
    s->chart = chart;
    series_set(r, s, v);
}

/* Interfaces: returns 0 or -errno; fills the interval sums when dt > 0. */
static int sample_dev(struct net_state *st, double now, double *rx_b, double *tx_b,
                      double *drops)
{
    int rc = hostfs_read("/proc/net/dev", &st->buf, 0);
    if (rc)
        return rc;
    struct netdevs cur = {0};
    st->bad_lines += netdev_parse(sb_str(&st->buf), &cur);
    bool *seen = xcalloc(st->n + cur.n + 1, sizeof *seen);
    for (size_t i = 0; i < cur.n; i++) {
        struct iface *f = iface_get(st, cur.v[i].name);
        seen[f - st->v] = true;
        if (f->has_prev && now > f->prev_s) {
            struct netdev d;
            netdev_delta(&cur.v[i], &f->prev, &d);
            netdev_add(&f->acc, &d);
            f->acc_s += now - f->prev_s;
            /* Throughput totals leave out loopback: it never touches a NIC. */
            if (strcmp(f->name, "lo") != 0) {
                *rx_b += (double)d.rx_bytes;
                *tx_b += (double)d.tx_bytes;
            }
            *drops += (double)(d.rx_drop + d.tx_drop);
        }
        f->prev = cur.v[i];
        f->prev.name = NULL;
        f->prev_s = now;
        f->has_prev = true;
    }
    for (size_t i = 0; i < st->n; i++)
        if (!seen[i])
            st->v[i].has_prev = false;
    free(seen);
    netdevs_free(&cur);
    return 0;
}

/* snmp + netstat counters; returns the retransmit delta of this interval
 * (NAN when it cannot be computed). */
static double sample_snmp(struct net_state *st, double now)
{
    struct netkvs kv = {0};
    bool any = false;
    if (hostfs_read("/proc/net/snmp", &st->buf, 0) == 0) {
        st->bad_lines += netsnmp_parse(sb_str(&st->buf), &kv);
        any = true;
    }
    if (hostfs_read("/proc/net/netstat", &st->buf, 0) == 0) {
        st->bad_lines += netsnmp_parse(sb_str(&st->buf), &kv);
        any = true;
    }
    /* absent when IPv6 is off */
    if (hostfs_read("/proc/net/snmp6", &st->buf, 0) == 0)
        st->bad_lines += netsnmp6_parse(sb_str(&st->buf), &kv);
    double retrans = NAN;
    for (int c = 0; c < NCTR; c++) {
        struct counter *k = &st->ctr[c];
        int64_t v;
        if (!netkvs_get(&kv, ctr_src[c].sect, ctr_src[c].key, &v)) {
            k->has_prev = false;
            continue;
        }
        if (k->has_prev && now > k->prev_s) {
            uint64_t d = dlt((uint64_t)v, k->prev);
            k->acc += d;
            k->acc_s += now - k->prev_s;
            k->measured = true;
            if (c == C_RETRANS)
                retrans = (double)d;
        }
        k->prev = (uint64_t)v;
        k->prev_s = now;
        k->has_prev = true;
    }
    if (any) {
        netkvs_free(&st->snmp_end);
        st->snmp_end = kv;
        st->have_snmp_end = true;
    } else {
        netkvs_free(&kv);
    }
    return retrans;
}

static void sample_sockstat(struct net_state *st)
{
    if (hostfs_read("/proc/net/sockstat", &st->buf, 0) != 0)
        return;
    struct netkvs kv = {0};
    st->bad_lines += netsockstat_parse(sb_str(&st->buf), &kv);
    netkvs_free(&st->sock_end);
    st->sock_end = kv;
    st->have_sock_end = true;
}

static int net_sample(struct collect_ctx *ctx, struct net_state *st, bool with_series)
{
    double now = collect_clock_s(ctx); /* our own read time, not the tick's */
    double dt = now - st->last_s;
    double rx_b = 0, tx_b = 0, drops = 0;
    int rc = sample_dev(st, now, &rx_b, &tx_b, &drops);
    double retrans = sample_snmp(st, now);
    sample_sockstat(st);
    if (rc)
        return rc;
    if (with_series && dt > 0) {
        struct report *r = ctx->r;
        series_put(r, NM_NET_RX_KIB_PER_S, "Received (all interfaces but lo)", "KiB/s", true,
                   rx_b / 1024.0 / dt);
        series_put(r, NM_NET_TX_KIB_PER_S, "Sent (all interfaces but lo)", "KiB/s", true,
                   tx_b / 1024.0 / dt);
        series_put(r, NM_NET_DROPS_PER_S, "Dropped packets", "/s", false, drops / dt);
        series_put(r, NM_TCP_RETRANS_SEGS_PER_S, "TCP retransmitted segments", "/s", false,
                   isnan(retrans) ? NAN : retrans / dt);
    }
    st->last_s = now;
    return 0;
}

/* ---- UDP sockets: drops per socket, and who reads them ----------------- */

#define NET_UDP_FILE_MAX (8u << 20) /* 128-byte lines: 65k sockets */
#define NET_UDP_TOP 10              /* sockets listed */
#define NET_SCAN_PROCS 20000        /* the owner scan's bounds */
#define NET_SCAN_FDS 1000000
#define NET_SCAN_MS 1000.0

static int by_inode(const void *a, const void *b)
{
    uint64_t x = ((const struct udpsock *)a)->inode, y = ((const struct udpsock *)b)->inode;
    return x < y ? -1 : x > y;
}

/* /proc/net/udp and udp6 (absent without IPv6); false when neither was read. */
static bool read_udp(struct net_state *st, struct udpsocks *out)
{
    static const struct {
        const char *path;
        bool v6;
    } files[] = {{"/proc/net/udp", false}, {"/proc/net/udp6", true}};
    bool any = false;
    for (size_t i = 0; i < ARRAY_LEN(files); i++) {
        if (hostfs_read(files[i].path, &st->buf, NET_UDP_FILE_MAX) != 0)
            continue;
        any = true;
        st->udp_truncated |= st->buf.len >= NET_UDP_FILE_MAX;
        st->bad_lines += netudp_parse(sb_str(&st->buf), files[i].v6, out);
    }
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, by_inode);
    return any;
}

/* A socket that dropped datagrams in the window, and its reader. */
struct udp_drop {
    const struct udpsock *s;
    uint64_t drops; /* in the window */
    int pid;        /* 0: not found */
    char comm[64];
};

static int by_drops_desc(const void *a, const void *b)
{
    const struct udp_drop *x = a, *y = b;
    if (x->drops != y->drops)
        return x->drops > y->drops ? -1 : 1;
    return by_inode(x->s, y->s);
}

/* A /proc entry named by a number (a pid, an fd): the number, else -1. */
static int entry_number(const char *name)
{
    uint64_t v;
    size_t len = strlen(name);
    return len <= 10 && parse_u64(name, len, &v) && v <= INT32_MAX ? (int)v : -1;
}

/* Finds the process holding each socket: a walk over every process's fds
 * (readlink "socket:[INODE]"), so it runs once, at stop, and only when a
 * socket dropped; bounded in processes, fds and time.  Returns what
 * stopped it early ("" when it finished). */
static const char *find_readers(struct udp_drop *d, size_t n)
{
    size_t left = n, procs = 0, fds = 0;
    double t0 = mono_ms();
    const char *why = "";
    DIR *dir = hostfs_opendir("/proc");
    if (!dir)
        return "/proc could not be read";
    struct dirent *de;
    while (left && !*why && (de = readdir(dir)) != NULL) {
        int pid = entry_number(de->d_name);
        if (pid <= 0)
            continue;
        if (++procs > NET_SCAN_PROCS) {
            why = "the scan's bound on processes";
            break;
        }
        if (mono_ms() - t0 > NET_SCAN_MS) {
            why = "the scan's time limit";
            break;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/fd", pid);
        DIR *fdd = hostfs_opendir(path);
        if (!fdd)
            continue; /* gone, or not ours to read */
        struct dirent *fe;
        while (left && (fe = readdir(fdd)) != NULL) {
            int fd = entry_number(fe->d_name);
            if (fd < 0)
                continue;
            if (++fds > NET_SCAN_FDS) {
                why = "the scan's bound on descriptors";
                break;
            }
            /* one process can hold most of the bound on descriptors */
            if (fds % 256 == 0 && mono_ms() - t0 > NET_SCAN_MS) {
                why = "the scan's time limit";
                break;
            }
            char lp[64], link[64];
            uint64_t ino;
            snprintf(lp, sizeof lp, "/proc/%d/fd/%d", pid, fd);
            if (hostfs_readlink(lp, link, sizeof link) < 0 || !net_socket_inode(link, &ino))
                continue;
            for (size_t k = 0; k < n; k++)
                if (d[k].s->inode == ino && !d[k].pid) {
                    d[k].pid = pid;
                    snprintf(path, sizeof path, "/proc/%d/comm", pid);
                    if (hostfs_read_line(path, d[k].comm, sizeof d[k].comm) != 0)
                        snprintf(d[k].comm, sizeof d[k].comm, "?");
                    left--;
                }
        }
        closedir(fdd);
    }
    closedir(dir);
    return why;
}

/* Table net.udp_drops: the sockets that dropped datagrams in the window. */
static void udp_drops(struct report *r, struct net_state *st, double window)
{
    struct udpsocks now = {0};
    if (!st->have_udp0 || !read_udp(st, &now)) {
        udpsocks_free(&now);
        return;
    }
    struct udp_drop *d = xcalloc(now.n ? now.n : 1, sizeof *d);
    size_t nd = 0;
    for (size_t i = 0; i < now.n; i++) {
        const struct udpsock *s = &now.v[i];
        const struct udpsock *was =
            st->udp0.n ? bsearch(s, st->udp0.v, st->udp0.n, sizeof *s, by_inode) : NULL;
        /* a socket made during the window dropped all its drops in it */
        uint64_t drops = was && was->drops <= s->drops ? s->drops - was->drops
                         : was                         ? 0
                                                       : s->drops;
        if (drops)
            d[nd++] = (struct udp_drop){.s = s, .drops = drops};
    }
    if (!nd) {
        free(d);
        udpsocks_free(&now);
        return;
    }
    qsort(d, nd, sizeof *d, by_drops_desc);
    size_t shown = nd < NET_UDP_TOP ? nd : NET_UDP_TOP;
    const char *why = find_readers(d, shown);
    struct table *t = report_table(r, NM_NET_UDP_DROPS, "UDP sockets that dropped datagrams",
                                   "network");
    static const struct col_spec cols[] = {
        {"proto", "Proto", "", 0},
        {"local", "Local address", "", 0},
        {"port", "Port", "", 0},
        {"drops", "Drops", "", 0},
        {"drops_per_s", "Drops", "/s", 1},
        {"rx_queue_kib", "Queued at end", "KiB", 1},
        {"pid", "PID", "", 0},
        {"process", "Process", "", 0},
        {"uid", "UID", "", 0},
    };
    table_add_cols(t, cols, ARRAY_LEN(cols));
    for (size_t i = 0; i < shown; i++) {
        size_t row = table_add_row(t);
        const struct udpsock *s = d[i].s;
        table_set_str(t, row, "proto", s->v6 ? "udp6" : "udp");
        table_set_str(t, row, "local", s->local);
        table_set_num(t, row, "port", s->port);
        table_set_num(t, row, "drops", (double)d[i].drops);
        if (window > 0)
            table_set_num(t, row, "drops_per_s", (double)d[i].drops / window);
        table_set_num(t, row, "rx_queue_kib", (double)s->rx_queue / 1024.0);
        if (d[i].pid) {
            table_set_num(t, row, "pid", d[i].pid);
            table_set_str(t, row, "process", d[i].comm);
        }
        table_set_num(t, row, "uid", s->uid);
    }
    struct strbuf note = STRBUF_INIT;
    sb_addf(&note, "Per-socket drops (the drops column of /proc/net/udp and udp6: a full "
                   "receive buffer, or a socket filter) over the window, %zu socket%s in all; "
                   "the process is the first found holding the socket.",
            nd, nd == 1 ? "" : "s");
    if (*why)
        sb_addf(&note, " The search for the processes stopped early (%s).", why);
    if (st->udp_truncated)
        sb_addf(&note, " More sockets than were read (%u MiB of /proc/net/udp).",
                NET_UDP_FILE_MAX >> 20);
    table_set_note(t, sb_str(&note));
    sb_free(&note);
    free(d);
    udpsocks_free(&now);
}

static bool net_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    if (hostfs_exists("/proc/net/dev"))
        return true;
    snprintf(reason, n, "/proc/net/dev is not available");
    return false;
}

static int net_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    struct net_state *st = xcalloc(1, sizeof *st);
    *state = st;
    int rc = net_sample(ctx, st, false);
    st->first_s = st->last_s;
    st->have_udp0 = read_udp(st, &st->udp0);
    if (rc) {
        snprintf(err, n, "cannot read /proc/net/dev: %s", strerror(-rc));
        return rc;
    }
    return 0;
}

static int net_tick(struct collect_ctx *ctx, void *state)
{
    return net_sample(ctx, state, true);
}

static void ctr_metric(struct report *r, const struct net_state *st, enum ctr c,
                       const char *count_name, const char *rate_name, const char *title)
{
    const struct counter *k = &st->ctr[c];
    if (!k->measured)
        return;
    if (count_name)
        report_metric(r, count_name, title, "", "network", (double)k->acc);
    if (rate_name && k->acc_s > 0) {
        char t[256];
        snprintf(t, sizeof t, "%s per second", title);
        report_metric(r, rate_name, t, "/s", "network", (double)k->acc / k->acc_s);
    }
}

/* Receive-buffer drops and delivered datagrams summed over UDP and
 * UDP-Lite, v4 and v6 (the counters this kernel has), and the share lost. */
static void udp_metrics(struct report *r, const struct net_state *st)
{
    double drops = 0, in = 0, secs = 0;
    bool have = false, have_in = false;
    for (size_t i = 0; i < ARRAY_LEN(udp_rcvbuf); i++) {
        const struct counter *k = &st->ctr[udp_rcvbuf[i]], *ki = &st->ctr[udp_in[i]];
        if (k->measured) {
            drops += (double)k->acc;
            secs = k->acc_s > secs ? k->acc_s : secs;
            have = true;
        }
        if (ki->measured) {
            in += (double)ki->acc;
            have_in = true;
        }
    }
    if (!have)
        return;
    report_metric(r, NM_UDP_RCVBUF_ERRORS, "UDP datagrams dropped: receive buffer full", "",
                  "network", drops);
    if (secs > 0)
        report_metric(r, NM_UDP_RCVBUF_ERRORS_PER_S,
                      "UDP datagrams dropped per second: receive buffer full", "/s", "network",
                      drops / secs);
    if (have_in)
        report_metric(r, NM_UDP_IN_DATAGRAMS, "UDP datagrams delivered", "", "network", in);
    if (have_in && in + drops > 0)
        report_metric(r, NM_UDP_RCVBUF_DROP_PCT,
                      "UDP datagrams dropped for a full receive buffer, of those received", "%",
                      "network", drops / (in + drops) * 100.0);
}

static void gauge_metric(struct report *r, const struct netkvs *kv, const char *sect,
                         const char *key, const char *name, const char *title)
{
    int64_t v;
    if (netkvs_get(kv, sect, key, &v))
        report_metric(r, name, title, "", "network", (double)v);
}

static void iface_row(struct table *t, const struct iface *f)
{
    double s = f->acc_s;
    const struct netdev *a = &f->acc;
    size_t row = table_add_row(t);
    table_set_str(t, row, "iface", f->name);
    table_set_num(t, row, "rx_pkts_per_s", (double)a->rx_packets / s);
    table_set_num(t, row, "tx_pkts_per_s", (double)a->tx_packets / s);
    table_set_num(t, row, "rx_kib_per_s", (double)a->rx_bytes / 1024.0 / s);
    table_set_num(t, row, "tx_kib_per_s", (double)a->tx_bytes / 1024.0 / s);
    table_set_num(t, row, "rx_drops_per_s", (double)a->rx_drop / s);
    table_set_num(t, row, "tx_drops_per_s", (double)a->tx_drop / s);
    table_set_num(t, row, "rx_errs_per_s", (double)a->rx_errs / s);
    table_set_num(t, row, "tx_errs_per_s", (double)a->tx_errs / s);
    table_set_num(t, row, "drops", (double)(a->rx_drop + a->tx_drop));
    table_set_num(t, row, "errs", (double)(a->rx_errs + a->tx_errs));
}

static int net_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    (void)err;
    (void)n;
    struct net_state *st = state;
    struct report *r = ctx->r;
    if (collect_clock_s(ctx) - st->last_s > 0.001)
        (void)net_sample(ctx, st, false);

    struct table *t = NULL;
    double drops = 0, errs = 0;
    bool any = false;
    /* Every interface in file order, then lo last. */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < st->n; i++) {
            const struct iface *f = &st->v[i];
            bool is_lo = strcmp(f->name, "lo") == 0;
            if (f->acc_s <= 0 || is_lo != (pass == 1))
                continue;
            if (!t) {
                t = report_table(r, NM_NET_IFACE, "Network interfaces", "network");
                static const struct col_spec net_iface_cols[] = {
                    {"iface", "Interface", "", 0},
                    {"rx_pkts_per_s", "rx pkt/s", "/s", 1},
                    {"tx_pkts_per_s", "tx pkt/s", "/s", 1},
                    {"rx_kib_per_s", "rx KiB/s", "KiB/s", 1},
                    {"tx_kib_per_s", "tx KiB/s", "KiB/s", 1},
                    {"rx_drops_per_s", "rx drop/s", "/s", 2},
                    {"tx_drops_per_s", "tx drop/s", "/s", 2},
                    {"rx_errs_per_s", "rx err/s", "/s", 2},
                    {"tx_errs_per_s", "tx err/s", "/s", 2},
                    {"drops", "Drops", "", 0},
                    {"errs", "Errors", "", 0},
                };
                table_add_cols(t, net_iface_cols, ARRAY_LEN(net_iface_cols));
            }
            iface_row(t, f);
            drops += (double)(f->acc.rx_drop + f->acc.tx_drop);
            errs += (double)(f->acc.rx_errs + f->acc.tx_errs);
            any = true;
        }
    }
    double window = st->last_s - st->first_s;
    if (any && window > 0) {
        report_metric(r, NM_NET_DROPS_PER_S, "Dropped packets per second", "/s", "network",
                      drops / window);
        report_metric(r, NM_NET_ERRS_PER_S, "Interface errors per second", "/s", "network",
                      errs / window);
    }

    ctr_metric(r, st, C_IN_SEGS, NULL, NM_TCP_IN_SEGS_PER_S, "TCP segments received");
    ctr_metric(r, st, C_OUT_SEGS, NULL, NM_TCP_OUT_SEGS_PER_S, "TCP segments sent");
    ctr_metric(r, st, C_RETRANS, NM_TCP_RETRANS_SEGS, NM_TCP_RETRANS_SEGS_PER_S,
               "TCP segments retransmitted");
    const struct counter *out = &st->ctr[C_OUT_SEGS], *re = &st->ctr[C_RETRANS];
    if (out->measured && re->measured && out->acc > 0)
        report_metric(r, NM_TCP_RETRANS_PCT, "TCP retransmitted share of sent segments", "%",
                      "network", (double)re->acc / (double)out->acc * 100.0);
    ctr_metric(r, st, C_ACTIVE, NULL, NM_TCP_ACTIVE_OPENS_PER_S, "TCP active opens");
    ctr_metric(r, st, C_PASSIVE, NULL, NM_TCP_PASSIVE_OPENS_PER_S, "TCP passive opens");
    ctr_metric(r, st, C_ATTEMPT_FAILS, NM_TCP_ATTEMPT_FAILS, NULL, "TCP failed connection attempts");
    ctr_metric(r, st, C_ESTAB_RESETS, NM_TCP_ESTAB_RESETS, NULL, "TCP established connections reset");
    ctr_metric(r, st, C_OUT_RSTS, NM_TCP_OUT_RSTS, NM_TCP_OUT_RSTS_PER_S, "TCP resets sent");
    ctr_metric(r, st, C_LISTEN_OVF, NM_TCP_LISTEN_OVERFLOWS, NULL, "TCP listen queue overflows");
    ctr_metric(r, st, C_LISTEN_DROPS, NM_TCP_LISTEN_DROPS, NULL, "TCP SYNs dropped at listen");
    ctr_metric(r, st, C_ABORT_DATA, NM_TCP_ABORT_ON_DATA, NULL, "TCP aborts on unread data");
    ctr_metric(r, st, C_ABORT_TIMEOUT, NM_TCP_ABORT_ON_TIMEOUT, NULL, "TCP aborts on timeout");
    ctr_metric(r, st, C_ABORT_MEMORY, NM_TCP_ABORT_ON_MEMORY, NULL, "TCP aborts on memory");
    ctr_metric(r, st, C_UDP_INERR, NM_UDP_IN_ERRORS, NULL, "UDP input errors");
    udp_metrics(r, st);
    udp_drops(r, st, window);

    if (st->have_snmp_end)
        gauge_metric(r, &st->snmp_end, "Tcp", "CurrEstab", NM_TCP_CURR_ESTAB,
                     "TCP connections established");
    if (st->have_sock_end) {
        gauge_metric(r, &st->sock_end, "TCP", "inuse", NM_SOCK_TCP_INUSE, "TCP sockets in use");
        gauge_metric(r, &st->sock_end, "TCP", "orphan", NM_SOCK_TCP_ORPHAN, "Orphaned TCP sockets");
        gauge_metric(r, &st->sock_end, "TCP", "tw", NM_SOCK_TCP_TW, "TCP sockets in TIME_WAIT");
        gauge_metric(r, &st->sock_end, "TCP", "alloc", NM_SOCK_TCP_ALLOC, "TCP sockets allocated");
        gauge_metric(r, &st->sock_end, "UDP", "inuse", NM_SOCK_UDP_INUSE, "UDP sockets in use");
        gauge_metric(r, &st->sock_end, "sockets", "used", NM_SOCK_USED, "Sockets in use");
    }
    if (st->bad_lines) {
        struct ledger_entry *e = report_ledger(r, "net", "Network");
        ledger_note(e, "%zu malformed lines in /proc/net files skipped", st->bad_lines);
    }
    return 0;
}

const struct collector collector_net = {
    .name = "net",
    .title = "Network",
    .needs_bpf = false,
    .can_run = net_can_run,
    .start = net_start,
    .tick = net_tick,
    .stop = net_stop,
    .destroy = net_destroy,
};
