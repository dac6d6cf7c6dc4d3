/* src/codec/: report.json, the bundle's data of record, written and read
 * back in one folder so that its two halves change together.
 * report_json_write.c (with report_json_command.c) writes the model as
 * report.json, and the "tool", "window" and "collectors" pieces that
 * manifest.json (render/manifest.c) shares, so the two files describe them
 * identically; report_json_read.c reads the text back into a model.  The
 * bundle around it (manifest, sizes and SHA-256, the stack files) is read by
 * src/replay/load.c; the folded stacks' own codec is src/flame/folded.c. */
#ifndef PERFREPORT_CODEC_REPORT_JSON_H
#define PERFREPORT_CODEC_REPORT_JSON_H
#include "../render/json_writer.h"
#include <stdbool.h>
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

/* The report.json part alone: text[0..len) into a new report, without the
 * profiles (their stacks are in other files).  Returns 0 with *out a new
 * report (the caller frees it with report_free), or -1 with *out NULL and a
 * message in err; messages name "report.json". */
int report_from_json(const char *text, size_t len, struct report **out, char *err, size_t errlen);
/* format_iso8601_utc's text read back: "2024-05-01T12:00:00Z" exactly, from
 * 1970 on.  false on anything else. */
bool parse_iso8601_utc(const char *s, time_t *out);
#endif
