/* Shared between bpf/tcp.bpf.c and src/collect/tcpevents.c. */
#ifndef PERFREPORT_BPF_TCPEVENTS_H
#define PERFREPORT_BPF_TCPEVENTS_H

#define TE_MAX_CONNS 8192
#define TE_MAX_RESETS 8192
#define TE_STATES 16 /* TCP_ESTABLISHED (1) .. TCP_NEW_SYN_RECV (12), padded */

enum { TE_DIR_SENT = 0, TE_DIR_RECEIVED = 1 };
enum { TE_DROP_RETRANS = 0, TE_DROP_RESET, TE_DROP_N };
/* When an event happened: the programs record from their attach to the
 * drain; rates judge the window only, the rest is listed. */
enum { TE_PH_BEFORE = 0, TE_PH_WINDOW, TE_PH_AFTER, TE_PH_N };

/* Addresses in network byte order (IPv4 in the first 4 bytes), ports in
 * host byte order; s = this host's end. */
struct te_conn {
    __u16 family; /* AF_INET 2, AF_INET6 10 */
    __u16 sport;
    __u16 dport;
    __u16 dir;    /* resets only: TE_DIR_* */
    __u8 saddr[16];
    __u8 daddr[16];
};

struct te_retrans {
    __u64 n[TE_PH_N];
    __u32 state; /* socket state at the last retransmit */
    __u32 pad;
};

struct te_reset {
    __u64 n[TE_PH_N];
    __u64 first_ns, last_ns; /* bpf_ktime_get_ns (CLOCK_MONOTONIC) */
};
#endif
