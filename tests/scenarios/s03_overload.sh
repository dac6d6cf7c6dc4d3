#!/bin/sh
# Scenario 3: eight burners on two CPUs -> cpu.saturation and
# sched.runqueue_latency are the first two findings.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_overload "needs root"; exit 0; }
for i in 1 2 3 4 5 6 7 8; do "$WL/burner" 60 1 & track $!; done
sleep 0.5
scen_run "$TMPD/b"
scen_record overload "$TMPD/b"
expect_rank scenario_overload_cpu_saturation_top2 "$TMPD/b" cpu.saturation 2 critical
expect_rank scenario_overload_runqueue_latency_top2 "$TMPD/b" sched.runqueue_latency 2
stop_tracked
