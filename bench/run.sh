#!/bin/sh
# make bench: performance figures of design section 9 that this build can
# measure.  Prints a table; copy the figures into bench/RESULTS.md.
set -eu
cd "$(dirname "$0")/.."
BIN=${PERFREPORT_BIN:-./perfreport}
RUNS=${RUNS:-3}
tmp=$(mktemp -d /tmp/perfreport-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "perfreport bench on $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "## Default run, -d 5 (idle host), $RUNS runs"
printf '%-4s %10s %22s %14s %16s\n' run "wall s" "window end->bundle ms" "peak RSS MiB" "collectors ms"
i=1
while [ $i -le "$RUNS" ]; do
    python3 - "$BIN" "$tmp/b$i" <<'PY'
import resource, subprocess, sys, time, json, re
binary, out = sys.argv[1], sys.argv[2]
t0 = time.monotonic()
p = subprocess.run([binary, "-d", "5", "-o", out, "-v", "--quiet"], capture_output=True, text=True)
wall = time.monotonic() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
m = re.search(r"window end to bundle published: ([0-9.]+) ms", p.stderr)
fin = float(m.group(1)) if m else float("nan")
man = json.load(open(out + "/manifest.json"))
coll = sum(c.get("duration_ms") or 0 for c in man["collectors"])
print("%-4s %10.2f %22.1f %14.1f %16.1f" % (out.rsplit("/b", 1)[1], wall, fin, rss, coll))
PY
    i=$((i + 1))
done
echo
echo "Budgets (design 9): window end -> bundle <= 300 ms; peak RSS <= 64 MiB."
echo
sh bench/syscall_bench.sh
