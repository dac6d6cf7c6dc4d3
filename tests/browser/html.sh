#!/bin/sh
# Browser test: headless Chromium opens a bundle's index.html and checks no
# console error / CSP violation, no network request, the banner is visible;
# screenshots are kept in $ARTIFACTS (default build/artifacts/browser).
# usage: sh tests/browser/html.sh [BUNDLE_DIR]
# Without a bundle: runs `$PERFREPORT_BIN -d 2 -i 1` (root) beside a CPU burner and
# a syscall loop; if the binary is
# missing, renders the unit tests' synthetic report instead.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

T=browser_html
bundle=${1:-}
if [ -z "$bundle" ]; then
    if [ -x "$PERFREPORT_BIN" ] && need_root; then
        # Two different CPU users, so the flame graph has frames narrower
        # than the whole graph to click on (an idle host may have none).
        if [ -x "$WL/burner" ] && [ -x "$WL/sysstorm" ]; then
            "$WL/burner" 4 1 >/dev/null & track $!
            "$WL/sysstorm" 4 1 2000 >/dev/null & track $!
        fi
        "$PERFREPORT_BIN" -d 2 -i 1 -o "$TMPD/b" --quiet >/dev/null 2>"$TMPD/err"
        rc=$?
        if [ "$rc" -ge 3 ] || [ ! -f "$TMPD/b/index.html" ]; then
            not_ok $T "perfreport exited $rc: $(head -c 300 "$TMPD/err")"
            exit 0
        fi
        bundle=$TMPD/b
    elif [ -x "$BUILD/unit-tests" ]; then
        # Before the binary links: the renderer test writes a sample bundle.
        PERFREPORT_HTML_SAMPLE=$TMPD/b "$BUILD/unit-tests" tests/fixtures \
            renderers_registered_and_write_files >/dev/null 2>&1
        bundle=$TMPD/b
        [ -f "$bundle/index.html" ] || { skip $T "no binary and the sample renderer failed"; exit 0; }
    elif [ ! -x "$PERFREPORT_BIN" ]; then
        skip $T "no $PERFREPORT_BIN"; exit 0
    else
        skip $T "needs root to make a bundle"; exit 0
    fi
fi
[ -f "$bundle/index.html" ] || { not_ok $T "no index.html in $bundle"; exit 0; }
[ -x /usr/bin/chromium ] || { skip $T "no /usr/bin/chromium (apt-get install chromium)"; exit 0; }
command -v node >/dev/null 2>&1 || { skip $T "node not installed"; exit 0; }
if ! sh tests/browser/setup.sh >"$TMPD/setup.log" 2>&1; then
    skip $T "cannot install playwright-core: $(tail -n 2 "$TMPD/setup.log" | tr '\n' ' ')"
    exit 0
fi

ARTIFACTS=${ARTIFACTS:-$BUILD/artifacts/browser}
mkdir -p "$ARTIFACTS" "$TMPD/profile"
# PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: belt and braces, nothing here downloads.
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 timeout 180 \
    node tests/browser/check_html.js "$bundle/index.html" "$ARTIFACTS" "$TMPD/profile" \
    2>"$TMPD/node.err"
rc=$?
[ $rc -eq 124 ] && not_ok $T "timed out"
[ $rc -ne 0 ] && [ $rc -ne 1 ] && [ $rc -ne 124 ] && not_ok $T "node exited $rc: $(tail -c 300 "$TMPD/node.err")"
exit 0
