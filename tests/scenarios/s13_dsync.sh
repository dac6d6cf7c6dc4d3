#!/bin/sh
# Scenario 13: small writes to a file opened O_DSYNC (no fsync call at all)
# -> io.fsync (synchronous I/O) naming the writer, with its O_DSYNC writes
# counted; or disk.latency first with io.fsync still naming the writer.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_dsync "needs root"; exit 0; }
DATA=$(mktemp -d /var/tmp/perfreport-scen.XXXXXX)
on_cleanup "rm -rf $DATA"
if [ "$(stat -f -c %T "$DATA")" = tmpfs ]; then skip scenario_dsync "/var/tmp is tmpfs"; exit 0; fi
# It outlasts the run (a slow start must not move the window past its end).
"$WL/dsyncer" "$DATA/f.dat" 60 >/dev/null & track $!
pid=$!
sleep 0.5
scen_run "$TMPD/b"
scen_record dsync "$TMPD/b"
expect_rank scenario_dsync_rank "$TMPD/b" io.fsync 2
F="next(f for f in d['findings'] if f['id'] == 'io.fsync')"
expect_text scenario_dsync_names_writer "$TMPD/b" "$F['title']" "dsyncer (pid $pid)"
expect_text scenario_dsync_says_dsync "$TMPD/b" "$F['title']" "O_SYNC/O_DSYNC"
# the writes are counted as what they are, in the per-process table
sw=$(json "$TMPD/b/report.json" "int(next(r['sync_writes'] for r in next(t for t in d['tables'] if t['name'] == 'io.fsync')['rows'] if r['pid'] == $pid))" 2>/dev/null || echo 0)
if [ "${sw:-0}" -gt 0 ]; then ok scenario_dsync_writes_counted; else not_ok scenario_dsync_writes_counted "sync_writes of pid $pid: '$sw'"; fi
stop_tracked
