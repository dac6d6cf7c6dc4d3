#!/bin/sh
# Calm: -p on a program whose main thread joins its one worker (the worker
# computes 80 % of the time).  Joining is waiting by design, one busy
# thread on a 2-CPU host is no shortage: no warning.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_join "needs root"; exit 0; }
run=1
while [ $run -le "$CALM_RUNS" ]; do
    "$WL/joiner" 60 1 80 > "$TMPD/out$run" & track $!
    pid=$!
    t=0
    until grep -q ready "$TMPD/out$run" 2>/dev/null || [ $t -ge 100 ]; do sleep 0.05; t=$((t + 1)); done
    scen_run "$TMPD/b$run" -p "$pid"
    stop_tracked
    calm_result calm_join "$run" "$TMPD/b$run" || exit 0
    run=$((run + 1))
done
ok calm_join
# the main thread's wait is seen as a join, not a lock
expect_text calm_join_classified "$TMPD/b1" \
    "[r['state'] for t in d['tables'] if t['name'] == 'target.time' for r in t['rows'] if r['state'] in ('join', 'lock')]" \
    "['join']"
