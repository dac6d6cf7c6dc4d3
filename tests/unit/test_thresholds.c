/* The thresholds table: defaults, override file, strict errors, root hardening. */
#include "harness.h"
#include "../../src/analyze/analyze.h"
#include "../../src/model/model.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes text to a new file in /tmp with `mode`; path in buf. */
static bool write_tmp(char *buf, size_t n, const char *text, mode_t mode)
{
    snprintf(buf, n, "/tmp/perfreport-thr-XXXXXX");
    int fd = mkstemp(buf);
    if (fd < 0)
        return false;
    size_t len = strlen(text);
    bool ok = write(fd, text, len) == (ssize_t)len && fchmod(fd, mode) == 0;
    close(fd);
    return ok;
}

static double warn_of(const struct report *r, const char *id)
{
    const struct threshold *t = report_find_threshold(r, id);
    return t ? t->warn : -1;
}

static double crit_of(const struct report *r, const char *id)
{
    const struct threshold *t = report_find_threshold(r, id);
    return t ? t->crit : -1;
}

TEST(thresholds_defaults_from_design)
{
    struct report *r = report_new();
    char err[256] = "";
    CHECK(thresholds_load(r, NULL, err, sizeof err) == 0);
    const struct {
        const char *id;
        double w, c;
        bool lower;
    } want[] = {
        {"cpu.util_pct", 70, 90, false},   {"cpu.runq_per_cpu", 1, 2, false},
        {"mem.available_pct", 20, 10, true}, {"swap.used_pct", 10, 50, false},
        {"disk.util_pct", 60, 80, false},  {"disk.aqu_sz", 2, 8, false},
        {"disk.await_ms", 20, 50, false},  {"disk.await_ms.nvme", 5, 20, false},
        {"disk.await_ms.ssd", 15, 50, false}, {"disk.await_ms.hdd", 30, 100, false},
        {"disk.await_ms.network", 20, 100, false}, {"disk.await_ms.virtio", 20, 50, false},
        {"net.drops_per_s", 1, 100, false}, {"tcp.retrans_pct", 1, 5, false},
        {"psi.some_pct", 10, 25, false},   {"psi.full_pct", 5, 15, false},
        {"cgroup.mem_pct", 80, 90, false}, {"cgroup.throttled_pct", 1, 5, false},
        {"fd.pct", 70, 90, false},         {"fd.system_pct", 70, 90, false},
        {"mem.oom_kill", 1, 1, false},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct threshold *t = report_find_threshold(r, want[i].id);
        if (!t) {
            test_fail(__FILE__, __LINE__, "missing threshold %s", want[i].id);
            continue;
        }
        CHECK_NUM(t->warn, want[i].w, 0);
        CHECK_NUM(t->crit, want[i].c, 0);
        CHECK(t->lower_is_worse == want[i].lower);
        CHECK(t->title && *t->title);
    }
    /* every row is ordered for its direction */
    for (size_t i = 0; i < r->nthresholds; i++) {
        const struct threshold *t = &r->thresholds[i];
        CHECK(t->lower_is_worse ? t->warn >= t->crit : t->warn <= t->crit);
    }
    /* loading again does not duplicate rows */
    size_t n = r->nthresholds;
    CHECK(thresholds_load(r, NULL, err, sizeof err) == 0);
    CHECK(r->nthresholds == n);
    report_free(r);
}

TEST(thresholds_good_override_applied)
{
    char path[64];
    REQUIRE(write_tmp(path, sizeof path,
                      "# site thresholds\n"
                      "\n"
                      "cpu.util_pct 50 60   # tighter on this box\n"
                      "   \t\n"
                      "mem.available_pct\t30\t15\r\n"
                      "disk.await_ms.virtio 5 10\n"
                      "mem.oom_kill 1 1",
                      0600));
    struct report *r = report_new();
    char err[256] = "";
    CHECK(thresholds_load(r, path, err, sizeof err) == 0);
    CHECK_STR(err, "");
    CHECK_NUM(warn_of(r, "cpu.util_pct"), 50, 0);
    CHECK_NUM(crit_of(r, "cpu.util_pct"), 60, 0);
    CHECK_NUM(warn_of(r, "mem.available_pct"), 30, 0);
    CHECK_NUM(crit_of(r, "mem.available_pct"), 15, 0);
    CHECK_NUM(warn_of(r, "disk.await_ms.virtio"), 5, 0);
    CHECK_NUM(warn_of(r, "cpu.runq_per_cpu"), 1, 0); /* untouched */

    /* The override drives the rules, and the charts' threshold lines: the
     * collectors leave them unset, analysis draws them from the table. */
    report_metric(r, "cpu.util_pct", "CPU", "%", "cpu", 55);
    struct series *cpu = report_series(r, "cpu.util_pct", "CPU", "%", "cpu");
    struct series *mem = report_series(r, "mem.available_pct", "Mem", "%", "memory");
    struct series *psi = report_series(r, "psi.io.some.pct", "IO", "%", "psi");
    struct series *dsk = report_series(r, "disk.vda.util_pct", "vda", "%", "disk");
    struct table *dt = report_table(r, "disk", "Disks", "disk");
    table_add_col(dt, "device", "Device", "", 0);
    table_set_str(dt, table_add_row(dt), "device", "vda");
    analyze_run(r);
    CHECK_NUM(cpu->warn, 50, 0);
    CHECK_NUM(cpu->crit, 60, 0);
    CHECK_NUM(mem->warn, 30, 0);
    CHECK_NUM(mem->crit, 15, 0);
    CHECK_NUM(psi->warn, warn_of(r, "psi.some_pct"), 0);
    CHECK_NUM(dsk->warn, warn_of(r, "disk.util_pct"), 0);
    CHECK_NUM(dsk->crit, crit_of(r, "disk.util_pct"), 0);
    const struct finding *f = report_find_finding(r, "cpu.saturation");
    REQUIRE(f);
    CHECK(f->sev == SEV_WARNING);
    CHECK_STR(f->evidence[0], "CPU utilisation 55% ≥ 50% (warning; critical at 60%)");
    report_free(r);
    unlink(path);
}

TEST(thresholds_errors_name_file_and_line)
{
    const struct {
        const char *text, *line_msg;
    } c[] = {
        {"cpu.util_pct 50 60\n\nno.such.id 1 2\n", ":3: unknown threshold id \"no.such.id\""},
        {"# c\ncpu.util_pct 50\n", ":2: expected \"<id> <warn> <crit>\", got 2 fields"},
        {"cpu.util_pct 50 60 70\n", ":1: expected \"<id> <warn> <crit>\", got 4 fields"},
        {"\n\n\n\ncpu.util_pct abc 60\n", ":5: cpu.util_pct: warn value \"abc\" is not a number"},
        {"cpu.util_pct 50 6O\n", ":1: cpu.util_pct: crit value \"6O\" is not a number"},
        {"cpu.util_pct 50 1e999\n", ":1: cpu.util_pct: crit value \"1e999\" is not a number"},
        {"cpu.util_pct nan 60\n", ":1: cpu.util_pct: warn value \"nan\" is not a number"},
        {"cpu.util_pct -5 60\n", ":1: cpu.util_pct: warn value -5 is negative"},
        {"cpu.util_pct 90 70\n",
         ":1: cpu.util_pct: warn 90 must be at or below crit 70 (higher values are worse)"},
        {"# x\nmem.available_pct 10 20\n",
         ":2: mem.available_pct: warn 10 must be at or above crit 20 (lower values are worse)"},
        {"cpu.util_pct 50 60\nfd.pct 1 2\n# again\ncpu.util_pct 60 70\n",
         ":4: duplicate threshold id \"cpu.util_pct\" (first set on line 1)"},
        {"cpu.util_pct 50 60\nbad\x01id 1 2\n", ":2: unknown threshold id \"bad?id\""},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        char path[64];
        REQUIRE(write_tmp(path, sizeof path, c[k].text, 0600));
        struct report *r = report_new();
        char err[512] = "";
        int rc = thresholds_load(r, path, err, sizeof err);
        char want[600];
        snprintf(want, sizeof want, "%s%s", path, c[k].line_msg);
        if (rc != -1)
            test_fail(__FILE__, __LINE__, "case %zu: rc %d, expected -1", k, rc);
        if (strcmp(err, want) != 0)
            test_fail(__FILE__, __LINE__, "case %zu: \"%s\", expected \"%s\"", k, err, want);
        /* nothing applied, not even the good lines before the error */
        CHECK_NUM(warn_of(r, "cpu.util_pct"), 70, 0);
        CHECK_NUM(warn_of(r, "fd.pct"), 70, 0);
        report_free(r);
        unlink(path);
    }
}

TEST(thresholds_unreadable_and_odd_files_refused)
{
    struct report *r = report_new();
    char err[512] = "";
    CHECK(thresholds_load(r, "/tmp/perfreport-no-such-thresholds", err, sizeof err) == -1);
    CHECK_CONTAINS(err, "/tmp/perfreport-no-such-thresholds: cannot open thresholds file");
    CHECK_NUM(warn_of(r, "cpu.util_pct"), 70, 0); /* defaults kept */

    CHECK(thresholds_load(r, "/tmp", err, sizeof err) == -1);
    CHECK_STR(err, "/tmp: thresholds file is not a regular file");

    char path[64], link[80];
    REQUIRE(write_tmp(path, sizeof path, "cpu.util_pct 1 2\n", 0600));
    snprintf(link, sizeof link, "%s.lnk", path);
    REQUIRE(symlink(path, link) == 0);
    CHECK(thresholds_load(r, link, err, sizeof err) == -1);
    CHECK_CONTAINS(err, "refusing a symbolic link");
    CHECK_NUM(warn_of(r, "cpu.util_pct"), 70, 0);
    unlink(link);
    unlink(path);
    report_free(r);
}

TEST(thresholds_root_refuses_writable_or_foreign_file)
{
    if (geteuid() != 0) {
        test_skip("needs euid 0 to exercise the root-only checks");
        return;
    }
    char path[64];
    REQUIRE(write_tmp(path, sizeof path, "cpu.util_pct 1 2\n", 0666));
    struct report *r = report_new();
    char err[512] = "";
    CHECK(thresholds_load(r, path, err, sizeof err) == -1);
    CHECK_CONTAINS(err, path);
    CHECK_CONTAINS(err, "refusing group/world-writable thresholds file (mode 0666)");
    CHECK_NUM(warn_of(r, "cpu.util_pct"), 70, 0);

    REQUIRE(chmod(path, 0620) == 0);
    CHECK(thresholds_load(r, path, err, sizeof err) == -1);
    CHECK_CONTAINS(err, "(mode 0620)");

    REQUIRE(chmod(path, 0644) == 0);
    REQUIRE(chown(path, 65534, 65534) == 0);
    CHECK(thresholds_load(r, path, err, sizeof err) == -1);
    CHECK_CONTAINS(err, "owned by uid 65534");

    REQUIRE(chown(path, 0, 0) == 0);
    CHECK(thresholds_load(r, path, err, sizeof err) == 0);
    CHECK_NUM(warn_of(r, "cpu.util_pct"), 1, 0);
    report_free(r);
    unlink(path);
}

/* The in-memory entry point (also the fuzz target's): same rules as a file,
 * NUL bytes refused, a failed parse leaves the defaults. */
TEST(thresholds_parse_text_in_memory)
{
    struct report *r = report_new();
    char err[256] = "";
    static const char ok[] = "cpu.util_pct 60 80\n# c\n";
    CHECK(thresholds_parse_text(r, ok, sizeof ok - 1, "mem", err, sizeof err) == 0);
    CHECK_NUM(warn_of(r, "cpu.util_pct"), 60, 0);
    CHECK_NUM(crit_of(r, "cpu.util_pct"), 80, 0);
    static const char nul[] = "cpu.util_pct 50 60\nswap.used_pct 1\0 2 3\n";
    CHECK(thresholds_parse_text(r, nul, sizeof nul - 1, "mem", err, sizeof err) == -1);
    CHECK_CONTAINS(err, "mem:2: NUL byte");
    CHECK_NUM(warn_of(r, "cpu.util_pct"), 70, 0); /* defaults again */
    CHECK(thresholds_parse_text(r, NULL, 0, NULL, err, sizeof err) == 0);
    CHECK_NUM(crit_of(r, "cpu.util_pct"), 90, 0);
    report_free(r);
}
