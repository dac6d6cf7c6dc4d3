#!/bin/sh
# Scenario 6: small writes with fsync in a loop on the real disk -> io.fsync
# or disk.latency first, naming the writer or the device.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_fsync "needs root"; exit 0; }
DATA=$(mktemp -d /var/tmp/perfreport-scen.XXXXXX)
on_cleanup "rm -rf $DATA"
if [ "$(stat -f -c %T "$DATA")" = tmpfs ]; then skip scenario_fsync "/var/tmp is tmpfs"; exit 0; fi
# It outlasts the run (a slow start must not move the window past its end).
"$WL/fsyncer" "$DATA/f.dat" 60 >/dev/null & track $!
sleep 0.5
scen_run "$TMPD/b"
scen_record fsync "$TMPD/b"
first=$(json "$TMPD/b/report.json" "d['findings'][0]['id'] if d['findings'] else ''")
case "$first" in
    io.fsync|disk.latency) ok scenario_fsync_first ;;
    *) not_ok scenario_fsync_first "first finding '$first'; top: $(scen_top "$TMPD/b" 3)" ;;
esac
expect_text scenario_fsync_names_writer "$TMPD/b" "d['findings'][0]['title']" fsyncer
stop_tracked
