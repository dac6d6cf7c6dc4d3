#!/bin/sh
# Calm: `perfreport -- sh -c 'seq | sort | uniq -c | tail'`, a pipeline:
# each stage waits on the pipe for the one before it, by design.  The
# command runs on CPU the rest of its time: no warning.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_pipeline "needs root"; exit 0; }
run=1
while [ $run -le "$CALM_RUNS" ]; do
    "$PERFREPORT_BIN" -d 30 -i 0.5 -o "$TMPD/b$run" --quiet -- \
        sh -c 'seq 1 1500000 | sort -n | uniq -c | tail -1' >/dev/null 2>"$TMPD/err$run"
    calm_result calm_pipeline "$run" "$TMPD/b$run" || exit 0
    run=$((run + 1))
done
ok calm_pipeline
