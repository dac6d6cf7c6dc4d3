/* --metrics: the exposition text and the atomic, symlink-safe file write. */
#include "harness.h"
#include "../../src/bundle/textfile.h"
#include "../../src/model/model.h"
#include "../../src/render/openmetrics.h"
#include "../../src/util/strbuf.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TEST(openmetrics_label_escaping)
{
    struct strbuf sb = STRBUF_INIT;
    openmetrics_label_value(&sb, "a\\b\"c\nd");
    CHECK_STR(sb_str(&sb), "a\\\\b\\\"c\\nd");
    sb_reset(&sb);
    /* bad UTF-8 and control characters have no escape: U+FFFD */
    openmetrics_label_value(&sb, "x\xff" "y\x01z\r\xc3\xa9");
    CHECK_STR(sb_str(&sb), "x\xEF\xBF\xBDy\xEF\xBF\xBDz\xEF\xBF\xBD\xc3\xa9");
    sb_reset(&sb);
    openmetrics_label_value(&sb, NULL);
    CHECK_STR(sb_str(&sb), "");
    sb_free(&sb);
}

/* Every line is a HELP/TYPE/UNIT line, a sample, or the final "# EOF"; no
 * family appears twice; returns the number of samples, -1 on a bad line. */
static int check_lines(const char *text)
{
    regex_t sample, meta;
    if (regcomp(&sample,
                    "^[a-zA-Z_:][a-zA-Z0-9_:]*(\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\n]|\\\\[\\\\\"n])*\""
                    ",?)*\\})? -?[0-9.e+-]+$",
                REG_EXTENDED | REG_NOSUB) != 0)
        return -1;
    if (regcomp(&meta, "^# (HELP|TYPE|UNIT) [a-zA-Z_:][a-zA-Z0-9_:]* [^\n]+$",
                REG_EXTENDED | REG_NOSUB) != 0) {
        regfree(&sample);
        return -1;
    }
    int n = 0;
    char seen[64][96];
    size_t nseen = 0;
    const char *s = text;
    while (*s && n >= 0) {
        const char *nl = strchr(s, '\n');
        if (!nl) {
            n = -1; /* the last line ends in a newline too */
            break;
        }
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)(nl - s), s);
        s = nl + 1;
        if (strcmp(line, "# EOF") == 0) {
            if (*s)
                n = -1; /* nothing after it */
            break;
        }
        if (strncmp(line, "# TYPE ", 7) == 0) {
            char name[96];
            sscanf(line + 7, "%95s", name);
            for (size_t i = 0; i < nseen; i++)
                if (strcmp(seen[i], name) == 0)
                    n = -1;
            if (nseen < 64)
                snprintf(seen[nseen++], sizeof seen[0], "%s", name);
        }
        if (regexec(line[0] == '#' ? &meta : &sample, line, 0, NULL, 0) != 0) {
            test_fail(__FILE__, __LINE__, "bad line: %s", line);
            n = -1;
        } else if (line[0] != '#') {
            n++;
        }
    }
    regfree(&sample);
    regfree(&meta);
    return n;
}

static struct report *sample_report(void)
{
    struct report *r = report_new();
    r->window.start_wall = (struct timespec){1700000000, 250000000};
    r->window.actual_s = 30;
    report_metric(r, "cpu.util_pct", "CPU utilisation", "%", "cpu", 96.375);
    report_metric(r, "mem.available_kib", "Available", "KiB", "memory", 1000);
    report_metric(r, "disk.await_ms_max", "await", "ms", "disk", 12.5);
    report_metric(r, "self.cpu_ms", "own CPU", "ms", "host", 250);
    report_metric(r, "self.max_rss_kib", "own RSS", "KiB", "host", 40000);
    struct finding *f = report_add_finding(r, "cpu.saturation", SEV_CRITICAL, "cpu",
                                           "CPU saturated by \"evil\"\nname");
    f->score = 87.5;
    f = report_add_finding(r, "weird\"id\\", SEV_WARNING, "res\nx", "t");
    f->score = 3;
    return r;
}

TEST(openmetrics_render_run)
{
    struct report *r = sample_report();
    struct strbuf sb = STRBUF_INIT;
    struct metrics_run run = {.exit_status = 2, .wall_s = 31.5};
    openmetrics_render(r, &run, &sb);
    const char *t = sb_str(&sb);
    CHECK(check_lines(t) > 10);
    CHECK_CONTAINS(t, "\nperfreport_exit_status 2\n");
    CHECK_CONTAINS(t, "\nperfreport_severity 3\n");
    CHECK_CONTAINS(t, "\nperfreport_findings{severity=\"critical\"} 1\n");
    CHECK_CONTAINS(t, "\nperfreport_findings{severity=\"warning\"} 1\n");
    CHECK_CONTAINS(t, "\nperfreport_findings{severity=\"info\"} 0\n");
    CHECK_CONTAINS(t, "\nperfreport_finding_severity{id=\"cpu.saturation\",resource=\"cpu\"} 3\n");
    CHECK_CONTAINS(t, "\nperfreport_finding_score{id=\"cpu.saturation\",resource=\"cpu\"} 87.5\n");
    CHECK_CONTAINS(t, "{id=\"weird\\\"id\\\\\",resource=\"res\\nx\"} 2\n");
    CHECK_NOT_CONTAINS(t, "evil"); /* titles are host text: not exported */
    /* base units, the unit in the name, shortest exact decimal */
    CHECK_CONTAINS(t, "\nperfreport_cpu_utilization_ratio 0.96375\n");
    CHECK_CONTAINS(t, "# UNIT perfreport_cpu_utilization_ratio ratio\n");
    CHECK_CONTAINS(t, "\nperfreport_memory_available_bytes 1024000\n");
    CHECK_CONTAINS(t, "\nperfreport_disk_await_max_seconds 0.0125\n");
    CHECK_CONTAINS(t, "\nperfreport_window_start_timestamp_seconds 1700000000.25\n");
    CHECK_CONTAINS(t, "\nperfreport_window_seconds 30\n");
    CHECK_CONTAINS(t, "\nperfreport_run_cpu_seconds 0.25\n");
    CHECK_CONTAINS(t, "\nperfreport_run_max_rss_bytes 40960000\n");
    CHECK_CONTAINS(t, "\nperfreport_run_wall_seconds 31.5\n");
    /* not measured: absent, not 0 */
    CHECK_NOT_CONTAINS(t, "perfreport_swap_used_ratio");
    CHECK_NOT_CONTAINS(t, "perfreport_tcp_retransmit_ratio");
    size_t len = strlen(t);
    CHECK(len > 6 && strcmp(t + len - 6, "# EOF\n") == 0);
    sb_free(&sb);
    report_free(r);
}

TEST(openmetrics_render_failed_run)
{
    /* a run that failed before its window: the status, nothing made up */
    struct report *r = report_new();
    struct strbuf sb = STRBUF_INIT;
    struct metrics_run run = {.exit_status = 3, .wall_s = NAN};
    openmetrics_render(r, &run, &sb);
    const char *t = sb_str(&sb);
    CHECK(check_lines(t) == 2); /* perfreport_info and the exit status */
    CHECK_CONTAINS(t, "\nperfreport_exit_status 3\n");
    CHECK_NOT_CONTAINS(t, "perfreport_severity");
    CHECK_NOT_CONTAINS(t, "perfreport_findings");
    CHECK_NOT_CONTAINS(t, "perfreport_window");
    CHECK_NOT_CONTAINS(t, "perfreport_run_wall_seconds");
    sb_free(&sb);
    report_free(r);
}

static char *slurp(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW);
    if (fd < 0)
        return NULL;
    static char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n < 0)
        return NULL;
    buf[n] = '\0';
    return buf;
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

TEST(textfile_replace_atomic_and_symlink_safe)
{
    char dir[] = "/tmp/perfreport-textfile-XXXXXX";
    REQUIRE(mkdtemp(dir));
    char path[256], target[256], sub[256];
    snprintf(path, sizeof path, "%s/perfreport.prom", dir);
    snprintf(target, sizeof target, "%s/victim", dir);
    int fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, "keep\n", 5) == 5);
    close(fd);
    REQUIRE(symlink(target, path) == 0); /* planted at the final name */

    mode_t old = umask(077); /* the file is 0644 whatever the umask */
    struct textfile t;
    char err[512];
    REQUIRE(textfile_open(&t, path, err, sizeof err) == 0);
    CHECK(count_entries(dir) == 2); /* the probe left nothing */
    CHECK(textfile_replace(&t, "a 1\n", 4, err, sizeof err) == 0);
    umask(old);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY);
    REQUIRE(dfd >= 0);
    CHECK_STR(slurp(dfd, "victim"), "keep\n"); /* not followed */
    struct stat st;
    REQUIRE(fstatat(dfd, "perfreport.prom", &st, AT_SYMLINK_NOFOLLOW) == 0);
    CHECK(S_ISREG(st.st_mode)); /* the symlink itself was replaced */
    CHECK((st.st_mode & 07777) == 0644);
    CHECK_STR(slurp(dfd, "perfreport.prom"), "a 1\n");
    CHECK(textfile_replace(&t, "a 2\n", 4, err, sizeof err) == 0);
    CHECK_STR(slurp(dfd, "perfreport.prom"), "a 2\n");
    CHECK(count_entries(dir) == 2); /* no temp file left behind */
    textfile_close(&t);

    /* a directory at the name, a missing directory, a bare directory name */
    snprintf(sub, sizeof sub, "%s/isdir", dir);
    REQUIRE(mkdir(sub, 0700) == 0);
    CHECK(textfile_open(&t, sub, err, sizeof err) == -EISDIR);
    CHECK(t.dir_fd == -1);
    snprintf(sub, sizeof sub, "%s/nodir/x.prom", dir);
    CHECK(textfile_open(&t, sub, err, sizeof err) == -ENOENT);
    CHECK_CONTAINS(err, "nodir");
    snprintf(sub, sizeof sub, "%s/", dir);
    CHECK(textfile_open(&t, sub, err, sizeof err) == -EINVAL);

    unlinkat(dfd, "perfreport.prom", 0);
    unlinkat(dfd, "victim", 0);
    unlinkat(dfd, "isdir", AT_REMOVEDIR);
    close(dfd);
    rmdir(dir);
}
