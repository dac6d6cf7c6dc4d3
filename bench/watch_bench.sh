#!/bin/sh
# perfreport watch's budgets (issue 32): while waiting <= 0.2 % of one CPU
# and <= 32 MiB RSS (idle 2-CPU host, 10 minutes); the ring's memory bounded
# by --before whatever the host runs; trigger to window open <= 1 s.
#   sh bench/watch_bench.sh [BIN]    WAIT_S (default 600) the idle span,
#   TRIGGERS (default 3) the trigger runs.  Run under the machine lock.
set -eu
cd "$(dirname "$0")/.."
BIN=${1:-${PERFREPORT_BIN:-./perfreport}}
WAIT_S=${WAIT_S:-600}
TRIGGERS=${TRIGGERS:-3}
WL=build/workloads
tmp=$(mktemp -d /tmp/perfreport-wbench.XXXXXX)
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
hz=$(getconf CLK_TCK)

# CPU ticks (utime + stime) of PID
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
kib() { awk -v k="$2" '$1 == k ":" {print $2}' "/proc/$1/status"; }

# idle NAME SECONDS ARGS...: a watcher that never fires, its CPU share and RSS
idle() {
    name=$1 secs=$2; shift 2
    "$BIN" watch -q -o "$tmp/idle" --when 'cpu.util_pct>99.99 for 3600s' \
        --when 'psi.memory.some>90' --when 'psi.io.some>90' --when memory.oom "$@" &
    wp=$!; pids="$pids $wp"
    sleep 3 # started, first samples taken
    c0=$(cpu_ticks $wp); t0=$(date +%s.%N)
    sleep "$secs"
    c1=$(cpu_ticks $wp); t1=$(date +%s.%N)
    rss=$(kib $wp VmRSS); hwm=$(kib $wp VmHWM)
    kill -TERM $wp; wait $wp || true
    awk -v n="$name" -v c="$((c1 - c0))" -v hz="$hz" -v a="$t0" -v b="$t1" -v r="$rss" -v h="$hwm" \
        'BEGIN {printf "%-44s %7.0f %9.3f %9.1f %9.1f\n", n, b - a, 100 * c / hz / (b - a), r / 1024, h / 1024}'
}

echo "perfreport watch bench on $(uname -r), $(nproc) CPUs, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "## Waiting (budgets: <= 0.2 % of one CPU, <= 32 MiB RSS)"
printf '%-44s %7s %9s %9s %9s\n' run "wall s" "CPU %" "RSS MiB" "peak MiB"
idle "default conditions, --before 60" "$WAIT_S"
idle "--before 0 (no ring)" "$((WAIT_S / 4))" --before 0
if [ -x "$WL/threadstorm" ]; then
    "$WL/threadstorm" 20000 $((WAIT_S / 4 + 30)) > "$tmp/ts.out" & ts=$!; pids="$pids $ts"
    while ! grep -q ready "$tmp/ts.out" 2>/dev/null; do sleep 0.2; done
    idle "--before 60, 20,000 threads on the host" "$((WAIT_S / 4))"
    kill "$ts" 2>/dev/null || true; wait "$ts" 2>/dev/null || true
fi

echo
echo "## Trigger to window open (budget <= 1 s): -window.trigger_s of each bundle"
i=1
while [ "$i" -le "$TRIGGERS" ]; do
    W=$tmp/trig$i
    "$BIN" watch -q -o "$W" --when 'cpu.util_pct>80 for 1s' -d 1 --cooldown 3600 &
    wp=$!; pids="$pids $wp"
    sleep 3
    sh -c 'while :; do :; done' & s1=$!
    sh -c 'while :; do :; done' & s2=$!
    pids="$pids $s1 $s2"
    n=0
    until ls "$W"/perfreport-*/report.json >/dev/null 2>&1 || [ $n -ge 600 ]; do
        sleep 0.1; n=$((n + 1))
    done
    kill $s1 $s2 2>/dev/null || true
    kill -TERM $wp 2>/dev/null || true; wait $wp || true
    python3 -c '
import json, sys, glob
f = glob.glob(sys.argv[1] + "/perfreport-*/report.json")
if not f:
    print("run %s: no bundle" % sys.argv[2]); sys.exit(0)
w = json.load(open(f[0]))["window"]
print("run %s: trigger to window open %.3f s" % (sys.argv[2], -w["trigger_s"]))
' "$W" "$i"
    i=$((i + 1))
done
