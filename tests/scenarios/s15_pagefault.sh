#!/bin/sh
# Scenario 15: a process that maps, touches and unmaps memory in a loop ->
# the page-fault profile (on in every run, system-wide) puts its touching
# function first, with a flame graph in the memory section and the folded
# stacks in the bundle; the estimate from the samples' periods agrees with
# the faults the events counted.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_pagefault "needs root"; exit 0; }
"$WL/faulter" 60 >/dev/null & pid=$!; track $pid # outlasts the run
sleep 0.5
b=$TMPD/b
scen_run "$b"
scen_record pagefault "$b"
top="next(t for t in d['tables'] if t['name'] == 'pagefault.top')['rows']"
expect_text scenario_pagefault_top_function "$b" "$top[0]['function']" touch_pages
expect_text scenario_pagefault_top_pid "$b" "$top[0]['pid']" "$pid"
# In the folded file too, touch_pages is the user function (the last frame
# that is not the kernel's) with the most faults, however busy the host.
best=$(python3 -c "
import sys, collections
by = collections.Counter()
for l in open(sys.argv[1], encoding='utf-8', errors='replace'):
    s, _, n = l.rstrip('\n').rpartition(' ')
    user = [f for f in s.split(';')[1:] if not f.endswith('_[k]')]
    by[user[-1] if user else '-'] += int(n)
print(by.most_common(1)[0][0] if by else '')" "$b/pagefault.folded")
if [ "$best" = touch_pages ]; then ok scenario_pagefault_folded_top
else not_ok scenario_pagefault_folded_top "most faults in pagefault.folded under '$best'"; fi
# system-wide, the periods summed estimate the counted faults (within 10 %)
dev=$(json "$b/report.json" "int(100 * abs(d['metrics']['pagefault.profiled']['value'] / d['metrics']['pagefault.counted']['value'] - 1))")
if [ "$dev" -le 10 ]; then ok scenario_pagefault_scaled
else not_ok scenario_pagefault_scaled "estimate off the counted faults by $dev %"; fi
if grep -q 'Page-fault flame graph' "$b/report.md" && grep -q 'pagefault.svg' "$b/report.md"; then
    ok scenario_pagefault_memory_section
else
    not_ok scenario_pagefault_memory_section "no page-fault flame graph in report.md"
fi
# Without a target the allocation profile is skipped, and says why.
expect_text scenario_alloc_skipped_without_target "$b" \
    "next((c['status'], c['reason']) for c in d['collectors'] if c['name'] == 'alloc')" "('skipped', 'needs a target process (-p PID)"
stop_tracked
