/* The runner's life cycle over fake collectors: every start happens before
 * any begin, every begin before the first tick, every end before any stop,
 * and the optional phases reach only the collectors that have them. */
#include "harness.h"
#include "../../src/collect/collector.h"
#include "../../src/model/model.h"
#include "../../src/run/options.h"
#include "../../src/run/probe.h"
#include "../../src/run/runner.h"
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* Calls are made on the workers' threads, so the log takes a lock. */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char call_log[64][16];
static size_t nlog;

static void note(const char *who, const char *what)
{
    pthread_mutex_lock(&log_mu);
    if (nlog < sizeof call_log / sizeof call_log[0])
        snprintf(call_log[nlog++], sizeof call_log[0], "%s.%s", who, what);
    pthread_mutex_unlock(&log_mu);
}

/* Index of the first / last entry "who.what" (who "*" matches anyone), -1 if none. */
static long find(const char *who, const char *what, bool last)
{
    long at = -1;
    for (size_t i = 0; i < nlog; i++) {
        const char *dot = strchr(call_log[i], '.');
        bool w = strcmp(who, "*") == 0 ||
                 (strlen(who) == (size_t)(dot - call_log[i]) &&
                  strncmp(call_log[i], who, strlen(who)) == 0);
        if (w && strcmp(dot + 1, what) == 0) {
            at = (long)i;
            if (!last)
                break;
        }
    }
    return at;
}

static size_t count(const char *who, const char *what)
{
    size_t n = 0;
    for (size_t i = 0; i < nlog; i++) {
        char want[16];
        snprintf(want, sizeof want, "%s.%s", who, what);
        n += strcmp(call_log[i], want) == 0;
    }
    return n;
}

#define FAKE(NAME)                                                                          \
    static int NAME##_start(struct collect_ctx *c, void **st, char *e, size_t n)           \
    {                                                                                       \
        (void)c, (void)e, (void)n;                                                          \
        *st = NULL;                                                                         \
        note(#NAME, "start");                                                               \
        return 0;                                                                           \
    }                                                                                       \
    static int NAME##_tick(struct collect_ctx *c, void *st)                                 \
    {                                                                                       \
        (void)c, (void)st;                                                                  \
        note(#NAME, "tick");                                                                \
        return 0;                                                                           \
    }                                                                                       \
    static int NAME##_stop(struct collect_ctx *c, void *st, char *e, size_t n)             \
    {                                                                                       \
        (void)c, (void)st, (void)e, (void)n;                                                \
        note(#NAME, "stop");                                                                \
        return 0;                                                                           \
    }
FAKE(a)
FAKE(b)
FAKE(c)

static int a_begin(struct collect_ctx *c, void *st)
{
    (void)c, (void)st;
    note("a", "begin");
    return 0;
}
static int a_end(struct collect_ctx *c, void *st)
{
    (void)c, (void)st;
    note("a", "end");
    return 0;
}
static int c_begin(struct collect_ctx *c, void *st)
{
    (void)c, (void)st;
    note("c", "begin");
    return 0;
}
/* A failing end is a note: the collector's stop still drains its data. */
static int c_end(struct collect_ctx *c, void *st)
{
    (void)c, (void)st;
    note("c", "end");
    return -5;
}

static const struct collector fake_a = {.name = "a", .title = "A", .start = a_start,
                                        .begin = a_begin, .tick = a_tick, .end = a_end,
                                        .stop = a_stop};
static const struct collector fake_b = {.name = "b", .title = "B", .start = b_start,
                                        .tick = b_tick, .stop = b_stop};
static const struct collector fake_c = {.name = "c", .title = "C", .start = c_start,
                                        .begin = c_begin, .tick = c_tick, .end = c_end,
                                        .stop = c_stop};
static const struct collector *const fake_registry[] = {&fake_a, &fake_b, &fake_c, NULL};

/* Runs the collectors of registry through start, ticks at 0.1 s steps,
 * and stop; returns the report (caller frees). */
static struct report *run_registry(const struct collector *const *registry, int ticks)
{
    struct options opt;
    options_defaults(&opt);
    opt.interval_s = 0.1;
    struct host_caps caps;
    memset(&caps, 0, sizeof caps);
    struct report *r = report_new();
    struct runner *rn = runner_new_with(r, &opt, &caps, registry);
    if (!rn)
        return r;
    runner_start(rn);
    for (int i = 1; i <= ticks; i++)
        runner_tick(rn, 0.1 * i);
    runner_stop(rn, 0.1 * ticks);
    runner_free(rn);
    return r;
}

/* The ledger entry of collector name, NULL when it has none. */
static const struct ledger_entry *ledger_named(const struct report *r, const char *name)
{
    for (size_t i = 0; i < r->nledger; i++)
        if (strcmp(r->ledger[i].name, name) == 0)
            return &r->ledger[i];
    return NULL;
}

TEST(runner_begin_after_all_starts_end_before_any_stop)
{
    nlog = 0;
    struct report *r = run_registry(fake_registry, 2);

    CHECK(find("*", "start", true) < find("*", "begin", false));
    CHECK(find("*", "begin", true) < find("*", "tick", false));
    CHECK(find("*", "tick", true) < find("*", "end", false));
    CHECK(find("*", "end", true) < find("*", "stop", false));
    CHECK(count("a", "begin") == 1 && count("c", "begin") == 1 && count("b", "begin") == 0);
    CHECK(count("a", "end") == 1 && count("c", "end") == 1 && count("b", "end") == 0);
    CHECK(count("a", "stop") == 1 && count("b", "stop") == 1 && count("c", "stop") == 1);
    CHECK(count("b", "tick") == 2);

    /* c's failed end is noted, and it still counts as having run */
    const struct ledger_entry *lc = ledger_named(r, "c");
    REQUIRE(lc != NULL);
    CHECK(lc->status == CS_RAN);
    REQUIRE(lc->notes != NULL);
    CHECK_CONTAINS(lc->notes, "end at 0.2 s failed");
    report_free(r);
}

/* A tick that keeps the CPU past its deadline (5 s) is starved or slow, not
 * hung: it is waited for, and its data kept.  (A blocked one is abandoned:
 * tests/e2e/hardening.sh's injected hang.) */
static int spin_tick(struct collect_ctx *c, void *st)
{
    (void)st;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < 5.6);
    report_metric(c->r, "spin.done", "", "", "other", 1);
    return 0;
}
static const struct collector fake_spin = {.name = "spin", .title = "Spin", .start = b_start,
                                           .tick = spin_tick, .stop = b_stop};
static const struct collector *const spin_registry[] = {&fake_spin, NULL};

TEST(runner_runnable_call_past_deadline_is_waited_for)
{
    if (running_on_valgrind()) {
        test_skip("a 5.6 s spin under valgrind");
        return;
    }
    struct report *r = run_registry(spin_registry, 1);
    const struct ledger_entry *l = ledger_named(r, "spin");
    REQUIRE(l != NULL);
    CHECK(l->status == CS_RAN);
    CHECK_NUM(report_metric_value(r, "spin.done"), 1, 0);
    report_free(r);
}
