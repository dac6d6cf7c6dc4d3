#!/bin/sh
# Scenario 22: a writer with O_DIRECT in a cgroup whose writes to the root
# disk are limited to 2 MiB/s -> cgroup.io_throttled first, critical (its
# tasks wait for I/O most of the window), naming the cgroup and the disk.
# On a v1 or hybrid host the limit is blkio.throttle.write_bps_device and the
# writer also joins the v2 cgroup of the same path, whose io.pressure says
# how long it waited; on a v2 host it is io.max (scen_io_cgroup).
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_io_throttled "needs root"; exit 0; }
set -- $(scen_disk_of "$TMPD")
dev=$1 disk=$2
name=prtest-io-$$
scen_io_cgroup "$name" "$dev" 2097152 || { skip scenario_io_throttled "$iowhy"; exit 0; }
[ -n "$iocg_v2" ] || { skip scenario_io_throttled "no v2 cgroup of the same path for io.pressure"; exit 0; }
# It outlasts the run; the cleanup hooks run after the tracked writer is gone.
sh -c "$iojoin exec $WL/iowriter $TMPD/io.dat 0 120" >/dev/null & track $!
sleep 0.5
scen_run "$TMPD/b"
scen_record io-throttled "$TMPD/b"
expect_rank scenario_io_throttled_first "$TMPD/b" cgroup.io_throttled 1 critical
expect_text scenario_io_throttled_names_cgroup "$TMPD/b" "d['findings'][0]['culprit']" "/$name"
expect_text scenario_io_throttled_names_disk "$TMPD/b" "d['findings'][0]['title']" "write-throttled on $disk"
expect_text scenario_io_throttled_says_the_limit "$TMPD/b" "d['findings'][0]['title']" "its 2 MiB/s limit"
stop_tracked
