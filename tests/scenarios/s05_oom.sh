#!/bin/sh
# Scenario 5: an anonymous-memory hog in a memory cgroup with a 64 MiB limit
# -> memory.oom (critical) first, naming the cgroup and (with BPF) the
# killed process; scenario 9: the same with --no-bpf.  The hog starts once
# the window is open.  Then a kill during start-up, after the OOM program
# attached and before the window opened, is still reported, with its time.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_oom "needs root"; exit 0; }
# Test cgroups go below our own memory cgroup (design 5).
memcg=$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
if [ -n "$memcg" ] && [ -d /sys/fs/cgroup/memory ]; then
    parent=/sys/fs/cgroup/memory${memcg%/}; limit=memory.limit_in_bytes; events=memory.oom_control
else
    v2=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
    parent=$v2$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup); limit=memory.max; events=memory.events
fi
name=prtest-oom-$$
cg=$parent/$name
mkdir "$cg" 2>/dev/null || { skip scenario_oom "cannot create a memory cgroup below $parent"; exit 0; }
on_cleanup "rmdir $cg 2>/dev/null"
echo $((64 << 20)) > "$cg/$limit"
hog() { sh -c "echo \$\$ > $cg/cgroup.procs; exec $WL/memhog 200 2" >/dev/null 2>&1; }
oom_kills() { awk '$1 == "oom_kill" {print $2}' "$cg/$events"; }

for mode in bpf nobpf; do
    if [ $mode = nobpf ]; then scen_start "$TMPD/$mode" --no-bpf; else scen_start "$TMPD/$mode"; fi
    if scen_wait_window "$TMPD/$mode"; then
        hog & track $!
    else
        not_ok "scenario_oom_${mode}_window_opened" "no 'window open' within 60 s"
    fi
    scen_finish
    stop_tracked
    scen_record "oom-$mode" "$TMPD/$mode"
    expect_rank "scenario_oom_${mode}_first" "$TMPD/$mode" memory.oom 1 critical
    expect_text "scenario_oom_${mode}_names_cgroup" "$TMPD/$mode" "d['findings'][0]['title']" "/$name"
    if [ $mode = bpf ]; then
        expect_text scenario_oom_bpf_names_victim "$TMPD/$mode" "d['findings'][0]['title']" "memhog"
    fi
done

# A kill during start-up: the run is held after its programs attached and
# before the window opens (a test hook), the hog is killed, and it goes on:
# the window opens only after the kill, which the window's counters (vmstat,
# cgroup deltas) cannot see.
state=held
if ! scen_start_held "$TMPD/startup"; then
    state="the run did not reach the hold before the window within 60 s"
else
    k0=$(oom_kills)
    hog
    i=0
    while [ "$(oom_kills)" = "$k0" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    [ "$(oom_kills)" = "$k0" ] && state="the hog was not OOM-killed"
    grep -q "window open" "$TMPD/startup.err" && state="window open before the kill"
fi
scen_release
scen_finish
if [ "$state" != held ]; then
    not_ok scenario_oom_startup_kill_before_window "$state"
else
    ok scenario_oom_startup_kill_before_window
    scen_record oom-startup "$TMPD/startup"
    expect_rank scenario_oom_startup_first "$TMPD/startup" memory.oom 1 critical
    oom="next((f for f in d['findings'] if f['id'] == 'memory.oom'), {'title': '', 'evidence': []})"
    expect_text scenario_oom_startup_names_victim "$TMPD/startup" "($oom)['title']" "memhog"
    expect_text scenario_oom_startup_says_when "$TMPD/startup" \
        "[e for e in ($oom)['evidence'] if 'memhog' in e]" "before the window opened"
    expect_text scenario_oom_startup_victim_time "$TMPD/startup" \
        "[r['at_s'] < 0 for t in d['tables'] if t['name'] == 'memory.oom_victims' for r in t['rows']]" "[True]"
fi
