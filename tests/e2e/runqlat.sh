#!/bin/sh
# The run-queue latency collector (runqlat) on this host: CPU burners, and
# perfreport's own waits kept apart.
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then
    skip runqlat_all "binary $PERFREPORT_BIN not built"
    exit 0
fi
if ! need_root; then
    skip runqlat_all "needs root for BPF"
    exit 0
fi
for w in burner sleeper; do
    if [ ! -x "$WL/$w" ]; then
        skip runqlat_all "workload $WL/$w not built (make workloads)"
        exit 0
    fi
done

ran() { # bundle collector
    json "$1/report.json" "[c['status'] for c in d['collectors'] if c['name']=='$2']"
}

# (a) eight CPU burners on two CPUs: run-queue latency.
taskset -c 0,1 "$WL/burner" 60 8 --comm kioburn >/dev/null &
track $!
sleep 0.5
"$PERFREPORT_BIN" -d 4 -o "$TMPD/burn" --quiet
p99=$(json "$TMPD/burn/report.json" "[round(h['p99']) for h in d['histograms'] if h['name']=='runqlat']")
# its own finding, or folded into cpu.saturation's evidence when the CPUs
# are saturated too (the same story)
f=$(json "$TMPD/burn/report.json" "[(f['id'],f['title']) for f in d['findings'] if f['id']=='sched.runqueue_latency'] + [e for f in d['findings'] if f['id']=='cpu.saturation' for e in f['evidence'] if 'sched.runqueue_latency' in e]")
case "$f" in
    *kioburn*) ok runqlat_runqueue_latency ;;
    *) not_ok runqlat_runqueue_latency "runqlat p99 $p99 us; finding $f" ;;
esac
if python3 -c "import sys; sys.exit(0 if $p99 and $p99[0] >= 5000 else 1)"; then ok runqlat_p99_high
else not_ok runqlat_p99_high "p99 $p99 us"; fi
stop_tracked

# (b) perfreport and a 1 ms sleeper share CPU 0: waits that end when one of
# perfreport's threads gives up the CPU are counted apart (runqlat.behind_self,
# sched.runq_behind_self), and the sleeper's ~2,800 wakeups in the window
# still fill the host's histogram.
taskset -c 0 "$WL/sleeper" 60 1 >/dev/null &
track $!
sleep 0.3
taskset -c 0 "$PERFREPORT_BIN" -d 3 -i 0.2 -o "$TMPD/self" --quiet
got=$(json "$TMPD/self/report.json" "(d['metrics'].get('sched.runq_behind_self', {}).get('value'), sum(h['count'] for h in d['histograms'] if h['name']=='runqlat.behind_self'), sum(h['count'] for h in d['histograms'] if h['name']=='runqlat'))")
if python3 -c "import sys; m, h, w = $got; sys.exit(0 if m and h and w >= 1000 else 1)"; then
    ok runqlat_behind_self_apart
else
    not_ok runqlat_behind_self_apart "(metric, its histogram's count, host waits): $got"
fi
stop_tracked
