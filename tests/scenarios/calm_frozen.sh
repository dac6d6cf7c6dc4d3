#!/bin/sh
# Calm: a paused container (a cgroup v1 freezer at FROZEN, as docker pause
# leaves it): its tasks show state D, waiting in the freezer, for the whole
# window.  Stopped on purpose is not hung: no warning, and the D-state rule
# says at info that they are frozen.  Skipped where no v1 freezer is mounted
# (a v2 freezer's tasks sleep in state S: nothing to mistake).
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_frozen "needs root"; exit 0; }
parent=$(scen_v1_parent freezer)
[ -n "$parent" ] || { skip calm_frozen "no cgroup v1 freezer hierarchy"; exit 0; }
cg=$parent/perfreport-calm-frozen
mkdir "$cg" || { not_ok calm_frozen "cannot create $cg"; exit 0; }
# three tasks: two sleepers and a CPU burner, frozen before the runs start;
# not tracked: a frozen task takes its SIGTERM only once thawed
frz=""
on_cleanup 'echo THAWED > "$cg/freezer.state" 2>/dev/null; for p in $frz; do kill -9 $p 2>/dev/null; wait $p 2>/dev/null; done; rmdir "$cg" 2>/dev/null'
for w in "sleep 600" "sleep 600" "$WL/burner 600 1"; do
    sh -c "echo \$\$ > $cg/cgroup.procs && exec $w" > /dev/null 2>&1 &
    frz="$frz $!"
done
sleep 0.3
echo FROZEN > "$cg/freezer.state"
t=0
until [ "$(cat "$cg/freezer.state")" = FROZEN ] || [ $t -ge 50 ]; do sleep 0.1; t=$((t + 1)); done
[ "$(cat "$cg/freezer.state")" = FROZEN ] || { not_ok calm_frozen "freezer.state stays $(cat "$cg/freezer.state")"; exit 0; }
r=1
while [ $r -le "$CALM_RUNS" ]; do
    scen_run "$TMPD/b$r"
    calm_result calm_frozen "$r" "$TMPD/b$r" || exit 0
    calm_check calm_frozen "$r" "$TMPD/b$r" \
        "any(f['id'] == 'proc.uninterruptible' and f['severity'] == 'info' and 'frozen by a cgroup freezer' in f['title'] for f in d['findings'])" \
        "the frozen tasks are not said at info: $(json "$TMPD/b$r/report.json" "[f['severity'] + ': ' + f['title'] for f in d['findings'] if f['id'] == 'proc.uninterruptible']")" || exit 0
    r=$((r + 1))
done
ok calm_frozen
