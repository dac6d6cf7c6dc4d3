#include "flamegraph_cmd.h"
#include "util/parse_num.h"
#include "model/profile.h"
#include "render/folded.h"
#include "render/svg_flame.h"
#include "util/strbuf.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "perfreport flamegraph"
#define SNIFF_LINES 64

static void usage(FILE *f)
{
    fputs("Usage: perfreport flamegraph [options] [FILE|-]\n"
          "Draws an interactive flamegraph SVG (on stdout) from folded stacks\n"
          "(\"a;b;c 12\" lines, as stackcollapse-*.pl write them) or `perf script` text.\n"
          "\n"
          "      --title TEXT        title (default \"Flame Graph\")\n"
          "      --subtitle TEXT     second title line\n"
          "      --width PX          image width (default 1200)\n"
          "      --height PX         height of one frame (default 16)\n"
          "      --fontsize PX       font size (default 12)\n"
          "      --minwidth PX       omit frames narrower than this (default 0.1)\n"
          "      --colors PALETTE    hot (default), mem, io, java, kernel\n"
          "      --reverse           merge stacks leaf-first\n"
          "      --inverted          icicle graph: root at the top\n"
          "      --countname NAME    what a count is (default \"samples\")\n"
          "      --input-format FMT  auto (default), folded, perf\n"
          "  -h, --help              this help\n"
          "\n"
          "Exit status: 0 graph written, 3 bad options or no usable input.\n",
          f);
}

enum fmt { FMT_AUTO, FMT_FOLDED, FMT_PERF };

struct feeder {
    enum fmt fmt;
    struct profile *p;
    struct folded_parser fp;
    struct perf_script_parser ps;
};

static void feed(struct feeder *fd, const char *line, size_t len, size_t lineno)
{
    if (fd->fmt == FMT_PERF)
        perf_script_line(&fd->ps, line, len, lineno);
    else
        folded_line(&fd->fp, line, len, lineno);
}

enum { OPT_TITLE = 256, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_FONTSIZE, OPT_MINWIDTH,
       OPT_COLORS, OPT_REVERSE, OPT_INVERTED, OPT_COUNTNAME, OPT_FORMAT };

int flamegraph_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"title", required_argument, NULL, OPT_TITLE},
        {"subtitle", required_argument, NULL, OPT_SUBTITLE},
        {"width", required_argument, NULL, OPT_WIDTH},
        {"height", required_argument, NULL, OPT_HEIGHT},
        {"fontsize", required_argument, NULL, OPT_FONTSIZE},
        {"minwidth", required_argument, NULL, OPT_MINWIDTH},
        {"colors", required_argument, NULL, OPT_COLORS},
        {"reverse", no_argument, NULL, OPT_REVERSE},
        {"inverted", no_argument, NULL, OPT_INVERTED},
        {"countname", required_argument, NULL, OPT_COUNTNAME},
        {"input-format", required_argument, NULL, OPT_FORMAT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct flame_opts o;
    flame_opts_default(&o);
    enum fmt fmt = FMT_AUTO;
    int ch;
    optind = 0; /* GNU: full re-initialisation, flamegraph_main may run more than once */
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (ch) {
        case OPT_TITLE: o.title = optarg; break;
        case OPT_SUBTITLE: o.subtitle = optarg; break;
        case OPT_WIDTH:
            if (parse_double_arg("--width", optarg, 100, 100000, "a number", &o.width))
                return 3;
            break;
        case OPT_HEIGHT:
            if (parse_double_arg("--height", optarg, 4, 1000, "a number", &o.frame_height))
                return 3;
            break;
        case OPT_FONTSIZE:
            if (parse_double_arg("--fontsize", optarg, 4, 200, "a number", &o.font_size))
                return 3;
            break;
        case OPT_MINWIDTH:
            if (parse_double_arg("--minwidth", optarg, 0, 100000, "a number", &o.minwidth))
                return 3;
            break;
        case OPT_COLORS:
            if (!flame_palette_valid(optarg)) {
                fprintf(stderr, PROG ": --colors: unknown palette '%s' (hot, mem, io, java, kernel)\n",
                        optarg);
                return 3;
            }
            o.colors = optarg;
            break;
        case OPT_REVERSE: o.reverse = true; break;
        case OPT_INVERTED: o.inverted = true; break;
        case OPT_COUNTNAME: o.countname = optarg; break;
        case OPT_FORMAT:
            if (strcmp(optarg, "auto") == 0)
                fmt = FMT_AUTO;
            else if (strcmp(optarg, "folded") == 0)
                fmt = FMT_FOLDED;
            else if (strcmp(optarg, "perf") == 0)
                fmt = FMT_PERF;
            else {
                fprintf(stderr, PROG ": --input-format: '%s' is not auto, folded or perf\n",
                        optarg);
                return 3;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 3;
        }
    }
    if (argc - optind > 1) {
        fprintf(stderr, PROG ": one input file at most\n");
        usage(stderr);
        return 3;
    }
    const char *path = optind < argc ? argv[optind] : "-";
    FILE *in = stdin;
    if (strcmp(path, "-") != 0) {
        in = fopen(path, "r");
        if (!in) {
            fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
            return 3;
        }
    }
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    /* 1 MiB reads instead of 4 KiB ones: a 160 MB input is 40,000 fewer
     * calls.  On failure the default buffer stays. */
    (void)setvbuf(in, NULL, _IOFBF, 1 << 20);

    struct feeder fd = {.fmt = fmt, .p = profile_new("flamegraph", "Flame Graph", "samples")};
    perf_script_init(&fd.ps, fd.p);
    folded_init(&fd.fp, fd.p);

    /* auto: look at the first lines before committing to a parser */
    struct strbuf head = STRBUF_INIT;
    size_t *ends = NULL, nhead = 0;
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t n;
    if (fd.fmt == FMT_AUTO) {
        ends = calloc(SNIFF_LINES, sizeof *ends);
        if (!ends) {
            fprintf(stderr, PROG ": out of memory\n");
            exit(3);
        }
        while (nhead < SNIFF_LINES && (n = getline(&line, &cap, in)) > 0) {
            sb_addn(&head, line, (size_t)n);
            ends[nhead++] = head.len;
        }
        fd.fmt = looks_like_perf_script(head.buf ? head.buf : "", head.len) ? FMT_PERF
                                                                             : FMT_FOLDED;
        size_t start = 0;
        for (size_t i = 0; i < nhead; i++) {
            feed(&fd, head.buf + start, ends[i] - start, ++lineno);
            start = ends[i];
        }
        sb_free(&head);
        free(ends);
    }
    while ((n = getline(&line, &cap, in)) > 0)
        feed(&fd, line, (size_t)n, ++lineno);
    int read_err = ferror(in);
    free(line);
    if (in != stdin)
        fclose(in);

    perf_script_finish(&fd.ps);
    /* frames too narrow to draw are not built: most nodes of a large profile */
    profile_bulk_prune(fd.fp.bulk, svg_flame_undrawn_below(&o, profile_total(fd.p)));
    folded_finish(&fd.fp);
    struct flame_parse_stats st = fd.fmt == FMT_PERF ? fd.ps.st : fd.fp.st;
    if (read_err) {
        fprintf(stderr, PROG ": %s: read error\n", shown);
        profile_free(fd.p);
        return 3;
    }
    for (size_t i = 0; i < st.nbad; i++)
        fprintf(stderr, PROG ": %s:%zu: %s\n", shown, st.bad_line[i], st.bad_why[i]);
    if (st.malformed > st.nbad)
        fprintf(stderr, PROG ": %s: %zu more malformed lines\n", shown, st.malformed - st.nbad);
    if (st.malformed)
        fprintf(stderr, PROG ": %s: %zu malformed lines ignored\n", shown, st.malformed);
    if (st.other_events)
        fprintf(stderr, PROG ": %s: %zu samples of other events than the first ignored\n",
                shown, st.other_events);

    int rc = 0;
    if (profile_total(fd.p) == 0) {
        fprintf(stderr, PROG ": %s: no stack counts found (%s input)\n", shown,
                fd.fmt == FMT_PERF ? "perf script" : "folded");
        rc = 3;
    }
    struct strbuf out = STRBUF_INIT;
    svg_flame_render(fd.p, &o, true, NULL, &out);
    profile_free(fd.p);
    if (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
        fprintf(stderr, PROG ": writing the SVG: %s\n", strerror(errno));
        rc = 3;
    }
    sb_free(&out);
    return rc;
}
