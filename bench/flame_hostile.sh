#!/bin/sh
# `perfreport flamegraph` on hostile folded input (issue 30, item 10): N
# distinct children of one frame ("a;bN 1" lines: 5 M fit one bulk merge,
# 10 M need two, whose second used to scan every sibling for every stack)
# and one stack of 1 GiB on one line ("a;a;...", streamed on stdin).
# Prints wall and CPU time, peak RSS and the exit status; a case that runs
# past TIMEOUT seconds (default 300) is stopped and says so.
# usage: sh bench/flame_hostile.sh [BIN]   (LINES="5000000 10000000")
set -u
cd "$(dirname "$0")/.." || exit 1
BIN=${1:-./perfreport}
LINES=${LINES:-"5000000 10000000"}
TIMEOUT=${TIMEOUT:-300}
tmp=$(mktemp -d /tmp/perfreport-flame-hostile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
echo "Hostile flame graph input, $(date -u +%Y-%m-%dT%H:%MZ), commit" \
    "$(git rev-parse --short HEAD 2>/dev/null || echo '?')"
# run LABEL INPUT ("-": this script's stdin)
cat > "$tmp/run.py" <<'PY'
import resource, subprocess, sys, time
b, limit, label, inp = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
t = time.monotonic()
src = sys.stdin if inp == "-" else open(inp)
try:
    p = subprocess.run([b, "flamegraph"], stdin=src, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=limit)
    rc, err = p.returncode, p.stderr.strip().splitlines()
except subprocess.TimeoutExpired:
    rc, err = "timeout", ["stopped after %d s" % limit]
wall = time.monotonic() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%-34s %8.2f s wall %8.2f s CPU %9.1f MiB  exit %s  %s" % (
    label, wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, rc,
    err[0][:60] if err else ""))
PY
run() { python3 "$tmp/run.py" "$BIN" "$TIMEOUT" "$@"; }
for n in $LINES; do
    python3 -c "
import sys
w = sys.stdout.write
for i in range($n):
    w('a;b%d 1\n' % i)" > "$tmp/wide"
    run "$n children of one frame" "$tmp/wide"
    rm -f "$tmp/wide"
done
(yes 'a;' | tr -d '\n' | head -c 1073741824; printf 'a 1\n') | run "one 1 GiB stack on one line" -
