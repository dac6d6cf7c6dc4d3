#!/bin/sh
# Scenario 3: eight burners on two CPUs -> cpu.saturation first, critical,
# with the run-queue latency folded into it as the same story (tasks waiting
# for a CPU is how saturated CPUs show), not a finding of its own.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_overload "needs root"; exit 0; }
for i in 1 2 3 4 5 6 7 8; do "$WL/burner" 60 1 & track $!; done
sleep 0.5
scen_run "$TMPD/b"
scen_record overload "$TMPD/b"
expect_rank scenario_overload_cpu_saturation_first "$TMPD/b" cpu.saturation 1 critical
expect_text scenario_overload_runqueue_latency_folded "$TMPD/b" \
    "[e for f in d['findings'] if f['id'] == 'cpu.saturation' for e in f['evidence']] + [f['id'] for f in d['findings']]" \
    "Also seen, explained by this (sched.runqueue_latency): "
expect_text scenario_overload_one_story "$TMPD/b" \
    "'runq apart' if any(f['id'] == 'sched.runqueue_latency' for f in d['findings']) else 'folded'" "folded"
stop_tracked
