#include "harness.h"
#include "util/redact.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

/* Arguments written with '|' for the NUL separators of /proc/PID/cmdline;
 * returns the redacted line with NULs shown as '|' again. */
static char g_out[16384];
static size_t red(const char *args)
{
    size_t n = strlen(args);
    char *in = malloc(n + 1);
    memcpy(in, args, n + 1);
    for (size_t i = 0; i < n; i++)
        if (in[i] == '|')
            in[i] = '\0';
    struct strbuf out = STRBUF_INIT;
    size_t c = redact_argv(in, n, &out);
    size_t m = out.len < sizeof g_out - 1 ? out.len : sizeof g_out - 1;
    for (size_t i = 0; i < m; i++)
        g_out[i] = out.buf[i] == '\0' ? '|' : out.buf[i];
    g_out[m] = '\0';
    sb_free(&out);
    free(in);
    return c;
}

TEST(redact_name_value)
{
    CHECK_NUM(red("prog|--password=hunter2|-v"), 1, 0);
    CHECK_STR(g_out, "prog|--password=***|-v");
    CHECK_NUM(red("env|PGPASSWORD=x|psql"), 1, 0);
    CHECK_STR(g_out, "env|PGPASSWORD=***|psql");
    CHECK_NUM(red("app|api_key=abc123|API_TOKEN=t|client_secret=s|aws_credentials=c"), 4, 0);
    CHECK_STR(g_out, "app|api_key=***|API_TOKEN=***|client_secret=***|aws_credentials=***");
    CHECK_NUM(red("java|-Djavax.net.ssl.keyStorePassword=changeit|-jar|x.jar"), 1, 0);
    CHECK_STR(g_out, "java|-Djavax.net.ssl.keyStorePassword=***|-jar|x.jar");
    /* '=' inside the value: NAME ends at the first '=' and the whole value goes. */
    CHECK_NUM(red("p|--token=YWJj==|--x=1"), 1, 0);
    CHECK_STR(g_out, "p|--token=***|--x=1");
    /* A quoted value with a space is one argument: all of it goes. */
    CHECK_NUM(red("p|--password=correct horse battery"), 1, 0);
    CHECK_STR(g_out, "p|--password=***");
    /* Empty value: nothing to hide, nothing counted. */
    CHECK_NUM(red("p|--password="), 0, 0);
    CHECK_STR(g_out, "p|--password=");
}

TEST(redact_option_next_argument)
{
    CHECK_NUM(red("p|--password|hunter2|file"), 1, 0);
    CHECK_STR(g_out, "p|--password|***|file");
    CHECK_NUM(red("p|--auth-token|tok|-v"), 1, 0);
    CHECK_STR(g_out, "p|--auth-token|***|-v");
    CHECK_NUM(red("openssl|rsa|-passin|pass:x|-in|k.pem"), 1, 0);
    CHECK_STR(g_out, "openssl|rsa|-passin|***|-in|k.pem");
    /* The next argument is another option: taken for a flag, left alone. */
    CHECK_NUM(red("p|--no-auth|--verbose"), 0, 0);
    CHECK_STR(g_out, "p|--no-auth|--verbose");
    /* Option at the very end: nothing follows, nothing leaks. */
    CHECK_NUM(red("p|--password"), 0, 0);
    CHECK_STR(g_out, "p|--password");
}

TEST(redact_url_userinfo)
{
    CHECK_NUM(red("curl|https://bob:pw@example.invalid/x"), 1, 0);
    CHECK_STR(g_out, "curl|https://***@example.invalid/x");
    CHECK_NUM(red("git|clone|https://ghp_TOKEN@github.com/a/b.git"), 1, 0);
    CHECK_STR(g_out, "git|clone|https://***@github.com/a/b.git");
    /* The last '@' before the path ends the userinfo; an '@' in the path is not one. */
    CHECK_NUM(red("x|postgres://u:p@ss@db:5432/app"), 1, 0);
    CHECK_STR(g_out, "x|postgres://***@db:5432/app");
    CHECK_NUM(red("x|https://example.invalid/@user"), 0, 0);
    CHECK_STR(g_out, "x|https://example.invalid/@user");
    /* Inside a non-sensitive option value, and twice in one argument. */
    CHECK_NUM(red("x|--url=ftp://a:b@h/ --mirror=http://c:d@i"), 2, 0);
    CHECK_STR(g_out, "x|--url=ftp://***@h/ --mirror=http://***@i");
}

TEST(redact_authorization_header)
{
    CHECK_NUM(red("curl|-H|Authorization: Bearer tok|https://h/"), 1, 0);
    CHECK_STR(g_out, "curl|-H|Authorization: ***|https://h/");
    CHECK_NUM(red("curl|-H|authorization:Basic Ym9i|-H|X-Api-Key: k1|-H|Cookie: s=1"), 3, 0);
    CHECK_STR(g_out, "curl|-H|authorization:***|-H|X-Api-Key: ***|-H|Cookie: ***");
    /* Split by a shell into separate arguments: the next argument goes. */
    CHECK_NUM(red("curl|-H|Proxy-Authorization:|Basic|x"), 1, 0);
    CHECK_STR(g_out, "curl|-H|Proxy-Authorization:|***|x");
    /* A URL scheme is not a header; a non-secret header stays. */
    CHECK_NUM(red("x|keystore://file|-H|Accept: text/html"), 0, 0);
    CHECK_STR(g_out, "x|keystore://file|-H|Accept: text/html");
}

TEST(redact_words_inside_one_argument)
{
    /* sh -c and rewritten process titles keep a whole command in one argument. */
    CHECK_NUM(red("sh|-c|mysql --password=s3cr3t db && curl -H 'x' --token abc https://h"), 2, 0);
    CHECK_STR(g_out, "sh|-c|mysql --password=*** db && curl -H 'x' --token *** https://h");
    CHECK_NUM(red("sh|-c|tool --secret='a b' next"), 1, 0);
    CHECK_STR(g_out, "sh|-c|tool --secret=*** next");
    /* Query strings and form data. */
    CHECK_NUM(red("wget|https://h/p?user=bob&access_token=abc&x=1#f"), 1, 0);
    CHECK_STR(g_out, "wget|https://h/p?user=bob&access_token=***&x=1#f");
    CHECK_NUM(red("curl|--data|user=bob&password=hunter2"), 1, 0);
    CHECK_STR(g_out, "curl|--data|user=bob&password=***");
}

TEST(redact_mysql_and_curl_user)
{
    CHECK_NUM(red("/usr/bin/mysql|-uroot|-pSECRET|db"), 1, 0);
    CHECK_STR(g_out, "/usr/bin/mysql|-uroot|-p***|db");
    CHECK_NUM(red("mariadb-dump|-p|db"), 0, 0); /* bare -p prompts */
    CHECK_NUM(red("mkdir|-pfoo"), 0, 0);        /* not a MySQL client */
    CHECK_STR(g_out, "mkdir|-pfoo");
    CHECK_NUM(red("curl|-u|bob:pw|https://h"), 1, 0);
    CHECK_STR(g_out, "curl|-u|bob:***|https://h");
    CHECK_NUM(red("curl|-ubob:pw|--user=al:x"), 2, 0);
    CHECK_STR(g_out, "curl|-ubob:***|--user=al:***");
}

TEST(redact_leaves_lookalikes_alone)
{
    /* Sensitive words as values or inside unrelated words do not trigger. */
    const char *keep[] = {
        "xset|-layout|keyboard|monkey",
        "grep|-r|password|/etc",
        "ls|--sort=key|passwd|token",
        "sshd: bob [priv]",
        "nginx: worker process",
        "p|--keep-alive=5|--bypass",
        "p|http://example.invalid/pass/key?x=1",
        "p|a=b=c|-p|8080",
        "p|pet=monkey|layout:keyboard|--user=password",
    };
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        size_t c = red(keep[i]);
        if (c != 0 || strcmp(g_out, keep[i]) != 0)
            test_fail(__FILE__, __LINE__, "'%s' -> '%s' (%zu)", keep[i], g_out, c);
    }
}

TEST(redact_names_containing_words_are_redacted)
{
    /* Documented over-redaction: names containing a word trigger. */
    CHECK_NUM(red("p|--keyfile|/etc/k|--author=bob|--passes=3"), 3, 0);
    CHECK_STR(g_out, "p|--keyfile|***|--author=***|--passes=***");
    CHECK_NUM(red("p|monkey=banana|keyboard:us"), 2, 0);
    CHECK_STR(g_out, "p|monkey=***|keyboard:***");
    CHECK(redact_name_sensitive("PGPASSWORD", 10));
    CHECK(redact_name_sensitive("X-Auth", 6));
    CHECK(!redact_name_sensitive("keep", 4));
    CHECK(!redact_name_sensitive("user", 4));
}

TEST(redact_counts_overlaps_once_and_keeps_layout)
{
    /* A URL inside a redacted value is one redaction, not two. */
    CHECK_NUM(red("p|--token=https://a:b@h/"), 1, 0);
    CHECK_STR(g_out, "p|--token=***");
    /* Empty arguments and trailing NULs keep their places. */
    CHECK_NUM(red("p||--password|x||"), 1, 0);
    CHECK_STR(g_out, "p||--password|***|");
    CHECK_NUM(red(""), 0, 0);
    CHECK_STR(g_out, "");
}

TEST(redact_utf8_and_long_arguments)
{
    CHECK_NUM(red("p|--pässword=x|--password=ключ€|--ключ=v|日本"), 1, 0);
    CHECK_STR(g_out, "p|--pässword=x|--password=***|--ключ=v|日本");
    /* A 4000-byte argument: everything after '=' goes, nothing else changes. */
    static char big[4200];
    strcpy(big, "p|--secret=");
    size_t n = strlen(big);
    memset(big + n, 'A', 4000);
    strcpy(big + n + 4000, "|tail");
    CHECK_NUM(red(big), 1, 0);
    CHECK_STR(g_out, "p|--secret=***|tail");
    /* Many secrets in one line: each counts. */
    static char many[8192];
    many[0] = '\0';
    strcat(many, "p");
    for (int i = 0; i < 200; i++)
        strcat(many, "|--pass=zz");
    CHECK_NUM(red(many), 200, 0);
    CHECK(!strstr(g_out, "zz"));
}

TEST(redact_hostile_bytes)
{
    /* Control bytes and unterminated quotes never read past the input. */
    CHECK_NUM(red("sh|-c|x --password='unterminated"), 1, 0);
    CHECK_STR(g_out, "sh|-c|x --password=***");
    CHECK_NUM(red("p|\x01\x02--token=\x7f|://@|a://@"), 0, 0);
    CHECK_STR(g_out, "p|\x01\x02--token=\x7f|://@|a://@");
}

/* ---- the procs collector redacts before the model ---- */
#include "collect/procs/procs.h"
#include "collect/collector.h"
#include "model/model.h"
#include "run/options.h"
#include "util/hostfs.h"
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static void put(const char *dir, const char *name, const char *data, size_t n)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    if (!f)
        return;
    fwrite(data, 1, n, f);
    fclose(f);
}

/* One process reading: stat with `utime` ticks, statm, cmdline, empty fd dir. */
static void fake_proc(const char *root, int pid, unsigned utime, long rss_pages, const char *cmd,
                      size_t cmdlen)
{
    char d[512], fd[600], stat[512];
    snprintf(d, sizeof d, "%s/proc/%d", root, pid);
    mkdir(d, 0700);
    snprintf(fd, sizeof fd, "%s/fd", d);
    mkdir(fd, 0700);
    int n = snprintf(stat, sizeof stat,
                     "%d (burner) R 1 %d %d 0 -1 0 0 0 0 0 %u 0 0 0 20 0 1 0 500 1000 %ld 0\n",
                     pid, pid, pid, utime, rss_pages);
    put(d, "stat", stat, (size_t)n);
    char statm[64];
    n = snprintf(statm, sizeof statm, "100 %ld 0 0 0 0 0\n", rss_pages);
    put(d, "statm", statm, (size_t)n);
    put(d, "cmdline", cmd, cmdlen);
    static const char limits[] = "Max open files            1024                 4096                 files\n";
    put(d, "limits", limits, sizeof limits - 1);
}

static struct report *procs_window(bool no_redact)
{
    char root[] = "/tmp/perfreport-redact-XXXXXX";
    if (!mkdtemp(root))
        return NULL;
    char p[600];
    snprintf(p, sizeof p, "%s/proc", root);
    mkdir(p, 0700);
    static const char busy[] = "burner\0--password=hunter2\0https://bob:pw@example.invalid/x\0"
                               "-H\0Authorization: Bearer tok\0";
    static const char idle[] = "idle\0--token\0notlisted\0";
    fake_proc(root, 4242, 0, 100, busy, sizeof busy - 1);
    fake_proc(root, 4243, 0, 0, idle, sizeof idle - 1);

    struct report *r = report_new();
    struct collect_config cfg = {.keep_secrets = no_redact};
    struct collect_ctx ctx = {.r = r, .cfg = &cfg, .clock_s = collect_tick_clock};
    void *st = NULL;
    char err[256] = "";
    hostfs_set_root(root);
    if (collector_procs.start(&ctx, &st, err, sizeof err) == 0) {
        fake_proc(root, 4242, 100, 100, busy, sizeof busy - 1); /* 1 s of CPU in the window */
        ctx.now_s = 2.0;
        report_add_tick(r, 2.0);
        CHECK(collector_procs.stop(&ctx, st, err, sizeof err) == 0);
    } else {
        test_fail(__FILE__, __LINE__, "start: %s", err);
    }
    collector_procs.destroy(st);
    hostfs_set_root(NULL);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        test_fail(__FILE__, __LINE__, "cannot remove %s", root);
    return r;
}

TEST(redact_procs_collector_redacts_before_the_model)
{
    struct report *r = procs_window(false);
    REQUIRE(r);
    CHECK_NUM(report_metric_value(r, "proc.count"), 2, 0);
    CHECK_NUM(report_metric_value(r, "proc.skipped"), 0, 0);
    const struct table *t = report_find_table(r, "proc.top_cpu");
    REQUIRE(t && t->nrows == 1);
    CHECK_STR(table_str(t, 0, "cmdline"),
              "burner --password=*** https://***@example.invalid/x -H Authorization: ***");
    const struct table *m = report_find_table(r, "proc.top_mem");
    REQUIRE(m && m->nrows == 1);
    CHECK(!strstr(table_str(m, 0, "cmdline"), "hunter2"));
    /* Three values in the listed process, counted once although it is in two
     * tables; the unlisted idle process's token is not counted. */
    CHECK_NUM(report_metric_value(r, "privacy.redacted"), 3, 0);
    CHECK_STR(kv_get(&r->host, "cmdline_redaction"), "on");
    report_free(r);
}

TEST(redact_procs_no_redact_keeps_cmdlines)
{
    struct report *r = procs_window(true);
    REQUIRE(r);
    const struct table *t = report_find_table(r, "proc.top_cpu");
    REQUIRE(t && t->nrows == 1);
    CHECK_STR(table_str(t, 0, "cmdline"), "burner --password=hunter2 "
                                          "https://bob:pw@example.invalid/x -H Authorization: Bearer tok");
    CHECK(isnan(report_metric_value(r, "privacy.redacted")));
    CHECK_STR(kv_get(&r->host, "cmdline_redaction"), "off (--no-redact)");
    report_free(r);
}

/* ---- the report says what was redacted ---- */
#include "render/markdown.h"

TEST(redact_report_md_states_the_count)
{
    struct report *r = report_new();
    kv_add(&r->host, "hostname", "Host name", "h");
    kv_add(&r->host, "cmdline_redaction", "Command-line redaction", "on");
    report_metric(r, "privacy.redacted", "Command-line values redacted", "", "host", 3);
    struct strbuf sb = STRBUF_INIT;
    markdown_render(r, &sb);
    CHECK_CONTAINS(sb.buf, "\n\nCommand lines: 3 values redacted (pass/token/secret/key/auth/"
                           "credential options, URL passwords, Authorization headers); "
                           "--no-redact shows them.\n\n");
    sb_reset(&sb);
    r->metrics[0].value = 1;
    markdown_render(r, &sb);
    CHECK_CONTAINS(sb.buf, "Command lines: 1 value redacted (");
    sb_reset(&sb);
    report_free(r); /* --no-redact: no metric, the fact says off */
    r = report_new();
    kv_add(&r->host, "hostname", "Host name", "h");
    kv_add(&r->host, "cmdline_redaction", "Command-line redaction", "off (--no-redact)");
    markdown_render(r, &sb);
    CHECK_CONTAINS(sb.buf, "\n\nCommand lines: not redacted (--no-redact).\n\n");
    CHECK(!strstr(sb.buf, "values redacted"));
    sb_free(&sb);
    report_free(r);
}
