/* DNS lookups through the C library: uprobes on the entry and uretprobes on
 * the return of getaddrinfo, the gethostbyname family and getnameinfo in
 * each libc the host's processes map (src/collect/dns.c attaches them).
 * Per process: a log2 latency histogram and calls per function; failures by
 * code; per process and name: calls, failures, total and largest latency.
 *
 * glibc's gethostbyname calls its own gethostbyname_r at the same address
 * the probe sits on, so calls nest: only the outermost one of a thread is
 * timed, the inner ones only count depth. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "khist.bpf.h"
#include "dns.h"

const volatile __u32 targ_tgid = 0; /* -p: only this process */
const volatile __u64 targ_cgid = 0; /* -c: only this v2 cgroup */
const volatile __u32 self_tgid = 0; /* perfreport itself: left out */

/* Calls finishing in the window count; they are tracked from the attach. */
volatile bool recording = false;

/* A call this old is taken for one whose return was never seen (a thread
 * that longjmp'd out of a resolver callback): resolv.conf's largest
 * timeouts and attempts stay below it. */
#define STALE_NS (120ull * 1000000000ull)

/* Per thread, between a call's entry and its return. */
struct call {
    __u64 ts;
    __u64 result; /* the _r forms: where the struct hostent * result goes */
    __u32 func;   /* enum dns_func */
    __u32 depth;  /* nested calls (the outermost is 1) */
    __u32 raw;    /* name holds a socket address (getnameinfo) */
    __u32 cut;    /* name was longer than DNS_NAME_LEN - 1 */
    char name[DNS_NAME_LEN];
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 8192);
    __type(key, __u32); /* thread id */
    __type(value, struct call);
} calls SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 1024);
    __type(key, __u32); /* tgid */
    __type(value, struct dns_proc);
} procs SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 1024);
    __type(key, struct dns_err_key);
    __type(value, __u64);
} errs SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 4096);
    __type(key, struct dns_name_key);
    __type(value, struct dns_name_val);
} names SEC(".maps");

/* 0: calls map full, 1: procs full, 2: errs full, 3: names full,
 * 4: names cut to DNS_NAME_LEN - 1 bytes, 5: stale calls replaced */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 6);
    __type(key, __u32);
    __type(value, __u64);
} drops SEC(".maps");

static __always_inline bool wanted(__u32 tgid)
{
    if (tgid == self_tgid)
        return false;
    if (targ_tgid && tgid != targ_tgid)
        return false;
    if (targ_cgid && bpf_get_current_cgroup_id() != targ_cgid)
        return false;
    return true;
}

/* Entry of any probed function: src is the name (a string) or, raw, the
 * socket address of rawlen bytes. */
static __always_inline void enter(__u32 func, const void *src, __u32 rawlen, __u64 result)
{
    __u64 id = bpf_get_current_pid_tgid();
    __u32 tid = (__u32)id;
    if (!wanted(id >> 32))
        return;
    __u64 now = bpf_ktime_get_ns();
    struct call *c = bpf_map_lookup_elem(&calls, &tid);
    if (c) {
        if (now - c->ts < STALE_NS) {
            c->depth++;
            return;
        }
        kcount(&drops, 5);
    }
    struct call nc = {.ts = now, .result = result, .func = func, .depth = 1};
    if (rawlen) {
        /* a sockaddr_in6 (28 bytes) or a sockaddr_in (16): constant sizes */
        nc.raw = 1;
        long rc = rawlen >= 28 ? bpf_probe_read_user(nc.name, 28, src)
                               : bpf_probe_read_user(nc.name, 16, src);
        if (rc != 0)
            return;
    } else {
        long n = bpf_probe_read_user_str(nc.name, sizeof nc.name, src);
        if (n < 0)
            return;
        if (n == sizeof nc.name) {
            nc.cut = 1;
            kcount(&drops, 4);
        }
    }
    /* ts last: the call starts when its name has been read */
    nc.ts = bpf_ktime_get_ns();
    if (bpf_map_update_elem(&calls, &tid, &nc, BPF_ANY) != 0)
        kcount(&drops, 0);
}

static __always_inline struct dns_proc *proc_of(__u32 tgid)
{
    struct dns_proc *p = bpf_map_lookup_elem(&procs, &tgid);
    if (p)
        return p;
    struct dns_proc np = {};
    bpf_get_current_comm(np.comm, sizeof np.comm);
    if (bpf_map_update_elem(&procs, &tgid, &np, BPF_NOEXIST) != 0 &&
        !bpf_map_lookup_elem(&procs, &tgid)) {
        kcount(&drops, 1);
        return NULL;
    }
    return bpf_map_lookup_elem(&procs, &tgid);
}

static __always_inline void account(__u32 tgid, struct call *c, __u64 us, bool failed, __s32 code)
{
    struct dns_proc *p = proc_of(tgid);
    if (p) {
        khist_add(&p->lat, us);
        __u32 f = c->func;
        if (f < DNS_NFUNCS)
            __sync_fetch_and_add(&p->calls[f], 1);
        if (failed)
            __sync_fetch_and_add(&p->fails, 1);
    }
    if (failed) {
        struct dns_err_key ek = {.tgid = tgid, .func = c->func, .code = code};
        __u64 *n = bpf_map_lookup_elem(&errs, &ek);
        if (n) {
            __sync_fetch_and_add(n, 1);
        } else {
            __u64 one = 1;
            if (bpf_map_update_elem(&errs, &ek, &one, BPF_NOEXIST) != 0) {
                n = bpf_map_lookup_elem(&errs, &ek);
                if (n)
                    __sync_fetch_and_add(n, 1);
                else
                    kcount(&drops, 2);
            }
        }
    }
    struct dns_name_key nk = {.tgid = tgid, .raw = c->raw};
    __builtin_memcpy(nk.name, c->name, DNS_NAME_LEN);
    struct dns_name_val *v = bpf_map_lookup_elem(&names, &nk);
    if (!v) {
        struct dns_name_val nv = {};
        if (bpf_map_update_elem(&names, &nk, &nv, BPF_NOEXIST) != 0 &&
            !bpf_map_lookup_elem(&names, &nk)) {
            kcount(&drops, 3);
            return;
        }
        v = bpf_map_lookup_elem(&names, &nk);
        if (!v)
            return;
    }
    __sync_fetch_and_add(&v->calls, 1);
    __sync_fetch_and_add(&v->sum_us, us);
    if (failed)
        __sync_fetch_and_add(&v->fails, 1);
    if (us > v->max_us)
        v->max_us = us;
}

static __always_inline void leave(long ret)
{
    __u64 id = bpf_get_current_pid_tgid();
    __u32 tid = (__u32)id, tgid = id >> 32;
    struct call *c = bpf_map_lookup_elem(&calls, &tid);
    if (!c)
        return;
    if (c->depth > 1) {
        c->depth--;
        return;
    }
    __u64 us = (bpf_ktime_get_ns() - c->ts) / 1000;
    bool failed = false;
    __s32 code = 0;
    switch (c->func) {
    case DNS_GETADDRINFO:
    case DNS_GETNAMEINFO:
        code = (__s32)ret;
        failed = code != 0;
        break;
    case DNS_GETHOSTBYNAME:
    case DNS_GETHOSTBYNAME2:
        failed = ret == 0;
        code = DNS_ST_NULL;
        break;
    default: { /* the _r forms: an error number, or 0 and *result */
        code = (__s32)ret;
        failed = code != 0;
        if (!failed) {
            __u64 res = 0;
            if (c->result &&
                bpf_probe_read_user(&res, sizeof res, (const void *)c->result) == 0 && !res) {
                failed = true;
                code = DNS_ST_NULL;
            }
        }
    }
    }
    if (recording)
        account(tgid, c, us, failed, code);
    bpf_map_delete_elem(&calls, &tid);
}

/* The sixth argument: libbpf's macros stop at the fifth here. */
#if defined(__TARGET_ARCH_x86)
#define ARG6(ctx) ((ctx)->r9)
#elif defined(__TARGET_ARCH_arm64)
#define ARG6(ctx) ((ctx)->regs[5])
#else
#define ARG6(ctx) 0 /* unknown: the _r form's NULL result goes uncounted */
#endif

/* One entry program for every function: the attach cookie says which
 * (one uprobe_multi link per C library then covers them all). */
SEC("uprobe")
int dns_entry(struct pt_regs *ctx)
{
    __u32 func = (__u32)bpf_get_attach_cookie(ctx);
    const void *a1 = (const void *)PT_REGS_PARM1(ctx);
    switch (func) {
    case DNS_GETADDRINFO: /* NULL node: a service or a wildcard address, no name */
        if (a1)
            enter(func, a1, 0, 0);
        break;
    case DNS_GETHOSTBYNAME:
    case DNS_GETHOSTBYNAME2:
        enter(func, a1, 0, 0);
        break;
    case DNS_GETHOSTBYNAME_R: /* (name, ret, buf, buflen, result, h_errnop) */
        enter(func, a1, 0, (__u64)PT_REGS_PARM5(ctx));
        break;
    case DNS_GETHOSTBYNAME2_R: /* (name, af, ret, buf, buflen, result, h_errnop) */
        enter(func, a1, 0, (__u64)ARG6(ctx));
        break;
    case DNS_GETNAMEINFO: { /* (sa, salen, host, ...): no host wanted, no lookup */
        __u32 salen = (__u32)PT_REGS_PARM2(ctx);
        if (PT_REGS_PARM3(ctx) && salen >= 16)
            enter(func, a1, salen, 0);
        break;
    }
    }
    return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(dns_return, long ret)
{
    leave(ret);
    return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
