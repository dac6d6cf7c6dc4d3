#!/bin/sh
# Scenario 8: -p on a process blocked reading a pipe / sleeping / fighting
# over a mutex -> the matching off-CPU or lock finding.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_offcpu "needs root"; exit 0; }
for case in "pipewait offcpu.ipc_wait" "sleeper offcpu.sleep" "mutexfight lock.contention"; do
    set -- $case
    "$WL/$1" 60 >/dev/null & pid=$!; track $pid # outlasts the run, killed after it
    sleep 0.5
    scen_run "$TMPD/$1" -p "$pid"
    scen_record "offcpu-$1" "$TMPD/$1"
    expect_rank "scenario_offcpu_${1}_$2" "$TMPD/$1" "$2" 1
    expect_text "scenario_offcpu_${1}_names_process" "$TMPD/$1" "d['findings'][0]['title']" "$1"
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
done
