#!/bin/sh
# Calm: a periodic job, as cron or a monitoring script runs it: every
# 0.2 s a shell starts a few small tools (date, cat, ls, grep, sort).
# About 25 programs a second that cost little CPU: listed, not a warning.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_periodic "needs root"; exit 0; }
calm_host calm_periodic 'while :; do date >/dev/null; cat /proc/loadavg >/dev/null; ls /etc >/dev/null;
                                grep -c processor /proc/cpuinfo >/dev/null; sort /etc/passwd >/dev/null;
                                sleep 0.2; done' || exit 0
