/* The syscall collector (src/collect/syscalls.c): the syscall name table and
 * its generator, the model fill on made-up drained data (exact and
 * sampled), and the syscall rules at their boundaries. */
#include "harness.h"
#include "rule_util.h"
#include "../../src/analyze/analyze.h"
#include "../../src/analyze/syscall_errnos.h"
#include "../../src/collect/syscalls.h"
#include "../../src/model/model.h"
#include "../../src/util/strbuf.h"
#include <arpa/inet.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

TEST(syscall_names_from_this_arch)
{
    char buf[32];
    CHECK_STR(syscall_name(0, buf, sizeof buf), "read");
    CHECK_STR(syscall_name(2, buf, sizeof buf), "open");
    CHECK_STR(syscall_name(59, buf, sizeof buf), "execve");
    CHECK_STR(syscall_name(110, buf, sizeof buf), "getppid");
    CHECK_STR(syscall_name(3000, buf, sizeof buf), "syscall_3000");
    CHECK(syscall_names_count() > 300);
}

TEST(gen_syscalls_script_odd_header)
{
    char out[] = "/tmp/perfreport-gensc.XXXXXX";
    int fd = mkstemp(out);
    REQUIRE(fd >= 0);
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sh scripts/gen-syscalls.sh %s %s 2>/dev/null",
             fixture("syscalls/unistd_odd.h"), out);
    int rc = system(cmd);
    struct strbuf sb = STRBUF_INIT;
    FILE *f = fopen(out, "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        sb_add(&sb, line);
    if (f)
        fclose(f);
    unlink(out);
    CHECK(rc == 0);
    const char *s = sb_str(&sb);
    CHECK_CONTAINS(s, "[0] = \"read\",");
    CHECK_CONTAINS(s, "[1] = \"write\",");
    CHECK_CONTAINS(s, "[2] = \"spaced\",");
    CHECK_CONTAINS(s, "[7] = \"last\",");
    CHECK(!strstr(s, "alias"));        /* aliases are not numbers */
    CHECK(!strstr(s, "expr"));
    CHECK(!strstr(s, "dup_of_read"));  /* the first name of a number wins */
    CHECK(!strstr(s, "evil"));         /* a quote never reaches the C string */
    CHECK(!strstr(s, "99999"));        /* absurd numbers skipped */
    CHECK_CONTAINS(s, "#define SYSCALL_NAMES_GEN_COUNT 4");
    sb_free(&sb);
}

/* errno of the failing open() rows sc_model builds (ENOENT by default). */
static int g_sc_errno = 2;
/* How the made-up data was recorded (zero: attached throughout, exact). */
static struct tapslice_result g_sc_samp;

static struct report *sc_model(double err_count, const char *errname_nr_comm, double win)
{
    (void)errname_nr_comm;
    struct report *r = report_new();
    struct sc_data d;
    memset(&d, 0, sizeof d);
    d.nnrs = 3;
    d.nrs = calloc(3, sizeof *d.nrs);
    d.nrs[0].nr = 110; /* getppid: 64 calls timed, then 6 samples of weight 16 */
    d.nrs[0].count = 1000;
    d.nrs[0].timed = 70;
    d.nrs[0].total_ns = 100000;
    d.nrs[0].hist[6] = 990; /* 64..127 ns */
    d.nrs[0].hist[10] = 10;
    d.nrs[1].nr = 2; /* open */
    d.nrs[1].count = (uint64_t)err_count + 5;
    d.nrs[1].errors = (uint64_t)err_count;
    d.nrs[1].total_ns = 5000000;
    d.nrs[1].hist[12] = d.nrs[1].count;
    d.nrs[1].timed = d.nrs[1].count;
    d.nrs[2].nr = 60; /* exit: never returns, so never timed */
    d.nrs[2].count = 2;
    d.nprocs = 3;
    d.procs = calloc(3, sizeof *d.procs);
    d.procs[0] = (struct scd_proc){42, 110, 600, 0};
    d.procs[1] = (struct scd_proc){42, 110, 400, 0}; /* same key from another CPU */
    d.procs[2] = (struct scd_proc){7, 2, (uint64_t)err_count + 5, (uint64_t)err_count};
    d.nerrs = 2;
    d.errs = calloc(2, sizeof *d.errs);
    d.errs[0] = (struct scd_err){7, 2, g_sc_errno, (uint64_t)err_count - 1};
    d.errs[1] = (struct scd_err){8, 2, g_sc_errno, 1};
    d.ncomms = 2;
    d.comms = calloc(2, sizeof *d.comms);
    d.comms[0].tgid = 42;
    strcpy(d.comms[0].comm, "storm");
    d.comms[1].tgid = 7;
    strcpy(d.comms[1].comm, "failer");
    d.samp = g_sc_samp;
    syscalls_fill(r, &d, win);
    sc_data_free(&d);
    return r;
}

TEST(syscalls_fill_tables)
{
    struct report *r = sc_model(300, NULL, 2);
    const struct table *t = report_find_table(r, "syscall.top");
    REQUIRE(t && t->nrows == 3);
    CHECK_STR(table_str(t, 0, "syscall"), "getppid");
    CHECK_NUM(table_num(t, 0, "calls_per_s"), 500, 1e-9);
    CHECK_NUM(table_num(t, 0, "avg_us"), 0.1, 1e-9);
    CHECK_NUM(table_num(t, 0, "timed"), 70, 0);
    /* exit: counted, no latency figures rather than zeros */
    CHECK_STR(table_str(t, 2, "syscall"), "exit");
    CHECK_NUM(table_num(t, 2, "calls"), 2, 0);
    CHECK_NUM(table_num(t, 2, "timed"), 0, 0);
    CHECK(isnan(table_num(t, 2, "avg_us")) && isnan(table_num(t, 2, "p99_us")));
    CHECK(table_num(t, 0, "p99_us") > 0.064 && table_num(t, 0, "p99_us") < 2.048);
    CHECK_NUM(table_num(t, 1, "err_pct"), 100.0 * 300 / 305, 1e-9);
    const struct table *e = report_find_table(r, "syscall.errors");
    REQUIRE(e && e->nrows == 1);
    CHECK_STR(table_str(e, 0, "syscall"), "open");
    CHECK_STR(table_str(e, 0, "errno"), "ENOENT");
    CHECK_NUM(table_num(e, 0, "count"), 300, 0);
    CHECK_NUM(table_num(e, 0, "pid"), 7, 0);
    CHECK_STR(table_str(e, 0, "comm"), "failer");
    const struct table *p = report_find_table(r, "syscall.by_process");
    REQUIRE(p && p->nrows == 2);
    CHECK_STR(table_str(p, 0, "comm"), "storm");
    CHECK_NUM(table_num(p, 0, "calls"), 1000, 0); /* merged */
    CHECK_STR(table_str(p, 0, "top_syscalls"), "getppid 100%");
    CHECK_NUM(report_metric_value(r, "syscall.errors_per_s"), 150, 1e-9);
    /* Histograms of the top syscalls by time: open first. */
    const struct hist *h = report_find_hist(r, "syscall.open");
    REQUIRE(h);
    CHECK_NUM(h->count, 305, 0);
    CHECK(report_find_hist(r, "syscall.getppid") != NULL);
    CHECK(report_find_hist(r, "syscall.exit") == NULL); /* never timed: no empty histogram */
    report_free(r);
}

/* Recorded in time slices, a quarter of the window: every count, error
 * and time is the recorded one x 4 and each table says it is sampled; the
 * number of measured calls stays what it was. */
TEST(syscalls_fill_sampled_estimates)
{
    g_sc_samp = (struct tapslice_result){.sampled = true, .attached_frac = 0.25, .scale = 4,
                                         .recorded = 1307, .estimate = 5228, .err_pct = 3.5,
                                         .slices = 8, .duty_min = 0.25, .duty_max = 0.25,
                                         .period_s = 0.25, .cost_ns = 200, .peak_share = 0.12};
    struct report *r = sc_model(300, NULL, 2);
    memset(&g_sc_samp, 0, sizeof g_sc_samp);
    const struct table *t = report_find_table(r, "syscall.top");
    REQUIRE(t && t->nrows == 3);
    CHECK_NUM(table_num(t, 0, "calls"), 4000, 0);
    CHECK_NUM(table_num(t, 0, "calls_per_s"), 2000, 1e-9);
    CHECK_NUM(table_num(t, 0, "timed"), 70, 0);
    CHECK_NUM(table_num(t, 0, "total_ms"), 0.4, 1e-9);
    CHECK_NUM(table_num(t, 0, "avg_us"), 0.1, 1e-9); /* a ratio: unchanged */
    CHECK_NUM(table_num(t, 1, "errors"), 1200, 0);
    CHECK_CONTAINS(t->note, "Sampled:");
    CHECK_CONTAINS(t->note, "x 4.00");
    CHECK_CONTAINS(t->note, "+-3.5 %");
    CHECK_NOT_CONTAINS(t->note, "exact");
    const struct table *e = report_find_table(r, "syscall.errors");
    REQUIRE(e && e->nrows == 1);
    CHECK_NUM(table_num(e, 0, "count"), 1200, 0);
    CHECK_NUM(table_num(e, 0, "proc_count"), 1196, 0);
    CHECK_CONTAINS(e->note, "Sampled:");
    const struct table *p = report_find_table(r, "syscall.by_process");
    REQUIRE(p && p->nrows == 2);
    CHECK_NUM(table_num(p, 0, "calls"), 4000, 0);
    CHECK_CONTAINS(p->note, "Sampled:");
    const struct hist *h = report_find_hist(r, "syscall.open");
    REQUIRE(h);
    CHECK_NUM(h->count, 4 * 305, 0);
    CHECK_NUM(report_metric_value(r, "syscall.attached_pct"), 25, 1e-9);
    CHECK_NUM(report_metric_value(r, "syscall.estimate_err_pct"), 3.5, 1e-9);
    CHECK_NUM(report_metric_value(r, "syscall.errors_per_s"), 600, 1e-9);
    report_free(r);
    /* attached throughout: exact, and said so */
    r = sc_model(300, NULL, 2);
    t = report_find_table(r, "syscall.top");
    REQUIRE(t);
    CHECK_CONTAINS(t->note, "Counts and errors are exact.");
    CHECK_NUM(report_metric_value(r, "syscall.attached_pct"), 100, 0);
    CHECK(isnan(report_metric_value(r, "syscall.estimate_err_pct")));
    report_free(r);
}

/* One row of a syscall.errors table made by errors_model(). */
struct err_row {
    const char *sc, *err, *comm;
    double count, per_s, pid, proc_count; /* proc_count NAN: column absent */
};

/* A model with syscall.errors_per_s = per_s, a syscall.errors table of the
 * rows and, when calls > 0, a syscall.by_process row saying that process
 * `pid` made `calls` calls. */
static struct report *errors_model_calls(double per_s, const struct err_row *rows, size_t nrows,
                                         double pid, double calls)
{
    struct report *r = report_new();
    report_metric(r, "syscall.errors_per_s", "", "/s", "syscall", per_s);
    struct table *t = report_table(r, "syscall.errors", "", "syscall");
    const char *c[] = {"syscall", "errno", "comm"};
    for (int i = 0; i < 3; i++)
        table_add_col(t, c[i], c[i], "", 0);
    const char *n[] = {"count", "per_s", "pid", "proc_count"};
    bool with_top = nrows && !isnan(rows[0].proc_count);
    for (int i = 0; i < (with_top ? 4 : 3); i++)
        table_add_col(t, n[i], n[i], "", 0);
    for (size_t i = 0; i < nrows; i++) {
        size_t row = table_add_row(t);
        table_set_str(t, row, "syscall", rows[i].sc);
        table_set_str(t, row, "errno", rows[i].err);
        table_set_str(t, row, "comm", rows[i].comm);
        table_set_num(t, row, "count", rows[i].count);
        table_set_num(t, row, "per_s", rows[i].per_s);
        table_set_num(t, row, "pid", rows[i].pid);
        if (with_top)
            table_set_num(t, row, "proc_count", rows[i].proc_count);
    }
    if (calls > 0) {
        struct table *bp = report_table(r, "syscall.by_process", "", "syscall");
        table_add_col(bp, "pid", "", "", 0);
        table_add_col(bp, "comm", "", "", 0);
        table_add_col(bp, "calls", "", "", 0);
        size_t row = table_add_row(bp);
        table_set_num(bp, row, "pid", pid);
        table_set_str(bp, row, "comm", "client");
        table_set_num(bp, row, "calls", calls);
    }
    load_default_thresholds(r);
    analyze_run(r);
    return r;
}

static struct report *errors_model(double per_s, const struct err_row *rows, size_t nrows)
{
    return errors_model_calls(per_s, rows, nrows, 0, 0);
}

static enum severity errors_sev(const struct report *r)
{
    const struct finding *f = report_find_finding(r, "syscall.errors");
    return f ? f->sev : SEV_NONE;
}

/* The expected-error table: answers programs ask for, failures that lose
 * work, refusals, and what is neither. */
TEST(errno_table_rows)
{
    static const struct {
        const char *sc, *err;
        enum errno_verdict v;
    } rows[] = {
        {"openat", "ENOENT", ERRNO_EXPECTED},     {"newfstatat", "ENOENT", ERRNO_EXPECTED},
        {"execve", "ENOENT", ERRNO_EXPECTED},     {"statx", "ENOTDIR", ERRNO_EXPECTED},
        {"getxattr", "ENODATA", ERRNO_EXPECTED},  {"lgetxattr", "ENODATA", ERRNO_EXPECTED},
        {"fgetxattr", "EOPNOTSUPP", ERRNO_EXPECTED}, {"read", "EAGAIN", ERRNO_EXPECTED},
        {"recvfrom", "EAGAIN", ERRNO_EXPECTED},   {"ioctl", "ENOTTY", ERRNO_EXPECTED},
        {"wait4", "ECHILD", ERRNO_EXPECTED},      {"epoll_wait", "EINTR", ERRNO_EXPECTED},
        {"futex", "ETIMEDOUT", ERRNO_EXPECTED},   {"connect", "EINPROGRESS", ERRNO_EXPECTED},
        {"kill", "ESRCH", ERRNO_EXPECTED},        {"mkdir", "EEXIST", ERRNO_EXPECTED},
        {"readlink", "EINVAL", ERRNO_EXPECTED},   {"close", "EBADF", ERRNO_EXPECTED},
        {"access", "EACCES", ERRNO_EXPECTED},     {"clone3", "ENOSYS", ERRNO_EXPECTED},
        {"write", "EIO", ERRNO_LOST},             {"write", "ENOSPC", ERRNO_LOST},
        {"openat", "EMFILE", ERRNO_LOST},         {"accept4", "EMFILE", ERRNO_LOST},
        {"accept4", "ENFILE", ERRNO_LOST},        {"mmap", "ENOMEM", ERRNO_LOST},
        {"write", "EDQUOT", ERRNO_LOST},          {"connect", "ECONNREFUSED", ERRNO_REFUSED},
        {"read", "ECONNRESET", ERRNO_REFUSED},    {"connect", "ETIMEDOUT", ERRNO_REFUSED},
        {"openat", "EACCES", ERRNO_REFUSED},      {"unlink", "EPERM", ERRNO_REFUSED},
        {"write", "EPIPE", ERRNO_REFUSED},        {"read", "ENOENT", ERRNO_UNCLASSED},
        {"write", "EINVAL", ERRNO_UNCLASSED},     {"ioctl", "EINVAL", ERRNO_UNCLASSED},
        {"read", "EBADF", ERRNO_UNCLASSED},       {"getxattr", "EIO", ERRNO_LOST},
        {NULL, "EAGAIN", ERRNO_EXPECTED},         {"openat", NULL, ERRNO_UNCLASSED},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct errno_class c = errno_classify(rows[i].sc, rows[i].err);
        if (c.verdict != rows[i].v)
            fprintf(stderr, "  %s %s -> %s\n", rows[i].sc ? rows[i].sc : "(null)",
                    rows[i].err ? rows[i].err : "(null)", errno_verdict_name(c.verdict));
        CHECK(c.verdict == rows[i].v);
        /* every verdict but "unclassed" says why; failures name their row */
        CHECK((c.why != NULL) == (rows[i].v != ERRNO_UNCLASSED));
        CHECK((c.thr_id != NULL) == (rows[i].v == ERRNO_LOST || rows[i].v == ERRNO_REFUSED));
    }
}

/* ls -l over a tree: ENODATA from getxattr at 50,000/s is how ls learns a
 * file has no ACL; ENOENT, ENOTTY and ECHILD the same kind of answer.  The
 * rate is past the critical line and the finding stays informational. */
TEST(rule_syscall_errors_expected_answers_are_info)
{
    const struct err_row rows[] = {{"getxattr", "ENODATA", "ls", 530000, 53000, 70, 96000},
                                   {"lgetxattr", "ENODATA", "ls", 400000, 40000, 71, 90000},
                                   {"ioctl", "ENOTTY", "bash", 9000, 900, 3, 9000},
                                   {"openat", "ENOENT", "python3", 22000, 2200, 9, 22000},
                                   {"wait4", "ECHILD", "make", 3000, 300, 4, 3000}};
    struct report *r = errors_model(96200, rows, 5);
    const struct finding *f = report_find_finding(r, "syscall.errors");
    REQUIRE(f);
    CHECK(f->sev == SEV_INFO);
    CHECK_CONTAINS(f->title, "all expected answers");
    CHECK_CONTAINS(f->title, "getxattr() -> ENODATA");
    CHECK(!strstr(f->recommendation, "SYSCALL"));
    CHECK_CONTAINS(f->recommendation, "trace=getxattr -p 70");
    report_free(r);
    /* one process asking the same question 1,100 times a second is still
     * asking: its CPU, if any, is for the CPU findings to judge */
    const struct err_row loop[] = {{"openat", "ENOENT", "poller", 22000, 1100, 5, 21999}};
    r = errors_model(1100, loop, 1);
    CHECK(errors_sev(r) == SEV_INFO);
    report_free(r);
    /* below the listing rate, answers make no finding at all */
    r = errors_model(99, loop, 1);
    CHECK(errors_sev(r) == SEV_NONE);
    report_free(r);
}

/* Errors outside the table (EINVAL from write, EBADF from read) are listed
 * at any rate as information: a rate is no harm. */
TEST(rule_syscall_errors_unclassed_stay_info)
{
    const struct err_row rows[] = {{"write", "EINVAL", "odd", 50000, 5000, 12, 50000}};
    struct report *r = errors_model_calls(5000, rows, 1, 12, 50000);
    CHECK(errors_sev(r) == SEV_INFO);
    report_free(r);
}

/* Refusals: severity by the share of the process's calls refused (5 % /
 * 25 %), from 1/s in that process. */
TEST(rule_syscall_errors_refused_share_boundary)
{
    static const struct {
        double fails, calls, per_s;
        enum severity want;
    } cases[] = {
        {49, 1000, 4.9, SEV_NONE},      {50, 1000, 5, SEV_WARNING},
        {249, 1000, 24.9, SEV_WARNING}, {250, 1000, 25, SEV_CRITICAL},
        /* half of a quiet client's calls, but 0.5/s: no burst, no finding */
        {5, 10, 0.5, SEV_NONE},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct err_row rows[] = {
            {"connect", "ECONNREFUSED", "client", cases[k].fails, cases[k].per_s, 31,
             cases[k].fails}};
        struct report *r = errors_model_calls(cases[k].per_s, rows, 1, 31, cases[k].calls);
        enum severity got = errors_sev(r);
        enum severity want = cases[k].want;
        if (got != want)
            fprintf(stderr, "  case %zu: %.0f of %.0f -> %s\n", k, cases[k].fails, cases[k].calls,
                    severity_name(got));
        CHECK(got == want);
        const struct finding *f = report_find_finding(r, "syscall.errors");
        if (f && f->sev >= SEV_WARNING) {
            CHECK_CONTAINS(f->title, "connect() -> ECONNREFUSED in client (pid 31)");
            CHECK_CONTAINS(f->recommendation, "trace=connect -p 31");
            CHECK_CONTAINS(f->recommendation, "nothing listens");
        }
        report_free(r);
    }
}

/* Lost work: one call in 10,000 failing with EIO is a warning, one in 100
 * critical; below that it is still listed. */
TEST(rule_syscall_errors_lost_share_boundary)
{
    static const struct {
        const char *err;
        double fails, calls;
        enum severity want;
    } cases[] = {
        {"EIO", 1, 10001, SEV_INFO},     {"EIO", 1, 10000, SEV_WARNING},
        {"ENOSPC", 99, 10000, SEV_WARNING}, {"ENOSPC", 100, 10000, SEV_CRITICAL},
        {"EMFILE", 400, 2000, SEV_CRITICAL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct err_row rows[] = {
            {"write", cases[k].err, "db", cases[k].fails, cases[k].fails / 10, 77, cases[k].fails}};
        struct report *r = errors_model_calls(cases[k].fails / 10, rows, 1, 77, cases[k].calls);
        enum severity got = errors_sev(r);
        if (got != cases[k].want)
            fprintf(stderr, "  case %zu: %s %.0f of %.0f -> %s\n", k, cases[k].err,
                    cases[k].fails, cases[k].calls, severity_name(got));
        CHECK(got == cases[k].want);
        report_free(r);
    }
}

/* A failure outranks a larger heap of expected answers, and the finding is
 * about the failure: a build's 1,400 ENOENT probes a second beside a
 * client whose connects are refused. */
TEST(rule_syscall_errors_failure_leads_over_answers)
{
    const struct err_row rows[] = {{"openat", "ENOENT", "cc1", 14000, 1400, 40, 900},
                                   {"connect", "ECONNREFUSED", "client", 300, 30, 31, 300}};
    struct report *r = errors_model_calls(1430, rows, 2, 31, 600);
    const struct finding *f = report_find_finding(r, "syscall.errors");
    REQUIRE(f);
    CHECK(f->sev == SEV_CRITICAL);
    CHECK_CONTAINS(f->title, "connect() -> ECONNREFUSED in client (pid 31), 50% of its calls");
    report_free(r);
}

/* Without the process's own total (not among the busiest processes), the
 * share is of all calls of that syscall. */
TEST(rule_syscall_errors_share_of_syscall_when_process_unlisted)
{
    struct report *r = report_new();
    report_metric(r, "syscall.errors_per_s", "", "/s", "syscall", 20);
    struct table *t = report_table(r, "syscall.errors", "", "syscall");
    const char *c[] = {"syscall", "errno", "comm", "count", "per_s", "pid", "proc_count"};
    for (int i = 0; i < 7; i++)
        table_add_col(t, c[i], c[i], "", 0);
    size_t row = table_add_row(t);
    table_set_str(t, row, "syscall", "write");
    table_set_str(t, row, "errno", "ENOSPC");
    table_set_str(t, row, "comm", "logger");
    table_set_num(t, row, "count", 200);
    table_set_num(t, row, "per_s", 20);
    table_set_num(t, row, "pid", 5);
    table_set_num(t, row, "proc_count", 200);
    struct table *top = report_table(r, "syscall.top", "", "syscall");
    table_add_col(top, "syscall", "", "", 0);
    table_add_col(top, "calls", "", "", 0);
    row = table_add_row(top);
    table_set_str(top, row, "syscall", "write");
    table_set_num(top, row, "calls", 1000);
    load_default_thresholds(r);
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "syscall.errors");
    REQUIRE(f);
    CHECK(f->sev == SEV_CRITICAL); /* 20 % of writes */
    CHECK_CONTAINS(f->title, "20% of all its calls");
    report_free(r);
}

/* With --baseline: an error that is no expected answer and did not fail
 * in the baseline run rises by its share of the process's calls
 * (syscall.new_errno_pct 1/10 %); one that did, one no more frequent than
 * the failures the baseline's table left out, or an expected answer, stays
 * as it was. */
TEST(rule_syscall_errors_new_since_baseline)
{
    static const struct {
        const char *err;
        double fails, calls;
        bool in_base, with_base;
        enum severity want;
        double unlisted; /* the baseline's failures/s its table left out */
    } cases[] = {
        {"EINVAL", 300, 10000, false, true, SEV_WARNING, 0},  /* 3 % */
        {"EINVAL", 99, 10000, false, true, SEV_NONE, 0},      /* 0.99 %, 10/s: not listed */
        {"EINVAL", 100, 10000, false, true, SEV_WARNING, 0},
        {"EINVAL", 1000, 10000, false, true, SEV_CRITICAL, 0},
        {"EINVAL", 1000, 10000, true, true, SEV_INFO, 0},     /* failed before too */
        {"EINVAL", 1000, 10000, false, false, SEV_INFO, 0},   /* no baseline */
        {"EAGAIN", 5000, 10000, false, true, SEV_INFO, 0},    /* an answer, new or not */
        /* 100/s now; the baseline left 150/s of failures unlisted: it may
         * have been among them.  With 50/s left out, it was not. */
        {"EINVAL", 1000, 10000, false, true, SEV_INFO, 150},
        {"EINVAL", 1000, 10000, false, true, SEV_CRITICAL, 50},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct report *r = report_new();
        report_metric(r, "syscall.errors_per_s", "", "/s", "syscall", cases[k].fails / 10);
        struct table *t = report_table(r, "syscall.errors", "", "syscall");
        const char *c[] = {"syscall", "errno", "comm", "count", "per_s", "pid", "proc_count"};
        for (int i = 0; i < 7; i++)
            table_add_col(t, c[i], c[i], "", 0);
        size_t row = table_add_row(t);
        table_set_str(t, row, "syscall", "write");
        table_set_str(t, row, "errno", cases[k].err);
        table_set_str(t, row, "comm", "app");
        table_set_num(t, row, "count", cases[k].fails);
        table_set_num(t, row, "per_s", cases[k].fails / 10);
        table_set_num(t, row, "pid", 8);
        table_set_num(t, row, "proc_count", cases[k].fails);
        struct table *bp = report_table(r, "syscall.by_process", "", "syscall");
        table_add_col(bp, "pid", "", "", 0);
        table_add_col(bp, "calls", "", "", 0);
        row = table_add_row(bp);
        table_set_num(bp, row, "pid", 8);
        table_set_num(bp, row, "calls", cases[k].calls);
        if (cases[k].with_base) {
            struct table *b = report_table(r, "baseline.syscall_errors", "", "baseline");
            table_add_col(b, "syscall", "", "", -1);
            table_add_col(b, "errno", "", "", -1);
            row = table_add_row(b);
            table_set_str(b, row, "syscall", "read");
            table_set_str(b, row, "errno", "EINVAL"); /* another call: no match */
            if (cases[k].unlisted > 0)
                report_metric(r, "baseline.syscall_errors_unlisted_per_s", "", "/s", "baseline",
                              cases[k].unlisted);
            if (cases[k].in_base) {
                row = table_add_row(b);
                table_set_str(b, row, "syscall", "write");
                table_set_str(b, row, "errno", cases[k].err);
            }
        }
        load_default_thresholds(r);
        analyze_run(r);
        const struct finding *f = report_find_finding(r, "syscall.errors");
        enum severity got = f ? f->sev : SEV_NONE;
        if (got != cases[k].want)
            fprintf(stderr, "  case %zu: %s %.0f of %.0f -> %s\n", k, cases[k].err,
                    cases[k].fails, cases[k].calls, severity_name(got));
        CHECK(got == cases[k].want);
        if (f && f->sev >= SEV_WARNING) {
            CHECK_CONTAINS(f->title, "write() -> EINVAL (new since the baseline) in app (pid 8)");
            CHECK_CONTAINS(f->recommendation, "did not in the baseline run");
        }
        report_free(r);
    }
}

TEST(rule_syscall_rate_boundary)
{
    /* the rate judged while the CPUs are busy (95 %); at 30 % it is listed */
    for (int k = 0; k < 5; k++) {
        double v[] = {49999, 50000, 200000, 50000, 200000};
        double util[] = {95, 95, 95, 30, 30};
        enum severity want[] = {SEV_NONE, SEV_WARNING, SEV_CRITICAL, SEV_INFO, SEV_INFO};
        struct report *r = report_new();
        report_metric(r, "cpu.util_pct", "", "%", "cpu", util[k]);
        struct table *t = report_table(r, "syscall.by_process", "", "syscall");
        table_add_col(t, "pid", "", "", 0);
        table_add_col(t, "comm", "", "", 0);
        table_add_col(t, "calls_per_s", "", "", 0);
        table_add_col(t, "top_syscalls", "", "", 0);
        size_t row = table_add_row(t);
        table_set_num(t, row, "pid", 42);
        table_set_str(t, row, "comm", "storm");
        table_set_num(t, row, "calls_per_s", v[k]);
        table_set_str(t, row, "top_syscalls", "getppid 99%");
        load_default_thresholds(r);
        analyze_run(r);
        const struct finding *f = report_find_finding(r, "syscall.rate");
        CHECK((f ? f->sev : SEV_NONE) == want[k]);
        if (f) {
            CHECK_CONTAINS(f->title, "storm");
            CHECK_CONTAINS(f->title, "getppid");
        }
        report_free(r);
    }
}

static bool finding_says(const struct finding *f, const char *needle)
{
    for (size_t i = 0; f && i < f->nevidence; i++)
        if (strstr(f->evidence[i], needle))
            return true;
    return false;
}

/* Rate and error findings on sampled counts say they are estimates. */
TEST(rules_say_when_syscall_counts_are_sampled)
{
    for (int sampled = 0; sampled < 2; sampled++) {
        g_sc_samp = (struct tapslice_result){.sampled = sampled, .attached_frac = 0.3,
                                             .scale = 1, .err_pct = 4.2, .slices = 10,
                                             .duty_min = 0.3, .duty_max = 0.3, .period_s = 0.25};
        struct report *r = sc_model(2000, NULL, 2); /* 1000 failures/s */
        memset(&g_sc_samp, 0, sizeof g_sc_samp);
        struct table *t = (struct table *)report_find_table(r, "syscall.by_process");
        REQUIRE(t && t->nrows >= 1);
        table_set_num(t, 0, "calls_per_s", 200000); /* a storm */
        load_default_thresholds(r);
        analyze_run(r);
        const struct finding *fr = report_find_finding(r, "syscall.rate");
        const struct finding *fe = report_find_finding(r, "syscall.errors");
        REQUIRE(fr && fe);
        CHECK(finding_says(fr, "sampled") == (sampled == 1));
        CHECK(finding_says(fe, "sampled") == (sampled == 1));
        if (sampled) {
            CHECK(finding_says(fe, "recorded 30% of the window"));
            CHECK(finding_says(fe, "within +-4.2%"));
        }
        report_free(r);
    }
}
