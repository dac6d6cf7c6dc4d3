#!/bin/sh
# Calm: -p on a small HTTP service at a moderate load (a client makes
# about 40 requests a second on fresh connections).  The server waits for
# its next connection and request by design: no warning.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_service "needs root"; exit 0; }
command -v python3 >/dev/null || { skip calm_service "python3 missing"; exit 0; }
mkdir -p "$TMPD/www"
echo hello > "$TMPD/www/index.html"
run=1
while [ $run -le "$CALM_RUNS" ]; do
    port=$((20000 + $$ % 10000 + run))
    python3 -m http.server "$port" --bind 127.0.0.1 --directory "$TMPD/www" \
        >/dev/null 2>&1 & track $!
    srv=$!
    python3 - "$port" <<'PY' & track $!
import sys, time, urllib.request
url = 'http://127.0.0.1:%s/' % sys.argv[1]
for _ in range(400):
    try:
        urllib.request.urlopen(url, timeout=1).read()
        break
    except OSError:
        time.sleep(0.05)
while True:
    t = time.monotonic()
    try:
        urllib.request.urlopen(url, timeout=2).read()
    except OSError:
        pass
    time.sleep(max(0, 0.025 - (time.monotonic() - t)))
PY
    sleep 1
    scen_run "$TMPD/b$run" -p "$srv"
    stop_tracked
    calm_result calm_service "$run" "$TMPD/b$run" || exit 0
    run=$((run + 1))
done
ok calm_service
