#include "subcmd.h"
#include <string.h>

int subcmd_parse(const char *prog, int argc, char **argv, struct subcmd_common *c,
                 const struct subcmd_extra *extra, void (*usage)(FILE *))
{
    static const struct option common[] = {
        {"output", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
    };
    enum { NCOMMON = sizeof common / sizeof common[0] };
    struct option longopts[NCOMMON + SUBCMD_MAX_EXTRA + 1];
    size_t nextra = extra ? extra->nlongopts : 0;
    if (nextra > SUBCMD_MAX_EXTRA) { /* a programming error, not the user's */
        fprintf(stderr, "%s: too many options (%zu)\n", prog, nextra);
        return 3;
    }
    memcpy(longopts, common, sizeof common);
    if (nextra)
        memcpy(longopts + NCOMMON, extra->longopts, nextra * sizeof *longopts);
    longopts[NCOMMON + nextra] = (struct option){NULL, 0, NULL, 0};

    int ch;
    optind = 0; /* GNU: full re-initialisation */
    while ((ch = getopt_long(argc, argv, "o:qvh", longopts, NULL)) != -1) {
        switch (ch) {
        case 'o':
            if (!*optarg) {
                fprintf(stderr, "%s: -o: empty directory name\n", prog);
                return 3;
            }
            c->outdir = optarg;
            break;
        case 'q': c->quiet = true; break;
        case 'v': c->verbose++; break;
        case 'h': usage(stdout); return 1;
        case '?': subcmd_try_help(prog); return 3;
        default:
            if (nextra) {
                int rc = extra->on_option(ch, optarg, extra->ctx);
                if (rc)
                    return rc;
                break;
            }
            subcmd_try_help(prog);
            return 3;
        }
    }
    return 0;
}

void subcmd_try_help(const char *prog)
{
    fprintf(stderr, "Try '%s --help' for more information.\n", prog);
}
