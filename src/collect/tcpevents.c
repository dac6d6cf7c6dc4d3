/* TCP events collector (BPF, bpf/tcp.bpf.c).  Unlike /proc/net/snmp, which
 * counts only our own network namespace, the tracepoints see every
 * namespace on the host; the tables say so.  The programs record from their
 * attach to the drain; each event is placed before, in or after the window
 * by its kernel time: rates are the window's, resets are listed whenever
 * they happened, with when. */
#include "tcpevents.h"
#include "collector.h"
#include "../kbpf/kbpf.h"
#include "model/model.h"
#include "model/names.h"
#include "util/clock.h"
#include "util/xalloc.h"
#include <linux/types.h>
#include "../../bpf/tcpevents.h"
#include "tcp.skel.h"
#include <arpa/inet.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

_Static_assert(TED_STATES == TE_STATES, "state table sizes agree");

#define TOP_CONNS 15

const char *tcp_fmt_endpoint(int family, const uint8_t addr[16], unsigned port, char *buf,
                             size_t n)
{
    char a[INET6_ADDRSTRLEN];
    if (family == AF_INET && inet_ntop(AF_INET, addr, a, sizeof a))
        snprintf(buf, n, "%s:%u", a, port);
    else if (family == AF_INET6 && inet_ntop(AF_INET6, addr, a, sizeof a))
        snprintf(buf, n, "[%s]:%u", a, port);
    else
        snprintf(buf, n, "?:%u", port);
    return buf;
}

const char *tcp_state_name(unsigned s, char *buf, size_t n)
{
    static const char *const names[] = {
        NULL,        "ESTABLISHED", "SYN_SENT", "SYN_RECV", "FIN_WAIT1", "FIN_WAIT2",
        "TIME_WAIT", "CLOSE",       "CLOSE_WAIT", "LAST_ACK", "LISTEN", "CLOSING",
        "NEW_SYN_RECV", "BOUND_INACTIVE",
    };
    if (s < sizeof names / sizeof names[0] && names[s])
        return names[s];
    snprintf(buf, n, "STATE_%u", s);
    return buf;
}

void te_data_free(struct te_data *d)
{
    free(d->rt);
    free(d->rst);
    memset(d, 0, sizeof *d);
}

static int conn_cmp(const void *a, const void *b)
{
    const struct ted_conn *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    uint64_t xo = x->before + x->after, yo = y->before + y->after;
    if (xo != yo)
        return xo < yo ? 1 : -1;
    if (x->dport != y->dport)
        return x->dport < y->dport ? -1 : 1;
    return (x->sport > y->sport) - (x->sport < y->sport);
}

static const char NS_NOTE[] =
    "From kernel tracepoints: every network namespace on the host, containers included "
    "(the /proc/net counters cover only perfreport's own namespace).";

void tcpevents_fill(struct report *r, const struct te_data *d, double win)
{
    if (!(win > 0))
        win = 1;
    char s[80], t[80], st[24];
    uint64_t total = 0;
    for (size_t i = 0; i < d->nrt; i++)
        total += d->rt[i].count;
    report_metric(r, NM_TCP_BPF_RETRANSMITS, "TCP retransmits seen by the tracepoint", "",
                  "network", (double)total);
    report_metric(r, NM_TCP_BPF_RETRANSMITS_PER_S, "TCP retransmits (tracepoint)", "/s",
                  "network", (double)total / win);

    if (d->nrt)
        qsort(d->rt, d->nrt, sizeof *d->rt, conn_cmp);
    struct table *tr = report_table(r, NM_TCP_RETRANSMITS, "TCP retransmits by connection",
                                    "network");
    static const struct col_spec tcp_retransmits_cols[] = {
        {"src", "Local", "", 0},
        {"dst", "Remote", "", 0},
        {"state", "State", "", 0},
        {"retransmits", "Retransmits", "", 0},
        {"per_s", "Per s", "/s", 1},
        {"before", "Before the window", "", 0},
        {"after", "After the window", "", 0},
    };
    table_add_cols(tr, tcp_retransmits_cols, ARRAY_LEN(tcp_retransmits_cols));
    table_set_note(tr, NS_NOTE);
    for (size_t i = 0; i < d->nrt && i < TOP_CONNS; i++) {
        const struct ted_conn *c = &d->rt[i];
        size_t row = table_add_row(tr);
        table_set_str(tr, row, "src", tcp_fmt_endpoint(c->family, c->saddr, c->sport, s, sizeof s));
        table_set_str(tr, row, "dst", tcp_fmt_endpoint(c->family, c->daddr, c->dport, t, sizeof t));
        table_set_str(tr, row, "state", tcp_state_name(c->state, st, sizeof st));
        table_set_num(tr, row, "retransmits", (double)c->count);
        table_set_num(tr, row, "per_s", (double)c->count / win);
        table_set_num(tr, row, "before", (double)c->before);
        table_set_num(tr, row, "after", (double)c->after);
    }

    uint64_t sent = 0, recv = 0, outside = 0;
    for (size_t i = 0; i < d->nrst; i++) {
        *(d->rst[i].dir ? &recv : &sent) += d->rst[i].count;
        outside += d->rst[i].before + d->rst[i].after;
    }
    report_metric(r, NM_TCP_BPF_RESETS_SENT, "TCP resets sent (tracepoint)", "", "network",
                  (double)sent);
    report_metric(r, NM_TCP_BPF_RESETS_SENT_PER_S, "TCP resets sent (tracepoint)", "/s",
                  "network", (double)sent / win);
    report_metric(r, NM_TCP_BPF_RESETS_RECEIVED, "TCP resets received (tracepoint)", "",
                  "network", (double)recv);
    report_metric(r, NM_TCP_BPF_RESETS_OUTSIDE, "TCP resets while perfreport started or finished",
                  "", "network", (double)outside);
    if (d->nrst)
        qsort(d->rst, d->nrst, sizeof *d->rst, conn_cmp);
    struct table *ts = report_table(r, NM_TCP_RESETS, "TCP resets by connection", "network");
    static const struct col_spec tcp_resets_cols[] = {
        {"src", "Local", "", 0},
        {"dst", "Remote", "", 0},
        {"direction", "Direction", "", 0},
        {"count", "Count", "", 0},
        {"before", "Before the window", "", 0},
        {"after", "After the window", "", 0},
        {"first_s", "First (s from the window's start)", "s", 1},
        {"last_s", "Last (s from the window's start)", "s", 1},
    };
    table_add_cols(ts, tcp_resets_cols, ARRAY_LEN(tcp_resets_cols));
    table_set_note(ts, "Count is the window's; resets seen while perfreport started (before the "
                       "window opened: a negative time) or finished are counted apart. "
                       "From kernel tracepoints: every network namespace on the host.");
    for (size_t i = 0; i < d->nrst && i < TOP_CONNS; i++) {
        const struct ted_conn *c = &d->rst[i];
        size_t row = table_add_row(ts);
        table_set_str(ts, row, "src", tcp_fmt_endpoint(c->family, c->saddr, c->sport, s, sizeof s));
        table_set_str(ts, row, "dst", tcp_fmt_endpoint(c->family, c->daddr, c->dport, t, sizeof t));
        table_set_str(ts, row, "direction", c->dir ? "received" : "sent");
        table_set_num(ts, row, "count", (double)c->count);
        table_set_num(ts, row, "before", (double)c->before);
        table_set_num(ts, row, "after", (double)c->after);
        if (!isnan(c->first_s))
            table_set_num(ts, row, "first_s", c->first_s);
        if (!isnan(c->last_s))
            table_set_num(ts, row, "last_s", c->last_s);
    }

    struct table *tc = report_table(r, NM_TCP_STATE_CHANGES, "TCP state transitions", "network");
    static const struct col_spec tcp_state_changes_cols[] = {
        {"from", "From", "", 0},
        {"to", "To", "", 0},
        {"count", "Count", "", 0},
        {"per_s", "Per s", "/s", 1},
    };
    table_add_cols(tc, tcp_state_changes_cols, ARRAY_LEN(tcp_state_changes_cols));
    for (unsigned o = 0; o < TED_STATES; o++)
        for (unsigned nw = 0; nw < TED_STATES; nw++) {
            uint64_t c = d->states[o][nw];
            if (!c)
                continue;
            size_t row = table_add_row(tc);
            table_set_str(tc, row, "from", tcp_state_name(o, s, sizeof s));
            table_set_str(tc, row, "to", tcp_state_name(nw, t, sizeof t));
            table_set_num(tc, row, "count", (double)c);
            table_set_num(tc, row, "per_s", (double)c / win);
        }
}

/* ---- collector ------------------------------------------------------------ */

struct te_state {
    struct tcp_bpf *skel;
    bool classic;
    bool ended;        /* end ran: events from here on are after the window */
    uint64_t begin_ns; /* CLOCK_MONOTONIC at the window's start (begin) */
};

static bool te_can_run(const struct collect_ctx *ctx, char *reason, size_t n)
{
    (void)ctx;
    return kbpf_can_trace("tcp", "tcp_retransmit_skb", reason, n);
}

static struct tcp_bpf *te_open(bool classic)
{
    struct tcp_bpf *skel = tcp_bpf__open();
    if (!skel)
        return NULL;
    kbpf_alloc_on_insert(skel->maps.retrans); /* a key per connection that retransmits */
    kbpf_alloc_on_insert(skel->maps.resets);
    struct bpf_program *btf[] = {skel->progs.te_retrans_btf, skel->progs.te_send_reset_btf,
                                 skel->progs.te_recv_reset_btf, skel->progs.te_state_btf};
    struct bpf_program *tp[] = {skel->progs.te_retrans_tp, skel->progs.te_send_reset_tp,
                                skel->progs.te_recv_reset_tp, skel->progs.te_state_tp};
    for (size_t i = 0; i < 4; i++) {
        bpf_program__set_autoload(btf[i], !classic);
        bpf_program__set_autoload(tp[i], classic);
    }
    /* Load-time value: without mmapable maps (bss NULL after load) begin
     * cannot reach the programs, and everything counts as the window. */
    skel->bss->win_start_ns = 1;
    if (tcp_bpf__load(skel) != 0) {
        int e = errno;
        tcp_bpf__destroy(skel);
        errno = e;
        return NULL;
    }
    if (skel->bss)
        skel->bss->win_start_ns = 0; /* before the window until begin */
    if (tcp_bpf__attach(skel) != 0) {
        int e = errno;
        tcp_bpf__destroy(skel);
        errno = e;
        return NULL;
    }
    return skel;
}

static int te_start(struct collect_ctx *ctx, void **state, char *err, size_t n)
{
    /* Connections are not tied to a process: -p/-c do not filter here. */
    (void)ctx;
    struct te_state *st = xcalloc(1, sizeof *st);
    *state = st;
    st->skel = kbpf_force_classic() ? NULL : te_open(false);
    if (!st->skel) {
        st->classic = true;
        st->skel = te_open(true);
    }
    if (!st->skel) {
        int e = errno ? errno : EINVAL;
        char msg[128];
        libbpf_strerror(e, msg, sizeof msg);
        snprintf(err, n, "loading/attaching TCP tracepoint programs failed: %s", msg);
        return -e;
    }
    st->begin_ns = mono_ns(); /* until begin moves it */
    return 0;
}

/* The window's edges in the programs' clock (bpf_ktime_get_ns is
 * CLOCK_MONOTONIC); the programs stay attached from start to stop. */
static int te_begin(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct te_state *st = state;
    st->begin_ns = mono_ns();
    if (st->skel->bss)
        st->skel->bss->win_start_ns = st->begin_ns;
    return 0;
}

static int te_end(struct collect_ctx *ctx, void *state)
{
    (void)ctx;
    struct te_state *st = state;
    if (st->skel->bss)
        st->skel->bss->win_end_ns = mono_ns();
    st->ended = true;
    return 0;
}

static void drain_conns(const struct bpf_map *map, bool is_retrans, uint64_t begin_ns,
                        struct ted_conn **out, size_t *nout)
{
    size_t cap = 0;
    struct te_conn k, next;
    void *prev = NULL;
    while (bpf_map__get_next_key(map, prev, &next, sizeof next) == 0) {
        k = next;
        prev = &k;
        struct te_retrans v = {0};
        struct te_reset rv = {0};
        int rc = is_retrans ? bpf_map__lookup_elem(map, &k, sizeof k, &v, sizeof v, 0)
                            : bpf_map__lookup_elem(map, &k, sizeof k, &rv, sizeof rv, 0);
        if (rc != 0)
            continue;
        const __u64 *ph = is_retrans ? v.n : rv.n;
        if (*nout == cap) {
            cap = cap ? cap * 2 : 64;
            *out = xrealloc(*out, cap * sizeof **out);
        }
        struct ted_conn *c = &(*out)[(*nout)++];
        memset(c, 0, sizeof *c);
        c->family = k.family;
        memcpy(c->saddr, k.saddr, 16);
        memcpy(c->daddr, k.daddr, 16);
        c->sport = k.sport;
        c->dport = k.dport;
        c->dir = k.dir;
        c->state = v.state;
        c->count = ph[TE_PH_WINDOW];
        c->before = ph[TE_PH_BEFORE];
        c->after = ph[TE_PH_AFTER];
        /* signed: resets during start-up precede begin_ns */
        c->first_s = is_retrans ? NAN : (double)(int64_t)(rv.first_ns - begin_ns) / 1e9;
        c->last_s = is_retrans || !rv.last_ns ? NAN
                                              : (double)(int64_t)(rv.last_ns - begin_ns) / 1e9;
    }
}

static int te_stop(struct collect_ctx *ctx, void *state, char *err, size_t n)
{
    (void)err;
    (void)n;
    struct te_state *st = state;
    if (!st->ended) /* end did not run (an injected fault): the window ends here */
        te_end(ctx, st);
    tcp_bpf__detach(st->skel);
    struct te_data d;
    memset(&d, 0, sizeof d);
    drain_conns(st->skel->maps.retrans, true, st->begin_ns, &d.rt, &d.nrt);
    drain_conns(st->skel->maps.resets, false, st->begin_ns, &d.rst, &d.nrst);
    for (uint32_t i = 0; i < TE_STATES * TE_STATES; i++) {
        uint64_t v = 0;
        if (kbpf_percpu_sum_struct(st->skel->maps.states, &i, sizeof i, &v, sizeof v) == 0)
            d.states[i / TE_STATES][i % TE_STATES] = v;
    }
    tcpevents_fill(ctx->r, &d, ctx->now_s);
    te_data_free(&d);
    struct ledger_entry *led = report_ledger(ctx->r, "tcpevents", NULL);
    if (st->classic)
        ledger_note(led, "tp_btf unavailable: classic tcp/sock tracepoints");
    static const char *const what[TE_DROP_N] = {"retransmit", "reset"};
    for (uint32_t i = 0; i < TE_DROP_N; i++) {
        uint64_t v = 0;
        if (kbpf_percpu_sum_struct(st->skel->maps.drops, &i, sizeof i, &v, sizeof v) == 0 && v)
            ledger_note(led, "%llu %s events lost: connection table full",
                        (unsigned long long)v, what[i]);
    }
    return 0;
}

static void te_destroy(void *state)
{
    struct te_state *st = state;
    if (!st)
        return;
    tcp_bpf__destroy(st->skel);
    free(st);
}

const struct collector collector_tcpevents = {
    .name = "tcpevents",
    .title = "TCP events (BPF retransmits, resets, states)",
    .needs_bpf = true,
    .can_run = te_can_run,
    .start = te_start,
    .begin = te_begin,
    .end = te_end,
    .stop = te_stop,
    .destroy = te_destroy,
};
