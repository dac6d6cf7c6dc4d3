#!/bin/sh
# On-CPU profiler figures (design section 9):
#  1. overhead: a fixed amount of CPU work on 2 threads (two awk loops),
#     timed with and without `perfreport` running (default -F), PAIRS
#     pairs in alternating order; prints the median slowdown.  Only the profile
#     collector's BPF program adds per-sample work; /proc collectors run too.
#  2. overhead over the work's whole run: a default run (start, 30 s window,
#     finalisation) inside ~WHOLE_S s of the same work, WPAIRS pairs
#     (PAIRS=0 skips part 1);
#  3. window end -> bundle published with the profile on, on a busy 2-CPU
#     host (two burners), -d SECS (default 30).
set -eu
cd "$(dirname "$0")/.."
BIN=${PERFREPORT_BIN:-./perfreport}
PAIRS=${PAIRS:-9}
SECS=${SECS:-30}
WORK=${WORK:-40000000}
tmp=$(mktemp -d /tmp/perfreport-pbench.XXXXXX)
export PERFREPORT_LOCK="$tmp/lock" # a run elsewhere on the host must not make ours exit 3
bg=""
# traced() runs in a subshell: its perfreport's pid is kept in a file
trap 'for p in $bg $(cat "$tmp/pr" 2>/dev/null); do kill $p 2>/dev/null || true; done; rm -rf "$tmp"' EXIT

work() { # seconds taken by two parallel fixed CPU loops
    python3 - "$WORK" <<'PY'
import subprocess, sys, time
n = sys.argv[1]
t0 = time.monotonic()
ps = [subprocess.Popen(["awk", "BEGIN{for(i=0;i<%s;i++)s+=i*i%%7}" % n]) for _ in range(2)]
for p in ps: p.wait()
print("%.3f" % (time.monotonic() - t0))
PY
}

echo "## Overhead of a default run (every collector, both profiles) on 2-thread CPU-bound work, $PAIRS pairs"
printf '%-5s %10s %10s %10s\n' pair "off s" "on s" "slowdown%"
: > "$tmp/slow"
i=1
traced() { # seconds of the same work with perfreport running
    "$BIN" -d 120 -o "$tmp/o$i" --quiet >/dev/null 2>&1 & pr=$!
    echo "$pr" > "$tmp/pr"
    sleep 1.5 # attached
    work
    kill -INT $pr
    rc=0; wait $pr || rc=$?
    rm -f "$tmp/pr"
    [ "$rc" != 3 ] || { echo "perfreport failed (exit 3): no traced run" >&2; exit 1; }
    rm -rf "$tmp/o$i"
}
while [ $i -le "$PAIRS" ]; do
    # Alternate the order: the VM's CPU speed drifts by a few percent over
    # a minute, and a fixed order would count the drift as overhead.
    if [ $((i % 2)) = 1 ]; then
        off=$(work); on=$(traced)
    else
        on=$(traced); off=$(work)
    fi
    s=$(python3 -c "print('%.2f' % (100*($on/$off-1)))")
    echo "$s" >> "$tmp/slow"
    printf '%-5s %10s %10s %10s\n' $i "$off" "$on" "$s"
    i=$((i + 1))
done
python3 -c "import statistics,sys; v=[float(x) for x in open('$tmp/slow')]; print('median slowdown: %.2f %% (budget 2 %%)' % statistics.median(v) if v else 'no pairs run')"

echo
# The same work over a whole default run (design section 9 and issue 11):
# perfreport's start, its 30 s window and its finalisation all fall inside
# the work, which is sized to last ~WHOLE_S seconds untraced.  WPAIRS pairs
# (default 7), alternating order.
WHOLE_S=${WHOLE_S:-40}
WPAIRS=${WPAIRS:-7}
t1=$(work)
WORK=$(python3 -c "print(int($WORK * $WHOLE_S / $t1))")
echo "## Overhead over the work's whole run: a default run (30 s window) inside ~${WHOLE_S} s of 2-thread CPU-bound work, $WPAIRS pairs"
printf '%-5s %10s %10s %10s\n' pair "off s" "on s" "slowdown%"
: > "$tmp/wslow"
whole() { # seconds of the work with a whole default run inside it
    python3 - "$WORK" "$BIN" "$tmp/w" <<'PY'
import subprocess, sys, time, shutil
n, binary, out = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.monotonic()
ps = [subprocess.Popen(["awk", "BEGIN{for(i=0;i<%s;i++)s+=i*i%%7}" % n]) for _ in range(2)]
time.sleep(0.5)
rc = subprocess.call([binary, "-o", out, "--quiet"], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
for p in ps: p.wait()
print("%.3f" % (time.monotonic() - t0))
shutil.rmtree(out, ignore_errors=True)
sys.exit(1 if rc == 3 else 0)
PY
}
i=1
while [ $i -le "$WPAIRS" ]; do
    if [ $((i % 2)) = 1 ]; then
        off=$(work); on=$(whole)
    else
        on=$(whole); off=$(work)
    fi
    s=$(python3 -c "print('%.2f' % (100*($on/$off-1)))")
    echo "$s" >> "$tmp/wslow"
    printf '%-5s %10s %10s %10s\n' $i "$off" "$on" "$s"
    i=$((i + 1))
done
python3 -c "import statistics,sys; v=[float(x) for x in open('$tmp/wslow')]; print('median slowdown over the whole run: %.2f %% (budget 2 %%)' % statistics.median(v) if v else 'no pairs run')"

echo
echo "## Window end -> bundle published, profile on, 2 burners, -d $SECS"
build/workloads/burner $((SECS + 5)) 1 & bg="$bg $!"
build/workloads/burner $((SECS + 5)) 1 & bg="$bg $!"
sleep 0.5
"$BIN" -d "$SECS" -o "$tmp/busy" -v --quiet 2>"$tmp/err" >/dev/null || true
grep -o "window end to bundle published: [0-9.]* ms" "$tmp/err" || echo "no timing line"
python3 - "$tmp/busy/report.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["collectors"]:
    if c["name"] == "profile":
        print("profile collector:", c["status"], "-", c.get("notes"))
m = {k: v["value"] for k, v in d["metrics"].items()} if isinstance(d["metrics"], dict) else {}
print("samples %s, idle %s" % (m.get("profile.samples"), m.get("profile.idle_samples")))
PY
