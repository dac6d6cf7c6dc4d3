#!/bin/sh
# Calm: a periodic job, as cron or a monitoring script runs it: every
# 0.2 s a shell starts a few small tools (date, cat, ls, grep, sort).
# About 25 programs a second that cost little CPU: listed, not a warning.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_periodic "needs root"; exit 0; }
run=1
while [ $run -le "$CALM_RUNS" ]; do
    sh -c 'while :; do date >/dev/null; cat /proc/loadavg >/dev/null; ls /etc >/dev/null;
                       grep -c processor /proc/cpuinfo >/dev/null; sort /etc/passwd >/dev/null;
                       sleep 0.2; done' & track $!
    sleep 0.3
    scen_run "$TMPD/b$run"
    stop_tracked
    calm_result calm_periodic "$run" "$TMPD/b$run" || exit 0
    run=$((run + 1))
done
ok calm_periodic
