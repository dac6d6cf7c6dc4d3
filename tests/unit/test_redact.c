#include "harness.h"
#include "util/redact.h"
#include "util/strbuf.h"
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
