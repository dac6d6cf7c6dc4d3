#include "harness.h"
#include "test_util.h"
#include "model/model.h"
#include "model/profile.h"
#include "render/renderer.h"
#include "util/hostfs.h"
#include "privacy/obfuscate.h"
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
    const char *keep4[] = {"256.1.1.1", "1.2.3", "1.2.3.4.5", "6.18.0-test", "127.0.0.1",
                           "0.0.0.0", "255.255.255.255", "1234.1.1.1", "at 96.4.", "v6.18.0"};
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
                           "::ffff:127.0.0.1", "1:2:3:4:5:6:7:8:9", "Foo::bar", "xAbc::def"};
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

/* The leaks of issue 11: addresses glued to names, user names with '_',
 * addresses cut at the end of a 15-byte comm. */
TEST(obfuscate_glued_and_cut_corpus)
{
    struct obf *o = obf_new();
    static const char pw[] = "cloudsdk:x:1000:1000::/home/cloudsdk:/bin/bash\n"
                             "cloudsdk_backup:x:1001:1001::/home/cloudsdk_backup:/bin/sh\n";
    obf_parse_passwd(o, pw, sizeof pw - 1);
    obf_add_host(o, "vm");
    /* Glued to letters, '_' or digits-free words: still addresses. */
    CHECK_STR(ob(o, "connect_192.0.2.2"), "connect_240.0.0.1");
    CHECK_STR(ob(o, "ip_10.20.30.40"), "ip_240.0.0.2");
    CHECK_STR(ob(o, "v1.2.3.4 1.2.3.4a"), "v240.0.0.3 240.0.0.3a");
    CHECK_STR(ob(o, "eth0_02:fc:00:00:00:01 mac02:fc:00:00:00:01x"), "eth0_mac1 macmac1x");
    CHECK_STR(ob(o, "ip_fe80::1 conn_2001:db8:1::5_x fe80::1x"),
              "ip_2001:db8::1 conn_2001:db8::2_x 2001:db8::1x");
    /* User names: the longest registered name wins; '.' and '/' separate,
     * and so do '_' and '-' next to a name of 4 characters or more
     * (issue 30, 9: "cloudsdk-..." and "user_cloudsdk" leaked). */
    CHECK_STR(ob(o, "cloudsdk_backup"), "user1");
    CHECK_STR(ob(o, "x.cloudsdk_backup.service /home/cloudsdk_backup.old"),
              "x.user1.service /home/user1.old");
    CHECK_STR(ob(o, "sudo -u cloudsdk; cloudsdk_backup-2 cloudsdk_backups"),
              "sudo -u user2; user1-2 user2_backups");
    CHECK_STR(ob(o, "user_cloudsdk cloudsdk-192.0.2.2"), "user_user2 user2-240.0.0.1");
    /* Cut at 15 bytes: the part of a seen address becomes the part of its
     * placeholder; an unknown one at a cut point gets its own. */
    CHECK_STR(ob(o, "connect_192.0.2"), "connect_240.0.0");
    CHECK_STR(ob(o, "pid 7 (connect_192.0.2) ran"), "pid 7 (connect_240.0.0) ran");
    CHECK_STR(ob(o, "cloudsdk-192.0."), "user2-240.0.");
    CHECK_STR(ob(o, "cloudsdk-198.51."), "user2-240.1.");
    CHECK_STR(ob(o, "cloudsd-203.0.1"), "cloudsd-240.0.2");
    CHECK_STR(ob(o, "connect_10.20.3"), "connect_240.0.0"); /* mid-octet cut of 10.20.30.40 */
    /* Not a cut point, not a whole-group prefix of a seen address: stays. */
    const char *keep[] = {"at 96.4.", "version 4.5.6 of x", "10.2 s", "pid 5 (backup-10.20.3)",
                          "/lib/ld-2.36.so", "libfoo_7.8.so.3",
                          "vmstat", "vm_area", "vm.swappiness", "std::vector"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        char *t = obf_text(o, keep[i]);
        if (t)
            test_fail(__FILE__, __LINE__, "'%s' changed to '%s'", keep[i], t);
        free(t);
    }
    struct strbuf map = STRBUF_INIT;
    obf_map_text(o, &map);
    CHECK_CONTAINS(map.buf, "\nuser1\tcloudsdk_backup\tuser\n");
    CHECK_CONTAINS(map.buf, "\n240.1.\t198.51.\tipv4-prefix\n");
    sb_free(&map);
    obf_free(o);
}

/* In the model, a cut address met before its full form still gets the
 * full address's placeholder (the walk sees every address first). */
TEST(obfuscate_cut_address_before_full_in_model)
{
    struct report *r = report_new();
    struct table *t = report_table(r, "proc.top_cpu", "Top", "process");
    table_add_col(t, "comm", "Command", "", 0);
    table_add_col(t, "cmdline", "Command line", "", 0);
    size_t row = table_add_row(t);
    table_set_str(t, row, "comm", "connect_192.0.2");
    table_set_str(t, row, "cmdline", "./connect_192.0.2.2 --peer 198.51.100.7");
    struct finding *f = report_add_finding(r, "x", SEV_WARNING, "cpu", "busy");
    finding_evidence(f, "%s", "connect_198.51. (pid 4) and ip_198.51.100");
    struct obf *o = obf_new();
    CHECK(obfuscate_report(o, r) == 3);
    CHECK_STR(table_str(t, 0, "comm"), "connect_240.0.0");
    CHECK_STR(table_str(t, 0, "cmdline"), "./connect_240.0.0.1 --peer 240.0.0.2");
    CHECK_STR(r->findings[0].evidence[0], "connect_240.0. (pid 4) and ip_240.0.0");
    obf_free(o);
    report_free(r);
}

/* ---- the whole model: every kind of string field ---- */

#define P "vm alice 192.0.2.2 [fd00:1:2::5]:22 02:fc:00:00:00:01"

static bool has_name_token(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = s; (p = strstr(p, w)) != NULL; p++) {
        char b = p == s ? ' ' : p[-1], a = p[n];
        bool wb = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') ||
                  b == '_' || b == '-';
        bool wa = (a >= 'a' && a <= 'z') || (a >= 'A' && a <= 'Z') || (a >= '0' && a <= '9') ||
                  a == '_' || a == '-';
        if (!wb && !wa)
            return true;
    }
    return false;
}

/* The real values of P, in any text (NULL is clean). */
static const char *leak(const char *s)
{
    static const char *const lit[] = {"alice", "192.0.2.2", "fd00:1:2::5", "02:fc:00:00:00:01",
                                      "192\\.0\\.2\\.2"};
    if (!s)
        return NULL;
    for (size_t i = 0; i < sizeof lit / sizeof lit[0]; i++)
        if (strstr(s, lit[i]))
            return lit[i];
    return has_name_token(s, "vm") ? "vm" : NULL;
}

static struct report *secret_report(void)
{
    struct report *r = report_new();
    kv_add(&r->host, "hostname", "Host name", "vm");
    kv_add(&r->host, P, P, P);
    kv_add(&r->caps, P, P, P);
    r->window.target = xstrdup(P);
    r->window.planned_s = r->window.actual_s = 2;
    r->window.interval_s = 1;
    report_add_tick(r, 1);
    struct series *s = report_series(r, P, P, P, P);
    s->chart = true;
    series_set(r, s, 1);
    report_add_tick(r, 2);
    series_set(r, s, 2);
    struct table *t = report_table(r, P, P, P);
    table_add_col(t, P, P, P, 0);
    table_add_col(t, "n", "N", "", 0);
    size_t row = table_add_row(t);
    table_set_str(t, row, P, P);
    table_set_num(t, row, "n", 1);
    table_set_note(t, P);
    report_metric(r, P, P, P, P, 1);
    struct finding *f = report_add_finding(r, P, SEV_WARNING, P, P);
    finding_evidence(f, "%s", P);
    finding_set_recommendation(f, P);
    finding_set_culprit(f, P);
    report_add_threshold(r, P, P, P, 1, 2, false);
    struct use_row *u = report_add_use(r, P);
    use_cell_set(&u->util, SEV_INFO, "%s", P);
    use_cell_set(&u->sat, SEV_INFO, "%s", P);
    use_cell_set(&u->err, SEV_INFO, "%s", P);
    struct ledger_entry *e = report_ledger(r, P, P);
    ledger_set(e, CS_SKIPPED, P);
    ledger_note(e, "%s", P);
    struct hist *h = report_hist(r, P, P, P, P);
    hist_add_bucket(h, 3, 5);
    struct profile *p = profile_new(P, P, P);
    const char *frames[] = {P, "main", P};
    uint32_t leaf = profile_add_stack(p, frames, NULL, 3, 7);
    profile_set_source(p, leaf, P);
    report_add_profile(r, p);
    report_set_headline(r, P);
    r->tool_version = xstrdup(P);
    return r;
}


TEST(obfuscate_model_walk_covers_every_string)
{
    struct report *r = secret_report();
    struct obf *o = obf_new();
    obf_add_host(o, "vm");
    obf_add_user(o, "alice");
    CHECK(obfuscate_report(o, r) > 30);
    const char *want = "host1 user1 240.0.0.1 [2001:db8::1]:22 mac1";
    /* Every field, one by one. */
    CHECK_STR(kv_get(&r->host, "hostname"), "host1");
    for (size_t i = 1; i < r->host.n; i++) {
        CHECK_STR(r->host.v[i].key, want);
        CHECK_STR(r->host.v[i].title, want);
        CHECK_STR(r->host.v[i].value, want);
    }
    CHECK_STR(r->caps.v[0].key, want);
    CHECK_STR(r->caps.v[0].value, want);
    CHECK_STR(r->window.target, want);
    CHECK_STR(r->series[0]->hdr.name, want);
    CHECK_STR(r->series[0]->hdr.title, want);
    CHECK_STR(r->series[0]->hdr.unit, want);
    CHECK_STR(r->series[0]->hdr.resource, want);
    const struct table *t = r->tables[0];
    CHECK_STR(t->hdr.name, want);
    CHECK_STR(t->hdr.title, want);
    CHECK_STR(t->hdr.resource, want);
    CHECK_STR(t->note, want);
    CHECK_STR(t->cols[0].name, want);
    CHECK_STR(t->cols[0].title, want);
    CHECK_STR(t->cols[0].unit, want);
    CHECK_STR(t->cells[0].str, want);
    CHECK_NUM(t->cells[1].num, 1, 0);
    CHECK_STR(r->metrics[0].name, want);
    CHECK_STR(r->metrics[0].title, want);
    CHECK_STR(r->metrics[0].unit, want);
    CHECK_STR(r->metrics[0].resource, want);
    const struct finding *f = &r->findings[0];
    CHECK_STR(f->id, want);
    CHECK_STR(f->resource, want);
    CHECK_STR(f->title, want);
    CHECK_STR(f->evidence[0], want);
    CHECK_STR(f->recommendation, want);
    CHECK_STR(f->culprit, want);
    CHECK_STR(r->thresholds[0].id, want);
    CHECK_STR(r->thresholds[0].title, want);
    CHECK_STR(r->thresholds[0].unit, want);
    CHECK_STR(r->use[0].resource, want);
    CHECK_STR(r->use[0].util.text, want);
    CHECK_STR(r->use[0].sat.text, want);
    CHECK_STR(r->use[0].err.text, want);
    CHECK_STR(r->ledger[0].name, want);
    CHECK_STR(r->ledger[0].title, want);
    CHECK_STR(r->ledger[0].reason, want);
    CHECK_STR(r->ledger[0].notes, want);
    CHECK_STR(r->hists[0]->hdr.name, want);
    CHECK_STR(r->hists[0]->hdr.title, want);
    CHECK_STR(r->hists[0]->hdr.unit, want);
    CHECK_STR(r->hists[0]->hdr.resource, want);
    struct profile *p = r->profiles[0];
    CHECK_STR(p->name, want);
    CHECK_STR(p->title, want);
    CHECK_STR(p->unit, want);
    for (uint32_t id = 0; id < p->nstrs; id++)
        if (leak(profile_str(p, id)))
            test_fail(__FILE__, __LINE__, "profile string %u: %s", id, profile_str(p, id));
    const char *frames[] = {want, "main", want};
    uint32_t leaf = profile_find(p, frames, 3);
    CHECK(leaf != PROFILE_NONE);
    if (leaf != PROFILE_NONE) {
        CHECK_STR(profile_node_source(p, leaf), want);
        CHECK_NUM(profile_self(p, leaf), 7, 0);
    }
    CHECK_STR(r->headline, want);
    CHECK_STR(r->tool_version, want);

    /* An independent check: every file every renderer writes, and its name. */
    struct mem_sink m = {0};
    struct out_sink sink = {mem_sink_write, &m, NULL};
    for (size_t i = 0; renderer_registry[i]; i++)
        CHECK(renderer_registry[i]->render(r, &sink) == 0);
    CHECK(m.n >= 5);
    bool placeholder_seen = false;
    for (size_t i = 0; i < m.n; i++) {
        const char *l = leak(m.f[i].data);
        if (l)
            test_fail(__FILE__, __LINE__, "%s contains %s", m.f[i].name, l);
        if ((l = leak(m.f[i].name)))
            test_fail(__FILE__, __LINE__, "file name %s contains %s", m.f[i].name, l);
        placeholder_seen = placeholder_seen ||
                           (strstr(m.f[i].data, "240.0.0.1") && strstr(m.f[i].data, "mac1"));
    }
    mem_free(&m);
    CHECK(placeholder_seen);
    obf_free(o);
    report_free(r);
}

TEST(obfuscate_unobfuscated_report_leaks_in_every_renderer)
{
    /* The oracle above must be able to fail: without obfuscation each
     * renderer's output shows the secrets. */
    struct report *r = secret_report();
    struct mem_sink m = {0};
    struct out_sink sink = {mem_sink_write, &m, NULL};
    for (size_t i = 0; renderer_registry[i]; i++)
        CHECK(renderer_registry[i]->render(r, &sink) == 0);
    size_t leaking = 0;
    for (size_t i = 0; i < m.n; i++)
        leaking += leak(m.f[i].data) != NULL;
    mem_free(&m);
    CHECK(leaking >= 4);
    report_free(r);
}

/* ---- host names and users from the host tree; the map file ---- */

static void write_file(const char *dir, const char *name, const char *text)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

TEST(obfuscate_load_host_and_write_map)
{
    char root[] = "/tmp/perfreport-obf-XXXXXX";
    REQUIRE(mkdtemp(root));
    char etc[600];
    snprintf(etc, sizeof etc, "%s/etc", root);
    mkdir(etc, 0700);
    write_file(etc, "hostname", "web-7\n");
    write_file(etc, "hosts", "127.0.0.1 localhost\n127.0.1.1 web-7.prod.example web-7\n");
    write_file(etc, "passwd", "root:x:0:0::/root:/bin/sh\ncarol:x:1000:1000::/home/carol:/bin/sh\n");
    hostfs_set_root(root);
    struct report *r = report_new();
    kv_add(&r->host, "hostname", "Host name", "web-7");
    struct obf *o = obf_new();
    obf_load_host(o, r);
    hostfs_set_root(NULL);
    obfuscate_report(o, r);
    CHECK_STR(kv_get(&r->host, "hostname"), "host1");
    CHECK_STR(ob(o, "carol@web-7.prod.example as root"), "user1@host2 as root");

    char bundle[700], path[800], err[256];
    snprintf(bundle, sizeof bundle, "%s/perfreport-host1-x/", root);
    int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(dfd >= 0);
    CHECK(obf_write_map(o, dfd, "perfreport-host1-x", bundle, path, sizeof path, err,
                        sizeof err) == 0);
    CHECK(strstr(path, "/perfreport-host1-x.obfuscation-map") != NULL);
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600);
    FILE *f = fopen(path, "r");
    char text[1024] = "";
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    CHECK_CONTAINS(text, "\nhost1\tweb-7\thost\n");
    CHECK_CONTAINS(text, "\nhost2\tweb-7.prod.example\thost\n");
    CHECK_CONTAINS(text, "\nuser1\tcarol\tuser\n");
    /* Never overwritten, never through a symlink. */
    CHECK(obf_write_map(o, dfd, "perfreport-host1-x", bundle, path, sizeof path, err,
                        sizeof err) == -EEXIST);
    CHECK_CONTAINS(err, "cannot create");
    char link[800], target[800];
    snprintf(target, sizeof target, "%s/elsewhere", root);
    snprintf(link, sizeof link, "%s/b2.obfuscation-map", root);
    CHECK(symlink(target, link) == 0);
    snprintf(bundle, sizeof bundle, "%s/b2", root);
    CHECK(obf_write_map(o, dfd, "b2", bundle, path, sizeof path, err, sizeof err) < 0);
    CHECK(access(target, F_OK) != 0);
    /* The bundle's directory renamed and its name made a link to another
     * one after the bundle was published: the map still goes beside the
     * bundle, in the directory held, not where the path now leads. */
    char held[600], moved[600], other[600], got[700];
    snprintf(held, sizeof held, "%s/held", root);
    snprintf(moved, sizeof moved, "%s/moved", root);
    snprintf(other, sizeof other, "%s/other", root);
    CHECK(mkdir(held, 0700) == 0 && mkdir(other, 0700) == 0);
    int hfd = open(held, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(hfd >= 0);
    CHECK(rename(held, moved) == 0 && symlink(other, held) == 0);
    snprintf(bundle, sizeof bundle, "%s/b3", held);
    CHECK(obf_write_map(o, hfd, "b3", bundle, path, sizeof path, err, sizeof err) == 0);
    snprintf(got, sizeof got, "%s/b3.obfuscation-map", moved);
    CHECK(access(got, F_OK) == 0);
    snprintf(got, sizeof got, "%s/b3.obfuscation-map", other);
    CHECK(access(got, F_OK) != 0);
    close(hfd);
    close(dfd);
    obf_free(o);
    report_free(r);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
}

/* Issue 30, 9: a host name inside a JIT symbol, a MAC in Cisco's dotted
 * form; and what must stay: names in other words, a short host name inside
 * identifiers (kernel symbols), users in another case, versions. */
TEST(obfuscate_glued_names_and_dotted_mac)
{
    struct obf *o = obf_new();
    static const char hosts[] = "127.0.0.1 localhost\n127.0.0.1 runsc\n127.0.0.1 vm\n";
    static const char pw[] = "cloudsdk:x:1000:1000::/home/cloudsdk:/bin/bash\n";
    obf_parse_hosts(o, hosts, sizeof hosts - 1);
    obf_parse_passwd(o, pw, sizeof pw - 1);
    CHECK_STR(ob(o, "runsc_rpc"), "host1_rpc");
    CHECK_STR(ob(o, "JIT: RUNSC_rpc::call my-runsc"), "JIT: host1_rpc::call my-host1");
    CHECK_STR(ob(o, "link 02fc.0000.0001 eth0_0050.5600.00aB"), "link mac1 eth0_mac2");
    const char *keep[] = {"CLOUDSDK", "CLOUDSDK_CONFIG", "Cloudsdk-x", "cloudsdkx_y", "xcloudsdk",
                          "vm_area_alloc", "kvm-clock", "__vm_munmap", "vm-2", "runscx_y",
                          "v2024.1127.0600", "1234.5678.9abc.def0", "0000.0000.0000",
                          "ffff.ffff.ffff"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        char *t = obf_text(o, keep[i]);
        if (t)
            test_fail(__FILE__, __LINE__, "'%s' changed to '%s'", keep[i], t);
        free(t);
    }
    CHECK_STR(ob(o, "vm"), "host2");
    obf_free(o);
}
