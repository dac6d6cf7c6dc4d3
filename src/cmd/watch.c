/* `perfreport watch`: waits for conditions (--when) and runs the ordinary
 * capture when one holds, into the bundles' directory -o.  The options are
 * read and checked here, every one before the watcher starts (a bad --when
 * stops it with exit 3); the waiting and the captures are src/watch/. */
#include "watch.h"
#include "cmd.h"
#include "subcmd.h"
#include "../render/escape.h"
#include "../run/options.h"
#include "../util/caller.h"
#include "../util/parse_num.h"
#include "../watch/cond.h"
#include "../watch/gov.h"
#include "../watch/watch.h"
#include "../bundle/retain.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fputs("Usage: perfreport watch [-o DIR] [--when COND]... [--before SECS] [-d SECS]\n"
          "                        [--cooldown SECS] [--max-per-hour N] [--keep N] [-q] [-v]\n"
          "Waits until a condition holds, then runs the normal capture and writes its\n"
          "bundle into DIR, with the condition that triggered it in the report; until\n"
          "SIGTERM, SIGINT or SIGHUP.\n"
          "\n"
          "  -o, --output DIR        directory of the bundles, made (mode 0700) if missing\n"
          "                          (default: the current directory)\n"
          "      --when COND         a condition, repeatable (default: the set below):\n"
          "                            cpu.util_pct>90 for 10s   (/proc/stat at 1 Hz)\n"
          "                            psi.memory.some>25        (PSI trigger; cpu, memory,\n"
          "                            psi.io.some>25             io; some or full; 'for'\n"
          "                                                      0.5-10 s, default 10 s)\n"
          "                            memory.oom                (an OOM kill)\n"
          "      --before SECS       keep the charted samples (CPU, memory, disk, network,\n"
          "                          PSI) of the last SECS while waiting, and chart them\n"
          "                          before the window (default 60; 0 none; at most 3600)\n"
          "  -d, --duration SECS     each capture's window (default 30)\n"
          "      --cooldown SECS     no capture within SECS after the last one ended,\n"
          "                          unless a tenth worse than the last capture of that\n"
          "                          condition (default 300)\n"
          "      --max-per-hour N    at most N captures an hour (default 6, at most 60)\n"
          "      --keep N            after each capture keep the N newest bundles of this\n"
          "                          host in DIR, removing older ones (as perfreport --keep)\n"
          "  -q, --quiet             only errors on stderr\n"
          "  -v, --verbose           more detail on stderr\n"
          "  -h, --help              this help\n",
          f);
}

static const char *const default_conds[] = {
    "cpu.util_pct>90 for 10s",
    "psi.memory.some>25",
    "psi.io.some>25",
    "memory.oom",
};

enum { OPT_WHEN = 256, OPT_COOLDOWN, OPT_MAX_PER_HOUR, OPT_BEFORE, OPT_KEEP };

static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"when", required_argument, NULL, OPT_WHEN},
    {"before", required_argument, NULL, OPT_BEFORE},
    {"keep", required_argument, NULL, OPT_KEEP},
    {"duration", required_argument, NULL, 'd'},
    {"cooldown", required_argument, NULL, OPT_COOLDOWN},
    {"max-per-hour", required_argument, NULL, OPT_MAX_PER_HOUR},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

struct watch_args {
    struct options run;
    const char *outdir;
    struct watch_cond conds[WATCH_MAX_CONDS];
    size_t nconds;
    double cooldown_s;
    unsigned max_per_hour;
    unsigned before_s;
};

static int add_cond(struct watch_args *a, const char *text)
{
    char err[256];
    if (a->nconds == WATCH_MAX_CONDS) {
        fprintf(stderr, "perfreport watch: at most %d --when conditions\n", WATCH_MAX_CONDS);
        return 3;
    }
    if (watch_cond_parse(text, &a->conds[a->nconds], err, sizeof err) != 0) {
        term_printf(stderr, "perfreport watch: --when '%s': %s", text, err);
        return 3;
    }
    a->nconds++;
    return 0;
}

/* The command line into *a.  -1 to go on, or the exit status to end with
 * (0 after --help, 3 after a message). */
static int parse_args(int argc, char **argv, struct watch_args *a)
{
    int ch;
    long l;
    optind = 0; /* GNU: full re-initialisation */
    while ((ch = getopt_long(argc, argv, "o:d:qvh", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o':
            if (!*optarg) {
                fprintf(stderr, "perfreport watch: -o: empty directory name\n");
                return 3;
            }
            a->outdir = optarg;
            break;
        case OPT_WHEN:
            if (add_cond(a, optarg))
                return 3;
            break;
        case 'd':
            if (parse_double_arg("-d", optarg, 1, 3600, "a number of seconds",
                                 &a->run.duration_s))
                return 3;
            a->run.duration_given = true;
            break;
        case OPT_COOLDOWN:
            if (parse_double_arg("--cooldown", optarg, 0, 86400, "a number of seconds",
                                 &a->cooldown_s))
                return 3;
            break;
        case OPT_BEFORE:
            if (parse_long_arg("--before", optarg, 0, WATCH_BEFORE_MAX_S, &l))
                return 3;
            a->before_s = (unsigned)l;
            break;
        case OPT_KEEP:
            if (parse_long_arg("--keep", optarg, 1, RETAIN_MAX_KEEP, &l))
                return 3;
            a->run.keep = (unsigned)l;
            break;
        case OPT_MAX_PER_HOUR:
            if (parse_long_arg("--max-per-hour", optarg, 1, WATCH_MAX_PER_HOUR, &l))
                return 3;
            a->max_per_hour = (unsigned)l;
            break;
        case 'q': a->run.quiet = true; break;
        case 'v': a->run.verbose++; break;
        case 'h': usage(stdout); return 0;
        default: subcmd_try_help("perfreport watch"); return 3;
        }
    }
    if (optind < argc) {
        term_printf(stderr, "perfreport watch: unexpected argument '%s'", argv[optind]);
        return 3;
    }
    for (size_t i = 0; a->nconds == 0 && i < sizeof default_conds / sizeof *default_conds; i++)
        if (add_cond(a, default_conds[i]))
            return 3;
    return -1;
}

/* One watcher per directory: two would each count the other's bundles for
 * --keep and race for names.  The lock is a 0600 file of ours in it, not
 * the directory itself: anyone who can open the directory read-only (a
 * 0755 /var/lib/perfreport) could flock that and keep every watcher from
 * starting.  The kernel drops the lock with the watcher, however it ended
 * (a restart after SIGKILL finds the file, unlocked).  Called with the
 * caller's rights (open_outdir): the file is theirs, as the bundles are.
 * The locked descriptor, or -1 after a message. */
#define WATCH_LOCK_NAME ".perfreport-watch.lock"
static int lock_outdir(int dirfd, const char *dir)
{
    /* O_NONBLOCK: a FIFO planted under the name must not hang the start. */
    int fd = openat(dirfd, WATCH_LOCK_NAME,
                    O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0) {
        term_printf(stderr, "perfreport watch: -o %s: lock file %s: %s", dir, WATCH_LOCK_NAME,
                    errno == ELOOP ? "a symbolic link: refused (remove it)" : strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != fs_uid() ||
        st.st_nlink != 1) {
        /* Someone else's file (or a link to one) would let them hold or
         * break the lock: refused, never used or changed. */
        term_printf(stderr, "perfreport watch: -o %s: lock file %s is not a regular file of "
                    "the user running the watcher (uid %u): refused (remove it)", dir,
                    WATCH_LOCK_NAME, (unsigned)fs_uid());
        close(fd);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        term_printf(stderr, "perfreport watch: -o %s: %s", dir,
                    errno == EWOULDBLOCK ? "another perfreport watch holds its lock"
                                         : strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* The bundles' directory, made if missing, opened for the captures (their
 * current directory), and its watcher's lock (lock_outdir) into *lock_fd.
 * Under sudo with the caller's rights, as the run's -o.  A symbolic link
 * is refused: it could be swapped between captures.  The descriptor, or
 * -1 after a message. */
static int open_outdir(const char *dir, int *lock_fd)
{
    char err[256];
    *lock_fd = -1;
    if (!caller_enter_msg(err, sizeof err)) {
        term_printf(stderr, "perfreport watch: %s", err);
        return -1;
    }
    int fd = -1;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        term_printf(stderr, "perfreport watch: -o %s: cannot make it: %s", dir, strerror(errno));
    else if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        term_printf(stderr, "perfreport watch: -o %s: %s", dir,
                    errno == ELOOP ? "a symbolic link (give the directory it names)"
                                   : strerror(errno));
    else if ((*lock_fd = lock_outdir(fd, dir)) < 0) {
        close(fd);
        fd = -1;
    }
    caller_leave();
    return fd;
}

int watch_main(int argc, char **argv)
{
    struct watch_args a = {.outdir = ".", .cooldown_s = 300, .max_per_hour = 6, .before_s = 60};
    options_defaults(&a.run);
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        return rc;
    int lock_fd;
    int fd = open_outdir(a.outdir, &lock_fd);
    if (fd < 0)
        return 3;
    const struct watch_config cfg = {
        .conds = a.conds,
        .nconds = a.nconds,
        .out_fd = fd,
        .out_shown = a.outdir,
        .cooldown_s = a.cooldown_s,
        .max_per_hour = a.max_per_hour,
        .before_s = a.before_s,
        .run = &a.run,
    };
    rc = watch_run(&cfg);
    close(fd);
    close(lock_fd); /* the captures (forked) held it too; they are over */
    return rc;
}
