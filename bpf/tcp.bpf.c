/* TCP events: retransmits and resets per connection, socket state
 * transitions.  Retransmits and resets are rare next to packets, so hashes
 * keyed by the connection are fine here. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "tcpevents.h"

#define AF_INET 2
#define AF_INET6 10
#define IPPROTO_TCP 6

/* CLOCK_MONOTONIC edges of the window, written by user space at begin and
 * end (0: not yet).  Without mmapable maps user space cannot write them:
 * start_ns stays at its load-time value 1 and everything counts as window. */
volatile __u64 win_start_ns;
volatile __u64 win_end_ns;

static __always_inline __u32 phase_at(__u64 now)
{
    __u64 start = win_start_ns, end = win_end_ns;
    if (!start || now < start)
        return TE_PH_BEFORE;
    if (end && now >= end)
        return TE_PH_AFTER;
    return TE_PH_WINDOW;
}

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, TE_MAX_CONNS);
    __type(key, struct te_conn);
    __type(value, struct te_retrans);
} retrans SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, TE_MAX_RESETS);
    __type(key, struct te_conn);
    __type(value, struct te_reset);
} resets SEC(".maps");

/* [old * TE_STATES + new] */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, TE_STATES * TE_STATES);
    __type(key, __u32);
    __type(value, __u64);
} states SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, TE_DROP_N);
    __type(key, __u32);
    __type(value, __u64);
} drops SEC(".maps");

static __always_inline void drop(__u32 what)
{
    __u64 *n = bpf_map_lookup_elem(&drops, &what);
    if (n)
        (*n)++;
}

/* Fills k from the socket; false for non-IP families. */
static __always_inline bool conn_of_sk(const struct sock *sk, struct te_conn *k)
{
    __u16 fam = BPF_CORE_READ(sk, __sk_common.skc_family);
    k->family = fam;
    k->sport = BPF_CORE_READ(sk, __sk_common.skc_num);
    k->dport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
    if (fam == AF_INET) {
        __u32 s = BPF_CORE_READ(sk, __sk_common.skc_rcv_saddr);
        __u32 d = BPF_CORE_READ(sk, __sk_common.skc_daddr);
        __builtin_memcpy(k->saddr, &s, 4);
        __builtin_memcpy(k->daddr, &d, 4);
        return true;
    }
    if (fam == AF_INET6) {
        BPF_CORE_READ_INTO(&k->saddr, sk, __sk_common.skc_v6_rcv_saddr.in6_u.u6_addr8);
        BPF_CORE_READ_INTO(&k->daddr, sk, __sk_common.skc_v6_daddr.in6_u.u6_addr8);
        return true;
    }
    return false;
}

/* A reset sent with no socket answers the packet in skb: our end is its
 * destination. */
static __always_inline bool conn_of_skb(const struct sk_buff *skb, struct te_conn *k)
{
    unsigned char *head = BPF_CORE_READ(skb, head);
    __u16 nh = BPF_CORE_READ(skb, network_header);
    __u16 th = BPF_CORE_READ(skb, transport_header);
    __u8 ver = 0;
    bpf_probe_read_kernel(&ver, 1, head + nh);
    ver >>= 4;
    struct tcphdr tcp;
    if (bpf_probe_read_kernel(&tcp, sizeof tcp, head + th) != 0)
        return false;
    k->sport = bpf_ntohs(tcp.dest);
    k->dport = bpf_ntohs(tcp.source);
    if (ver == 4) {
        struct iphdr ip;
        if (bpf_probe_read_kernel(&ip, sizeof ip, head + nh) != 0)
            return false;
        k->family = AF_INET;
        __builtin_memcpy(k->saddr, &ip.daddr, 4);
        __builtin_memcpy(k->daddr, &ip.saddr, 4);
        return true;
    }
    if (ver == 6) {
        struct ipv6hdr ip6;
        if (bpf_probe_read_kernel(&ip6, sizeof ip6, head + nh) != 0)
            return false;
        k->family = AF_INET6;
        __builtin_memcpy(k->saddr, &ip6.daddr, 16);
        __builtin_memcpy(k->daddr, &ip6.saddr, 16);
        return true;
    }
    return false;
}

static __always_inline void on_retransmit(const struct sock *sk)
{
    struct te_conn k = {};
    if (!sk || !conn_of_sk(sk, &k))
        return;
    __u32 state = BPF_CORE_READ(sk, __sk_common.skc_state);
    struct te_retrans *v = bpf_map_lookup_elem(&retrans, &k);
    if (!v) {
        struct te_retrans z = {};
        bpf_map_update_elem(&retrans, &k, &z, BPF_NOEXIST);
        v = bpf_map_lookup_elem(&retrans, &k);
        if (!v) {
            drop(TE_DROP_RETRANS);
            return;
        }
    }
    __u32 ph = phase_at(bpf_ktime_get_ns());
    if (ph >= TE_PH_N) /* bounds the index for the verifier */
        return;
    __sync_fetch_and_add(&v->n[ph], 1);
    v->state = state;
}

static __always_inline void on_reset(const struct sock *sk, const struct sk_buff *skb, __u16 dir)
{
    struct te_conn k = {};
    bool ok = false;
    if (sk)
        ok = conn_of_sk(sk, &k);
    else if (skb)
        ok = conn_of_skb(skb, &k);
    if (!ok)
        return;
    k.dir = dir;
    __u64 now = bpf_ktime_get_ns();
    struct te_reset *v = bpf_map_lookup_elem(&resets, &k);
    if (!v) {
        struct te_reset z = {.first_ns = now};
        bpf_map_update_elem(&resets, &k, &z, BPF_NOEXIST);
        v = bpf_map_lookup_elem(&resets, &k);
        if (!v) {
            drop(TE_DROP_RESET);
            return;
        }
    }
    __u32 ph = phase_at(now);
    if (ph >= TE_PH_N)
        return;
    __sync_fetch_and_add(&v->n[ph], 1);
    if (now > v->last_ns) /* racing CPUs may keep a slightly older one: a label */
        v->last_ns = now;
}

static __always_inline void on_state(const struct sock *sk, int oldstate, int newstate)
{
    if (!sk || BPF_CORE_READ(sk, sk_protocol) != IPPROTO_TCP)
        return;
    if (oldstate < 0 || oldstate >= TE_STATES || newstate < 0 || newstate >= TE_STATES)
        return;
    if (phase_at(bpf_ktime_get_ns()) != TE_PH_WINDOW) /* a rate: the window's only */
        return;
    __u32 i = (__u32)oldstate * TE_STATES + (__u32)newstate;
    __u64 *n = bpf_map_lookup_elem(&states, &i);
    if (n)
        (*n)++;
}

/* ---- tp_btf ------------------------------------------------------------------- */

/* 6.18: (sk, skb, err); older kernels have (sk, skb): only the first is used. */
SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(te_retrans_btf, const struct sock *sk)
{
    on_retransmit(sk);
    return 0;
}

SEC("tp_btf/tcp_send_reset")
int BPF_PROG(te_send_reset_btf, const struct sock *sk, const struct sk_buff *skb)
{
    on_reset(sk, skb, TE_DIR_SENT);
    return 0;
}

SEC("tp_btf/tcp_receive_reset")
int BPF_PROG(te_recv_reset_btf, struct sock *sk)
{
    on_reset(sk, NULL, TE_DIR_RECEIVED);
    return 0;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(te_state_btf, const struct sock *sk, const int oldstate, const int newstate)
{
    on_state(sk, oldstate, newstate);
    return 0;
}

/* ---- classic tracepoints: same code from the socket pointer they carry ---- */

SEC("tp/tcp/tcp_retransmit_skb")
int te_retrans_tp(struct trace_event_raw_tcp_retransmit_skb *ctx)
{
    on_retransmit((const struct sock *)BPF_CORE_READ(ctx, skaddr));
    return 0;
}

SEC("tp/tcp/tcp_send_reset")
int te_send_reset_tp(struct trace_event_raw_tcp_send_reset *ctx)
{
    on_reset((const struct sock *)BPF_CORE_READ(ctx, skaddr),
             (const struct sk_buff *)BPF_CORE_READ(ctx, skbaddr), TE_DIR_SENT);
    return 0;
}

SEC("tp/tcp/tcp_receive_reset")
int te_recv_reset_tp(struct trace_event_raw_tcp_event_sk *ctx)
{
    on_reset((const struct sock *)BPF_CORE_READ(ctx, skaddr), NULL, TE_DIR_RECEIVED);
    return 0;
}

SEC("tp/sock/inet_sock_set_state")
int te_state_tp(struct trace_event_raw_inet_sock_set_state *ctx)
{
    on_state((const struct sock *)BPF_CORE_READ(ctx, skaddr), BPF_CORE_READ(ctx, oldstate),
             BPF_CORE_READ(ctx, newstate));
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
