#!/bin/sh
# The page a reader opens: a busy bundle (two CPU burners, a lock fight and a
# failing-syscall loop during a 10 s window), then index.html loaded in
# headless Chromium (bench/page_load.js: median of RUNS loads), its element
# count, its size, and the backslash escapes in report.md (issue 13's
# budgets: load <= 0.5 s, fewer than 20 escapes).  BEFORE=BIN makes a second
# bundle with an older binary under the same load, right after.
# usage: sh bench/page_bench.sh [BIN]
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${1:-./perfreport}
WL=${WL:-build/workloads}
RUNS=${RUNS:-9}
sh tests/browser/setup.sh >/dev/null 2>&1 || { echo "page bench: no playwright-core (npm)"; exit 0; }
tmp=$(mktemp -d /tmp/perfreport-page.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export PERFREPORT_LOCK="$tmp/lock"

bundle() { # BIN OUT
    "$WL/burner" 13 1 >/dev/null & b1=$!
    "$WL/burner" 13 1 >/dev/null & b2=$!
    "$WL/mutexfight" 13 >/dev/null 2>&1 & m=$!
    "$WL/failer" 13 >/dev/null 2>&1 & f=$!
    sleep 1
    "$1" -d 10 -o "$2" --quiet >/dev/null 2>&1
    kill "$b1" "$b2" "$m" "$f" 2>/dev/null
    wait "$b1" "$b2" "$m" "$f" 2>/dev/null
}

report() { # LABEL BUNDLE
    [ -f "$2/index.html" ] || { echo "$1: no bundle"; return; }
    esc=$(grep -o '\\[!-/:-@[-`{-~]' "$2/report.md" | wc -l)
    kib=$(( $(wc -c < "$2/index.html") / 1024 ))
    printf '%-7s %s, %s KiB; report.md %s lines, %s backslash escapes\n' "$1" \
        "$(node bench/page_load.js "$2/index.html" "$tmp/ud-$1" "$RUNS")" "$kib" \
        "$(wc -l < "$2/report.md")" "$esc"
}

echo "Page: busy 10 s bundle, index.html in headless Chromium, $(date -u +%Y-%m-%dT%H:%MZ)"
bundle "$BIN" "$tmp/after"
[ -n "${BEFORE:-}" ] && bundle "$BEFORE" "$tmp/before"
[ -n "${BEFORE:-}" ] && report before "$tmp/before"
report after "$tmp/after"
# The heat map's range redraw (issue 33's budget: <= 100 ms for 20k stacks),
# on the busy bundle's page with 20,000 synthetic stacks in its data.
node bench/heat_redraw.js "$tmp/after/index.html" "$tmp/heat" 20000 "$RUNS"
