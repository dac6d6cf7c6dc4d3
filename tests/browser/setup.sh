#!/bin/sh
# Installs the pinned browser-test dependencies (playwright-core only) into
# tests/browser/node_modules when missing.  Never downloads a browser: the
# tests drive the system Chromium (/usr/bin/chromium).
set -eu
dir=$(cd "$(dirname "$0")" && pwd)
[ -d "$dir/node_modules/playwright-core" ] && exit 0
command -v npm >/dev/null 2>&1 || { echo "npm not found" >&2; exit 1; }
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix "$dir" --ignore-scripts --no-audit --no-fund >&2
