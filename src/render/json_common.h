/* Pieces shared by report.json and manifest.json, so the two files describe
 * the window, the tool and the collectors identically. */
#ifndef PERFREPORT_JSON_COMMON_H
#define PERFREPORT_JSON_COMMON_H
#include "json_writer.h"
#include <stddef.h>
#include <time.h>

struct report;

/* "2024-05-01T12:00:00Z"; "" when the window never started (tv_sec == 0). */
void format_iso8601_utc(const struct timespec *ts, char *out, size_t n);

void json_tool(struct jw *w, const struct report *r);       /* "tool": {...} */
void json_window(struct jw *w, const struct report *r);     /* "window": {...} */
void json_collectors(struct jw *w, const struct report *r); /* "collectors": [...] */
/* "command": {...} for `perfreport -- CMD` (json_command.c); nothing without one. */
void json_command(struct jw *w, const struct report *r);
/* report.json's text appended to out.  Returns 0, or -1 on a writer misuse
 * (a bug, caught by the unit tests). */
int json_report_render(const struct report *r, struct strbuf *out);
/* manifest.json's text appended to out; same contract. */
int manifest_render(const struct report *r, struct strbuf *out);
/* The same with the integrity list (name, size, SHA-256) of `files`. */
struct sink_file;
int manifest_render_files(const struct report *r, const struct sink_file *files, size_t nfiles,
                          struct strbuf *out);
#endif
