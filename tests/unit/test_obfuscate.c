#include "harness.h"
#include "model/model.h"
#include "model/profile.h"
#include "render/renderer.h"
#include "util/hostfs.h"
#include "util/obfuscate.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_buf[4096];
/* obf_text, with unchanged input returned as-is (in a static buffer). */
static const char *ob(struct obf *o, const char *s)
{
    char *t = obf_text(o, s);
    snprintf(g_buf, sizeof g_buf, "%s", t ? t : s);
    free(t);
    return g_buf;
}

static struct obf *std_obf(void)
{
    struct obf *o = obf_new();
    obf_add_host(o, "vm");
    obf_add_host(o, "db01.corp.example"); /* also registers "db01" */
    obf_add_user(o, "alice");
    return o;
}

TEST(obfuscate_whole_token_names)
{
    struct obf *o = std_obf();
    CHECK_STR(ob(o, "vm"), "host1");
    CHECK_STR(ob(o, "host vm, kernel"), "host host1, kernel");
    CHECK_STR(ob(o, "on VM."), "on host1."); /* DNS names are case-insensitive */
    /* Inside longer words or dotted names: untouched. */
    const char *keep[] = {"vmstat", "kvm", "vm_area", "vm-2", "vm.swappiness", "sys.vm",
                          "alicent", "malice", "ALICE", "db01x", "/proc/sys/vmx"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        char *t = obf_text(o, keep[i]);
        if (t)
            test_fail(__FILE__, __LINE__, "'%s' changed to '%s'", keep[i], t);
        free(t);
    }
    CHECK_STR(ob(o, "/home/alice/.cache vm:/x"), "/home/user1/.cache host1:/x");
    /* FQDN before its short name; both map to the same kind, numbered by use. */
    CHECK_STR(ob(o, "ssh db01.corp.example; ping db01"), "ssh host2; ping host3");
    obf_free(o);
}

TEST(obfuscate_consistent_across_strings)
{
    struct obf *o = std_obf();
    CHECK_STR(ob(o, "10.1.2.3 alice vm"), "240.0.0.1 user1 host1");
    CHECK_STR(ob(o, "vm 10.1.2.3:443 -> 10.9.9.9 alice"), "host1 240.0.0.1:443 -> 240.0.0.2 user1");
    CHECK_STR(ob(o, "[fd00::1]:22 FD00:0:0::1 fd00::2"), "[2001:db8::1]:22 2001:db8::1 2001:db8::2");
    CHECK_STR(ob(o, "02:FC:00:00:00:01 02-fc-00-00-00-01 de:ad:be:ef:00:01"), "mac1 mac1 mac2");
    struct strbuf map = STRBUF_INIT;
    obf_map_text(o, &map);
    CHECK_CONTAINS(map.buf, "\nhost1\tvm\thost\n");
    CHECK_CONTAINS(map.buf, "\nuser1\talice\tuser\n");
    CHECK_CONTAINS(map.buf, "\n240.0.0.1\t10.1.2.3\tipv4\n240.0.0.2\t10.9.9.9\tipv4\n");
    CHECK_CONTAINS(map.buf, "\n2001:db8::1\tfd00::1\tipv6\n2001:db8::2\tfd00::2\tipv6\n");
    CHECK_CONTAINS(map.buf, "\nmac1\t02:FC:00:00:00:01\tmac\nmac2\tde:ad:be:ef:00:01\tmac\n");
    CHECK(!strstr(map.buf, "db01")); /* registered but never seen: not listed */
    sb_free(&map);
    obf_free(o);
}

TEST(obfuscate_address_forms)
{
    struct obf *o = obf_new();
    /* IPv4: valid octets only, not part of longer dotted numbers. */
    CHECK_STR(ob(o, "192.0.2.2/24"), "240.0.0.1/24");
    CHECK_STR(ob(o, "x=192.0.2.2,"), "x=240.0.0.1,");
    const char *keep4[] = {"256.1.1.1", "1.2.3", "1.2.3.4.5", "v1.2.3.4", "1.2.3.4a",
                           "6.18.0-test", "127.0.0.1", "0.0.0.0", "255.255.255.255", "1234.1.1.1"};
    for (size_t i = 0; i < sizeof keep4 / sizeof keep4[0]; i++) {
        char *t = obf_text(o, keep4[i]);
        if (t)
            test_fail(__FILE__, __LINE__, "'%s' changed to '%s'", keep4[i], t);
        free(t);
    }
    /* IPv6: RFC 4291 forms: full, compressed, "::" first or last, embedded IPv4. */
    CHECK_STR(ob(o, "2001:0db8:85a3:0000:0000:8a2e:0370:7334"), "2001:db8::1");
    CHECK_STR(ob(o, "2001:db8:85a3::8a2e:370:7334"), "2001:db8::1"); /* same value */
    CHECK_STR(ob(o, "fe80::1ff:fe23:4567:890a%eth0"), "2001:db8::2%eth0");
    CHECK_STR(ob(o, "::ffff:192.0.2.9 and fd00::"), "2001:db8::3 and 2001:db8::4");
    CHECK_STR(ob(o, "addr fe80::1:"), "addr 2001:db8::5:");
    const char *keep6[] = {"::", "::1", "[::1]:53", "std::vector", "a::b::c", "12:34:56",
                           "::ffff:127.0.0.1", "fe80::1x", "1:2:3:4:5:6:7:8:9"};
    for (size_t i = 0; i < sizeof keep6 / sizeof keep6[0]; i++) {
        char *t = obf_text(o, keep6[i]);
        if (t)
            test_fail(__FILE__, __LINE__, "'%s' changed to '%s'", keep6[i], t);
        free(t);
    }
    /* MAC: six pairs, one separator kind; zero and broadcast stay. */
    CHECK_STR(ob(o, "link/ether 02:fc:00:00:00:01 brd ff:ff:ff:ff:ff:ff"),
              "link/ether mac1 brd ff:ff:ff:ff:ff:ff");
    const char *keepm[] = {"00:00:00:00:00:00", "02:fc:00:00:00", "02:fc:00:00:00:01:02",
                           "02:fc-00:00:00:01", "02:fc:00:00:00:0g"};
    for (size_t i = 0; i < sizeof keepm / sizeof keepm[0]; i++) {
        char *t = obf_text(o, keepm[i]);
        if (t)
            test_fail(__FILE__, __LINE__, "'%s' changed to '%s'", keepm[i], t);
        free(t);
    }
    obf_free(o);
}

TEST(obfuscate_parsers_hosts_and_passwd)
{
    struct obf *o = obf_new();
    static const char hosts[] = "127.0.0.1\tlocalhost\n"
                                "127.0.1.1 vm.example.com vm # comment names-not\n"
                                "::1 localhost ip6-localhost ip6-loopback\n"
                                "# 10.0.0.1 commented\n"
                                "10.0.0.5   db01";
    obf_parse_hosts(o, hosts, sizeof hosts - 1);
    static const char passwd[] = "root:x:0:0:root:/root:/bin/bash\n"
                                 "postgres:x:105:110::/var/lib/postgresql:/bin/bash\n"
                                 "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
                                 "cloudsdk:x:1000:1000::/home/cloudsdk:/bin/bash\n"
                                 "broken:x:abc:1::/:\n"
                                 "bob:x:1001:1001::/home/bob:/bin/sh";
    obf_parse_passwd(o, passwd, sizeof passwd - 1);
    /* The FQDN is one name (one placeholder), its short name another. */
    CHECK_STR(ob(o, "vm.example.com vm db01 cloudsdk bob"), "host1 host2 host3 user1 user2");
    obf_free(o);
    o = obf_new();
    obf_parse_hosts(o, hosts, sizeof hosts - 1);
    obf_parse_passwd(o, passwd, sizeof passwd - 1);
    CHECK_STR(ob(o, "localhost root postgres nobody names-not commented broken ip6-localhost"),
              "localhost root postgres nobody names-not commented broken ip6-localhost");
    obf_free(o);
}
