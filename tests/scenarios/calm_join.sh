#!/bin/sh
# Calm: -p on a program whose main thread joins its one worker (the worker
# computes 80 % of the time).  Joining is waiting by design, one busy
# thread on a 2-CPU host is no shortage: no warning.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_join "needs root"; exit 0; }
calm_pid calm_join joiner 60 1 80 || exit 0
# the main thread's wait is seen as a join, not a lock
expect_text calm_join_classified "$TMPD/b1" \
    "[r['state'] for t in d['tables'] if t['name'] == 'target.time' for r in t['rows'] if r['state'] in ('join', 'lock')]" \
    "['join']"
