/* The DNS collector's pure parts (src/collect/dns.c): names and codes as
 * text, the model fill, the dns.latency rule
 * built on it, and --obfuscate hiding the looked-up names. */
#include "harness.h"
#include "rule_util.h"
#include "../../src/analyze/analyze.h"
#include "../../src/collect/dns.h"
#include "../../src/model/model.h"
#include "../../src/privacy/obfuscate.h"
#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>
#include <math.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

TEST(dns_codes_and_names_as_text)
{
    char buf[64];
    const char *meaning = NULL;
    dns_code_name(DNS_GETADDRINFO, EAI_NONAME, buf, sizeof buf, &meaning);
    CHECK_STR(buf, "EAI_NONAME");
    CHECK(meaning && strstr(meaning, "NXDOMAIN"));
    dns_code_name(DNS_GETADDRINFO, -12345, buf, sizeof buf, &meaning);
    CHECK_STR(buf, "EAI -12345");
    CHECK(meaning == NULL);
    dns_code_name(DNS_GETHOSTBYNAME, DNS_ST_NULL, buf, sizeof buf, &meaning);
    CHECK_STR(buf, "NULL result");
    dns_code_name(DNS_GETHOSTBYNAME_R, 34 /* ERANGE */, buf, sizeof buf, &meaning);
    CHECK_STR(buf, "ERANGE");
    CHECK_STR(dns_func_name(DNS_GETNAMEINFO), "getnameinfo");
    CHECK_STR(dns_func_name(99), "?");

    struct dns_name_key k;
    memset(&k, 0, sizeof k);
    snprintf(k.name, sizeof k.name, "db.example.test");
    dns_name_text(&k, buf, sizeof buf);
    CHECK_STR(buf, "db.example.test");
    memset(k.name, 'x', sizeof k.name - 1); /* as long as the probe keeps: cut */
    char big[DNS_NAME_LEN + 8];
    dns_name_text(&k, big, sizeof big);
    CHECK(strlen(big) == DNS_NAME_LEN - 1 + 3);
    CHECK_STR(big + DNS_NAME_LEN - 1, "...");
    /* getnameinfo: the socket address */
    memset(&k, 0, sizeof k);
    k.raw = 1;
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(53)};
    inet_pton(AF_INET, "192.0.2.7", &sin.sin_addr);
    memcpy(k.name, &sin, sizeof sin);
    dns_name_text(&k, buf, sizeof buf);
    CHECK_STR(buf, "192.0.2.7");
    struct sockaddr_in6 s6 = {.sin6_family = AF_INET6};
    inet_pton(AF_INET6, "2001:db8::5", &s6.sin6_addr);
    memset(k.name, 0, sizeof k.name);
    memcpy(k.name, &s6, sizeof s6);
    dns_name_text(&k, buf, sizeof buf);
    CHECK_STR(buf, "2001:db8::5");
    uint16_t fam = 17;
    memcpy(k.name, &fam, sizeof fam);
    dns_name_text(&k, buf, sizeof buf);
    CHECK_STR(buf, "(address family 17)");
}

/* One process "client" (pid 42) whose `n` lookups of `name` took `us`
 * each, `fails` of them EAI_NONAME; plus a quiet process (pid 7). */
static struct report *dns_case(double us, unsigned n, unsigned fails, const char *name)
{
    struct report *r = quiet_host();
    struct dns_proc_rec p[2];
    memset(p, 0, sizeof p);
    p[0].pid = 7;
    snprintf(p[0].v.comm, sizeof p[0].v.comm, "quiet");
    p[0].v.lat.slots[6] = 10; /* 64-128 us */
    p[0].v.lat.max = 100;
    p[0].v.calls[DNS_GETADDRINFO] = 10;
    p[1].pid = 42;
    snprintf(p[1].v.comm, sizeof p[1].v.comm, "client");
    unsigned slot = 0;
    while (slot + 1 < KHIST_SLOTS && (double)(2ull << slot) <= us)
        slot++;
    p[1].v.lat.slots[slot] = n;
    p[1].v.lat.max = (uint64_t)us;
    p[1].v.lat.sum = (uint64_t)us * n;
    p[1].v.calls[DNS_GETADDRINFO] = n;
    p[1].v.fails = fails;
    struct dns_err_rec e[1];
    memset(e, 0, sizeof e);
    e[0].k.tgid = 42;
    e[0].k.func = DNS_GETADDRINFO;
    e[0].k.code = EAI_NONAME;
    e[0].n = fails;
    struct dns_name_rec nm[2];
    memset(nm, 0, sizeof nm);
    nm[0].k.tgid = 7;
    snprintf(nm[0].k.name, sizeof nm[0].k.name, "localhost");
    nm[0].v = (struct dns_name_val){.calls = 10, .sum_us = 900, .max_us = 100};
    nm[1].k.tgid = 42;
    snprintf(nm[1].k.name, sizeof nm[1].k.name, "%s", name);
    nm[1].v = (struct dns_name_val){
        .calls = n, .fails = fails, .sum_us = (uint64_t)us * n, .max_us = (uint64_t)us};
    dns_fill(r, p, 2, e, fails ? 1 : 0, nm, 2, "/lib/x86_64-linux-gnu/libc.so.6");
    return r;
}

TEST(dns_fill_tables_hists_and_metrics)
{
    struct report *r = dns_case(201000, 20, 5, "slow.example.test");
    const struct table *t = report_find_table(r, "dns.procs");
    REQUIRE(t && t->nrows == 2);
    /* slowest first */
    CHECK_STR(table_str(t, 0, "comm"), "client");
    CHECK_NUM(table_num(t, 0, "pid"), 42, 0);
    CHECK_NUM(table_num(t, 0, "lookups"), 20, 0);
    CHECK_NUM(table_num(t, 0, "failed"), 5, 0);
    CHECK_NUM(table_num(t, 0, "max_ms"), 201, 1e-9);
    /* the p99 of one bucket [131, 262) ms is capped at the exact max */
    CHECK_NUM(table_num(t, 0, "p99_ms"), 201, 1e-9);
    CHECK_STR(table_str(t, 0, "functions"), "getaddrinfo 20");
    CHECK(strstr(t->note, "Go programs") != NULL);
    CHECK(strstr(t->note, "/lib/x86_64-linux-gnu/libc.so.6") != NULL);
    const struct table *nt = report_find_table(r, "dns.names");
    REQUIRE(nt && nt->nrows == 2);
    CHECK_STR(table_str(nt, 0, "name"), "slow.example.test");
    CHECK_NUM(table_num(nt, 0, "avg_ms"), 201, 1e-9);
    const struct table *ft = report_find_table(r, "dns.failures");
    REQUIRE(ft && ft->nrows == 1);
    CHECK_STR(table_str(ft, 0, "code"), "EAI_NONAME");
    CHECK_STR(table_str(ft, 0, "comm"), "client");
    CHECK_NUM(table_num(ft, 0, "count"), 5, 0);
    const struct hist *all = report_find_hist(r, "dnslat");
    REQUIRE(all != NULL);
    CHECK(all->count == 30);
    CHECK(report_find_hist(r, "dnslat.pid.42") != NULL);
    CHECK(report_find_hist(r, "dnslat.pid.7") != NULL);
    CHECK_NUM(report_metric_value(r, "dns.lookups"), 30, 0);
    CHECK_NUM(report_metric_value(r, "dns.failed_lookups"), 5, 0);
    CHECK_NUM(report_metric_value(r, "dns.max_ms"), 201, 1e-9);
    report_free(r);
}

TEST(rule_dns_latency_names_process_and_name)
{
    struct report *r = dns_case(99000, 50, 0, "ok.example.test");
    analyze_run(r);
    CHECK(sev_of(r, "dns.latency") == SEV_NONE);
    report_free(r);

    r = dns_case(201000, 50, 3, "slow.example.test");
    analyze_run(r);
    REQUIRE(sev_of(r, "dns.latency") == SEV_WARNING);
    const struct finding *f = report_find_finding(r, "dns.latency");
    CHECK_CONTAINS(f->title, "client (pid 42)");
    CHECK_CONTAINS(f->title, "201 ms at p99");
    CHECK_CONTAINS(f->title, "slow.example.test");
    CHECK_STR(f->culprit, "client (pid 42)");
    CHECK(evidence_has(r, "dns.latency", "3 of 50 lookups failed: getaddrinfo EAI_NONAME 3"));
    CHECK(evidence_has(r, "dns.latency", "statically linked and Go"));
    report_free(r);

    r = dns_case(1500000, 4, 0, "dead.example.test");
    analyze_run(r);
    CHECK(sev_of(r, "dns.latency") == SEV_CRITICAL);
    report_free(r);
}

TEST(dns_obfuscate_hides_looked_up_names)
{
    struct report *r = dns_case(201000, 50, 3, "secret-db.corp.example");
    analyze_run(r);
    REQUIRE(report_find_finding(r, "dns.latency") != NULL);
    struct obf *o = obf_new();
    obf_load_host(o, r);
    obfuscate_report(o, r);
    obf_free(o);
    const struct table *nt = report_find_table(r, "dns.names");
    REQUIRE(nt && nt->nrows == 2);
    const char *name = table_str(nt, 0, "name");
    CHECK(name && strncmp(name, "host", 4) == 0);
    CHECK_STR(table_str(nt, 1, "name"), "localhost"); /* identifies nothing */
    const struct finding *f = report_find_finding(r, "dns.latency");
    CHECK(strstr(f->title, "secret-db") == NULL);
    CHECK(strstr(f->title, name) != NULL);
    for (size_t i = 0; i < f->nevidence; i++)
        CHECK(strstr(f->evidence[i], "secret-db") == NULL);
    /* the first label alone is another word, left alone */
    CHECK_STR(table_str(report_find_table(r, "dns.procs"), 0, "comm"), "client");
    report_free(r);
}

/* The offsets are where the functions' code is: the bytes at each offset
 * of the C library file are the bytes the loaded function starts with --
 * but for the first, which is int3 (0xcc) while any uprobe is on the
 * function (a perfreport running on the host with its DNS probes). */
TEST(dns_func_offsets_point_at_the_code)
{
    void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    REQUIRE(h != NULL);
    void *fn = dlsym(h, "getaddrinfo");
    Dl_info info;
    REQUIRE(fn && dladdr(fn, &info) && info.dli_fname);
    int fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    uint64_t off[DNS_NFUNCS];
    CHECK(dns_func_offsets(fd, off) == DNS_NFUNCS);
    static const char *const names[DNS_NFUNCS] = {
        "getaddrinfo", "gethostbyname", "gethostbyname2", "gethostbyname_r", "gethostbyname2_r",
        "getnameinfo"};
    for (int i = 0; i < DNS_NFUNCS; i++) {
        void *f = dlsym(h, names[i]);
        unsigned char file[16], mem[16];
        REQUIRE(f && off[i]);
        CHECK(pread(fd, file, sizeof file, (off_t)off[i]) == (ssize_t)sizeof file);
        memcpy(mem, f, sizeof mem);
        CHECK(mem[0] == file[0] || mem[0] == 0xcc);
        CHECK(memcmp(file + 1, mem + 1, sizeof file - 1) == 0);
    }
    /* not an ELF file: nothing found */
    int nfd = open(fixture("../../src/model/NAMES.md"), O_RDONLY | O_CLOEXEC);
    REQUIRE(nfd >= 0);
    CHECK(dns_func_offsets(nfd, off) == 0);
    CHECK(off[0] == 0);
    close(nfd);
    close(fd);
    dlclose(h);
}
