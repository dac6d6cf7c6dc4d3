#!/bin/sh
# Scenario 14: one thread spins producing work while the others of its
# process block on a condition variable waiting for it; perfreport -p PID
# -> cpu.thread_bottleneck naming the hot thread (name and tid).
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_hot_thread "needs root"; exit 0; }
OUT=$TMPD/hot.out
# It outlasts the run (a slow start must not move the window past its end).
"$WL/hotthread" 60 3 > "$OUT" & track $!
pid=$!
t=0
until grep -q '^hot ' "$OUT" 2>/dev/null; do
    [ $t -lt 100 ] || { not_ok scenario_hot_thread_started "no 'hot TID' line"; exit 0; }
    sleep 0.05; t=$((t + 1))
done
tid=$(awk '/^hot /{print $2}' "$OUT")
scen_run "$TMPD/b" -p "$pid"
scen_record hot_thread "$TMPD/b"
expect_rank scenario_hot_thread_found "$TMPD/b" cpu.thread_bottleneck 3
F="next((f for f in d['findings'] if f['id'] == 'cpu.thread_bottleneck'), {'title': ''})"
expect_text scenario_hot_thread_names_thread "$TMPD/b" "$F['title']" "hotspin (tid $tid)"
expect_text scenario_hot_thread_names_process "$TMPD/b" "$F['title']" "(pid $pid)"
expect_text scenario_hot_thread_advice_tid "$TMPD/b" "$F.get('recommendation') or ''" "-t $tid"
# the Threads table lists every thread, the waiters blocked in futex waits
expect_text scenario_hot_thread_table "$TMPD/b" \
    "sorted(r['comm'] for r in next(t for t in d['tables'] if t['name'] == 'threads')['rows'] if r['comm'].startswith('waiter-') and r['futex_ms'] > 0)" \
    "['waiter-1', 'waiter-2', 'waiter-3']"
# one Threads section, showing the joined table only (not the per-collector ones)
SEC="(lambda L: [l for l in L[L.index('## Threads') + 1:] if l.startswith('## ')] and [l for l in L[L.index('## Threads') + 1:L.index([l for l in L[L.index('## Threads') + 1:] if l.startswith('## ')][0])] if l.startswith('### ')])(open(sys.argv[1].replace('report.json', 'report.md')).read().splitlines())"
expect_text scenario_hot_thread_section "$TMPD/b" "$SEC" "['### Threads of the target']"
# a re-render from report.json keeps the table and the finding as they were
"$PERFREPORT_BIN" render "$TMPD/b" -o "$TMPD/r" --quiet >/dev/null 2>&1
if cmp -s "$TMPD/b/report.md" "$TMPD/r/report.md"; then ok scenario_hot_thread_rerender
else not_ok scenario_hot_thread_rerender "report.md differs after render: $(diff "$TMPD/b/report.md" "$TMPD/r/report.md" | head -5)"; fi
stop_tracked
