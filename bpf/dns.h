/* Shared between bpf/dns.bpf.c and src/collect/dns.c. */
#ifndef PERFREPORT_BPF_DNS_H
#define PERFREPORT_BPF_DNS_H

/* The resolver functions probed, in the C library. */
enum dns_func { DNS_GETADDRINFO = 0, DNS_GETHOSTBYNAME, DNS_GETHOSTBYNAME2, DNS_GETHOSTBYNAME_R,
                DNS_GETHOSTBYNAME2_R, DNS_GETNAMEINFO, DNS_NFUNCS };

/* Bytes of the looked-up name kept (NUL included): longer names are cut,
 * and the collector says so.  A DNS name has at most 253 characters. */
#define DNS_NAME_LEN 96

/* Status of a failed call (struct dns_err_key.code): getaddrinfo and
 * getnameinfo return their EAI code (negative); the gethostbyname family
 * has no code we can reach (h_errno is thread-local), so a NULL result is
 * DNS_ST_NULL and an error number returned by the _r forms is its value. */
#define DNS_ST_NULL 1000000

/* Per process (key: tgid). */
struct dns_proc {
    struct khist lat;           /* microseconds, every function together */
    __u64 calls[DNS_NFUNCS];
    __u64 fails;
    char comm[16];
};

/* Failures by code (value: u64 count). */
struct dns_err_key {
    __u32 tgid;
    __u32 func; /* enum dns_func */
    __s32 code;
    __u32 pad;
};

/* Per process and name.  For getnameinfo the name is the socket address's
 * family (2 bytes, host order) and address bytes, and raw is set. */
struct dns_name_key {
    __u32 tgid;
    __u32 raw;
    char name[DNS_NAME_LEN];
};

struct dns_name_val {
    __u64 calls, fails, sum_us, max_us;
};
#endif
