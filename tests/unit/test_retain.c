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

#define MANIFEST_AT(start)                                                                 \
    "{\"schema\": 1, \"tool\": {\"name\": \"perfreport\"}, \"window\": {\"start\": \""       \
    start "\", \"start_ns\": 0}, "                                                         \
    "\"files\": [\"report.json\", \"index.html\", \"manifest.json\"], \"integrity\": ["     \
    "{\"name\": \"report.json\", \"size\": 2, \"sha256\": \"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\"}]}"
#define MANIFEST MANIFEST_AT("2026-01-01T00:00:00Z")

/* A bundle as the publisher leaves it (the checks do not verify hashes),
 * recording the window start `start` (ISO 8601, UTC); NULL: the time its
 * name says, read as UTC. */
static void bundle_at(const char *name, const char *start)
{
    char p[256], iso[32], man[1024];
    if (!start) {
        const char *t = name + strlen(P);
        snprintf(iso, sizeof iso, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2sZ", t, t + 4, t + 6, t + 9,
                 t + 11, t + 13);
        start = iso;
    }
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    if (mkdir(p, 0700) != 0 || chmod(p, 0700) != 0)
        test_fail(__FILE__, __LINE__, "mkdir %s", p);
    snprintf(p, sizeof p, "%s/report.json", name);
    put(p, "{}");
    snprintf(p, sizeof p, "%s/index.html", name);
    put(p, "<html>");
    snprintf(p, sizeof p, "%s/manifest.json", name);
    snprintf(man, sizeof man, MANIFEST_AT("%s"), start);
    put(p, man);
}

static void bundle(const char *name) { bundle_at(name, NULL); }

/* The path of `rel` in g_dir (a static buffer). */
static const char *P_DIR(const char *rel)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", g_dir, rel);
    return path;
}

static int open_dir(void)
{
    int fd = open(g_dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        test_fail(__FILE__, __LINE__, "open %s", g_dir);
    return fd;
}

static void make_dir(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/perfreport-retain-XXXXXX");
    if (!mkdtemp(g_dir))
        test_fail(__FILE__, __LINE__, "mkdtemp");
    chmod(g_dir, 0755); /* only its owner may write */
}

static void remove_dir(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s'; rm -rf '%s'", g_dir, g_dir);
    if (system(cmd) != 0)
        test_fail(__FILE__, __LINE__, "rm -rf %s", g_dir);
}

TEST(retain_prunes_only_old_bundles)
{
    make_dir();
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

    remove_dir();
}

/* The order is the bundles' own: names renamed to other times (by whoever
 * could) do not choose which go. */
TEST(retain_orders_by_recorded_time)
{
    make_dir();
    bundle(P "20260301-000000");                               /* just written */
    bundle_at(P "20200101-000000", "2026-02-03T00:00:00Z");   /* newest, oldest name */
    bundle_at(P "20260201-000000", "2026-02-01T00:00:00Z");
    bundle_at(P "20260202-000000", "2026-02-02T00:00:00Z");
    bundle_at(P "20260203-000000", "2025-01-01T00:00:00Z");   /* oldest, newest name */
    int pfd = open_dir();
    struct retain_result res;
    bundle_retain(pfd, g_dir, P, P "20260301-000000", 3, &res);
    close(pfd);
    CHECK(res.removed == 2 && res.failed == 0 && res.skipped == 0 && !res.refused);
    CHECK(exists(P "20260301-000000") && exists(P "20200101-000000") &&
          exists(P "20260202-000000"));
    CHECK(!exists(P "20260201-000000") && !exists(P "20260203-000000"));
    remove_dir();
}

/* In a directory others may write, nothing is removed at all. */
TEST(retain_refuses_a_directory_others_may_write)
{
    make_dir();
    bundle(P "20260301-000000");
    bundle(P "20260201-000000");
    for (int mode = 0; mode < 2; mode++) {
        REQUIRE(chmod(g_dir, mode ? 01777 : 0775) == 0);
        int pfd = open_dir();
        struct retain_result res;
        bundle_retain(pfd, g_dir, P, P "20260301-000000", 1, &res);
        close(pfd);
        CHECK(res.refused && res.removed == 0);
        CHECK(exists(P "20260201-000000/manifest.json"));
    }
    remove_dir();
}

/* Only what the publisher makes goes: a directory of ours others may write
 * (1777: a sticky drop directory, renamed to a bundle's name), a file with
 * a second link, a file or a manifest that is not ours stay. */
TEST(retain_leaves_what_it_did_not_make)
{
    make_dir();
    bundle(P "20260301-000000");
    bundle(P "20260101-000000"); /* sticky and world-writable */
    REQUIRE(chmod(P_DIR(P "20260101-000000"), 01777) == 0);
    bundle(P "20260102-000000"); /* a listed file hard-linked elsewhere */
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/" P "20260102-000000/index.html", g_dir);
    snprintf(b, sizeof b, "%s/precious", g_dir);
    REQUIRE(link(a, b) == 0);
    bundle(P "20260103-000000"); /* a listed file of another user's */
    bundle(P "20260104-000000"); /* a manifest of another user's */
    bool root = geteuid() == 0;
    if (root) {
        snprintf(a, sizeof a, "%s/" P "20260103-000000/index.html", g_dir);
        REQUIRE(chown(a, 65534, 65534) == 0);
        snprintf(a, sizeof a, "%s/" P "20260104-000000/manifest.json", g_dir);
        REQUIRE(chown(a, 65534, 65534) == 0);
    }
    bundle(P "20260105-000000"); /* a good one, older than all: goes */
    int pfd = open_dir();
    struct retain_result res;
    bundle_retain(pfd, g_dir, P, P "20260301-000000", 1, &res);
    close(pfd);
    CHECK(!res.refused && res.failed == 0);
    CHECK(exists(P "20260101-000000/index.html") && exists(P "20260102-000000/index.html") &&
          exists("precious"));
    if (root)
        CHECK(exists(P "20260103-000000/index.html") && exists(P "20260104-000000/manifest.json") &&
              res.skipped == 4 && res.removed == 1);
    CHECK(!exists(P "20260105-000000"));
    remove_dir();
}

/* A directory too large to read whole: nothing goes (a part of it could
 * keep the wrong bundles). */
TEST(retain_partial_view_removes_nothing)
{
    make_dir();
    bundle(P "20260301-000000");
    bundle(P "20260201-000000");
    char p[256];
    for (int i = 0; i < 40; i++) {
        snprintf(p, sizeof p, "%s/junk%02d", g_dir, i);
        REQUIRE(mkdir(p, 0700) == 0);
    }
    int pfd = open_dir();
    struct retain_result res;
    retain_bounded(pfd, g_dir, P, P "20260301-000000", 1, 30, &res);
    CHECK(res.refused && res.removed == 0 && exists(P "20260201-000000/manifest.json"));
    retain_bounded(pfd, g_dir, P, P "20260301-000000", 1, 100, &res);
    CHECK(!res.refused && res.removed == 1 && !exists(P "20260201-000000"));
    close(pfd);
    remove_dir();
}
