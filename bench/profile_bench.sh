#!/bin/sh
# On-CPU profiler figures (design section 9):
#  1. overhead: a fixed amount of CPU work on 2 threads (two awk loops),
#     timed with and without `perfreport` running (default -F), PAIRS
#     pairs in alternating order; prints the median slowdown.  Only the profile
#     collector's BPF program adds per-sample work; /proc collectors run too.
#  2. overhead over the work's whole run: a default run (start, 30 s window,
#     finalisation) inside ~WHOLE_S s of the same work, WPAIRS pairs
#     (PAIRS=0 skips part 1); then APAIRS such runs accounted: perfreport's
#     own CPU plus its BPF programs' run time (kernel.bpf_stats_enabled on
#     for them) over the two CPUs' time (APAIRS=0 skips it);
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

# work [CMD...]: seconds taken by two parallel fixed CPU loops; with CMD,
# CMD runs to its end 0.5 s after they start (exit 3 from it fails the bench).
work() {
    python3 - "$WORK" "$@" <<'PY'
import subprocess, sys, time
n, cmd = sys.argv[1], sys.argv[2:]
t0 = time.monotonic()
ps = [subprocess.Popen(["awk", "BEGIN{for(i=0;i<%s;i++)s+=i*i%%7}" % n]) for _ in range(2)]
rc = 0
if cmd:
    time.sleep(0.5)
    rc = subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
for p in ps: p.wait()
print("%.3f" % (time.monotonic() - t0))
sys.exit(1 if rc == 3 else 0)
PY
}

# pairs N ON OUT: N pairs of `work` and the command ON (a function printing
# seconds), in alternating order: the VM's CPU speed drifts by a few percent
# over a minute, and a fixed order would count the drift as overhead.
# Prints each pair and the median slowdown; OUT collects the slowdowns.
pairs() {
    printf '%-5s %10s %10s %10s\n' pair "off s" "on s" "slowdown%"
    : > "$3"
    i=1
    while [ $i -le "$1" ]; do
        if [ $((i % 2)) = 1 ]; then
            off=$(work); on=$($2)
        else
            on=$($2); off=$(work)
        fi
        s=$(python3 -c "print('%.2f' % (100*($on/$off-1)))")
        echo "$s" >> "$3"
        printf '%-5s %10s %10s %10s\n' $i "$off" "$on" "$s"
        i=$((i + 1))
    done
    python3 -c "import statistics,sys; v=[float(x) for x in open('$3')]; print('median slowdown: %.2f %% (budget 2 %%)' % statistics.median(v) if v else 'no pairs run')"
}

traced() { # seconds of the work with perfreport running (attached before it)
    "$BIN" -d 120 -o "$tmp/o" --quiet >/dev/null 2>&1 & pr=$!
    echo "$pr" > "$tmp/pr"
    sleep 1.5 # attached
    work
    kill -INT $pr
    rc=0; wait $pr || rc=$?
    rm -f "$tmp/pr"
    [ "$rc" != 3 ] || { echo "perfreport failed (exit 3): no traced run" >&2; exit 1; }
    rm -rf "$tmp/o"
}
echo "## Overhead of a default run (every collector, both profiles) on 2-thread CPU-bound work, $PAIRS pairs"
pairs "$PAIRS" traced "$tmp/slow"

echo
# The same work over a whole default run (design section 9): perfreport's
# start, its 30 s window and its finalisation all fall inside the work,
# which is sized to last ~WHOLE_S seconds untraced.
WHOLE_S=${WHOLE_S:-40}
WPAIRS=${WPAIRS:-7}
t1=$(work)
WORK=$(python3 -c "print(int($WORK * $WHOLE_S / $t1))")
whole() { # seconds of the work with a whole default run inside it
    work "$BIN" -o "$tmp/w" --quiet
    rm -rf "$tmp/w"
}
echo "## Overhead over the work's whole run: a default run (30 s window) inside ~${WHOLE_S} s of 2-thread CPU-bound work, $WPAIRS pairs"
pairs "$WPAIRS" whole "$tmp/wslow"

echo
# The same whole run, accounted: what perfreport took from the work is its
# own CPU (self.cpu_ms) plus its BPF programs' run time in the work's tasks
# (self.bpf_ms, counted while kernel.bpf_stats_enabled=1), against the two
# CPUs over the work's length.  It leaves out cache and interrupt effects,
# but not the VM's: its spread is a tenth of the pairs'.
APAIRS=${APAIRS:-5}
stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo)
if [ -n "$stats_was" ] && [ "$APAIRS" -gt 0 ]; then
    echo "## Accounted overhead of a whole default run inside ~${WHOLE_S} s of the same work, $APAIRS runs"
    trap 'echo "$stats_was" > /proc/sys/kernel/bpf_stats_enabled; for p in $bg $(cat "$tmp/pr" 2>/dev/null); do kill $p 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
    echo 1 > /proc/sys/kernel/bpf_stats_enabled
    : > "$tmp/acc"
    i=1
    while [ $i -le "$APAIRS" ]; do
        t=$(work "$BIN" -o "$tmp/a" --quiet)
        python3 - "$tmp/a/report.json" "$t" "$i" >> "$tmp/acc" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
own = m["self.cpu_ms"]["value"]
bpf = m.get("self.bpf_ms", {}).get("value", 0.0)
t = float(sys.argv[2])
print("%s %.1f %.1f %.3f %.2f" % (sys.argv[3], own, bpf, t, 100 * (own + bpf) / (2 * t * 1000)))
PY
        rm -rf "$tmp/a"
        i=$((i + 1))
    done
    echo "$stats_was" > /proc/sys/kernel/bpf_stats_enabled
    printf '%-5s %10s %10s %10s %10s\n' run "own ms" "bpf ms" "work s" "overhead%"
    while read -r n own bpf t o; do printf '%-5s %10s %10s %10s %10s\n' "$n" "$own" "$bpf" "$t" "$o"; done < "$tmp/acc"
    python3 -c "import statistics; v=[float(l.split()[4]) for l in open('$tmp/acc')]; print('median accounted overhead: %.2f %% (budget 2 %%)' % statistics.median(v))"
    echo
fi
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
