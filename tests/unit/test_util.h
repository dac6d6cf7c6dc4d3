/* Helpers shared by the unit tests: reading files, golden-file comparison,
 * and an in-memory out_sink that captures what renderers write. */
#ifndef PERFREPORT_TEST_UTIL_H
#define PERFREPORT_TEST_UTIL_H
#include <stddef.h>

/* Whole file into a new NUL-terminated buffer (caller frees); NULL if it
 * cannot be read.  len may be NULL. */
char *test_slurp(const char *path, size_t *len);

/* Compares got with the golden file fixture(rel); on a difference names the
 * first differing line.  PERFREPORT_UPDATE_GOLDEN=1 rewrites the file. */
void test_check_golden(const char *file, int line, const char *rel, const char *got);
#define CHECK_GOLDEN(rel, got) test_check_golden(__FILE__, __LINE__, (rel), (got))

/* r as report.json text (caller frees); a render error fails the test. */
struct report;
char *test_report_json(const struct report *r);
/* report.json text back into a new report (caller frees); NULL after
 * failing the test with the parser's message. */
struct report *test_report_parse(const char *json);

/* Files written by renderers through an out_sink, kept in memory. */
struct mem_file {
    char *name, *data; /* owned */
    size_t len;
};
struct mem_sink {
    struct mem_file *f; /* owned */
    size_t n, cap;
};
/* The out_sink write callback: ctx is a struct mem_sink. */
int mem_sink_write(void *ctx, const char *name, const char *data, size_t len);
const char *mem_get(const struct mem_sink *m, const char *name); /* NULL if not written */
void mem_free(struct mem_sink *m);
#endif
