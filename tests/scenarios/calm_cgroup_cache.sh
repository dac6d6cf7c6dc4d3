#!/bin/sh
# Calm: a process in a memory cgroup with a 512 MiB limit writes a file
# through the page cache at 16 MiB/s for the whole window, as a file copy
# does: the cgroup's memory grows, its anonymous memory does not.  No
# warning, no cgroup.memory_growth finding about it, and the page cache was
# seen growing (what a rule on memory.current would call a leak).
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_cgroup_cache "needs root"; exit 0; }
name=prtest-cache-$$
scen_mem_cgroup "$name" $((512 << 20)) ||
    { skip calm_cgroup_cache "cannot create a memory cgroup with a limit"; exit 0; }
row="[r for t in d['tables'] if t['name'] == 'cgroup.memory_growth' for r in t['rows'] if r['path'].endswith('/$name')]"
run=1
while [ $run -le "$CALM_RUNS" ]; do
    b=$TMPD/b$run
    scen_start "$b"
    if ! scen_wait_window "$b"; then
        not_ok calm_cgroup_cache "run $run: no 'window open' within 60 s"
        exit 0
    fi
    sh -c "echo \$\$ > $memcg/cgroup.procs; exec $WL/iowriter $TMPD/copy.dat 16384 120 1024 cache" \
        >/dev/null & track $!
    scen_finish
    stop_tracked
    rm -f "$TMPD/copy.dat"
    calm_result calm_cgroup_cache "$run" "$b" || exit 0
    calm_silent calm_cgroup_cache "$run" "$b" cgroup.memory_growth "/$name" || exit 0
    calm_check calm_cgroup_cache "$run" "$b" "[r['file_growth_kib_per_s'] > 8192 for r in $row] == [True]" \
        "the page cache was not seen growing" || exit 0
    run=$((run + 1))
done
ok calm_cgroup_cache
