#!/bin/sh
# Browser test of the heat maps under the flame graphs: perfreport records
# `phases 2` (2 s in phase_one_spin, then 2 s in phase_two_spin) and headless
# Chromium checks that selecting the first phase's seconds (a mouse drag, then
# the keyboard) redraws the flame graph with phase_one_spin alone, the URL
# fragment restores that view, the charts mark the seconds, Esc restores the
# whole window, the whole window redrawn is the static graph (frames, height,
# tooltips), a crafted range (a folded run, a rare deep stack, microseconds)
# is cut, sized and worded as the static graph would be, the page fits a 400
# px phone and a dark palette, with no console error and no request.  Screenshots in $ARTIFACTS (build/artifacts/browser).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

T=browser_heat
[ -x "$PERFREPORT_BIN" ] || { skip $T "binary $PERFREPORT_BIN not built"; exit 0; }
need_root || { skip $T "needs root to record"; exit 0; }
[ -x "$WL/phases" ] || { skip $T "no $WL/phases (make workloads)"; exit 0; }
[ -x /usr/bin/chromium ] && command -v node >/dev/null 2>&1 || {
    skip $T "needs /usr/bin/chromium and node"; exit 0; }
if ! sh tests/browser/setup.sh >"$TMPD/setup.log" 2>&1; then
    skip $T "cannot install playwright-core: $(tail -n 2 "$TMPD/setup.log" | tr '\n' ' ')"
    exit 0
fi
"$PERFREPORT_BIN" -o "$TMPD/b" --quiet -- "$WL/phases" 2 >/dev/null 2>"$TMPD/err"
rc=$?
if [ "$rc" -ge 3 ] || [ ! -f "$TMPD/b/index.html" ]; then
    not_ok $T "perfreport exited $rc: $(head -c 300 "$TMPD/err")"
    exit 0
fi
ARTIFACTS=${ARTIFACTS:-$BUILD/artifacts/browser}
mkdir -p "$ARTIFACTS" "$TMPD/profile"
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 timeout 180 \
    node tests/browser/check_heat.js "$TMPD/b/index.html" "$ARTIFACTS" "$TMPD/profile" \
    2>"$TMPD/node.err"
rc=$?
[ $rc -eq 124 ] && not_ok $T "timed out"
[ $rc -ne 0 ] && [ $rc -ne 1 ] && [ $rc -ne 124 ] && not_ok $T "node exited $rc: $(tail -c 300 "$TMPD/node.err")"
exit 0
