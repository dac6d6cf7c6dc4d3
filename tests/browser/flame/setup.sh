#!/bin/sh
# Installs playwright-core (no browser download: the tests use Debian's
# /usr/bin/chromium) into tests/browser/flame/node_modules.
set -eu
cd "$(dirname "$0")"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
if [ -f package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
else
    npm install --no-audit --no-fund --loglevel=error
fi
