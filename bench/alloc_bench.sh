#!/bin/sh
# Cost of one traced allocation call (collector alloc: uprobes on the
# target's malloc/calloc/realloc/free/mmap/munmap).  tests/workloads/allocator
# in a tight loop (5 C library calls per round: malloc, calloc, realloc and
# two frees) is timed over the same 2 s stretch in the middle of its run
# (SIGUSR1 marks) with and without a perfreport -p run recording it;
# paired, alternating, medians.  Rounds are counted per second of the
# allocator's own CPU time (the probes run in its context, so their cost is
# in it), which the host's other load does not change.  The probes' slowdown guard is lifted
# (PERFREPORT_ALLOC_MAX_SLOWDOWN_PCT) so that they stay on.  The printed ns
# per call is what src/collect/alloc.c's ALLOC_COST_NS should be.
set -eu
[ -n "${DEBUG:-}" ] && set -x
cd "$(dirname "$0")/.."
BIN=${PERFREPORT_BIN:-./perfreport}
AL=${WL:-build/workloads}/allocator
PAIRS=${PAIRS:-7}
tmp=$(mktemp -d /tmp/perfreport-albench.XXXXXX)
export PERFREPORT_LOCK="$tmp/lock"
trap 'kill $(cat "$tmp/pids" 2>/dev/null) 2>/dev/null; rm -rf "$tmp"' EXIT

# one RUN (traced|alone): build_records calls per CPU-second over 2 s
one() {
    "$AL" 12 0 0 > "$tmp/out" & a=$!
    echo "$a" > "$tmp/pids"
    if [ "$1" = traced ]; then
        PERFREPORT_ALLOC_MAX_SLOWDOWN_PCT=1000000 "$BIN" -d 6 -p "$a" -o "$tmp/b" --quiet >/dev/null 2>&1 & p=$!
        echo "$a $p" > "$tmp/pids"
    fi
    sleep 2.5 # the window is open by then
    kill -USR1 "$a"; sleep 2; kill -USR1 "$a"; sleep 0.3
    kill "$a" 2>/dev/null; wait "$a" 2>/dev/null || true
    if [ "$1" = traced ]; then
        wait "$p" || true
        det=$(python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['metrics']['alloc.detached']['value']))" "$tmp/b/report.json" 2>/dev/null || echo x)
        rm -rf "$tmp/b"
        [ "$det" = 0 ] || { echo "the probes were not on for the whole run ($det)" >&2; exit 1; }
    fi
    rm -f "$tmp/pids"
    awk 'BEGIN {n = 0} /^mark/ {t[n] = $2; u[n] = $4; c[n++] = $3} END {if (n >= 2) printf "%.0f\n", (c[1] - c[0]) / (u[1] - u[0])}' "$tmp/out"
}

echo "## Allocation probes: cost per traced call (allocator tight loop, 5 libc calls per round, $PAIRS pairs)"
: > "$tmp/s"
i=1
while [ "$i" -le "$PAIRS" ]; do
    if [ $((i % 2)) = 1 ]; then b=$(one alone); t=$(one traced); else t=$(one traced); b=$(one alone); fi
    echo "$b $t" >> "$tmp/s"
    i=$((i + 1))
done
python3 - "$tmp/s" <<'PY'
import sys, statistics
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 2]
ns = [(1e9 / t - 1e9 / b) / 5 for b, t in rows if b > 0 and t > 0]
med = statistics.median
print("rounds per CPU-second: alone %.0f, traced %.0f (medians)" % (med(r[0] for r in rows), med(r[1] for r in rows)))
print("cost per traced call: %.0f ns (median of pairs: %s)" % (med(ns), " ".join("%.0f" % x for x in ns)))
print("at that cost the guard (5 %% of the target's CPU) allows %.0f calls per CPU-second" % (0.05e9 / med(ns)))
PY
