#!/bin/sh
# Scenario 4: a burner in a cgroup with a CPU quota -> cgroup.cpu_throttled
# first, naming the cgroup; scenario 9: the same with --no-bpf.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_throttled "needs root"; exit 0; }
base=/sys/fs/cgroup/cpu
v2=""
if [ ! -d "$base" ]; then
    # cgroup v2 only: quota through cpu.max
    base=$(awk '$9 == "cgroup2" {print $5; exit}' /proc/self/mountinfo)
    v2=1
fi
[ -d "$base" ] || { skip scenario_throttled "no cgroup cpu controller"; exit 0; }
name=prtest-thr-$$
cg=$base/$name
mkdir "$cg" || { skip scenario_throttled "cannot create $cg"; exit 0; }
on_cleanup "for p in \$(cat $cg/cgroup.procs 2>/dev/null); do kill \$p; done; sleep 0.2; rmdir $cg"
if [ -n "$v2" ]; then echo "20000 100000" > "$cg/cpu.max"; else echo 20000 > "$cg/cpu.cfs_quota_us"; fi
for mode in bpf nobpf; do
    sh -c "echo \$\$ > $cg/cgroup.procs; exec $WL/burner 60 1" & track $!
    sleep 0.5
    if [ $mode = nobpf ]; then scen_run "$TMPD/$mode" --no-bpf; else scen_run "$TMPD/$mode"; fi
    scen_record "throttled-$mode" "$TMPD/$mode"
    expect_rank "scenario_throttled_${mode}_first" "$TMPD/$mode" cgroup.cpu_throttled 1 critical
    expect_text "scenario_throttled_${mode}_names_cgroup" "$TMPD/$mode" "d['findings'][0]['title']" "/$name"
    stop_tracked
done
