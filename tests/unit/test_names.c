/* The names table (src/model/names.def) and the contract that describes it
 * (src/model/NAMES.md) agree: every name and pattern the code uses is
 * documented. */
#include "harness.h"
#include "../../src/model/names.h"
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NAMES.md, whole; NULL when it cannot be read.  Caller frees. */
static char *names_md(void)
{
    FILE *f = fopen(fixture("../../src/model/NAMES.md"), "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf && n == 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* `name` appears in the text as a whole backticked token. */
static bool documented(const char *md, const char *name)
{
    char tok[256];
    snprintf(tok, sizeof tok, "`%s`", name);
    return strstr(md, tok) != NULL;
}

/* A pattern as a regular expression: %s one word, %zu a number (with
 * upper case: NAMES.md's placeholders). */
static bool pattern_matches_as(const char *fmt, const char *name, bool upper)
{
    char re[256] = "^";
    size_t o = 1;
    for (const char *p = fmt; *p && o < sizeof re - 16; p++) {
        if (strncmp(p, "%zu", 3) == 0) {
            o += (size_t)snprintf(re + o, sizeof re - o, upper ? "[0-9A-Z]+" : "[0-9]+");
            p += 2;
        } else if (strncmp(p, "%s", 2) == 0) {
            o += (size_t)snprintf(re + o, sizeof re - o, upper ? "[A-Za-z0-9_]+" : "[a-z0-9_]+");
            p += 1;
        } else if (*p == '.') {
            o += (size_t)snprintf(re + o, sizeof re - o, "\\.");
        } else {
            re[o++] = *p;
        }
    }
    re[o++] = '$';
    re[o] = '\0';
    regex_t rx;
    if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) != 0)
        return false;
    bool m = regexec(&rx, name, 0, NULL, 0) == 0;
    regfree(&rx);
    return m;
}

static bool pattern_matches(const char *fmt, const char *name)
{
    return pattern_matches_as(fmt, name, false);
}

TEST(model_names_are_unique)
{
    for (size_t i = 0; i < model_names_n; i++)
        for (size_t j = i + 1; j < model_names_n; j++)
            CHECK(strcmp(model_names[i], model_names[j]) != 0);
}

TEST(model_names_are_documented)
{
    char *md = names_md();
    REQUIRE(md);
    /* each fixed name literally: a pattern such as syscall.%s would match
     * any syscall.* name and hide one that is not described */
    for (size_t i = 0; i < model_names_n; i++)
        if (!documented(md, model_names[i])) {
            fprintf(stderr, "  not in NAMES.md: %s\n", model_names[i]);
            CHECK(false);
        }
    for (size_t k = 0; k < model_formats_n; k++) {
        CHECK(pattern_matches_as(model_formats[k], model_format_docs[k], true));
        if (!documented(md, model_format_docs[k])) {
            fprintf(stderr, "  not in NAMES.md: %s\n", model_format_docs[k]);
            CHECK(false);
        }
    }
    free(md);
}

TEST(model_name_patterns_make_the_fixed_names)
{
    char b[64];
    snprintf(b, sizeof b, NMF_PSI_PCT, "cpu", "some");
    CHECK_STR(b, NM_PSI_CPU_SOME_PCT);
    snprintf(b, sizeof b, NMF_PSI_PCT, "memory", "full");
    CHECK_STR(b, NM_PSI_MEMORY_FULL_PCT);
    CHECK(pattern_matches(NMF_RUNQLAT_CPU, "runqlat.cpu12"));
    CHECK(!pattern_matches(NMF_RUNQLAT_CPU, "runqlat.cpuX"));
}
