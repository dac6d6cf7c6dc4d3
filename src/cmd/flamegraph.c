#include "flamegraph.h"
#include "subcmd.h"
#include "../flame/perf_collapse.h"
#include "../util/line_reader.h"
#include "../util/parse_num.h"
#include "../model/profile.h"
#include "../model/profile_chart.h"
#include "../model/profile_diff.h"
#include "../render/escape.h"
#include "../render/flame_colors.h"
#include "../render/flame_nameattr.h"
#include "../render/flame_palette_map.h"
#include "../flame/folded.h"
#include "../render/svg_flame.h"
#include "../util/strbuf.h"
#include "../util/xalloc.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define PROG "perfreport flamegraph"
#define SNIFF_LINES 64
#define SNIFF_BYTES (1u << 20)

static void usage(FILE *f)
{
    fputs("Usage: perfreport flamegraph [options] [FILE|-]...\n"
          "Draws an interactive flamegraph SVG (on stdout) from folded stacks\n"
          "(\"a;b;c 12\" lines, as stackcollapse-*.pl write them), `perf script` text, or\n"
          "difffolded.pl's differential lines (\"a;b;c 10 12\": before, after). Several\n"
          "files are read one after the other. Options are flamegraph.pl's; each can be\n"
          "written -option or --option, and --option=VALUE.\n"
          "\n"
          "      --title TEXT        title (default \"Flame Graph\"; \"Icicle Graph\" with\n"
          "                          --inverted, \"Flame Chart\" with --flamechart)\n"
          "      --subtitle TEXT     second title line\n"
          "      --width PX          image width (default 1200)\n"
          "      --height PX         height of one frame (default 16)\n"
          "      --minwidth PX|N%    omit frames narrower than PX pixels or N % of the\n"
          "                          total (default 0.1 px); their count stays in the parent\n"
          "      --fonttype FONT     font family (default \"Verdana, sans-serif\")\n"
          "      --fontsize PX       font size (default 12)\n"
          "      --fontwidth F       average character width / font size, to fit names\n"
          "                          in frames (default 0.59)\n"
          "      --countname NAME    what a count is (default \"samples\")\n"
          "      --nametype TEXT     words before a frame's line on hover, e.g. \"Function:\"\n"
          "                          (default none)\n"
          "      --colors PALETTE    hot (default), mem, io, wakeup, java, js, perl, chain,\n"
          "                          red, green, blue, aqua, yellow, purple, orange, kernel\n"
          "      --bgcolors COLOR    background gradient yellow, blue, green, grey, or a\n"
          "                          flat #rrggbb (default a plain light grey)\n"
          "      --hash              shade by the name's first characters: related names\n"
          "                          get close colours (default: a shade per name)\n"
          "      --random            a random shade for every frame, every run\n"
          "      --cp                consistent palette: names listed in ./palette.map keep\n"
          "                          their colour there, new names are added to it\n"
          "      --reverse           merge stacks leaf-first\n"
          "      --inverted          icicle graph: root at the top\n"
          "      --flamechart        flame chart: stacks in input (time) order, not merged\n"
          "                          and sorted; only neighbours merge\n"
          "      --negate            differential input: red for less, blue for more\n"
          "      --total N           the count of the full width (default the input's\n"
          "                          total); a larger N leaves room, to compare graphs\n"
          "      --factor F          multiply the counts shown by F (e.g. a sampling period)\n"
          "      --notes TEXT        text kept in the SVG (<desc class=\"fg-notes\">)\n"
          "      --nameattr FILE     extra attributes per name: lines NAME<TAB>key=value...\n"
          "                          (title, href, target, class, id, g_extra, a_extra)\n"
          "      --encoding NAME     XML encoding declared (default UTF-8); characters it\n"
          "                          may not hold are written as &#x..; references\n"
          "      --input-format FMT  auto (default), folded, perf\n"
          "inferno's options:\n"
          "      --stroke-color C    an outline of colour C (#rgb, #rrggbb, a name) to every\n"
          "                          frame (default none)\n"
          "      --truncate-text-right  names too long for their frame lose their end (the\n"
          "                          default here, as in flamegraph.pl)\n"
          "Lines of folded input that start with '#' are comments (inferno's).\n"
          "  -h, --help              this help\n"
          "\n"
          "Differential input colours each frame by the change of its own count (after\n"
          "minus before): red where it grew, blue where it shrank, white where it did\n"
          "not; widths are the after counts.\n"
          "Exit status: 0 graph written, 3 bad options or no usable input (nothing is\n"
          "written to stdout then).\n",
          f);
}

enum fmt { FMT_AUTO, FMT_FOLDED, FMT_PERF };

struct feeder {
    enum fmt fmt;
    struct profile *p;
    struct folded_parser fp;
    struct perf_collapse *pc;
};

static void feed(struct feeder *fd, const char *line, size_t len, size_t lineno)
{
    if (fd->fmt == FMT_PERF)
        perf_collapse_line(fd->pc, line, len);
    else
        folded_line(&fd->fp, line, len, lineno);
}

/* `perf script` text is collapsed as `perfreport collapse --all` collapses
 * it (the _[k]/_[j] annotations give frames their kinds), then read as
 * folded stacks: both commands draw the same frames. */
static void perf_into_folded(struct feeder *fd)
{
    perf_collapse_end(fd->pc);
    size_t n;
    const struct stack_entry *e = perf_collapse_stacks(fd->pc, &n);
    struct strbuf l = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        sb_reset(&l);
        sb_addn(&l, e[i].key, e[i].key_len);
        sb_addc(&l, ' ');
        stack_count_format(&e[i].count, &l);
        folded_line(&fd->fp, l.buf, l.len, i + 1);
    }
    sb_free(&l);
}

enum { OPT_TITLE = 256, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_FONTSIZE, OPT_MINWIDTH,
       OPT_COLORS, OPT_REVERSE, OPT_INVERTED, OPT_COUNTNAME, OPT_FORMAT, OPT_FONTTYPE,
       OPT_FONTWIDTH, OPT_NAMETYPE, OPT_BGCOLORS, OPT_HASH, OPT_RANDOM, OPT_CP, OPT_FLAMECHART,
       OPT_NEGATE, OPT_NOTES, OPT_TOTAL, OPT_FACTOR, OPT_ENCODING, OPT_NAMEATTR,
       OPT_STROKE, OPT_TRUNC_RIGHT };

/* Option text goes through esc_term: it may hold anything. */
static int bad_value(const char *opt, const char *val, const char *why)
{
    term_printf(stderr, PROG ": %s: '%s' %s", opt, val, why);
    return 3;
}

int flamegraph_parse_args(int argc, char **argv, struct flamegraph_args *a)
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
        {"fonttype", required_argument, NULL, OPT_FONTTYPE},
        {"fontwidth", required_argument, NULL, OPT_FONTWIDTH},
        {"nametype", required_argument, NULL, OPT_NAMETYPE},
        {"bgcolors", required_argument, NULL, OPT_BGCOLORS},
        {"hash", no_argument, NULL, OPT_HASH},
        {"random", no_argument, NULL, OPT_RANDOM},
        {"cp", no_argument, NULL, OPT_CP},
        {"flamechart", no_argument, NULL, OPT_FLAMECHART},
        {"negate", no_argument, NULL, OPT_NEGATE},
        {"notes", required_argument, NULL, OPT_NOTES},
        {"total", required_argument, NULL, OPT_TOTAL},
        {"factor", required_argument, NULL, OPT_FACTOR},
        {"encoding", required_argument, NULL, OPT_ENCODING},
        {"nameattr", required_argument, NULL, OPT_NAMEATTR},
        {"stroke-color", required_argument, NULL, OPT_STROKE},
        {"truncate-text-right", no_argument, NULL, OPT_TRUNC_RIGHT},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    flame_opts_default(&a->o);
    a->fmt = FLAMEGRAPH_AUTO;
    int ch;
    double v;
    optind = 0; /* GNU: full re-initialisation, flamegraph_main may run more than once */
    /* _only: "-title T" is "--title T", as Getopt::Long (flamegraph.pl) reads it */
    while ((ch = getopt_long_only(argc, argv, "h", longopts, NULL)) != -1) {
        switch (ch) {
        case OPT_TITLE: a->o.title = optarg; break;
        case OPT_SUBTITLE: a->o.subtitle = optarg; break;
        case OPT_WIDTH:
            if (parse_double_arg("--width", optarg, 100, 100000, "a number", &a->o.width))
                return 3;
            break;
        case OPT_HEIGHT:
            if (parse_double_arg("--height", optarg, 4, 1000, "a number", &a->o.frame_height))
                return 3;
            break;
        case OPT_FONTSIZE:
            if (parse_double_arg("--fontsize", optarg, 4, 200, "a number", &a->o.font_size))
                return 3;
            break;
        case OPT_FONTWIDTH:
            if (parse_double_arg("--fontwidth", optarg, 0.1, 2, "a number", &a->o.fontwidth))
                return 3;
            break;
        case OPT_MINWIDTH: {
            size_t n = strlen(optarg);
            a->o.minwidth_pct = n > 1 && optarg[n - 1] == '%';
            char *num = xstrndup(optarg, a->o.minwidth_pct ? n - 1 : n);
            int rc = a->o.minwidth_pct
                         ? parse_double_arg("--minwidth", num, 0, 100, "a percentage", &a->o.minwidth)
                         : parse_double_arg("--minwidth", num, 0, 100000, "a number of pixels",
                                            &a->o.minwidth);
            free(num);
            if (rc)
                return 3;
            break;
        }
        case OPT_COLORS:
            if (!flame_palette_valid(optarg))
                return bad_value("--colors", optarg, "is not a palette (" FLAME_PALETTES ")");
            a->o.colors = optarg;
            break;
        case OPT_BGCOLORS: {
            char c1[8], c2[8];
            if (!flame_bgcolors(optarg, c1, c2))
                return bad_value("--bgcolors", optarg, "is not yellow, blue, green, grey or #rrggbb");
            a->o.bgcolors = optarg;
            break;
        }
        case OPT_HASH: a->o.shade = FLAME_SHADE_HASH; break;
        case OPT_RANDOM: a->o.shade = FLAME_SHADE_RANDOM; break;
        case OPT_CP: a->cp = true; break;
        case OPT_REVERSE: a->o.reverse = true; break;
        case OPT_INVERTED: a->o.inverted = true; break;
        case OPT_FLAMECHART: a->flamechart = true; break;
        case OPT_NEGATE: a->o.negate = true; break;
        case OPT_COUNTNAME: a->o.countname = optarg; break;
        case OPT_FONTTYPE: a->o.fonttype = optarg; break;
        case OPT_NAMETYPE: a->o.nametype = optarg; break;
        case OPT_NOTES: a->o.notes = optarg; break;
        case OPT_NAMEATTR: a->nameattr = optarg; break;
        case OPT_STROKE:
            if (!flame_color_valid(optarg))
                return bad_value("--stroke-color", optarg, "is not #rgb, #rrggbb or a colour name");
            a->o.stroke = strcmp(optarg, "none") == 0 ? NULL : optarg;
            break;
        case OPT_TRUNC_RIGHT: break; /* names are always cut on the right, as flamegraph.pl's */
        case OPT_TOTAL:
            if (parse_double_arg("--total", optarg, 1, 1e18, "a count", &v))
                return 3;
            a->o.total = (uint64_t)ceil(v);
            a->total = v;
            break;
        case OPT_FACTOR:
            if (parse_double_arg("--factor", optarg, 1e-12, 1e12, "a number", &a->o.factor))
                return 3;
            break;
        case OPT_ENCODING:
            if (!flame_encoding_valid(optarg))
                return bad_value("--encoding", optarg,
                                 "is not an encoding known here that keeps ASCII as it is");
            a->o.encoding = optarg;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "auto") == 0)
                a->fmt = FLAMEGRAPH_AUTO;
            else if (strcmp(optarg, "folded") == 0)
                a->fmt = FLAMEGRAPH_FOLDED;
            else if (strcmp(optarg, "perf") == 0)
                a->fmt = FLAMEGRAPH_PERF;
            else
                return bad_value("--input-format", optarg, "is not auto, folded or perf");
            break;
        case 'h': usage(stdout); return 1;
        default: subcmd_try_help(PROG); return 3;
        }
    }
    a->files = (const char *const *)argv + optind;
    a->nfiles = (size_t)(argc - optind);
    return 0;
}

/* Several input files read as one stream (the sniffing and the parsers see
 * one text), with a line break between files that lack a last one.  Line
 * numbers are mapped back to a file and its own line for messages. */
struct catin {
    const char *const *paths;
    FILE **f;
    size_t n, cur;
    size_t *first_line; /* per file: lines read before it */
    size_t lines;
    char last;          /* last byte of the current file, 0 when none yet */
};

static ssize_t cat_read(void *cookie, char *buf, size_t size)
{
    struct catin *c = cookie;
    while (c->cur < c->n) {
        FILE *f = c->f[c->cur];
        size_t n = fread(buf, 1, size, f);
        if (n > 0) {
            for (const char *q = buf; (q = memchr(q, '\n', (size_t)(buf + n - q))) != NULL; q++)
                c->lines++;
            c->last = buf[n - 1];
            return (ssize_t)n;
        }
        if (ferror(f)) {
            term_printf(stderr, PROG ": %s: read error", c->paths[c->cur]);
            return -1;
        }
        if (c->last && c->last != '\n' && size) { /* end the file's last line */
            c->last = '\n';
            c->lines++;
            buf[0] = '\n';
            return 1;
        }
        if (f != stdin)
            fclose(f);
        c->f[c->cur] = NULL;
        c->cur++;
        c->last = 0;
        if (c->cur < c->n)
            c->first_line[c->cur] = c->lines;
    }
    return 0;
}

static int cat_close(void *cookie)
{
    struct catin *c = cookie;
    for (size_t i = 0; i < c->n; i++)
        if (c->f[i] && c->f[i] != stdin)
            fclose(c->f[i]);
    free(c->f);
    free(c->first_line);
    free(c);
    return 0;
}

/* Opens every file first, so that a missing one fails before any work. */
static FILE *cat_open(const char *const *paths, size_t n, struct catin **out)
{
    struct catin *c = xcalloc(1, sizeof *c);
    c->paths = paths;
    c->n = n;
    c->f = xcalloc(n, sizeof *c->f);
    c->first_line = xcalloc(n, sizeof *c->first_line);
    for (size_t i = 0; i < n; i++) {
        c->f[i] = strcmp(paths[i], "-") == 0 ? stdin : fopen(paths[i], "r");
        if (!c->f[i]) {
            term_printf(stderr, PROG ": %s: %s", paths[i], strerror(errno));
            cat_close(c);
            return NULL;
        }
    }
    FILE *f = fopencookie(c, "r", (cookie_io_functions_t){.read = cat_read, .close = cat_close});
    if (!f) {
        cat_close(c);
        return NULL;
    }
    /* 1 MiB reads instead of 4 KiB ones (fread passes requests that large
     * straight to read()): a 160 MB input is 40,000 fewer calls.  On failure
     * the default buffer stays. */
    (void)setvbuf(f, NULL, _IOFBF, 1 << 20);
    *out = c;
    return f;
}

/* "FILE:LINE" of a line number of the joined stream. */
static void where(const struct catin *c, size_t lineno, struct strbuf *sb)
{
    size_t i = 0;
    while (i + 1 < c->n && c->first_line[i + 1] < lineno && i + 1 <= c->cur)
        i++;
    const char *path = strcmp(c->paths[i], "-") == 0 ? "<stdin>" : c->paths[i];
    sb_reset(sb);
    sb_addf(sb, "%s:%zu", path, lineno - c->first_line[i]);
}

static void where_cb(void *cat, size_t lineno, struct strbuf *sb) { where(cat, lineno, sb); }

int flamegraph_main(int argc, char **argv)
{
    struct flamegraph_args args;
    int prc = flamegraph_parse_args(argc, argv, &args);
    if (prc)
        return prc == 1 ? 0 : 3;
    struct flame_opts o = args.o;
    enum fmt fmt = args.fmt == FLAMEGRAPH_PERF     ? FMT_PERF
                   : args.fmt == FLAMEGRAPH_FOLDED ? FMT_FOLDED
                                                   : FMT_AUTO;
    if (o.shade == FLAME_SHADE_RANDOM &&
        getrandom(&o.random_seed, sizeof o.random_seed, GRND_NONBLOCK) != sizeof o.random_seed)
        o.random_seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    struct flame_nameattr nameattr = {0};
    if (args.nameattr) {
        if (flame_nameattr_load(&nameattr, args.nameattr, stderr)) {
            flame_nameattr_free(&nameattr);
            return 3;
        }
        o.nameattr = &nameattr;
    }
    struct flame_palette_map pmap;
    flame_palette_map_init(&pmap);
    static const char pmap_path[] = "palette.map"; /* flamegraph.pl's, in the current directory */
    if (args.cp) {
        int rc = flame_palette_map_load(&pmap, pmap_path);
        if (rc) {
            fprintf(stderr, PROG ": --cp: %s: %s\n", pmap_path,
                    rc == -EFBIG ? "larger than 64 MiB" : strerror(-rc));
            flame_nameattr_free(&nameattr);
            return 3;
        }
        if (pmap.skipped)
            fprintf(stderr, PROG ": --cp: %s: %zu lines are not NAME->rgb(R,G,B) and were "
                            "ignored (the first: line %zu); they are dropped when it is rewritten\n",
                    pmap_path, pmap.skipped, pmap.first_skipped);
        o.palette_map = &pmap;
    }

    static const char *const dash[] = {"-"};
    const char *const *paths = args.nfiles ? args.files : dash;
    size_t npaths = args.nfiles ? args.nfiles : 1;
    struct catin *cat = NULL;
    FILE *in = cat_open(paths, npaths, &cat);
    if (!in) {
        flame_nameattr_free(&nameattr);
        flame_palette_map_free(&pmap);
        return 3;
    }
    struct strbuf shown_sb = STRBUF_INIT;
    if (npaths == 1)
        sb_add(&shown_sb, strcmp(paths[0], "-") == 0 ? "<stdin>" : paths[0]);
    else
        sb_addf(&shown_sb, "%zu input files", npaths);
    const char *shown = sb_str(&shown_sb);

    struct feeder fd = {.fmt = fmt, .p = profile_new("flamegraph", "Flame Graph", "samples")};
    fd.p->empty_names = true; /* "a;;b": a blank frame, as flamegraph.pl draws it */
    if (args.flamechart) {
        profile_chart_begin(fd.p, o.reverse); /* a chart is reversed as it is built */
        o.reverse = false;
    }

    fd.pc = perf_collapse_new(&(struct collapse_opts){.kernel = true, .jit = true});
    perf_collapse_set_where(fd.pc, where_cb, cat);
    folded_init(&fd.fp, fd.p);
    fd.fp.exact_fractions = true;
    fd.fp.comments = true; /* "# ..." lines, as inferno skips them */

    /* auto: look at the first lines (64, or 1 MiB of them) before committing
     * to a parser.  Lines are read with a bound: a longer one is cut to
     * FOLDED_MAX_LINE + 1 bytes (the parsers call it malformed) and the
     * rest of it is skipped, whatever its length. */
    struct line_reader lr;
    lr_init(&lr, in, FOLDED_MAX_LINE);
    struct strbuf head = STRBUF_INIT;
    size_t ends[SNIFF_LINES], nhead = 0, lineno = 0;
    const char *line;
    size_t len;
    int got = 1;
    if (fd.fmt == FMT_AUTO) {
        while (nhead < SNIFF_LINES && head.len < SNIFF_BYTES &&
               (got = lr_next(&lr, &line, &len)) == 1) {
            sb_addn(&head, line, len);
            sb_addc(&head, '\n');
            ends[nhead++] = head.len;
        }
        fd.fmt = perf_collapse_sniff(head.buf ? head.buf : "", head.len) ? FMT_PERF : FMT_FOLDED;
        size_t start = 0;
        for (size_t i = 0; i < nhead; i++) {
            feed(&fd, head.buf + start, ends[i] - start, ++lineno);
            start = ends[i];
        }
        sb_free(&head);
    }
    while (got == 1 && (got = lr_next(&lr, &line, &len)) == 1)
        feed(&fd, line, len, ++lineno);
    int read_err = got < 0 || ferror(in);
    lr_free(&lr);

    if (fd.fmt == FMT_PERF)
        perf_into_folded(&fd);
    /* fractional counts were kept in units of 10^-decimals */
    o.count_decimals = fd.fp.decimals;
    if (o.count_decimals && args.total > 0) {
        double t = ceil(args.total * pow(10, o.count_decimals));
        o.total = t < 1.8e19 ? (uint64_t)t : UINT64_MAX;
    }
    /* frames too narrow to draw are not built: most nodes of a large profile */
    profile_bulk_prune(fd.fp.bulk, svg_flame_undrawn_below(&o, profile_total(fd.p)));
    folded_finish(&fd.fp);
    struct flame_parse_stats st = fd.fp.st;
    int rc = read_err ? 3 : 0; /* the read error is reported by cat_read */
    if (!rc && fd.fmt == FMT_PERF)
        perf_collapse_report(fd.pc, stderr, PROG);
    perf_collapse_free(fd.pc);
    struct strbuf at = STRBUF_INIT;
    for (size_t i = 0; !rc && i < st.nbad; i++) {
        where(cat, st.bad_line[i], &at);
        term_printf(stderr, PROG ": %s: %s", sb_str(&at), st.bad_why[i]);
    }
    if (!rc && st.malformed > st.nbad)
        term_printf(stderr, PROG ": %s: %zu more malformed lines", shown, st.malformed - st.nbad);
    if (!rc && st.malformed)
        term_printf(stderr, PROG ": %s: %zu malformed lines ignored", shown, st.malformed);
    if (!rc && st.mixed) {
        /* half a differential graph would be drawn wrong without a sign */
        struct strbuf first = STRBUF_INIT;
        where(cat, st.mixed_line, &at);
        where(cat, fd.fp.form_line, &first);
        term_printf(stderr,
                    PROG ": %s: %s count%s where %s has %s: single and differential "
                         "(difffolded.pl) lines cannot be mixed (%zu such lines)",
                    sb_str(&at), fd.fp.form == 2 ? "one" : "two", fd.fp.form == 2 ? "" : "s",
                    sb_str(&first), fd.fp.form == 2 ? "two" : "one", st.mixed);
        sb_free(&first);
        rc = 3;
    }
    sb_free(&at);
    if (!rc && profile_total(fd.p) == 0) {
        term_printf(stderr, PROG ": %s: no stack counts found (%s input)", shown,
                    fd.fmt == FMT_PERF ? "perf script" : "folded");
        rc = 3;
    }
    if (!rc && o.total && o.total < profile_total(fd.p)) {
        fprintf(stderr, PROG ": --total %.15g is less than the input's total %.*f: ignored\n",
                args.total, (int)o.count_decimals,
                (double)profile_total(fd.p) / pow(10, o.count_decimals));
        o.total = 0;
    }
    fclose(in); /* closes every file (cat_close) */
    sb_free(&shown_sb);

    /* the SVG is made in memory and written only when everything worked:
     * a failed run leaves nothing that looks like a graph */
    struct strbuf out = STRBUF_INIT;
    if (!rc)
        svg_flame_render(fd.p, &o, true, NULL, &out);
    profile_free(fd.p);
    if (!rc && args.cp && pmap.changed) {
        int wrc = flame_palette_map_save(&pmap, pmap_path);
        if (wrc) {
            fprintf(stderr, PROG ": --cp: writing %s: %s\n", pmap_path, strerror(-wrc));
            rc = 3;
        }
    }
    if (!rc && (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout) != 0)) {
        fprintf(stderr, PROG ": writing the SVG: %s\n", strerror(errno));
        rc = 3;
    }
    sb_free(&out);
    flame_nameattr_free(&nameattr);
    flame_palette_map_free(&pmap);
    return rc;
}
