#include "collapse.h"
#include "subcmd.h"
#include "../flame/perf_collapse.h"
#include "../render/escape.h"
#include "../util/line_reader.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "perfreport collapse"

static void usage(FILE *f)
{
    fputs("Usage: perfreport collapse [options] [FILE...|-]\n"
          "Collapses `perf script` text into folded stacks (\"a;b;c COUNT\" lines, sorted)\n"
          "on stdout, as stackcollapse-perf.pl does: perf script | perfreport collapse\n"
          "\n"
          "      --pid               root frame \"comm-PID\" (perf script must print pid and tid)\n"
          "      --tid               root frame \"comm-PID/TID\"\n"
          "      --kernel            annotate kernel frames with _[k]\n"
          "      --jit               annotate JIT frames (/tmp/perf-PID.map) with _[j]\n"
          "      --all               --kernel and --jit\n"
          "      --addrs             \"[lib.so <addr>]\" for frames without a symbol\n"
          "      --inline            accepted; addr2line is not run: inline frames that\n"
          "                          perf printed are kept (as without the option)\n"
          "      --event-filter EVENT  keep the samples of EVENT (default: the first event\n"
          "                          seen; the others are counted on stderr)\n"
          "      --skip-after FUNC   leave out the callers of the first frame named FUNC\n"
          "                          (inferno's option; may be given again)\n"
          "  -q, --quiet             no warnings on stderr (errors still)\n"
          "  -h, --help              this help\n"
          "\n"
          "Exit status: 0 stacks written, or none found (as stackcollapse-perf.pl: empty\n"
          "output, a warning on stderr); 3 bad options or unreadable input (then nothing\n"
          "is written to stdout).\n",
          f);
}

enum { OPT_PID = 256, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_ADDRS, OPT_INLINE,
       OPT_EVENT, OPT_SKIP_AFTER };
#define MAX_SKIP_AFTER 64

/* Feeds one input; returns 0, or -1 after printing why it failed. */
static int feed_file(struct perf_collapse *pc, const char *path)
{
    bool is_stdin = strcmp(path, "-") == 0;
    const char *shown = is_stdin ? "<stdin>" : path;
    FILE *in = is_stdin ? stdin : fopen(path, "r");
    if (!in) {
        term_printf(stderr, PROG ": %s: %s", path, strerror(errno));
        return -1;
    }
    perf_collapse_begin_file(pc, shown);
    struct line_reader r;
    lr_init(&r, in, PERF_COLLAPSE_MAX_LINE);
    const char *line;
    size_t len;
    int got;
    while ((got = lr_next(&r, &line, &len)) == 1)
        perf_collapse_line(pc, line, len);
    int err = errno;
    lr_free(&r);
    if (!is_stdin)
        fclose(in);
    if (got < 0) {
        term_printf(stderr, PROG ": %s: read error: %s", shown, strerror(err));
        return -1;
    }
    return 0;
}

/* Writes out to stdout; through esc_term line by line when stdout is a
 * terminal, so that names cannot drive it. */
static int write_out(const struct strbuf *out)
{
    if (!isatty(STDOUT_FILENO))
        return fwrite(out->buf, 1, out->len, stdout) == out->len ? 0 : -1;
    struct strbuf esc = STRBUF_INIT;
    const char *s = sb_str(out);
    int rc = 0;
    while (*s && rc == 0) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        char *one = xstrndup(s, n);
        sb_reset(&esc);
        esc_term(&esc, one);
        sb_addc(&esc, '\n');
        free(one);
        rc = fwrite(esc.buf, 1, esc.len, stdout) == esc.len ? 0 : -1;
        s = nl ? nl + 1 : s + n;
    }
    sb_free(&esc);
    return rc;
}

int collapse_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"pid", no_argument, NULL, OPT_PID},
        {"tid", no_argument, NULL, OPT_TID},
        {"kernel", no_argument, NULL, OPT_KERNEL},
        {"jit", no_argument, NULL, OPT_JIT},
        {"all", no_argument, NULL, OPT_ALL},
        {"addrs", no_argument, NULL, OPT_ADDRS},
        {"inline", no_argument, NULL, OPT_INLINE},
        {"event-filter", required_argument, NULL, OPT_EVENT},
        {"skip-after", required_argument, NULL, OPT_SKIP_AFTER},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct collapse_opts o = {0};
    const char *skip_after[MAX_SKIP_AFTER];
    o.skip_after = skip_after;
    bool quiet = false;
    int ch;
    optind = 0; /* GNU: full re-initialisation */
    /* getopt's own messages begin with argv[0]: the command's name, not "collapse" */
    char *argv0 = argv[0];
    argv[0] = (char *)PROG;
    while ((ch = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
        switch (ch) {
        case OPT_PID: o.pid = true; break;
        case OPT_TID: o.tid = true; break;
        case OPT_KERNEL: o.kernel = true; break;
        case OPT_JIT: o.jit = true; break;
        case OPT_ALL: o.kernel = o.jit = true; break;
        case OPT_ADDRS: o.addrs = true; break;
        case OPT_INLINE: o.inline_frames = true; break;
        case OPT_EVENT:
            if (!*optarg || strpbrk(optarg, " \t\r\n")) {
                term_printf(stderr, PROG ": --event-filter: '%s' is not an event name", optarg);
                argv[0] = argv0;
                return 3;
            }
            o.event_filter = optarg;
            break;
        case OPT_SKIP_AFTER:
            if (!*optarg || o.nskip_after == MAX_SKIP_AFTER) {
                term_printf(stderr, PROG ": --skip-after: '%s': %s", optarg,
                            *optarg ? "more than 64 functions" : "an empty name");
                argv[0] = argv0;
                return 3;
            }
            skip_after[o.nskip_after++] = optarg;
            break;
        case 'q': quiet = true; break;
        case 'h': usage(stdout); argv[0] = argv0; return 0;
        default: subcmd_try_help(PROG); argv[0] = argv0; return 3;
        }
    }
    argv[0] = argv0;
    struct perf_collapse *pc = perf_collapse_new(&o);
    int rc = 0;
    if (optind == argc)
        rc = feed_file(pc, "-");
    for (int i = optind; i < argc && rc == 0; i++)
        rc = feed_file(pc, argv[i]);
    perf_collapse_end(pc);
    if (rc != 0) {
        perf_collapse_free(pc);
        return 3;
    }
    if (!quiet)
        perf_collapse_report(pc, stderr, PROG);
    size_t n;
    perf_collapse_stacks(pc, &n);
    if (n == 0) { /* as stackcollapse-perf.pl: nothing on stdout, and no failure */
        const struct perf_collapse_stats *st = perf_collapse_stats(pc);
        if (!quiet)
            term_printf(stderr, PROG ": no stack found (%zu lines read, %zu samples)", st->lines,
                        st->samples);
        perf_collapse_free(pc);
        return 0;
    }
    struct strbuf out = STRBUF_INIT;
    perf_collapse_write(pc, &out);
    perf_collapse_free(pc);
    if (write_out(&out) != 0 || fflush(stdout) != 0) {
        term_printf(stderr, PROG ": writing the stacks: %s", strerror(errno));
        rc = 3;
    }
    sb_free(&out);
    return rc;
}
