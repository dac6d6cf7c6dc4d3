#!/bin/sh
# Scenario 2: two CPU burners -> cpu.saturation first, naming the burner,
# and cpu.hotspot naming the burner's function; scenario 9: the same with
# --no-bpf (no profile there, so no hotspot).
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_burners "needs root"; exit 0; }
for mode in bpf nobpf; do
    "$WL/burner" 60 1 & track $!
    "$WL/burner" 60 1 & track $!
    sleep 0.5
    if [ $mode = nobpf ]; then scen_run "$TMPD/$mode" --no-bpf; else scen_run "$TMPD/$mode"; fi
    scen_record "burners-$mode" "$TMPD/$mode"
    expect_rank "scenario_burners_${mode}_cpu_saturation_first" "$TMPD/$mode" cpu.saturation 1 critical
    expect_text "scenario_burners_${mode}_names_burner" "$TMPD/$mode" "d['findings'][0]['title']" burner
    if [ $mode = bpf ]; then
        expect_text scenario_burners_hotspot_names_function "$TMPD/$mode" \
            "[f['title'] for f in d['findings'] if f['id'] == 'cpu.hotspot']" burn_leaf
    fi
    stop_tracked
done
