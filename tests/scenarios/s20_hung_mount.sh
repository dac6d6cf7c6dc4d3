#!/bin/sh
# Scenario 20: a FUSE mount stops answering while processes work on it: a
# walker whose four threads stat a file there (its cwd is on the mount), a
# cat and an ls; the operator then tries to stop them with SIGTERM and they
# stay, in D, SIGKILL pending.  A system-wide run -> proc.uninterruptible
# first, critical (stuck the whole window), naming the mount, the threads
# counted.  The mount lives in a private mount namespace; cleanup kills its
# daemon (the kernel then fails every request it waits for, and the stuck
# tasks exit) and the walker, whatever happened before.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_hung_mount "needs root"; exit 0; }
[ -c /dev/fuse ] || { skip scenario_hung_mount "no /dev/fuse"; exit 0; }
command -v unshare >/dev/null || { skip scenario_hung_mount "no unshare"; exit 0; }
WLA=$(cd "$WL" && pwd)
MNT=$TMPD/fz
mkdir "$MNT"
on_cleanup "for f in $TMPD/fz.pid $TMPD/victims $TMPD/ns.pid; do [ -s \$f ] && kill -9 \$(cat \$f) 2>/dev/null; done; sleep 0.2"
# Inside the namespace: serve, start the workers, stall, then SIGTERM them.
cat > "$TMPD/hang.sh" <<HANG
"$WLA/fuseserve" "$MNT" "$WLA/hangwalk" > "$TMPD/fz.out" 2>&1 &
echo \$! > "$TMPD/fz.pid"
i=0
until grep -q ready "$TMPD/fz.out"; do
    i=\$((i + 1)); [ \$i -gt 100 ] && exit 1; sleep 0.05
done
cd "$MNT" || exit 1
"$WLA/hangwalk" 4 "$MNT/libc.so.6" > /dev/null & w=\$!
echo \$w > "$TMPD/victims"
sleep 0.3
kill -USR1 \$(cat "$TMPD/fz.pid")
sleep 0.2
cat "$MNT/libc.so.6" > /dev/null 2>&1 & c=\$!
ls "$MNT" > /dev/null 2>&1 & l=\$!
echo \$w \$c \$l > "$TMPD/victims"
sleep 0.3
kill -TERM \$w \$c \$l
wait
HANG
unshare -m --propagation private sh "$TMPD/hang.sh" &
echo $! > "$TMPD/ns.pid"
# Until the six tasks are in D: four walker threads, cat and ls.
t=0
while :; do
    n=0
    for p in $(cat "$TMPD/victims" 2>/dev/null); do
        for s in /proc/$p/task/*/stat; do
            [ "$(sed 's/.*) //' "$s" 2>/dev/null | cut -c1)" = D ] && n=$((n + 1))
        done
    done
    [ $n -ge 6 ] && break
    [ $t -ge 100 ] && { not_ok scenario_hung_mount_setup "only $n tasks in D after 10 s"; exit 0; }
    sleep 0.1; t=$((t + 1))
done
walker=$(cut -d' ' -f1 "$TMPD/victims")
scen_run "$TMPD/b"
scen_record hung_mount "$TMPD/b"
expect_rank scenario_hung_mount_first "$TMPD/b" proc.uninterruptible 1 critical
F="next((f for f in d['findings'] if f['id'] == 'proc.uninterruptible'), {'title': '', 'culprit': '', 'evidence': [], 'recommendation': ''})"
expect_text scenario_hung_mount_culprit "$TMPD/b" "$F['culprit'] == '$MNT'" "True"
expect_text scenario_hung_mount_title "$TMPD/b" "$F['title']" \
    "6 tasks in 3 processes hung in uninterruptible sleep on $MNT (fuse.fuseserve)"
expect_text scenario_hung_mount_names_walker "$TMPD/b" "$F['title']" "hangwalk (pid $walker)"
expect_text scenario_hung_mount_unkillable "$TMPD/b" "$F['evidence']" "a SIGKILL is pending"
expect_text scenario_hung_mount_stack "$TMPD/b" "$F['evidence']" \
    "kernel stack request_wait_answer < __fuse_simple_request"
expect_text scenario_hung_mount_advice "$TMPD/b" "$F['recommendation']" "/sys/fs/fuse/connections/"
# the walker's threads are rows of their own, each on the mount
expect_text scenario_hung_mount_threads "$TMPD/b" \
    "sorted(set((r['thread'], r['fs'], r['mount']) for t in d['tables'] if t['name'] == 'proc.dstate' for r in t['rows'] if r['pid'] == $walker))" \
    "[('hangwalk', 'fuse', '$MNT')]"
expect_text scenario_hung_mount_thread_count "$TMPD/b" \
    "len([r for t in d['tables'] if t['name'] == 'proc.dstate' for r in t['rows'] if r['pid'] == $walker and r['stuck_s']])" \
    "4"
