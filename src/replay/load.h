/* src/replay/: bundles read back.  This file loads one into the model
 * (report.json's text through codec/report_json_read.c);
 * judge.c analyses it again (render, diff, --baseline), diff_*.c compare two
 * reports (perfreport diff, --baseline), history*.c list and chart many
 * (perfreport history).  Writing and publishing a bundle is src/bundle/'s.
 *
Reading a bundle back into the model: report.json (the data of record)
 * plus the stack profiles in its .folded files, checked against the
 * manifest's sizes and SHA-256 first.  `perfreport render` re-analyses and
 * re-renders what this loads; comparing bundles builds on it too.
 *
 * A bundle is untrusted input (it may come from another host, or have been
 * edited): the directory and every file are opened by fd without following
 * symlinks, only regular files are read, each with a size cap; a file whose
 * size or SHA-256 differs from the manifest is refused, as is a schema newer
 * than this program's.
 *
 * What is loaded: host and capability facts, the window and its ticks,
 * series, tables, metrics, histograms, profiles, the collector ledger and
 * whether the run failed.  What is not: findings, USE rows, thresholds,
 * chart threshold lines and the headline, which are analysis: the caller
 * runs analyze_run() again (with the thresholds it wants). */
#ifndef PERFREPORT_REPLAY_LOAD_H
#define PERFREPORT_REPLAY_LOAD_H
#include <stdbool.h>
#include <stddef.h>

struct report;

/* Caps, far above a real bundle's (a busy 30 s run: manifest.json 12 KiB,
 * report.json 170 KiB, each .folded file up to a few MiB; a 24 h window at
 * 1 s ticks: report.json 10-20 MiB) and far below what would make reading
 * a forged one costly: */
#define BUNDLE_MAX_MANIFEST (1u << 20) /* bytes */
#define BUNDLE_MAX_REPORT (16u << 20)
#define BUNDLE_MAX_FOLDED (16u << 20)
#define BUNDLE_MAX_PPROF (16u << 20)   /* a pprof file kept as it is */
#define BUNDLE_MAX_LINE (1u << 20)     /* one stack of a .folded file */
/* Memory the reading of a file of n bytes may take, whatever it holds
 * ("[0,0,...]" would take 8 times its size as a tree, "a;b1 1" lines 16
 * times as a profile): report.json's tree, and again the model made from
 * it (a value of 2 bytes of text is a double of 8, a real run's average is
 * 3 to 6), and a profile's distinct frames and names (a real profile
 * spends tens of bytes on a frame, a forged one 2).  With the text, the
 * peak stays under 64 MiB + 2 n for any single file at its cap
 * (bench/bundle_bench.sh).  A profile with a .time file keeps 8 bytes per
 * stack line of its .folded file while it is read (a line takes 4 bytes at
 * least: 32 MiB at BUNDLE_MAX_FOLDED), to tie the .time's lines to them. */
/* BUNDLE_TREE_MEM(n) and BUNDLE_MODEL_MEM(n), the tree's and the model's,
 * are in codec/report_json_read.h, with the reader of report.json. */
#define BUNDLE_PROFILE_NODES(n) ((uint32_t)(65536 + (size_t)(n) / 32))
#define BUNDLE_BULK_IDS (1u << 18) /* frames a profile's bulk merge holds (1 MiB) */

/* Loads the bundle in directory `dir`.  Returns 0 with *out a new report
 * (the caller frees it with report_free), or -1 with *out NULL and a
 * message in err that names the file and what is wrong with it. */
int bundle_load(const char *dir, struct report **out, char *err, size_t errlen);

/* Whether `dir` looks like a bundle bundle_load could read, at the cost of
 * its manifest.json alone (at most BUNDLE_MAX_MANIFEST bytes): opened by
 * the same rules, of a schema this program reads, vouching for a
 * report.json within the cap.  What --baseline checks before the window;
 * the rest is read after it.  0, or -1 with a message in err. */
int bundle_probe(const char *dir, char *err, size_t errlen);

/* The report alone, for many bundles at once (perfreport history): the
 * bundle directory `dfd` (already open, by the caller's rules) is read as
 * bundle_load reads it -- manifest.json, then report.json of at most
 * max_report bytes (capped at BUNDLE_MAX_REPORT) checked against its size
 * and SHA-256 in the manifest -- but the .folded files are neither read nor
 * checked: the report has no profiles.  `shown` names the directory in
 * messages.  Same contract as bundle_load; dfd stays open. */
int bundle_load_report_at(int dfd, const char *shown, size_t max_report, struct report **out,
                          char *err, size_t errlen);

/* Whether directory `dfd` holds a perfreport manifest.json (a regular file
 * opened without following a symlink, at most BUNDLE_MAX_MANIFEST bytes, of
 * tool "perfreport", a schema this program reads, with its "integrity"
 * list).  Returns 0 with *out the parsed manifest (the caller json_frees
 * it), or -1 with *out NULL and a message naming `shown` in err. */
struct json;
int bundle_manifest_read(int dfd, const char *shown, struct json **out, char *err, size_t errlen);
/* The window start a manifest records ("window": {"start":
 * "2024-05-01T12:00:00Z", "start_ns": N}); false when it has none. */
struct timespec;
bool bundle_manifest_start(const struct json *man, struct timespec *out);

/* report.json's text alone is read by report_from_json (codec/report_json.h). */
#endif
