#!/bin/sh
# make bench: the performance figures of design section 9 that this host can
# measure.  Copy the printed figures into bench/RESULTS.md.
# RUNS (default 3) repeats the short default run; LONG=0 skips the 30 s runs.
set -eu
cd "$(dirname "$0")/.."
BIN=${PERFREPORT_BIN:-./perfreport}
RUNS=${RUNS:-3}
LONG=${LONG:-1}
WL=build/workloads
tmp=$(mktemp -d /tmp/perfreport-bench.XXXXXX)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null || true; done; rm -rf "$tmp"' EXIT

row() { python3 bench/measure.py "$@"; }

echo "perfreport bench on $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "## Whole runs (budgets: window end -> bundle <= 300 ms; peak RSS <= 64 MiB)"
printf '%-34s %8s %10s %9s %10s %5s\n' run "wall s" "end->bndl" "RSS MiB" "coll. ms" exit
i=1
while [ "$i" -le "$RUNS" ]; do
    row "idle -d 5 #$i" "$tmp/idle$i" -- "$BIN" -d 5
    i=$((i + 1))
done
row "idle -d 5 --no-bpf" "$tmp/nobpf" -- "$BIN" -d 5 --no-bpf
"$WL/threadstorm" 20000 30 > "$tmp/ts.out" & ts=$!
while ! grep -q ready "$tmp/ts.out" 2>/dev/null; do sleep 0.2; done
row "20,000 threads -d 5" "$tmp/threads" -- "$BIN" -d 5
kill "$ts"; wait "$ts" 2>/dev/null || true
if [ "$LONG" = 1 ]; then
    row "idle -d 30 (default window)" "$tmp/idle30" -- "$BIN" -d 30
    "$WL/burner" 40 1 & b1=$!
    "$WL/burner" 40 1 & b2=$!
    pids="$pids $b1 $b2"
    row "2 burners, -d 30 (busy host)" "$tmp/busy30" -- "$BIN" -d 30
    # the burners outlive the run: stop them before the next benches measure
    kill "$b1" "$b2" 2>/dev/null || true
    wait "$b1" "$b2" 2>/dev/null || true
    pids="" # reaped: the exit trap must not kill whatever reuses their pids
fi
echo
sh bench/syscall_bench.sh
sh bench/hostile_bench.sh
echo
sh bench/watch_bench.sh "$BIN"
echo
# Start-up and finalisation (design section 9): window open after start, window end to
# bundle, idle and with 10 spinners, and own CPU of an idle -d 10 run.  BEFORE=BIN adds
# paired, alternating runs of an older binary.
python3 bench/startup_bench.py --runs "${STARTUP_RUNS:-5}" ${BEFORE:+--before "$BEFORE"} "$BIN"
