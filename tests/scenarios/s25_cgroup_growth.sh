#!/bin/sh
# Scenario 25: a process in a memory cgroup with a 512 MiB limit grows its
# anonymous memory by 16 MiB/s from the moment the window opens ->
# cgroup.memory_growth first, critical (the limit is reached in well under
# 10 minutes at that pace), naming the cgroup and its limit; the process's
# own growth is part of that finding, not one of its own.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_cgroup_growth "needs root"; exit 0; }
name=prtest-grow-$$
scen_mem_cgroup "$name" $((512 << 20)) ||
    { skip scenario_cgroup_growth "cannot create a memory cgroup with a limit"; exit 0; }
scen_start "$TMPD/b"
if scen_wait_window "$TMPD/b"; then
    sh -c "echo \$\$ > $memcg/cgroup.procs; exec $WL/anongrow 16 25 120" & track $!
else
    not_ok scenario_cgroup_growth_window_opened "no 'window open' within 60 s"
fi
scen_finish
scen_record cgroup-growth "$TMPD/b"
expect_rank scenario_cgroup_growth_first "$TMPD/b" cgroup.memory_growth 1 critical
expect_text scenario_cgroup_growth_names_cgroup "$TMPD/b" "d['findings'][0]['culprit']" "/$name"
expect_text scenario_cgroup_growth_names_limit "$TMPD/b" "d['findings'][0]['title']" "its 512 MiB limit is reached in"
# One story: the growing process is seen in its cgroup, and its own growth
# (24 min from the host's available memory) is part of the cgroup's finding.
expect_text scenario_cgroup_growth_process_in_cgroup "$TMPD/b" \
    "[r.get('cgroup') == f['culprit'] for t in d['tables'] if t['name'] == 'memory.growth' for r in t['rows'] if r.get('comm') == 'anongrow' for f in d['findings'][:1]]" \
    "[True]"
expect_text scenario_cgroup_growth_one_story "$TMPD/b" \
    "'apart' if any(f['id'] == 'memory.growth' for f in d['findings']) else 'folded' if any('(memory.growth): Memory of anongrow' in e for e in d['findings'][0]['evidence']) else 'not seen'" "folded"
stop_tracked
