#!/bin/sh
# Calm: -p on an idle worker pool: 16 threads parked on a condition
# variable, one small task every 20 ms.  Parked workers wait for work by
# design: no warning, no lock contention.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_pool "needs root"; exit 0; }
run=1
while [ $run -le "$CALM_RUNS" ]; do
    "$WL/pool" 60 16 20 > "$TMPD/out$run" & track $!
    pid=$!
    t=0
    until grep -q ready "$TMPD/out$run" 2>/dev/null || [ $t -ge 100 ]; do sleep 0.05; t=$((t + 1)); done
    scen_run "$TMPD/b$run" -p "$pid"
    stop_tracked
    calm_result calm_pool "$run" "$TMPD/b$run" || exit 0
    run=$((run + 1))
done
ok calm_pool
expect_text calm_pool_parked "$TMPD/b1" \
    "[r['kind'] for t in d['tables'] if t['name'] == 'target.time' for r in t['rows'] if r['state'] == 'park']" \
    "['by design']"
