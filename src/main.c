#include "collapse_cmd.h"
#include "command.h"
#include "collect/cgroup_name.h"
#include "bundle/retain.h"
#include "flamegraph_cmd.h"
#include "options.h"
#include "pipeline.h"
#include "render_cmd.h"
#include "diff_cmd.h"
#include "history_cmd.h"
#include "model/model.h"
#include "render/escape.h"
#include "util/caller.h"
#include "util/hostfs.h"
#include "util/parse_num.h"
#include "version.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fputs("Usage: perfreport [options]\n"
          "       perfreport [options] -- CMD [ARGS...]\n"
          "Runs a timed performance triage of this host and writes a report bundle\n"
          "(index.html, report.md, report.json, manifest.json, charts).  With a\n"
          "command, the window is the command's life and the focus the command (in\n"
          "the on-CPU profile its process tree); its exit status is in the report\n"
          "(perfreport's own exit status is as below).\n"
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
          "3 the run itself failed; 4/5/6 a partial bundle (see README).\n"
          "\n"
          "Also: perfreport flamegraph [opts] [FILE|-]   folded stacks -> SVG\n"
          "      perfreport render BUNDLE [-o DIR] [--thresholds FILE]   re-render a bundle\n"
          "      perfreport diff OLD NEW [-o DIR]   compare two bundles\n"
          "      perfreport history DIR... [-o DIR]   one page over many bundles\n",
          f);
}

#define MAX_SAMPLES REPORT_MAX_TICKS
#define COMMAND_MAX_S 86400 /* a command's window without -d: -d's own limit */

enum { OPT_NO_BPF = 256, OPT_THRESHOLDS, OPT_ROOT, OPT_NO_REDACT, OPT_OBFUSCATE, OPT_MIN_BLOCK_US,
       OPT_ONELINE, OPT_METRICS, OPT_KEEP, OPT_ARCHIVE, OPT_BASELINE, OPT_USER };

/* fds 0-2 closed by the caller (`>&-`) would be the next files we open, and
 * the summary would land in the lock file or a bundle file: open /dev/null
 * onto any that is closed.  Returns -1 if that is impossible. */
static int ensure_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
            continue;
        int nfd = open("/dev/null", O_RDWR);
        if (nfd != fd) {
            if (nfd >= 0)
                close(nfd);
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (ensure_std_fds() != 0)
        return 3;
    /* A reader of our output that goes away (| head) must not kill the run:
     * writes then fail with EPIPE, which the printing code shrugs off. */
    command_note_sigpipe(signal(SIGPIPE, SIG_IGN) == SIG_IGN);
    caller_init();
    /* The subcommands read and write files the caller names and need no
     * privilege: under sudo they run as the caller, start to end. */
    static const char *const subcommands[] = {"flamegraph", "collapse", "render", "diff",
                                              "history"};
    for (size_t i = 0; argc > 1 && i < sizeof subcommands / sizeof *subcommands; i++) {
        int e;
        if (strcmp(argv[1], subcommands[i]) == 0 && (e = caller_become()) != 0) {
            fprintf(stderr, "perfreport %s: cannot become the user who ran sudo (uid %u): %s\n",
                    subcommands[i], (unsigned)caller_get()->uid, strerror(-e));
            return 3;
        }
    }
    if (argc > 1 && strcmp(argv[1], "flamegraph") == 0)
        return flamegraph_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "collapse") == 0)
        return collapse_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "render") == 0)
        return render_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "diff") == 0)
        return diff_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "history") == 0)
        return history_main(argc - 1, argv + 1);
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
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int ch;
    bool interval_given = false;
    long l;
    /* '+': options end at the first argument that is not one, so a
     * command's own options after -- are never taken for ours. */
    while ((ch = getopt_long(argc, argv, "+d:i:p:c:o:F:qvhV", longopts, NULL)) != -1) {
        switch (ch) {
        case 'd':
            if (parse_double_arg("-d", optarg, 0.1, 86400, "a number of seconds", &o.duration_s))
                return 3;
            o.duration_given = true;
            break;
        case 'i':
            if (parse_double_arg("-i", optarg, 0.05, 3600, "a number of seconds", &o.interval_s))
                return 3;
            interval_given = true;
            break;
        case 'p':
            if (parse_long_arg("-p", optarg, 1, INT_MAX, &l))
                return 3;
            o.pid = (pid_t)l;
            break;
        case 'c':
            if (!*optarg || strstr(optarg, "..")) {
                term_printf(stderr, "perfreport: -c: '%s' is not a cgroup path", optarg);
                return 3;
            }
            o.cgroup = optarg;
            break;
        case 'o':
            if (!*optarg) {
                fprintf(stderr, "perfreport: -o: empty directory name\n");
                return 3;
            }
            o.outdir = optarg;
            break;
        case 'F':
            if (parse_long_arg("-F", optarg, 1, 10000, &l))
                return 3;
            o.hz = (int)l;
            break;
        case OPT_NO_BPF: o.no_bpf = true; break;
        case OPT_THRESHOLDS: o.thresholds_file = optarg; break;
        case OPT_ROOT: o.root = optarg; break;
        case OPT_NO_REDACT: o.no_redact = true; break;
        case OPT_OBFUSCATE: o.obfuscate = true; break;
        case OPT_MIN_BLOCK_US:
            if (options_set_min_block_us(&o, optarg)) {
                term_printf(stderr, "perfreport: --min-block-us: '%s' is not a whole number of "
                                    "microseconds in [1, 60000000]", optarg);
                return 3;
            }
            break;
        case 'q': o.quiet = true; break;
        case OPT_ONELINE: o.oneline = o.quiet = true; break;
        case OPT_METRICS:
            if (!*optarg) {
                fprintf(stderr, "perfreport: --metrics: empty file name\n");
                return 3;
            }
            o.metrics_file = optarg;
            break;
        case OPT_ARCHIVE: o.archive = true; break;
        case OPT_BASELINE: o.baseline = optarg; break;
        case OPT_USER:
            if (!*optarg) {
                fprintf(stderr, "perfreport: --user: empty user name\n");
                return 3;
            }
            o.user = optarg;
            break;
        case OPT_KEEP:
            if (parse_long_arg("--keep", optarg, 1, RETAIN_MAX_KEEP, &l))
                return 3;
            o.keep = (unsigned)l;
            break;
        case 'v': o.verbose++; break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("perfreport %s\n", PERFREPORT_VERSION); return 0;
        default: usage(stderr); return 3;
        }
    }
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
        usage(stderr);
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
    int rc = pipeline_run(&o);
    free(cg_path);
    return rc;
}
