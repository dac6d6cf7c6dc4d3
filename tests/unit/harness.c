#include "harness.h"
#include "../../src/util/hostfs.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define HAVE_VALGRIND_H 1
#endif
#endif

struct test {
    const char *name;
    test_fn fn;
};
static struct test g_tests[1024];
static size_t g_ntests;
static int g_failed_now, g_skipped_now;
static char g_skip_why[256];
static char g_first_fail[512];
static const char *g_fixtures = "tests/fixtures";

void test_register(const char *name, test_fn fn)
{
    if (g_ntests < sizeof g_tests / sizeof g_tests[0])
        g_tests[g_ntests++] = (struct test){name, fn};
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "  %s:%d: %s\n", file, line, msg);
    if (!g_failed_now)
        snprintf(g_first_fail, sizeof g_first_fail, "%s:%d: %s", file, line, msg);
    g_failed_now++;
}

void test_skip(const char *why)
{
    g_skipped_now = 1;
    snprintf(g_skip_why, sizeof g_skip_why, "%s", why);
}

int running_on_valgrind(void)
{
#ifdef HAVE_VALGRIND_H
    return RUNNING_ON_VALGRIND ? 1 : 0;
#else
    /* Without the client-request header: valgrind preloads its own helpers. */
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "vgpreload") ? 1 : 0;
#endif
}

const char *fixtures_dir(void) { return g_fixtures; }

const char *fixture(const char *rel)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%s/%s", g_fixtures, rel);
    return buf;
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    if (argc > 1)
        g_fixtures = argv[1];
    if (argc > 2)
        only = argv[2];
    int pass = 0, fail = 0, skip = 0;
    for (size_t i = 0; i < g_ntests; i++) {
        if (only && !strstr(g_tests[i].name, only))
            continue;
        g_failed_now = 0;
        g_skipped_now = 0;
        hostfs_set_root(NULL);
        g_tests[i].fn();
        hostfs_set_root(NULL);
        if (g_failed_now) {
            printf("not ok %s: %s\n", g_tests[i].name, g_first_fail);
            fail++;
        } else if (g_skipped_now) {
            printf("skip %s: %s\n", g_tests[i].name, g_skip_why);
            skip++;
        } else {
            printf("ok %s\n", g_tests[i].name);
            pass++;
        }
        fflush(stdout);
    }
    printf("unit: %d passed, %d failed, %d skipped\n", pass, fail, skip);
    return fail ? 1 : 0;
}
