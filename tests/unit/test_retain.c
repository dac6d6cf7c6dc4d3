/* Retention (src/bundle/retain.c): which names are this host's bundles, in
 * which order, and that a prune in a real directory removes exactly the old
 * bundles beyond N and leaves everything else (no manifest, a forged one, a
 * symlink, an extra file, another host's) untouched. */
#include "harness.h"
#include "../../src/bundle/retain.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define P "perfreport-web1-"

TEST(retain_name_match_exact_pattern)
{
    const char *st;
    int k;
    CHECK(retain_name_match(P, P "20261125-194501", &st, &k) && k == 0 &&
          !strcmp(st, "20261125-194501"));
    CHECK(retain_name_match(P, P "20261125-194501.1", &st, &k) && k == 1);
    CHECK(retain_name_match(P, P "20261125-194501.99", &st, &k) && k == 99);
    const char *no[] = {
        P "20261125-194501.0",   P "20261125-194501.01", P "20261125-194501.100",
        P "20261125-194501.",    P "20261125-194501x",   P "20261125-19450",
        P "2026112-1945011",     P "20261125_194501",    P "20261125-194501/x",
        "perfreport-web1-x-20261125-194501", "perfreport-web-20261125-194501",
        "xperfreport-web1-20261125-194501",  P "20261125-194501.obfuscation-map",
        P "20261125-194501.1 ",  P,
    };
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        if (retain_name_match(P, no[i], &st, &k))
            test_fail(__FILE__, __LINE__, "%s matched", no[i]);
    /* a host whose name ends like another's: "web" must not take web1's */
    CHECK(!retain_name_match("perfreport-web-", P "20261125-194501", &st, &k));
}

TEST(retain_order_by_name_time_then_suffix)
{
    CHECK(retain_name_cmp(P, P "20261125-194501", P "20261125-194502") < 0);
    CHECK(retain_name_cmp(P, P "20261231-235959", P "20270101-000000") < 0);
    CHECK(retain_name_cmp(P, P "20261125-194501", P "20261125-194501.1") < 0);
    CHECK(retain_name_cmp(P, P "20261125-194501.2", P "20261125-194501.10") < 0);
    CHECK(retain_name_cmp(P, P "20261125-194501.9", P "20261125-194502") < 0);
    CHECK(retain_name_cmp(P, P "20261125-194501.3", P "20261125-194501.3") == 0);
    CHECK(retain_name_cmp(P, P "20261125-194502", P "20261125-194501.99") > 0);
}

static char g_dir[64];

static void put(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    FILE *f = fopen(path, "w");
    if (!f) {
        test_fail(__FILE__, __LINE__, "cannot write %s", path);
        return;
    }
    fputs(text, f);
    fclose(f);
}

static bool exists(const char *rel)
{
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    return lstat(path, &st) == 0;
}

#define MANIFEST                                                                           \
    "{\"schema\": 1, \"tool\": {\"name\": \"perfreport\"}, "                               \
    "\"files\": [\"report.json\", \"index.html\", \"manifest.json\"], \"integrity\": ["     \
    "{\"name\": \"report.json\", \"size\": 2, \"sha256\": \"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\"}]}"

/* A bundle as the publisher leaves it (the checks do not verify hashes). */
static void bundle(const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    if (mkdir(p, 0700) != 0)
        test_fail(__FILE__, __LINE__, "mkdir %s", p);
    snprintf(p, sizeof p, "%s/report.json", name);
    put(p, "{}");
    snprintf(p, sizeof p, "%s/index.html", name);
    put(p, "<html>");
    snprintf(p, sizeof p, "%s/manifest.json", name);
    put(p, MANIFEST);
}

TEST(retain_prunes_only_old_bundles)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/perfreport-retain-XXXXXX");
    REQUIRE(mkdtemp(g_dir));
    bundle(P "20260101-000500"); /* just written */
    bundle(P "20260101-000400");
    bundle(P "20260101-000300.1");
    bundle(P "20260101-000300");
    bundle(P "20260101-000200");
    bundle(P "20251231-120000");
    /* traps, all older than the bundles kept */
    char p[256];
    snprintf(p, sizeof p, "%s/" P "20260101-000100", g_dir);
    mkdir(p, 0700); /* no manifest */
    put(P "20260101-000100/report.json", "{}");
    bundle(P "20260101-000000"); /* an extra file */
    put(P "20260101-000000/notes.txt", "mine");
    snprintf(p, sizeof p, "%s/" P "20251231-000000", g_dir);
    mkdir(p, 0700); /* a forged manifest */
    put(P "20251231-000000/manifest.json",
        "{\"schema\": 1, \"tool\": {\"name\": \"other\"}, \"files\": [\"a\"], \"integrity\": []}");
    put(P "20251231-000000/a", "x");
    snprintf(p, sizeof p, "%s/victim", g_dir);
    mkdir(p, 0700);
    put("victim/report.json", "{}");
    put("victim/manifest.json", MANIFEST);
    put("victim/index.html", "precious");
    char link[256];
    snprintf(link, sizeof link, "%s/" P "20250101-000000", g_dir);
    CHECK(symlink(p, link) == 0);
    bundle("perfreport-web2-20200101-000000"); /* another host */
    bundle(P "20200101-000000.0");             /* not a publisher's name */

    int pfd = open(g_dir, O_RDONLY | O_DIRECTORY);
    REQUIRE(pfd >= 0);
    struct retain_result res;
    bundle_retain(pfd, g_dir, P, P "20260101-000500", 3, &res);
    close(pfd);
    CHECK(res.removed == 3 && res.failed == 0 && res.skipped == 4);
    CHECK(exists(P "20260101-000500/index.html"));
    CHECK(exists(P "20260101-000400/index.html"));
    CHECK(exists(P "20260101-000300.1/index.html"));
    CHECK(!exists(P "20260101-000300"));
    CHECK(!exists(P "20260101-000200"));
    CHECK(!exists(P "20251231-120000"));
    CHECK(exists(P "20260101-000100/report.json"));
    CHECK(exists(P "20260101-000000/notes.txt") && exists(P "20260101-000000/index.html") &&
          exists(P "20260101-000000/manifest.json"));
    CHECK(exists(P "20251231-000000/a"));
    CHECK(exists(P "20250101-000000") && exists("victim/index.html") &&
          exists("victim/manifest.json") && exists("victim/report.json"));
    CHECK(exists("perfreport-web2-20200101-000000/index.html"));
    CHECK(exists(P "20200101-000000.0/index.html"));

    /* --keep 1 keeps only the bundle just written, even if it is not the
     * newest by name (a clock set back) */
    pfd = open(g_dir, O_RDONLY | O_DIRECTORY);
    REQUIRE(pfd >= 0);
    bundle_retain(pfd, g_dir, P, P "20260101-000400", 1, &res);
    close(pfd);
    CHECK(res.removed == 2);
    CHECK(exists(P "20260101-000400/index.html"));
    CHECK(!exists(P "20260101-000500") && !exists(P "20260101-000300.1"));

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    CHECK(system(cmd) == 0);
}
