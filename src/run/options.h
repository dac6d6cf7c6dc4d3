/* Command-line options after parsing; read-only for every stage. */
#ifndef PERFREPORT_OPTIONS_H
#define PERFREPORT_OPTIONS_H
#include <stdbool.h>
#include <sys/types.h>

struct options {
    double duration_s;   /* -d, window length */
    double interval_s;   /* -i, snapshot interval */
    pid_t pid;           /* -p, 0 = none */
    const char *cgroup;  /* -c, NULL = none; a path relative to the cgroup root */
    const char *outdir;  /* -o, NULL = default name */
    const char *thresholds_file;
    const char *root;    /* --root, NULL = real host */
    int hz;              /* -F sampling frequency (profile collectors) */
    unsigned min_block_us; /* --min-block-us: shortest off-CPU wait counted */
    bool no_bpf;
    bool no_redact;      /* --no-redact: keep secrets in command lines (default: redact) */
    bool obfuscate;      /* --obfuscate: replace host/IP/MAC/user names in the bundle */
    bool quiet;
    bool oneline;        /* --oneline: quiet, then one line for a log (timers, cron) */
    const char *metrics_file; /* --metrics FILE: Prometheus/OpenMetrics text, NULL = none */
    const char *baseline; /* --baseline BUNDLE: compare with it; NULL = none */
    bool archive;        /* --archive: BUNDLE.tar.gz beside the bundle */
    unsigned keep;       /* --keep N: bundles of this host kept in the output's
                          * directory after publishing; 0 = no pruning */
    int verbose;
    char *const *command; /* after --: the command whose life is the window
                           * (NULL-terminated argv), NULL = none */
    const char *user;     /* --user: who the command runs as, NULL = default */
    bool duration_given;  /* -d was given (with a command: a cap) */
    const char *label;    /* --label TEXT, NULL = none (checked: text_plain_why) */
    const char *case_id;  /* --case-id ID, NULL = none (checked as well) */
    const char *trigger;  /* perfreport watch: why this capture runs (recorded in the
                           * report's host facts), NULL = not triggered */
};

void options_defaults(struct options *o);
/* Parses --min-block-us N (whole microseconds, 1..60000000) into o;
 * returns -1 and leaves o unchanged when s is not such a number. */
int options_set_min_block_us(struct options *o, const char *s);
#endif
