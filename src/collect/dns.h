/* DNS lookup latency collector (uprobes on the C library's resolver
 * functions) and its pure helpers. */
#ifndef PERFREPORT_DNS_H
#define PERFREPORT_DNS_H
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../../bpf/khist.h"
#include "../../bpf/dns.h"

struct collector;
struct report;
extern const struct collector collector_dns;

/* "getaddrinfo" "gethostbyname" ... for enum dns_func; "?" out of range. */
const char *dns_func_name(unsigned f);
/* A failure code as the report names it: "EAI_NONAME" (getaddrinfo and
 * getnameinfo), "NULL result" (DNS_ST_NULL), "ERANGE" (an error number of a
 * _r form); meaning (may be NULL) gets a few words on what it says. */
void dns_code_name(unsigned func, int32_t code, char *buf, size_t n, const char **meaning);

/* File offsets of the enum dns_func functions in the ELF file fd (the
 * symbol tables .dynsym, else .symtab; "name@VERSION" too), where a
 * uprobe goes; 0 where absent.  How many were found. */
unsigned dns_func_offsets(int fd, uint64_t off[DNS_NFUNCS]);

/* What the programs aggregated, as the collector drained it. */
struct dns_proc_rec {
    uint32_t pid;
    struct dns_proc v;
};
struct dns_err_rec {
    struct dns_err_key k;
    uint64_t n;
};
struct dns_name_rec {
    struct dns_name_key k;
    struct dns_name_val v;
};

/* The looked-up name of k as text into buf: the name (cut names end in
 * "..."), or for getnameinfo the socket address ("192.0.2.1",
 * "2001:db8::1", "(address family 17)"). */
void dns_name_text(const struct dns_name_key *k, char *buf, size_t n);

/* Histograms "dnslat" (every process) and "dnslat.pid.<pid>" (the slowest
 * processes), tables "dns.procs", "dns.names" (slowest names) and
 * "dns.failures", metrics "dns.lookups", "dns.failures", "dns.p99_ms",
 * "dns.max_ms".  Sorts the arrays in place.  `libcs` says which C
 * libraries were probed (for the note). */
void dns_fill(struct report *r, struct dns_proc_rec *procs, size_t np, struct dns_err_rec *errs,
              size_t ne, struct dns_name_rec *names, size_t nn, const char *libcs);
#endif
