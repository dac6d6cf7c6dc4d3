#!/bin/sh
# Scenario 24: a client retrying a dependency that is down: 500 connects a
# second to a port where nothing listens, each refused (ECONNREFUSED), a
# third of its calls (socket, connect, close).  syscall.errors heads the
# report, names connect() and ECONNREFUSED and the client, and the advice
# traces that call in that process.  Its calm twin is calm_ls_walk.sh.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_refused "needs root"; exit 0; }
"$WL/refused" 60 500 9 & track $!
pid=$!
sleep 0.3
scen_run "$TMPD/b"
stop_tracked
scen_record refused "$TMPD/b"
expect_rank scenario_refused_first "$TMPD/b" syscall.errors 1 critical
F="next((f for f in d['findings'] if f['id'] == 'syscall.errors'), {'title': '', 'recommendation': ''})"
expect_text scenario_refused_names_call "$TMPD/b" "$F['title']" "connect() -> ECONNREFUSED in refused (pid $pid)"
expect_text scenario_refused_advice "$TMPD/b" "$F['recommendation']" "strace -f -e trace=connect -p $pid"
