#!/bin/sh
# Calm: -p on an idle worker pool: 16 threads parked on a condition
# variable, one small task every 20 ms.  Parked workers wait for work by
# design: no warning, no lock contention.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_pool "needs root"; exit 0; }
calm_pid calm_pool pool 60 16 20 || exit 0
expect_text calm_pool_parked "$TMPD/b1" \
    "[r['kind'] for t in d['tables'] if t['name'] == 'target.time' for r in t['rows'] if r['state'] == 'park']" \
    "['by design']"
