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
    bool no_bpf;
    bool no_redact;      /* --no-redact: keep secrets in command lines (default: redact) */
    bool obfuscate;      /* --obfuscate: replace host/IP/MAC/user names in the bundle */
    bool quiet;
    int verbose;
};

void options_defaults(struct options *o);
#endif
