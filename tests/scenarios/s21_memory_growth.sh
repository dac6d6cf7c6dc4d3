#!/bin/sh
# Scenario 21: a process whose resident memory grows steadily by 80 MiB/s,
# and a run without -p -> memory.growth first, naming the process, its rate
# and the time until the available memory is gone; its row in the growth
# table shows the steadiness it was judged by.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_memory_growth "needs root"; exit 0; }
# Room for the whole run's growth (~1 GiB with a slow start) and more.
avail=$(awk '/^MemAvailable:/ {print int($2 / 1024)}' /proc/meminfo)
[ "$avail" -ge 4096 ] || { skip scenario_memory_growth "only $avail MiB available"; exit 0; }
# It outlasts the run (a slow start must not move the window past its end);
# the cap keeps a stalled run from taking the host.
"$WL/memgrow" ramp 80 60 2048 > "$TMPD/grow.out" & track $!
pid=$!
t=0
until grep -q ready "$TMPD/grow.out" 2>/dev/null; do
    [ $t -lt 100 ] || { not_ok scenario_memory_growth_started "no 'ready'"; exit 0; }
    sleep 0.05; t=$((t + 1))
done
scen_run "$TMPD/b"
stop_tracked
scen_record memory_growth "$TMPD/b"
expect_rank scenario_memory_growth_first "$TMPD/b" memory.growth 1
F="next((f for f in d['findings'] if f['id'] == 'memory.growth'), {'title': '', 'culprit': '', 'evidence': []})"
expect_text scenario_memory_growth_culprit "$TMPD/b" "$F['culprit']" "memgrow (pid $pid)"
expect_text scenario_memory_growth_title "$TMPD/b" "$F['title']" "Memory of memgrow (pid $pid) grows steadily by"
expect_text scenario_memory_growth_runs_out "$TMPD/b" "$F['title']" "available runs out in about"
# the measured rate is the one made, within 10 %
expect_text scenario_memory_growth_rate "$TMPD/b" \
    "[abs(r['slope_kib_per_s'] / 1024 - 80) < 8 and r['rise_pct'] >= 90 and r['min_third_pct'] >= 15 for t in d['tables'] if t['name'] == 'memory.growth' for r in t['rows'] if r['pid'] == $pid]" \
    "[True]"
