#!/bin/sh
# Calm: `ls -l` walking a tree over and over (system-wide run).  ls asks
# every file for its ACL and security label (getxattr -> ENODATA), checks
# whether its output is a terminal (ioctl -> ENOTTY): answers, not
# failures.  One CPU of two is busy: no warning.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_ls_walk "needs root"; exit 0; }
run=1
while [ $run -le "$CALM_RUNS" ]; do
    sh -c 'while :; do ls -lR /usr/share/doc /usr/include >/dev/null 2>&1; done' & track $!
    sleep 0.3
    scen_run "$TMPD/b$run"
    stop_tracked
    calm_result calm_ls_walk "$run" "$TMPD/b$run" || exit 0
    run=$((run + 1))
done
ok calm_ls_walk
# the failed calls are still listed, as expected answers
expect_text calm_ls_walk_errors_listed "$TMPD/b1" \
    "next((f['severity'] + ' ' + f['title'] for f in d['findings'] if f['id'] == 'syscall.errors'), '')" \
    "info Failed syscalls"
