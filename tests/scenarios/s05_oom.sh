#!/bin/sh
# Scenario 5: an anonymous-memory hog in a memory cgroup with a 64 MiB limit
# -> memory.oom (critical) first, naming the cgroup and (with BPF) the
# killed process; scenario 9: the same with --no-bpf.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_oom "needs root"; exit 0; }
# Test cgroups go below our own memory cgroup (design 5).
memcg=$(awk -F: '$2 == "memory" {print $3}' /proc/self/cgroup)
if [ -n "$memcg" ] && [ -d /sys/fs/cgroup/memory ]; then
    parent=/sys/fs/cgroup/memory${memcg%/}; limit=memory.limit_in_bytes
else
    v2=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
    parent=$v2$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup); limit=memory.max
fi
name=prtest-oom-$$
cg=$parent/$name
mkdir "$cg" 2>/dev/null || { skip scenario_oom "cannot create a memory cgroup below $parent"; exit 0; }
on_cleanup "rmdir $cg 2>/dev/null"
echo $((64 << 20)) > "$cg/$limit"
for mode in bpf nobpf; do
    ( sleep 1; sh -c "echo \$\$ > $cg/cgroup.procs; exec $WL/memhog 200 2" ) >/dev/null 2>&1 & track $!
    if [ $mode = nobpf ]; then scen_run "$TMPD/$mode" --no-bpf; else scen_run "$TMPD/$mode"; fi
    wait
    scen_record "oom-$mode" "$TMPD/$mode"
    expect_rank "scenario_oom_${mode}_first" "$TMPD/$mode" memory.oom 1 critical
    expect_text "scenario_oom_${mode}_names_cgroup" "$TMPD/$mode" "d['findings'][0]['title']" "/$name"
    if [ $mode = bpf ]; then
        expect_text scenario_oom_bpf_names_victim "$TMPD/$mode" "d['findings'][0]['title']" "memhog"
    fi
done
