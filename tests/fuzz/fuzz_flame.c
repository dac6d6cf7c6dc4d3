/* Folded-stack parser and `perf script` collapser, then the profile
 * rendered as a flamegraph SVG, which must stay well-formed XML whatever the
 * frame names. */
#include "fuzz.h"
#include "flame/perf_collapse.h"
#include "model/profile.h"
#include "flame/folded.h"
#include "render/svg_flame.h"
#include "util/strbuf.h"
#include <ctype.h>

/* A small well-formedness check: balanced, properly nested tags; quoted
 * attribute values without '<'; '&' only as an entity; no '<' in text.
 * CDATA sections and comments are skipped. */
static bool entity_ok(const char *p)
{
    /* p at '&' */
    p++;
    if (*p == '#') {
        p++;
        if (*p == 'x') {
            p++;
            if (!isxdigit((unsigned char)*p))
                return false;
            while (isxdigit((unsigned char)*p))
                p++;
        } else {
            if (!isdigit((unsigned char)*p))
                return false;
            while (isdigit((unsigned char)*p))
                p++;
        }
        return *p == ';';
    }
    static const char *const names[] = {"amp;", "lt;", "gt;", "quot;", "apos;"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strncmp(p, names[i], strlen(names[i])))
            return true;
    return false;
}

static void check_xml(const char *s)
{
    enum { MAXD = 64 };
    const char *stack[MAXD];
    size_t slen[MAXD], depth = 0;
    bool seen_root = false;
    const char *p = s;
    while (*p) {
        if (!strncmp(p, "<![CDATA[", 9)) {
            const char *e = strstr(p, "]]>");
            FUZZ_ASSERT(e);
            p = e + 3;
        } else if (!strncmp(p, "<!--", 4)) {
            const char *e = strstr(p + 4, "-->");
            FUZZ_ASSERT(e);
            p = e + 3;
        } else if (!strncmp(p, "<?", 2) || !strncmp(p, "<!DOCTYPE", 9)) {
            const char *e = strchr(p, '>');
            FUZZ_ASSERT(e);
            p = e + 1;
        } else if (*p == '<') {
            p++;
            bool closing = *p == '/';
            if (closing)
                p++;
            FUZZ_ASSERT(isalpha((unsigned char)*p));
            const char *name = p;
            while (isalnum((unsigned char)*p) || *p == ':' || *p == '-' || *p == '_')
                p++;
            size_t nl = (size_t)(p - name);
            bool empty = false;
            for (;;) {
                while (isspace((unsigned char)*p))
                    p++;
                if (*p == '>') {
                    p++;
                    break;
                }
                if (*p == '/' && p[1] == '>') {
                    FUZZ_ASSERT(!closing);
                    empty = true;
                    p += 2;
                    break;
                }
                FUZZ_ASSERT(!closing);
                FUZZ_ASSERT(isalpha((unsigned char)*p));
                while (isalnum((unsigned char)*p) || *p == ':' || *p == '-' || *p == '_')
                    p++;
                FUZZ_ASSERT(*p == '=');
                p++;
                FUZZ_ASSERT(*p == '"' || *p == '\'');
                char q = *p++;
                while (*p != q) {
                    FUZZ_ASSERT(*p && *p != '<');
                    if (*p == '&')
                        FUZZ_ASSERT(entity_ok(p));
                    p++;
                }
                p++;
            }
            if (closing) {
                FUZZ_ASSERT(depth > 0);
                depth--;
                FUZZ_ASSERT(slen[depth] == nl && !strncmp(stack[depth], name, nl));
            } else if (!empty) {
                FUZZ_ASSERT(depth < MAXD);
                if (depth == 0) {
                    FUZZ_ASSERT(!seen_root);
                    seen_root = true;
                }
                stack[depth] = name;
                slen[depth++] = nl;
            }
        } else {
            if (*p == '&')
                FUZZ_ASSERT(entity_ok(p));
            p++;
        }
    }
    FUZZ_ASSERT(depth == 0 && seen_root);
}

static void render(struct profile *p, bool perf)
{
    struct flame_opts o;
    flame_opts_default(&o);
    o.minwidth = 0; /* draw every frame */
    struct strbuf svg = STRBUF_INIT;
    svg_flame_render(p, &o, true, NULL, &svg);
    check_xml(sb_str(&svg));
    sb_reset(&svg);
    o.inverted = perf;
    o.reverse = !perf;
    o.title = "t<i>&";
    svg_flame_render(p, &o, false, "x\"<", &svg);
    check_xml(sb_str(&svg));
    sb_free(&svg);

    struct strbuf folded = STRBUF_INIT;
    folded_write(p, &folded);
    /* What we write, we read back to the same total. */
    struct profile *q = profile_new("cpu", NULL, NULL);
    struct flame_parse_stats st = {0};
    folded_parse(q, sb_str(&folded), folded.len, &st);
    FUZZ_ASSERT(st.malformed == 0);
    FUZZ_ASSERT(profile_total(q) == profile_total(p));
    profile_free(q);
    sb_free(&folded);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Parsers take (text, len): no terminator, a read past len is caught. */
    char *text = fuzz_bytes(data, size);
    struct flame_parse_stats st = {0};
    perf_collapse_sniff(text, size);

    struct profile *p = profile_new("cpu", "On-CPU", "samples");
    folded_parse(p, text, size, &st);
    FUZZ_ASSERT(st.nbad <= FLAME_MAX_BAD);
    render(p, false);
    profile_free(p);

    /* as `perfreport flamegraph` reads perf script: collapsed with --all,
     * then read as folded stacks */
    struct perf_collapse *pc = perf_collapse_new(&(struct collapse_opts){.kernel = true, .jit = true});
    const char *s = text, *end = text + size;
    while (s < end) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        perf_collapse_line(pc, s, (size_t)(le - s));
        s = nl ? nl + 1 : end;
    }
    perf_collapse_end(pc);
    struct strbuf folded = STRBUF_INIT;
    perf_collapse_write(pc, &folded);
    size_t nstacks;
    perf_collapse_stacks(pc, &nstacks);
    FUZZ_ASSERT(nstacks <= perf_collapse_stats(pc)->samples);
    perf_collapse_free(pc);
    p = profile_new("cpu", "On-CPU", "samples");
    memset(&st, 0, sizeof st); /* the parsers add to st */
    folded_parse(p, sb_str(&folded), folded.len, &st);
    FUZZ_ASSERT(st.nbad <= FLAME_MAX_BAD);
    sb_free(&folded);
    render(p, true);
    profile_free(p);
    free(text);
    return 0;
}
