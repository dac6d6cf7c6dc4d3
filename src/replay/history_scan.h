/* Finding and loading the bundles of perfreport history.
 *
 * Each argument is a bundle directory, a directory of bundles, or a
 * directory of per-host directories of bundles (one level down, no deeper).
 * A bundle is a directory holding a manifest.json.  Everything is opened by
 * fd without following symlinks: a symlink where a bundle or a per-host
 * directory would be is skipped with that reason, never followed.  Names
 * starting with '.' (the publisher's temporary directories) and anything
 * that is not a directory (archives, notes) are passed over in silence.
 *
 * Each bundle is read with bundle_load_report_at (manifest.json, then
 * report.json checked against its size and SHA-256 there; no other file is
 * read or hashed), judged with the built-in thresholds and added to the
 * history; one that fails is skipped with the loader's message.  At most
 * HISTORY_MAX_BUNDLES are loaded; the rest are counted in over_cap. */
#ifndef PERFREPORT_HISTORY_SCAN_H
#define PERFREPORT_HISTORY_SCAN_H
#include "history.h"

/* Scans dirs[0..n) into h; problems go into h->skipped. */
void history_scan(struct history *h, char *const *dirs, size_t n);
#endif
