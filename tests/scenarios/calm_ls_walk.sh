#!/bin/sh
# Calm: `ls -l` walking a tree over and over (system-wide run).  ls asks
# every file for its ACL and security label (getxattr -> ENODATA), checks
# whether its output is a terminal (ioctl -> ENOTTY): answers, not
# failures.  One CPU of two is busy: no warning.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_ls_walk "needs root"; exit 0; }
calm_host calm_ls_walk 'while :; do ls -lR /usr/share/doc /usr/include >/dev/null 2>&1; done' || exit 0
# the failed calls are still listed, as expected answers
expect_text calm_ls_walk_errors_listed "$TMPD/b1" \
    "next((f['severity'] + ' ' + f['title'] for f in d['findings'] if f['id'] == 'syscall.errors'), '')" \
    "info Failed syscalls"
