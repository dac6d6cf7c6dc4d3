/* Minimal unit-test harness.  Every TEST() registers itself; the runner
 * prints one line per test in the protocol tests/run.sh counts:
 *   ok NAME | not ok NAME: reason | skip NAME: reason */
#ifndef PERFREPORT_HARNESS_H
#define PERFREPORT_HARNESS_H
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn);
void test_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void test_skip(const char *why);
/* Directory holding tests/fixtures (set from argv[1] or "tests/fixtures"). */
const char *fixtures_dir(void);
/* fixtures_dir()/rel in a static buffer */
const char *fixture(const char *rel);
/* Whether the tests run under valgrind (tests/valgrind/run.sh): tests whose
 * kernel interfaces valgrind cannot model (BPF) skip themselves. */
int running_on_valgrind(void);

#define TEST(name)                                                                  \
    static void name(void);                                                         \
    __attribute__((constructor)) static void register_##name(void)                  \
    {                                                                               \
        test_register(#name, name);                                                 \
    }                                                                               \
    static void name(void)

#define CHECK(cond)                                                                 \
    do {                                                                            \
        if (!(cond))                                                                \
            test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                      \
    } while (0)

#define REQUIRE(cond)                                                               \
    do {                                                                            \
        if (!(cond)) {                                                              \
            test_fail(__FILE__, __LINE__, "REQUIRE(%s)", #cond);                    \
            return;                                                                 \
        }                                                                           \
    } while (0)

#define CHECK_STR(a, b)                                                             \
    do {                                                                            \
        const char *a_ = (a), *b_ = (b);                                            \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                      \
            test_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #a,     \
                      a_ ? a_ : "(null)", b_ ? b_ : "(null)");                      \
    } while (0)

#define CHECK_NUM(a, b, eps)                                                        \
    do {                                                                            \
        double a_ = (double)(a), b_ = (double)(b);                                  \
        if (!(fabs(a_ - b_) <= (eps)))                                              \
            test_fail(__FILE__, __LINE__, "%s == %.6g, expected %.6g", #a, a_, b_); \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                                 \
    do {                                                                            \
        const char *h_ = (hay), *n_ = (needle);                                     \
        if (!h_ || !strstr(h_, n_))                                                 \
            test_fail(__FILE__, __LINE__, "%s does not contain \"%s\"", #hay, n_);  \
    } while (0)

#define CHECK_NOT_CONTAINS(hay, needle)                                             \
    do {                                                                            \
        const char *h_ = (hay), *n_ = (needle);                                     \
        if (h_ && strstr(h_, n_))                                                   \
            test_fail(__FILE__, __LINE__, "%s contains \"%s\"", #hay, n_);          \
    } while (0)
#endif
