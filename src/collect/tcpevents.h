/* TCP events collector (BPF tcp_retransmit_skb, tcp_send_reset,
 * tcp_receive_reset, inet_sock_set_state): drained maps -> model through
 * pure functions that unit tests call directly. */
#ifndef PERFREPORT_TCPEVENTS_H
#define PERFREPORT_TCPEVENTS_H
#include <stddef.h>
#include <stdint.h>

struct report;

/* "10.0.0.1:5001" / "[::1]:5001" (inet_ntop); "?" family gives "?:port".
 * addr in network byte order, IPv4 in its first 4 bytes.  Returns buf. */
const char *tcp_fmt_endpoint(int family, const uint8_t addr[16], unsigned port, char *buf,
                             size_t n);
/* "ESTABLISHED" for 1 ... ; "STATE_<n>" in buf otherwise. */
const char *tcp_state_name(unsigned s, char *buf, size_t n);

struct ted_conn {
    int family;
    uint8_t saddr[16], daddr[16];
    unsigned sport, dport;
    unsigned state;  /* retransmits: socket state at the last one */
    unsigned dir;    /* resets: 0 sent, 1 received */
    uint64_t count;  /* in the window */
    uint64_t before, after; /* from the attach to the window's start / after its end */
    double first_s, last_s; /* resets: seconds from the window's start (NAN: unknown) */
};
#define TED_STATES 16
struct te_data {
    struct ted_conn *rt;
    size_t nrt;
    struct ted_conn *rst;
    size_t nrst;
    uint64_t states[TED_STATES][TED_STATES]; /* [old][new] */
};

/* Tables tcp.retransmits tcp.resets tcp.state_changes; metrics
 * tcp.bpf_retransmits tcp.bpf_resets_sent tcp.bpf_resets_received (the
 * window), tcp.bpf_resets_outside (while perfreport ran, outside it). */
void tcpevents_fill(struct report *r, const struct te_data *d, double window_s);
void te_data_free(struct te_data *d);
#endif
