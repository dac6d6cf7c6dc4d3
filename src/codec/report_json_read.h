/* The report.json reader's pieces that the bundle loader (src/replay/load.c)
 * uses too: it parses report.json's text itself (once checked against the
 * manifest) and fills the model with ld_fill, and judges manifest.json's
 * schema with the same words as report.json's. */
#ifndef PERFREPORT_CODEC_REPORT_JSON_READ_H
#define PERFREPORT_CODEC_REPORT_JSON_READ_H
#include <stdbool.h>
#include <stddef.h>

struct json;
struct report;

/* The memory reading report.json (or manifest.json) of n bytes may take:
 * its tree, and again the model made from it (see BUNDLE_MAX_REPORT and the
 * bounds beside it in replay/load.h). */
#define BUNDLE_TREE_MEM(n) (((size_t)8 << 20) + 3 * (size_t)(n))
#define BUNDLE_MODEL_MEM(n) (((size_t)8 << 20) + 3 * (size_t)(n))

/* Filling a report from report.json's tree.  `where` (the file, as shown in
 * messages) prefixes every message; the first one wins. */
struct ld {
    struct report *r;
    const char *where;
    char *err;
    size_t errlen;
    bool failed;
    size_t mem, max_mem; /* bytes of model made so far, and the bound (spend) */
    struct json *tree;   /* report.json's, whose large number arrays go once copied */
};

/* The first message wins: "WHERE: " and the text, in l->err.  Returns -1. */
int ld_bad(struct ld *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* root's "schema" is one this program reads (*schema set); else -1 with a
 * message that says which perfreport wrote it. */
int ld_check_schema(struct ld *l, const struct json *root, long long *schema);
/* report.json's tree into l->r, all but the profiles.  0 or -1. */
int ld_fill(struct ld *l, const struct json *root);
/* Whether a unit is a few letters, digits, spaces and "%/.-_" (never markup). */
bool ld_plain_unit(const char *u);
#endif
