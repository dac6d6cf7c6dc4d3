#!/bin/sh
# Headless Chromium opens a standalone flamegraph SVG made by
# `$PERFREPORT_BIN flamegraph` (and the same graph twice, inline in one HTML
# page under a strict CSP): hover, click to zoom, reset, search, matched %,
# no console errors.  Node + playwright-core live in tests/browser/ (setup.sh).
. tests/lib.sh

dir=tests/browser
if [ ! -x "$PERFREPORT_BIN" ]; then
    skip flame_browser "binary $PERFREPORT_BIN not built"
    exit 0
fi
if [ ! -x /usr/bin/chromium ] || ! command -v node >/dev/null 2>&1; then
    skip flame_browser "needs /usr/bin/chromium and node"
    exit 0
fi
if [ ! -d "$dir/node_modules/playwright-core" ]; then
    if ! sh "$dir/setup.sh" >"$TMPD/setup.log" 2>&1; then
        skip flame_browser "playwright-core could not be installed: $(tail -n 1 "$TMPD/setup.log")"
        exit 0
    fi
fi

if ! "$PERFREPORT_BIN" flamegraph --title "perf script fixture" \
        tests/fixtures/flame/perf-script.txt > "$TMPD/flame.svg" 2> "$TMPD/flame.err"; then
    not_ok flame_browser "perfreport flamegraph failed: $(head -n 1 "$TMPD/flame.err")"
    exit 0
fi
mkdir -p "$TMPD/chromium" build/browser
node "$dir/check_flame.js" "$TMPD/flame.svg" "$TMPD/chromium" build/browser/flame.png
