/* `perfreport -- CMD`: the command's model entry round trips through
 * report.json and shows in the report; src/command.c starts a real command
 * (after the go), refuses one that cannot start before it, quotes and
 * redacts its command line, and tells exit from signal. */
#include "harness.h"
#include "test_util.h"
#include "../../src/replay/load.h"
#include "../../src/run/command.h"
#include "../../src/model/model.h"
#include "../../src/model/run_command.h"
#include "../../src/render/doc_report.h"
#include "../../src/codec/report_json.h"
#include "../../src/util/strbuf.h"
#include "../../src/util/xalloc.h"
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct report *with_command(enum cmd_end end)
{
    struct report *r = report_new();
    r->tool_version = xstrdup("0.1.0");
    r->window.planned_s = 30;
    r->window.actual_s = 2.03;
    r->window.interval_s = 0.5;
    r->window.target = xstrdup("pid 4242");
    kv_add(&r->host, "hostname", "Host name", "web1");
    struct run_command *c = run_command_new();
    c->line = xstrdup("burner 2 '--password=***' 'a\x1b[31mb'");
    c->user = xstrdup("bob");
    c->pid = 4242;
    c->end = end;
    c->wall_s = 2.0123456789;
    if (end == CMD_EXITED)
        c->exit_status = 3;
    if (end == CMD_KILLED) {
        c->term_signal = SIGINT;
        c->core_dumped = true;
    }
    if (end == CMD_NOT_STARTED)
        c->error = xstrdup("cannot run 'x': Exec format error");
    c->ended_window = end == CMD_EXITED;
    r->command = c;
    return r;
}

static char *md_of(const struct report *r)
{
    struct doc *d = doc_report(r);
    struct strbuf sb = STRBUF_INIT;
    doc_render_md(d, &sb);
    doc_free(d);
    return sb_detach(&sb);
}

TEST(command_json_round_trip_every_end)
{
    const enum cmd_end ends[] = {CMD_RUNNING, CMD_EXITED, CMD_KILLED, CMD_NOT_STARTED};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        struct report *r = with_command(ends[i]);
        char *a = test_report_json(r);
        struct report *back = test_report_parse(a);
        REQUIRE(back && back->command);
        char *b = test_report_json(back);
        CHECK_STR(b, a);
        CHECK(back->command->end == ends[i]);
        CHECK(back->command->pid == 4242);
        CHECK_STR(back->command->user, "bob");
        CHECK_STR(back->command->line, r->command->line);
        CHECK(back->command->wall_s == 2.0123456789);
        if (ends[i] == CMD_EXITED)
            CHECK(back->command->exit_status == 3 && back->command->ended_window);
        if (ends[i] == CMD_KILLED)
            CHECK(back->command->term_signal == SIGINT && back->command->core_dumped);
        free(a);
        free(b);
        report_free(back);
        report_free(r);
    }
}

TEST(command_absent_from_json_without_one)
{
    struct report *r = with_command(CMD_EXITED);
    run_command_free(r->command);
    r->command = NULL;
    char *a = test_report_json(r);
    CHECK(strstr(a, "\"command\"") == NULL);
    struct report *back = NULL;
    char err[512];
    REQUIRE(report_from_json(a, strlen(a), &back, err, sizeof err) == 0);
    CHECK(back->command == NULL);
    free(a);
    report_free(back);
    report_free(r);
}

/* A hostile report.json: each bad "command" is refused, naming the field. */
TEST(command_json_bad_values_refused)
{
    static const struct {
        const char *from, *to, *msg;
    } cases[] = {
        {"\"end\": \"exited\"", "\"end\": \"gone\"", "\"end\""},
        {"\"exit_status\": 3", "\"exit_status\": 256", "exit_status"},
        {"\"exit_status\": 3", "\"exit_status\": 2.5", "exit_status"},
        {"\"pid\": 4242", "\"pid\": -1", "pid"},
        {"\"line\": \"", "\"line\": 7, \"x\": \"", "line"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct report *r = with_command(CMD_EXITED);
        char *a = test_report_json(r);
        char *at = strstr(a, cases[i].from);
        REQUIRE(at);
        struct strbuf sb = STRBUF_INIT;
        sb_addn(&sb, a, (size_t)(at - a));
        sb_add(&sb, cases[i].to);
        sb_add(&sb, at + strlen(cases[i].from));
        struct report *back = NULL;
        char err[512] = "";
        CHECK(report_from_json(sb.buf, sb.len, &back, err, sizeof err) != 0);
        CHECK(back == NULL);
        CHECK_CONTAINS(err, cases[i].msg);
        sb_free(&sb);
        free(a);
        report_free(r);
    }
    /* a killed command's signal must be one */
    struct report *r = with_command(CMD_KILLED);
    char *a = test_report_json(r);
    char *at = strstr(a, "\"SIGINT\"");
    REQUIRE(at);
    memcpy(at, "\"SIGNOT\"", 8);
    struct report *back = NULL;
    char err[512] = "";
    CHECK(report_from_json(a, strlen(a), &back, err, sizeof err) != 0);
    CHECK_CONTAINS(err, "signal");
    free(a);
    report_free(r);
}

TEST(command_signal_names_round_trip)
{
    char buf[32];
    for (int sig = 1; sig < 65; sig++) {
        cmd_signal_name(sig, buf, sizeof buf);
        CHECK(cmd_signal_parse(buf) == sig);
    }
    cmd_signal_name(SIGTERM, buf, sizeof buf);
    CHECK_STR(buf, "SIGTERM");
    CHECK(cmd_signal_parse("signal 0") == -1);
    CHECK(cmd_signal_parse("signal 9x") == -1);
    CHECK(cmd_signal_parse("") == -1);
}

TEST(command_in_the_report_text)
{
    struct report *r = with_command(CMD_EXITED);
    char *md = md_of(r);
    CHECK_CONTAINS(md, "exited with status 3 after 2.0 s; the window ended when it did.");
    CHECK_CONTAINS(md, "(pid 4242, as user bob)");
    CHECK(strchr(md, '\x1b') == NULL); /* the command line's escape is cleaned */
    free(md);
    report_free(r);
    r = with_command(CMD_KILLED);
    md = md_of(r);
    CHECK_CONTAINS(md, "was killed by SIGINT (core dumped) after 2.0 s.");
    free(md);
    report_free(r);
    r = with_command(CMD_RUNNING);
    md = md_of(r);
    CHECK_CONTAINS(md, "still running when the window ended and was left running");
    free(md);
    report_free(r);
}

/* The real thing: fork, wait for the go, exec, wait for the end. */
static struct run_command *run(char *const *argv, int *spawn_rc, char *err, size_t n)
{
    struct command *c = NULL;
    *spawn_rc = command_spawn(&c, argv, NULL, err, n);
    if (*spawn_rc != 0)
        return NULL;
    if (command_go(c, err, n) == 0)
        while (!command_wait(c, 5000))
            ;
    struct run_command *rc = command_describe(c, false, 0);
    command_finish(c, true);
    return rc;
}

TEST(command_runs_and_reports_its_end)
{
    char err[512];
    int src;
    char *const exit3[] = {"sh", "-c", "exit 3", NULL};
    struct run_command *rc = run(exit3, &src, err, sizeof err);
    REQUIRE(src == 0 && rc);
    CHECK(rc->end == CMD_EXITED && rc->exit_status == 3);
    CHECK(rc->wall_s >= 0 && rc->wall_s < 5);
    CHECK_STR(rc->line, "sh -c 'exit 3'");
    run_command_free(rc);

    char *const killed[] = {"sh", "-c", "kill -TERM $$", NULL};
    rc = run(killed, &src, err, sizeof err);
    REQUIRE(src == 0 && rc);
    CHECK(rc->end == CMD_KILLED && rc->term_signal == SIGTERM);
    run_command_free(rc);

    /* secrets go before the line is joined; odd arguments are quoted */
    char *const secret[] = {"true", "--password=hunter2", "it's", "", "ok", NULL};
    rc = run(secret, &src, err, sizeof err);
    REQUIRE(src == 0 && rc);
    CHECK_STR(rc->line, "true '--password=***' 'it'\\''s' '' ok");
    run_command_free(rc);
}

TEST(command_that_cannot_start_is_refused_before_the_go)
{
    char err[512];
    int src;
    char *const missing[] = {"/nonexistent/perfreport-test-cmd", NULL};
    CHECK(run(missing, &src, err, sizeof err) == NULL);
    CHECK(src == -1);
    CHECK_CONTAINS(err, "cannot run '/nonexistent/perfreport-test-cmd': No such file");

    char *const nopath[] = {"perfreport-no-such-command-on-path", NULL};
    CHECK(run(nopath, &src, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "No such file or directory");

    /* a file without an execute bit (root too needs one) */
    char path[] = "/tmp/perfreport-cmd-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    CHECK(write(fd, "#!/bin/sh\n", 10) == 10);
    close(fd);
    CHECK(chmod(path, 0644) == 0);
    char *const noexec[] = {path, NULL};
    CHECK(run(noexec, &src, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "Permission denied");
    unlink(path);

    /* a directory is not a command */
    char *const dir[] = {"/", NULL};
    CHECK(run(dir, &src, err, sizeof err) == NULL);
    CHECK_CONTAINS(err, "Permission denied");
}

/* A command cancelled before its go never runs. */
TEST(command_cancelled_never_runs)
{
    char marker[] = "/tmp/perfreport-cmd-mark-XXXXXX";
    int fd = mkstemp(marker);
    REQUIRE(fd >= 0);
    close(fd);
    unlink(marker);
    char script[600];
    snprintf(script, sizeof script, "echo ran > %s", marker);
    char *const argv[] = {"sh", "-c", script, NULL};
    struct command *c = NULL;
    char err[512];
    REQUIRE(command_spawn(&c, argv, NULL, err, sizeof err) == 0);
    command_cancel(c, "interrupted");
    struct run_command *rc = command_describe(c, false, 0);
    CHECK(rc->end == CMD_NOT_STARTED);
    CHECK_STR(rc->error, "interrupted");
    run_command_free(rc);
    command_finish(c, true);
    CHECK(access(marker, F_OK) != 0);
}
