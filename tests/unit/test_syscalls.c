/* The syscall collector (src/collect/syscalls.c): the syscall name table and
 * its generator, the model fill on made-up drained data (exact and
 * sampled), and the syscall rules at their boundaries. */
#include "harness.h"
#include "rule_util.h"
#include "../../src/analyze/analyze.h"
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

TEST(rule_syscall_errors_boundary)
{
    /* 200 EACCES failures over 2 s = 100/s: exactly the warning threshold. */
    g_sc_errno = 13;
    struct report *r = sc_model(200, NULL, 2);
    load_default_thresholds(r);
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "syscall.errors");
    REQUIRE(f);
    CHECK(f->sev == SEV_WARNING);
    CHECK_CONTAINS(f->title, "open()");
    CHECK_CONTAINS(f->title, "EACCES");
    CHECK_CONTAINS(f->title, "failer");
    report_free(r);
    r = sc_model(198, NULL, 2); /* 99/s */
    load_default_thresholds(r);
    analyze_run(r);
    CHECK(report_find_finding(r, "syscall.errors") == NULL);
    report_free(r);
    g_sc_errno = 2;
}

TEST(rule_enoent_probing_is_info_but_a_loop_is_not)
{
    /* open() -> ENOENT at 100/s: programs probing for files (PATH search,
     * imports): informational. */
    struct report *r = sc_model(200, NULL, 2);
    load_default_thresholds(r);
    analyze_run(r);
    const struct finding *f = report_find_finding(r, "syscall.errors");
    REQUIRE(f);
    CHECK(f->sev == SEV_INFO);
    report_free(r);
    /* 1100/s of the same failure, all but one from one process, is a retry
     * loop: judged like any fault. */
    r = sc_model(2200, NULL, 2);
    load_default_thresholds(r);
    analyze_run(r);
    f = report_find_finding(r, "syscall.errors");
    REQUIRE(f);
    CHECK(f->sev == SEV_CRITICAL);
    CHECK_CONTAINS(f->title, "ENOENT");
    report_free(r);
}

/* One row of a syscall.errors table made by errors_model(). */
struct err_row {
    const char *sc, *err, *comm;
    double count, per_s, pid, proc_count; /* proc_count NAN: column absent */
};

/* A model with syscall.errors_per_s = per_s and a syscall.errors table of
 * the rows. */
static struct report *errors_model(double per_s, const struct err_row *rows, size_t nrows)
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
    load_default_thresholds(r);
    analyze_run(r);
    return r;
}

TEST(rule_syscall_errors_benign_is_info)
{
    const struct err_row rows[] = {{"read", "EAGAIN", "server", 50000, 5000, 9, NAN}};
    struct report *r = errors_model(5000, rows, 1);
    const struct finding *f = report_find_finding(r, "syscall.errors");
    REQUIRE(f);
    CHECK(f->sev == SEV_INFO);
    report_free(r);
}

TEST(rule_syscall_errors_judged_on_real_failures)
{
    /* A build probing for headers (openat -> ENOENT 1400/s over many
     * processes, each well below the loop rate) beside 2/s of real failures:
     * the total passes the critical line, the real failures not even the
     * warning one.  The title must say the failures are mostly normal. */
    const struct err_row rows[] = {{"openat", "ENOENT", "cc1", 14000, 1400, 40, 900},
                                   {"mkdir", "EEXIST", "mkdir", 20, 2, 41, 10}};
    struct report *r = errors_model(1402, rows, 2);
    const struct finding *f = report_find_finding(r, "syscall.errors");
    REQUIRE(f);
    CHECK(f->sev == SEV_INFO);
    CHECK_CONTAINS(f->title, "Failing syscalls: 1402/s, 99% of them normal");
    CHECK_CONTAINS(f->title, "of the others most mkdir() -> EEXIST");
    report_free(r);
}

/* Probing failures (isatty's ENOTTY, readlink's EINVAL on a non-link, a
 * reaping loop's ECHILD...) below 1000/s in one process are normal; the same
 * failure above it in one process is a loop.  share: the top process's part
 * of the row (proc_count / count), 0 when the column is absent. */
TEST(rule_probing_errnos_boundary)
{
    static const struct {
        const char *sc, *err;
        double per_s, share;
        bool info;
    } cases[] = {
        {"ioctl", "ENOTTY", 120, 0, true},        {"ioctl", "ENOTTY", 5000, 0, false},
        {"readlink", "EINVAL", 300, 0, true},     {"readlinkat", "EINVAL", 999, 0, true},
        {"readlink", "EINVAL", 4000, 0, false},   {"write", "EINVAL", 300, 0, false},
        {"ioctl", "EINVAL", 300, 0, false},       {"wait4", "ECHILD", 200, 0, true},
        {"waitid", "ECHILD", 5000, 0, false},     {"fcntl", "EBADF", 100, 0, true},
        {"close", "EBADF", 100, 0, false},        {"getpeername", "ENOTSOCK", 150, 0, true},
        {"openat", "ENXIO", 180, 0, true},        {"read", "ENXIO", 180, 0, false},
        {"statfs", "ENOENT", 120, 0, true},
        /* many short-lived processes probing a little each (a busy shell) */
        {"openat", "ENOENT", 4400, 0.1, true},    {"openat", "ENOENT", 4400, 0.5, false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct report *r = report_new();
        report_metric(r, "syscall.errors_per_s", "", "/s", "syscall", cases[k].per_s);
        struct table *t = report_table(r, "syscall.errors", "", "syscall");
        const char *cols[] = {"syscall", "errno", "comm", "count", "per_s", "pid", "proc_count"};
        for (int i = 0; i < 7; i++)
            table_add_col(t, cols[i], cols[i], "", 0);
        size_t row = table_add_row(t);
        table_set_str(t, row, "syscall", cases[k].sc);
        table_set_str(t, row, "errno", cases[k].err);
        table_set_str(t, row, "comm", "bash");
        table_set_num(t, row, "count", cases[k].per_s * 10);
        table_set_num(t, row, "per_s", cases[k].per_s);
        table_set_num(t, row, "pid", 9);
        if (cases[k].share > 0)
            table_set_num(t, row, "proc_count", cases[k].per_s * 10 * cases[k].share);
        load_default_thresholds(r);
        analyze_run(r);
        const struct finding *f = report_find_finding(r, "syscall.errors");
        REQUIRE(f);
        if ((f->sev == SEV_INFO) != cases[k].info)
            fprintf(stderr, "  case %zu: %s %s %.0f/s -> %s\n", k, cases[k].sc, cases[k].err,
                    cases[k].per_s, severity_name(f->sev));
        CHECK((f->sev == SEV_INFO) == cases[k].info);
        report_free(r);
    }
}

TEST(rule_syscall_rate_boundary)
{
    for (int k = 0; k < 3; k++) {
        double v[] = {49999, 50000, 200000};
        enum severity want[] = {SEV_NONE, SEV_WARNING, SEV_CRITICAL};
        struct report *r = report_new();
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
