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
#include "util/strbuf.h"
#include "util/xalloc.h"
#include <ctype.h>
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

/* ---- collector -------------------------------------------------------- */

enum ctr {
    C_IN_SEGS, C_OUT_SEGS, C_RETRANS, C_ACTIVE, C_PASSIVE, C_ATTEMPT_FAILS,
    C_ESTAB_RESETS, C_OUT_RSTS, C_UDP_RCVBUF, C_UDP_INERR, C_LISTEN_OVF,
    C_LISTEN_DROPS, C_ABORT_DATA, C_ABORT_TIMEOUT, C_ABORT_MEMORY, NCTR
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
};

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
    ctr_metric(r, st, C_UDP_RCVBUF, NM_UDP_RCVBUF_ERRORS, NULL, "UDP receive buffer errors");
    ctr_metric(r, st, C_UDP_INERR, NM_UDP_IN_ERRORS, NULL, "UDP input errors");

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
