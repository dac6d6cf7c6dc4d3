#!/bin/sh
# perfreport history over N bundles (default 1,000): one real 2 s bundle,
# then N synthetic ones made from it (bench/history_gen.py: 20 hosts in
# per-host directories, hourly times, varied metrics, report.json re-written
# with its manifest entry), then `perfreport history` over them, timed with
# peak RSS (GNU time, or getrusage through python).  Budget (issue 15):
# <= 5 s and <= 256 MiB for 1,000 bundles.
# usage: sh bench/history_bench.sh [BIN]   (N=... for another count)
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${1:-./perfreport}
N=${N:-1000}
tmp=$(mktemp -d /tmp/perfreport-history.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export PERFREPORT_LOCK="$tmp/lock"

if ! "$BIN" -d 2 -o "$tmp/seed" --quiet >/dev/null 2>&1 && [ ! -f "$tmp/seed/report.json" ]; then
    echo "history bench: no seed bundle (needs root)"
    exit 0
fi
python3 bench/history_gen.py "$tmp/seed" "$tmp/fleet" "$N" || exit 1
sync
echo "History: $N bundles ($(du -sh "$tmp/fleet" | cut -f1)), $(date -u +%Y-%m-%dT%H:%MZ)," \
    "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
for run in 1 2 3; do
    rm -rf "$tmp/page"
    # the first run reads the files from disk, the others from the page cache
    python3 - "$BIN" "$tmp/fleet" "$tmp/page" <<'PY'
import os, resource, subprocess, sys, time
t = time.monotonic()
p = subprocess.run([sys.argv[1], "history", sys.argv[2], "-o", sys.argv[3], "-q"],
                   stderr=subprocess.PIPE, text=True)
wall = time.monotonic() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
runs = sum(1 for _ in open(os.path.join(sys.argv[3], "history.json")) if '"path"' in _) \
    if p.returncode == 0 else 0
print("  exit %d: %.2f s wall, %.2f s user, %.2f s sys, peak RSS %.1f MiB, %d runs listed%s"
      % (p.returncode, wall, ru.ru_utime, ru.ru_stime, ru.ru_maxrss / 1024.0, runs,
         (", " + p.stderr.strip().splitlines()[-1]) if p.stderr.strip() else ""))
PY
done
