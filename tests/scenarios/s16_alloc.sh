#!/bin/sh
# Scenario 16: -p on a process that allocates -> the allocation profile
# (uprobes on its libc).  Three cases:
#   allocator computing 5 ms (CPU) between calls (6 calls at ~19.5 us each
#     traced: ~2 % of its CPU, under the 5 % guard): build_records tops the sites by
#     bytes and by calls, nothing is called a leak, the probes stay on;
#   the same leaking 4 KiB from leak_some every round (~800 KiB/s): leak_some tops the
#     not-freed table and memory.leak_suspect is reported;
#   allocator in a tight allocation loop: the probes would slow it past 5 %,
#     so they detach themselves and the report says so;
#   allocator as a command (`-- CMD`): the probes, attached before the exec,
#     see its allocations; a statically linked one maps no libc, and the
#     report says its allocations are not seen.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_alloc "needs root"; exit 0; }
top() { echo "next(t for t in d['tables'] if t['name'] == '$1')['rows'][0]['$2']"; }
ids="[f['id'] for f in d['findings']]"

"$WL/allocator" 60 5000 0 >/dev/null & pid=$!; track $pid
sleep 0.5
scen_run "$TMPD/heavy" -p "$pid"
scen_record alloc-heavy "$TMPD/heavy"
expect_text scenario_alloc_top_bytes "$TMPD/heavy" "$(top alloc.top_bytes function)" build_records
expect_text scenario_alloc_top_calls "$TMPD/heavy" "$(top alloc.top_calls function)" build_records
expect_text scenario_alloc_top_pid "$TMPD/heavy" "$(top alloc.top_bytes pid)" "$pid"
expect_text scenario_alloc_no_leak "$TMPD/heavy" "'memory.leak_suspect' not in $ids" True
expect_text scenario_alloc_stays_attached "$TMPD/heavy" "d['metrics']['alloc.detached']['value']" 0
if grep -q build_records "$TMPD/heavy/alloc.folded" && grep -q 'Allocation flame graph' "$TMPD/heavy/report.md"; then
    ok scenario_alloc_flame
else
    not_ok scenario_alloc_flame "no build_records in alloc.folded or no flame graph in report.md"
fi
kill "$pid"; wait "$pid" 2>/dev/null

"$WL/allocator" 60 5000 1 >/dev/null & pid=$!; track $pid
sleep 0.5
scen_run "$TMPD/leak" -p "$pid"
scen_record alloc-leak "$TMPD/leak"
expect_text scenario_alloc_not_freed_site "$TMPD/leak" "$(top alloc.not_freed function)" leak_some
expect_text scenario_alloc_leak_suspect "$TMPD/leak" "$ids" memory.leak_suspect
expect_text scenario_alloc_leak_names_site "$TMPD/leak" \
    "next(f['title'] for f in d['findings'] if f['id'] == 'memory.leak_suspect')" leak_some
kill "$pid"; wait "$pid" 2>/dev/null

"$WL/allocator" 60 0 0 >/dev/null & pid=$!; track $pid
sleep 0.5
scen_run "$TMPD/tight" -p "$pid"
scen_record alloc-tight "$TMPD/tight"
expect_text scenario_alloc_guard_detached "$TMPD/tight" "d['metrics']['alloc.detached']['value']" 1
expect_text scenario_alloc_guard_says_so "$TMPD/tight" \
    "next(t for t in d['tables'] if t['name'] == 'alloc.top_bytes')['note']" "detached by itself"
stop_tracked

nf="next(t for t in d['tables'] if t['name'] == 'alloc.top_bytes')['note']"
scen_run "$TMPD/cmd" -- "$WL/allocator" 3 5000 0 >/dev/null
scen_record alloc-command "$TMPD/cmd"
expect_text scenario_alloc_command_top "$TMPD/cmd" "$(top alloc.top_bytes function)" build_records
scen_run "$TMPD/static" -- "$WL/allocator-static" 3 5000 0 >/dev/null
scen_record alloc-static "$TMPD/static"
expect_text scenario_alloc_static_says_so "$TMPD/static" "$nf" \
    "maps no C library once its program runs"
