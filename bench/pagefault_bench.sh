#!/bin/sh
# The page-fault profile's cost (collector "pagefault", on in every run;
# budget <= 2 %).  tests/workloads/faulter maps 16 MiB, touches every page
# (a fault each) and unmaps it, in a loop: a workload that does little but
# fault.  Its rate is counted per second of its own CPU time (faults are
# system time of the faulting process), so that the host's other load,
# which changes how much CPU it gets, does not enter the comparison.  Paired, alternating runs: perfreport with every collector, and the
# same run with the page-fault collector failed at start
# (PERFREPORT_FAULT=pagefault:start:fail), so the difference is this
# collector's alone; the median of the pairs' slowdowns is printed.  A run
# without perfreport gives the whole tool's cost on this workload too.
set -eu
cd "$(dirname "$0")/.."
BIN=${PERFREPORT_BIN:-./perfreport}
FL=${WL:-build/workloads}/faulter
PAIRS=${PAIRS:-7}
SECS=${SECS:-3}
tmp=$(mktemp -d /tmp/perfreport-pfbench.XXXXXX)
export PERFREPORT_LOCK="$tmp/lock"
trap 'kill $(cat "$tmp/pr" 2>/dev/null) 2>/dev/null; rm -rf "$tmp"' EXIT

# traced RUN-ENV...: faulter's rate while a perfreport run (with env) records
traced() {
    env "$@" "$BIN" -d $((SECS + 2)) -o "$tmp/b" --quiet >/dev/null 2>&1 & p=$!
    echo "$p" > "$tmp/pr"
    sleep 1.5
    t=$("$FL" "$SECS" | awk '/faults_per_cpu_s/ {print $2}')
    rc=0; wait "$p" || rc=$?
    rm -f "$tmp/pr"
    [ "$rc" != 3 ] || { echo "perfreport failed (exit 3)" >&2; exit 1; }
    samples=$(python3 -c "import json,sys; print(int(json.load(open(sys.argv[1]))['metrics'].get('pagefault.samples', {'value': 0})['value']))" "$tmp/b/report.json")
    rm -rf "$tmp/b"
    echo "$t $samples"
}

# The BPF program's own time per sample, from the kernel's BPF run-time
# statistics (kernel.bpf_stats_enabled, on for this one run and restored):
# free of the noise of paired runs on a shared VM.  Its time over the run,
# divided by the run, bounds what the sampling takes from a workload that
# faults on one CPU the whole time.
bpf_cost() {
    old=$(sysctl -n kernel.bpf_stats_enabled 2>/dev/null || echo x)
    [ "$old" != x ] && sysctl -qw kernel.bpf_stats_enabled=1 2>/dev/null || { echo "BPF run-time statistics: not available here"; return 0; }
    "$BIN" -d $((SECS + 3)) -o "$tmp/c" --quiet >/dev/null 2>&1 & p=$!
    echo "$p" > "$tmp/pr"
    sleep 1.5
    "$FL" "$SECS" > "$tmp/fl"
    bpftool -j prog show > "$tmp/progs" 2>/dev/null || true
    wait "$p" || true
    rm -f "$tmp/pr"
    sysctl -qw kernel.bpf_stats_enabled="$old"
    python3 - "$tmp/progs" "$SECS" "$tmp/c/report.json" <<'PY'
import json, sys
progs = [p for p in json.load(open(sys.argv[1])) if p.get("name") == "on_fault"]
secs = float(sys.argv[2])
if not progs or not progs[0].get("run_cnt"):
    print("BPF run-time statistics: program not found"); sys.exit()
ns, cnt = progs[0]["run_time_ns"], progs[0]["run_cnt"]
m = json.load(open(sys.argv[3]))["metrics"]
counted, prof = m["pagefault.counted"]["value"], m["pagefault.profiled"]["value"]
print("BPF program: %.2f us per sample (%d samples, %.1f ms in %.1f s of faulting) -> at most %.2f %% of the faulting CPU"
      % (ns / cnt / 1e3, cnt, ns / 1e6, secs + 1.5, 100.0 * ns / 1e9 / (secs + 1.5)))
print("scaling: %d faults counted, %d estimated from the samples' periods (%+.1f %%)"
      % (counted, prof, 100.0 * (prof - counted) / counted if counted else 0))
PY
    rm -rf "$tmp/c"
}

echo "## Page-fault profile overhead: faulter (16 MiB mmap/touch/munmap loop), $SECS s per run, $PAIRS pairs"
: > "$tmp/s"
i=1
while [ "$i" -le "$PAIRS" ]; do
    # Alternate the order: the VM's speed drifts, a fixed order would count
    # the drift as overhead.
    if [ $((i % 2)) = 1 ]; then
        b=$(traced PERFREPORT_FAULT=pagefault:start:fail); w=$(traced X=1)
    else
        w=$(traced X=1); b=$(traced PERFREPORT_FAULT=pagefault:start:fail)
    fi
    n=$("$FL" "$SECS" | awk '/faults_per_cpu_s/ {print $2}')
    echo "$n ${b%% *} $w" >> "$tmp/s"
    i=$((i + 1))
done
python3 - "$tmp/s" <<'PY'
import sys, statistics
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 4]
med = statistics.median
pf = [100.0 * (1 - w / b) for n, b, w, s in rows]
tool = [100.0 * (1 - w / n) for n, b, w, s in rows]
print("faults per CPU-second: alone %.0f, perfreport without the page-fault profile %.0f, with it %.0f (medians)"
      % (med(r[0] for r in rows), med(r[1] for r in rows), med(r[2] for r in rows)))
print("page-fault profile's own cost: %.1f %% (median of pairs: %s)" % (med(pf), " ".join("%.1f" % x for x in pf)))
print("the whole of perfreport on this workload: %.1f %% (%s)" % (med(tool), " ".join("%.1f" % x for x in tool)))
print("samples per run: %s" % " ".join("%d" % r[3] for r in rows))
print("Budget: the page-fault profile <= 2 %.")
PY
bpf_cost
# The event's own cost per fault (without the BPF program), switched on and
# off every 100 ms inside one process (tests/workloads/faultab.c).
: > "$tmp/ab"
i=1
while [ "$i" -le "${AB_RUNS:-5}" ]; do "${WL:-build/workloads}/faultab" 4 >> "$tmp/ab"; i=$((i + 1)); done
python3 - "$tmp/ab" <<'PY'
import sys, statistics
v = {}
for l in open(sys.argv[1]):
    k, x = l.split()
    v.setdefault(k, []).append(float(x))
off, add = statistics.median(v["ns_per_fault_off"]), v["ns_added"]
print("the event itself (on/off every 100 ms in one process): %+.0f ns per fault of %.0f ns, %+.1f %% (median of %d runs: %s)"
      % (statistics.median(add), off, 100 * statistics.median(add) / off, len(add), " ".join("%+.0f" % a for a in add)))
PY
