#!/bin/sh
# Calm: heavy but healthy disk I/O.  Two direct-I/O writers, a direct-I/O
# reader and a process that fsyncs small writes put tasks in D over and over,
# each time for the milliseconds an I/O takes.  The D-state rule stays quiet
# (no proc.uninterruptible), while the table shows those tasks in D.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_disk_io_short_waits "needs root"; exit 0; }
DATA=$(mktemp -d /var/tmp/perfreport-scen.XXXXXX)
on_cleanup "rm -rf $DATA"
if [ "$(stat -f -c %T "$DATA")" = tmpfs ]; then skip calm_disk_io_short_waits "/var/tmp is tmpfs"; exit 0; fi
dd if=/dev/zero of="$DATA/r.dat" bs=1M count=64 oflag=direct status=none ||
    { skip calm_disk_io_short_waits "no direct I/O in /var/tmp"; exit 0; }
# The load outlasts the run (a slow start must not move the window past it).
for i in 1 2; do
    sh -c "while :; do dd if=/dev/zero of=$DATA/w$i.dat bs=1M count=32 oflag=direct status=none; done" &
    track $!
done
sh -c "while :; do dd if=$DATA/r.dat of=/dev/null bs=1M iflag=direct status=none; done" & track $!
"$WL/fsyncer" "$DATA/f.dat" 60 > /dev/null & track $!
sleep 0.5
scen_run "$TMPD/b"
stop_tracked
scen_record calm_disk_io "$TMPD/b"
expect_text calm_disk_io_short_waits_quiet "$TMPD/b" \
    "[f['title'] for f in d['findings'] if f['id'] == 'proc.uninterruptible']" "[]"
expect_text calm_disk_io_short_waits_seen_in_d "$TMPD/b" \
    "sorted(set(r['comm'] for t in d['tables'] if t['name'] == 'proc.dstate' for r in t['rows'] if r['comm'] in ('dd', 'fsyncer')))" \
    "['dd', 'fsyncer']"
