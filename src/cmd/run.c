/* The default command, `perfreport [options] [-- CMD [ARGS...]]`: its
 * options, checked against each other and the host, then the capture run
 * (run/pipeline.c). */
#include "cmd.h"
#include "subcmd.h"
#include "../procfs/cgroup_name.h"
#include "../bundle/archive.h"
#include "../bundle/bundle.h"
#include "../bundle/retain.h"
#include "../bundle/textfile.h"
#include "../model/run_command.h"
#include "../render/doc_report.h"
#include "../render/openmetrics.h"
#include "../util/clock.h"
#include "../util/strbuf.h"
#include "../run/options.h"
#include "../run/pipeline.h"
#include "../model/model.h"
#include "../render/escape.h"
#include "../util/caller.h"
#include "../util/hostfs.h"
#include "../util/parse_num.h"
#include "../version.h"
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

static void usage(FILE *f)
{
    fputs("Usage: perfreport [options]\n"
          "       perfreport [options] -- CMD [ARGS...]\n"
          "Runs a timed performance triage of this host and writes a report bundle\n"
          "(index.html, report.md, report.json, manifest.json, charts).  With a\n"
          "command, the window is the command's life and the focus the command (in\n"
          "the on-CPU profile its process tree); its exit status is in the report\n"
          "(perfreport's own exit status is as below).\n"
          "Run it as root: without root the /proc sections still run, but the BPF\n"
          "sections (profiles, latencies, syscalls, network events) are skipped and\n"
          "other users' processes may be unreadable; the report says which.\n"
          "\n"
          "  -d, --duration SECS     capture window length (default 30; with a command\n"
          "                          the window ends when it exits, or after SECS\n"
          "                          if given, leaving it running)\n"
          "  -i, --interval SECS     snapshot interval (default 1)\n"
          "  -p, --pid PID           focus on one process (its cgroup, its threads); adds\n"
          "                          its allocation profile (uprobes on its libc)\n"
          "  -c, --cgroup PATH|ID    focus on one cgroup (path below the cgroup root), or\n"
          "                          the container (id) or Kubernetes pod (UID) in one\n"
          "  -o, --output DIR        bundle directory; must not exist (taken by the end:\n"
          "                          published as DIR.1, ..., or in /var/tmp; exit 4-6)\n"
          "                          (default ./perfreport-<host>-<YYYYmmdd-HHMMSS>)\n"
          "  -F, --frequency HZ      profile sampling frequency (default 49)\n"
          "      --no-bpf            use /proc and /sys only\n"
          "      --min-block-us N    off-CPU waits shorter than N microseconds are not\n"
          "                          counted (default 1000)\n"
          "      --thresholds FILE   override thresholds (lines: <id> <warn> <crit>)\n"
          "      --no-redact         keep passwords/tokens/keys in command lines\n"
          "                          (redacted by default)\n"
          "      --obfuscate         replace host names, IP and MAC addresses and user\n"
          "                          names in the bundle; the mapping goes to\n"
          "                          <bundle>.obfuscation-map next to it (mode 0600)\n"
          "      --root DIR          read /proc and /sys below DIR (tests, fixtures);\n"
          "                          also PERFREPORT_ROOT\n"
          "  -q, --quiet             no progress and no summary on the terminal\n"
          "      --oneline           no progress; at the end one line for a log (timers,\n"
          "                          cron): host, severity, exit status, bundle, headline\n"
          "      --metrics FILE      also write the run's severity, exit status, findings\n"
          "                          and key metrics for Prometheus (node_exporter's\n"
          "                          textfile collector), replacing FILE atomically\n"
          "      --baseline BUNDLE   compare this run with an earlier bundle\n"
          "      --archive           also write the bundle as one BUNDLE.tar.gz beside it\n"
          "      --label TEXT        what this run is, in the report, summary, --oneline,\n"
          "                          --metrics and history (at most 128 bytes of text)\n"
          "      --case-id ID        the ticket or case this run is for, as --label\n"
          "                          (at most 64 letters, digits and . _ - : / #)\n"
          "      --user USER         run the command as USER (name or uid; default: the\n"
          "                          user who ran sudo (SUDO_UID), else perfreport's)\n"
          "      --keep N            after publishing, keep the N newest bundles of this\n"
          "                          host in the bundle's directory (this one included)\n"
          "                          and remove older ones (only real perfreport bundles)\n"
          "  -v, --verbose           more detail on stderr\n"
          "  -h, --help              this help\n"
          "  -V, --version           print the version\n"
          "\n"
          "Exit status: 0 nothing at warning or above, 1 warning, 2 critical,\n"
          "3 the run itself failed; 4/5/6 a partial bundle (see perfreport(1)).\n"
          "\n",
          f);
    commands_usage(f);
}

#define MAX_SAMPLES REPORT_MAX_TICKS
#define COMMAND_MAX_S 86400 /* a command's window without -d: -d's own limit */

enum { OPT_NO_BPF = 256, OPT_THRESHOLDS, OPT_ROOT, OPT_NO_REDACT, OPT_OBFUSCATE, OPT_MIN_BLOCK_US,
       OPT_ONELINE, OPT_METRICS, OPT_KEEP, OPT_ARCHIVE, OPT_BASELINE, OPT_USER, OPT_LABEL,
       OPT_CASE_ID };

/* The delivery (run/pipeline.h): what this command does with a run besides
 * the bundle.  Its state lives from before the window to the end. */
struct run_delivery {
    double t_begin;          /* monotonic ms, the run's start (--metrics' wall time) */
    struct textfile metrics; /* --metrics, open from before the window */
    char archive[NAME_MAX + 32]; /* --archive's file name, "" when none */
    struct retain_result kept;   /* what --keep removed */
};

/* --oneline: the run in one line for a log that many runs share (a timer's
 * journal, cron's mail): key=value, the text values quoted by
 * esc_term_quoted, so that a process name in the headline can neither end
 * the line nor forge a field.  where: the published bundle; NULL when the
 * run failed (status 3): then severity=error, bundle="" and the headline is
 * the reason.  kept: what --keep removed (removed=N), NULL without --keep. */
static void log_line(FILE *f, const struct report *r, const char *where, int status,
                     const char *why, const struct retain_result *kept)
{
    struct strbuf sb = STRBUF_INIT;
    const char *host = kv_get(&r->host, "hostname");
    struct utsname u;
    if (!host && uname(&u) == 0) /* failed before the probe */
        host = u.nodename;
    sb_add(&sb, "perfreport: host=");
    esc_term_quoted(&sb, host);
    sb_addf(&sb, " severity=%s status=%d bundle=",
            where ? severity_name(report_worst_severity(r)) : "error", status);
    char index[PATH_MAX + 64] = "";
    if (where)
        snprintf(index, sizeof index, "%s/index.html", where);
    esc_term_quoted(&sb, index);
    if (kept)
        sb_addf(&sb, " removed=%u", kept->removed);
    /* the run's names, ours after the checks in parse_args */
    static const char *const names[] = {"case_id", "label"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = kv_get(&r->host, names[i]);
        if (v) {
            sb_addf(&sb, " %s=", names[i]);
            esc_term_quoted(&sb, v);
        }
    }
    sb_add(&sb, " headline=");
    esc_term_quoted(&sb, where ? r->headline : why);
    sb_addc(&sb, '\n');
    (void)fputs(sb_str(&sb), f);
    (void)fflush(f);
    sb_free(&sb);
}

/* --metrics: the run for Prometheus, written whatever the status (a failed
 * run says exit_status 3), replacing the previous run's file.  A failure
 * here is reported but leaves the status alone: the bundle is what the
 * status describes. */
static void write_metrics(struct textfile *tf, const struct report *r, int status, double wall_s)
{
    struct strbuf sb = STRBUF_INIT;
    struct metrics_run run = {.exit_status = status, .wall_s = wall_s};
    openmetrics_render(r, &run, &sb);
    char err[PATH_MAX + 256];
    if (textfile_replace(tf, sb_str(&sb), sb.len, err, sizeof err) != 0)
        term_printf(stderr, "perfreport: %s", err);
    sb_free(&sb);
}

/* "Command: exited with status 3 after 2.0 s" for the summary. */
static void command_summary(FILE *f, const struct run_command *c)
{
    char sig[32];
    switch (c->end) {
    case CMD_EXITED:
        fprintf(f, "Command: exited with status %d after %.1f s\n", c->exit_status, c->wall_s);
        break;
    case CMD_KILLED:
        cmd_signal_name(c->term_signal, sig, sizeof sig);
        fprintf(f, "Command: killed by %s%s after %.1f s\n", sig,
                c->core_dumped ? " (core dumped)" : "", c->wall_s);
        break;
    case CMD_RUNNING:
        fprintf(f, "Command: still running after the %.1f s window; left running\n",
                c->wall_s);
        break;
    case CMD_NOT_STARTED:
        term_printf(f, "Command: not started: %s", c->error ? c->error : "");
        break;
    }
}

static int delivery_open(void *ctx, const struct options *opt, char *err, size_t n)
{
    struct run_delivery *d = ctx;
    return opt->metrics_file ? textfile_open(&d->metrics, opt->metrics_file, err, n) : 0;
}

/* --archive and --keep, beside the published bundle. */
static void delivery_published(void *ctx, const struct report *r, const struct options *opt,
                               struct bundle_target *target)
{
    struct run_delivery *d = ctx;
    char err[PATH_MAX + 1024];
    /* One file for a ticket: beside the bundle, by the parent fd.  A failure
     * costs the archive, not the bundle or the status. */
    if (opt->archive && target->published[0]) {
        if (bundle_archive(target->parent_fd, target->published, target->published_fd,
                           target->files, target->nfiles, d->archive, sizeof d->archive, err,
                           sizeof err) != 0) {
            term_printf(stderr, "perfreport: --archive: no archive written: %s", err);
            d->archive[0] = '\0';
        }
    } else if (opt->archive) {
        term_printf(stderr, "perfreport: --archive: no archive written: the bundle was not "
                    "published in %s", target->parent_shown);
    }
    /* Retention after the bundle (and its map) are safely out; a removal
     * that fails is said on stderr and leaves the status alone. */
    if (opt->keep)
        bundle_keep_published(r, target, opt->keep, opt->verbose, &d->kept);
}

/* The terminal summary (stdout; stderr with a command, whose stdout it is,
 * byte for byte). */
static void summary(FILE *sum, const struct run_delivery *d, const struct report *r,
                    const struct options *opt, const struct bundle_target *target,
                    const char *where)
{
    enum severity worst = report_worst_severity(r);
    term_printf(sum, "%s%s%s", worst >= SEV_WARNING ? severity_name(worst) : "",
                worst >= SEV_WARNING ? ": " : "", r->headline ? r->headline : "");
    if (r->window.interrupted)
        fprintf(sum, "INCOMPLETE: the window was interrupted after %.1f of %.0f s.\n",
               r->window.actual_s, r->window.planned_s);
    for (size_t i = 0; i < r->nledger; i++)
        if (r->ledger[i].status == CS_FAILED || r->ledger[i].status == CS_TIMED_OUT)
            term_printf(sum, "PARTIAL: collector %s %s: %s", r->ledger[i].name,
                        r->ledger[i].status == CS_FAILED ? "failed" : "timed out",
                        r->ledger[i].reason ? r->ledger[i].reason : "");
    if (r->publish_note)
        term_printf(sum, "PARTIAL: %s", r->publish_note);
    struct strbuf nr = STRBUF_INIT;
    size_t n_nr = report_not_root(r, &nr, 4);
    if (n_nr)
        term_printf(sum, "Not measured without root (%zu collectors): %s; run as root (sudo) "
                         "for them.", n_nr, sb_str(&nr));
    sb_free(&nr);
    if (r->command)
        command_summary(sum, r->command);
    term_printf(sum, "Bundle: %s/index.html", where);
    if (d->archive[0])
        term_printf(sum, "Archive: %s/%s", target->parent_shown, d->archive);
    if (opt->keep)
        term_printf(sum, "Removed %u old bundle%s of this host in %s (--keep %u)",
                    d->kept.removed, d->kept.removed == 1 ? "" : "s", target->parent_shown,
                    opt->keep);
    /* A reader that went away (| head) gets EPIPE, not SIGPIPE: the bundle
     * is published and the status stands. */
    (void)fflush(sum);
}

/* --oneline, the summary and --metrics, in that order. */
static void delivery_finish(void *ctx, const struct report *r, const struct options *opt,
                            const struct bundle_target *target, const char *where, int status,
                            const char *why)
{
    struct run_delivery *d = ctx;
    FILE *sum = opt->command ? stderr : stdout;
    if (where && opt->oneline)
        log_line(sum, r, where, status, NULL, opt->keep ? &d->kept : NULL);
    if (where && !opt->quiet)
        summary(sum, d, r, opt, target, where);
    if (d->metrics.dir_fd >= 0) {
        char merr[256];
        if (caller_enter_msg(merr, sizeof merr)) {
            write_metrics(&d->metrics, r, status, (mono_ms() - d->t_begin) / 1000.0);
            caller_leave();
        } else {
            term_printf(stderr, "perfreport: --metrics %s: not written: %s", d->metrics.shown,
                        merr);
        }
    }
    textfile_close(&d->metrics);
    if (opt->oneline && status == 3) /* the log still gets its line */
        log_line(sum, r, NULL, status, *why ? why : "the run failed", NULL);
}

static const struct option longopts[] = {
    {"duration", required_argument, NULL, 'd'},
    {"interval", required_argument, NULL, 'i'},
    {"pid", required_argument, NULL, 'p'},
    {"cgroup", required_argument, NULL, 'c'},
    {"output", required_argument, NULL, 'o'},
    {"frequency", required_argument, NULL, 'F'},
    {"no-bpf", no_argument, NULL, OPT_NO_BPF},
    {"thresholds", required_argument, NULL, OPT_THRESHOLDS},
    {"root", required_argument, NULL, OPT_ROOT},
    {"no-redact", no_argument, NULL, OPT_NO_REDACT},
    {"obfuscate", no_argument, NULL, OPT_OBFUSCATE},
    {"min-block-us", required_argument, NULL, OPT_MIN_BLOCK_US},
    {"quiet", no_argument, NULL, 'q'},
    {"oneline", no_argument, NULL, OPT_ONELINE},
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"keep", required_argument, NULL, OPT_KEEP},
    {"archive", no_argument, NULL, OPT_ARCHIVE},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"user", required_argument, NULL, OPT_USER},
    {"label", required_argument, NULL, OPT_LABEL},
    {"case-id", required_argument, NULL, OPT_CASE_ID},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

/* --label TEXT, --case-id ID: the user's words, shown in HTML, Markdown, a
 * terminal, a log line and a Prometheus label: refused (with a message,
 * returning -1) unless plain text of bounded length; an id is also one word
 * of a few safe characters, to be pasted into a ticket system's search. */
static int check_case_text(const char *opt, const char *s, bool id)
{
    const char *why = id ? text_plain_why(s, RUN_CASE_ID_MAX, RUN_CASE_ID_CHARS)
                         : text_plain_why(s, RUN_LABEL_MAX, NULL);
    if (!why)
        return 0;
    term_printf(stderr, "perfreport: %s: '%.*s%s' %s (at most %d bytes of %s)", opt, 80, s,
                strlen(s) > 80 ? "..." : "", why, id ? RUN_CASE_ID_MAX : RUN_LABEL_MAX,
                id ? "letters, digits and . _ - : / #" : "text without control characters");
    return -1;
}

/* The command line into *o (getopt's optind then at the first operand);
 * *interval_given: -i was given.  Returns -1 to go on, or the exit status
 * to end with: 0 after --help or --version, 3 after a message. */
static int parse_args(int argc, char **argv, struct options *o, bool *interval_given)
{
    int ch;
    long l;
    /* '+': options end at the first argument that is not one, so a
     * command's own options after -- are never taken for ours. */
    while ((ch = getopt_long(argc, argv, "+d:i:p:c:o:F:qvhV", longopts, NULL)) != -1) {
        switch (ch) {
        case 'd':
            if (parse_double_arg("-d", optarg, 0.1, 86400, "a number of seconds", &o->duration_s))
                return 3;
            o->duration_given = true;
            break;
        case 'i':
            if (parse_double_arg("-i", optarg, 0.05, 3600, "a number of seconds", &o->interval_s))
                return 3;
            *interval_given = true;
            break;
        case 'p':
            if (parse_long_arg("-p", optarg, 1, INT_MAX, &l))
                return 3;
            o->pid = (pid_t)l;
            break;
        case 'c':
            if (!*optarg || strstr(optarg, "..")) {
                term_printf(stderr, "perfreport: -c: '%s' is not a cgroup path", optarg);
                return 3;
            }
            o->cgroup = optarg;
            break;
        case 'o':
            if (!*optarg) {
                fprintf(stderr, "perfreport: -o: empty directory name\n");
                return 3;
            }
            o->outdir = optarg;
            break;
        case 'F':
            if (parse_long_arg("-F", optarg, 1, 10000, &l))
                return 3;
            o->hz = (int)l;
            break;
        case OPT_NO_BPF: o->no_bpf = true; break;
        case OPT_THRESHOLDS: o->thresholds_file = optarg; break;
        case OPT_ROOT: o->root = optarg; break;
        case OPT_NO_REDACT: o->no_redact = true; break;
        case OPT_OBFUSCATE: o->obfuscate = true; break;
        case OPT_MIN_BLOCK_US:
            if (options_set_min_block_us(o, optarg)) {
                term_printf(stderr, "perfreport: --min-block-us: '%s' is not a whole number of "
                                    "microseconds in [1, 60000000]", optarg);
                return 3;
            }
            break;
        case 'q': o->quiet = true; break;
        case OPT_ONELINE: o->oneline = o->quiet = true; break;
        case OPT_METRICS:
            if (!*optarg) {
                fprintf(stderr, "perfreport: --metrics: empty file name\n");
                return 3;
            }
            o->metrics_file = optarg;
            break;
        case OPT_ARCHIVE: o->archive = true; break;
        case OPT_BASELINE: o->baseline = optarg; break;
        case OPT_USER:
            if (!*optarg) {
                fprintf(stderr, "perfreport: --user: empty user name\n");
                return 3;
            }
            o->user = optarg;
            break;
        case OPT_LABEL:
        case OPT_CASE_ID:
            if (check_case_text(ch == OPT_LABEL ? "--label" : "--case-id", optarg,
                                ch == OPT_CASE_ID))
                return 3;
            *(ch == OPT_LABEL ? &o->label : &o->case_id) = optarg;
            break;
        case OPT_KEEP:
            if (parse_long_arg("--keep", optarg, 1, RETAIN_MAX_KEEP, &l))
                return 3;
            o->keep = (unsigned)l;
            break;
        case 'v': o->verbose++; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("perfreport %s\n", PERFREPORT_VERSION); return 0;
        default: subcmd_try_help("perfreport"); return 3;
        }
    }
    return -1;
}

int run_main(int argc, char **argv)
{
    /* One malloc arena.  Each collector starts on its own thread, and every
     * BPF load parses the kernel BTF (tens of MiB, freed after the load);
     * with an arena per thread those freed blocks stayed resident in
     * separate arenas: peak RSS 61 MiB, 31 MiB with one (measured).  A
     * refusal only costs memory, so it is not an error. */
    (void)mallopt(M_ARENA_MAX, 1);
    struct options o;
    options_defaults(&o);
    const char *env_root = getenv("PERFREPORT_ROOT");
    if (env_root && *env_root)
        o.root = env_root;

    bool interval_given = false;
    int prc = parse_args(argc, argv, &o, &interval_given);
    if (prc >= 0)
        return prc;
    if (optind < argc && strcmp(argv[optind - 1], "--") == 0) {
        o.command = argv + optind;
        if (o.pid || o.cgroup) {
            fprintf(stderr, "perfreport: -p and -c cannot be given with a command: the focus "
                            "is the command\n");
            return 3;
        }
        /* Without -d the command's life is the window, up to -d's limit
         * and the samples' bound below. */
        if (!o.duration_given)
            o.duration_s = fmin(COMMAND_MAX_S, MAX_SAMPLES * o.interval_s);
    } else if (optind < argc) {
        term_printf(stderr, "perfreport: unexpected argument '%s' (a command to profile goes "
                            "after --)", argv[optind]);
        subcmd_try_help("perfreport");
        return 3;
    } else if (optind > 1 && strcmp(argv[optind - 1], "--") == 0) {
        fprintf(stderr, "perfreport: no command after --\n");
        return 3;
    } else if (o.user) {
        fprintf(stderr, "perfreport: --user is for a command given after --\n");
        return 3;
    }
    if (o.pid && o.cgroup) {
        fprintf(stderr, "perfreport: -p and -c are exclusive\n");
        return 3;
    }
    /* Every sample adds a value to each series: bound the bundle's size by
     * bounding the samples (a day at 1 s is 86,400). */
    if (o.duration_s / o.interval_s > MAX_SAMPLES) {
        fprintf(stderr, "perfreport: -d %g with -i %g would take more than %d samples; use a "
                        "longer -i\n", o.duration_s, o.interval_s, MAX_SAMPLES);
        return 3;
    }
    if (o.interval_s > o.duration_s) {
        if (interval_given) {
            fprintf(stderr, "perfreport: -i %g is longer than the window -d %g\n", o.interval_s,
                    o.duration_s);
            return 3;
        }
        o.interval_s = o.duration_s;
    }
    /* --root reads the files below DIR with root's rights as if they were
     * /proc and /sys: for fixtures, not for a caller of sudo, who could
     * point it at root's files. */
    if (o.root && caller_get()) {
        fprintf(stderr, "perfreport: --root (or PERFREPORT_ROOT) is not accepted under sudo\n");
        return 3;
    }
    hostfs_set_root(o.root);
    if (o.pid) {
        char p[64];
        snprintf(p, sizeof p, "/proc/%d", (int)o.pid);
        if (!hostfs_is_dir(p)) {
            fprintf(stderr, "perfreport: -p %d: no such process\n", (int)o.pid);
            return 3;
        }
    }
    /* -c may name a container or a pod by its id */
    char *cg_path = NULL;
    char cg_err[512];
    if (cgroup_resolve_arg(o.cgroup, &cg_path, cg_err, sizeof cg_err) != 0) {
        term_printf(stderr, "perfreport: %s", cg_err);
        return 3;
    }
    if (cg_path) {
        if (o.verbose)
            term_printf(stderr, "perfreport: -c %s is cgroup %s", o.cgroup, cg_path);
        o.cgroup = cg_path;
    }
    struct run_delivery d = {.t_begin = mono_ms(), .metrics = {.dir_fd = -1}};
    const struct delivery hooks = {&d, delivery_open, delivery_published, delivery_finish, NULL};
    int rc = pipeline_run(&o, &hooks);
    free(cg_path);
    return rc;
}
