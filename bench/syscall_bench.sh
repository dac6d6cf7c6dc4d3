#!/bin/sh
# Syscall-heavy overhead (design section 9: <= 5 % with all collectors on).
# tests/workloads/sysstorm: two threads doing getppid() plus a fixed amount
# of user work per call, calibrated to ~1M syscalls/s in total.  Paired runs
# (without, then with the tracer) give the slowdown; the median is printed.
# The same workload under strace -c -f and perf trace -s for comparison.
set -eu
cd "$(dirname "$0")/.."
BIN=${PERFREPORT_BIN:-./perfreport}
SS=${WL:-build/workloads}/sysstorm
PAIRS=${PAIRS:-5}
SECS=${SECS:-3}
tmp=$(mktemp -d /tmp/perfreport-scbench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

work=$("$SS" --calibrate 1000000 2)
base_rate() { "$SS" "$SECS" 2 "$work" | awk '{print $2}'; }
echo "## Syscall-heavy workload: 2 threads, getppid + $work spin iterations per call"
printf '%-28s %14s %14s %10s\n' tracer "base calls/s" "traced calls/s" slowdown
pairs() { # name cmd-prefix... ; runs PAIRS pairs, prints the median slowdown
    name=$1; shift
    : > "$tmp/s"
    i=1
    while [ "$i" -le "$PAIRS" ]; do
        b=$(base_rate)
        case "$name" in
            perfreport*)
                "$BIN" -d $((SECS + 2)) -o "$tmp/b$i" --quiet >/dev/null 2>&1 & p=$!
                sleep 1
                t=$(base_rate)
                wait $p || true ;;
            *)
                t=$("$@" "$SS" "$SECS" 2 "$work" 2>/dev/null | awk '/calls_per_s/{print $2}') ;;
        esac
        echo "$b $t" >> "$tmp/s"
        i=$((i + 1))
    done
    python3 - "$name" "$tmp/s" <<'PY'
import sys, statistics
rows = [tuple(map(float, l.split())) for l in open(sys.argv[2]) if len(l.split()) == 2]
sl = [100.0 * (1 - t / b) for b, t in rows if b > 0 and t > 0]
if not sl:
    print("%-28s %14s %14s %10s" % (sys.argv[1], "-", "-", "failed")); sys.exit()
b = statistics.median(r[0] for r in rows); t = statistics.median(r[1] for r in rows)
print("%-28s %14.0f %14.0f %9.1f%%" % (sys.argv[1], b, t, statistics.median(sl)))
PY
}
pairs "perfreport (all collectors)"
if command -v strace >/dev/null; then pairs "strace -c -f" strace -c -f -o /dev/null; fi
if command -v perf >/dev/null && perf trace -s -o /dev/null -- true >/dev/null 2>&1; then
    pairs "perf trace -s" perf trace -s -o /dev/null --
fi
echo "Budget: perfreport <= 5 % (median of $PAIRS paired runs; the host's other load adds noise)."
