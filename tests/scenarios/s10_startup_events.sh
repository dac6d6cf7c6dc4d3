#!/bin/sh
# Scenario 10: events during perfreport's start-up, after the event
# collectors attached and before the window opened, are listed as such and
# left out of the window's rates: execs (process churn) and TCP resets with
# their connection and time.  perfreport is held by a test hook once every
# collector attached, the events are made, and it goes on.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip scenario_startup_events "needs root"; exit 0; }
# A command name of our own, so the host's other execs do not count.
cp /bin/true "$TMPD/prstartx"
# A closed loopback port: every connect is answered by a reset (a
# tracepoint event in every build; /proc counts only our namespace's).
port=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
state=held
if ! scen_start_held "$TMPD/b"; then
    state="the run did not reach the hold before the window within 60 s"
else
    i=0
    while [ $i -lt 300 ]; do "$TMPD/prstartx"; i=$((i + 1)); done
    python3 - "$port" <<'PY'
import socket, sys
for _ in range(5):
    s = socket.socket()
    try:
        s.connect(("127.0.0.1", int(sys.argv[1])))
    except ConnectionRefusedError:
        pass
    s.close()
PY
    grep -q "window open" "$TMPD/b.err" && state="window open during the events"
fi
scen_release
scen_finish
if [ "$state" != held ]; then
    not_ok scenario_startup_events_held "$state"
    exit 0
fi
ok scenario_startup_events_held
# Listed outside the window (all 300: the name is ours and the run was held),
# absent from the window's table.
row="[[r['execs_before'] for t in d['tables'] if t['name'] == 'proc.execs_outside' for r in t['rows'] if r['comm'] == 'prstartx'], [r['execs'] for t in d['tables'] if t['name'] == 'proc.execs' for r in t['rows'] if r['comm'] == 'prstartx']]"
got=$(json "$TMPD/b/report.json" "$row")
case "$got" in
    "[[300], []]") ok scenario_startup_execs_listed_before_window ;;
    *) not_ok scenario_startup_execs_listed_before_window "prstartx [before], [window]: $got" ;;
esac
expect_text scenario_startup_execs_counted_apart "$TMPD/b" \
    "d['metrics']['proc.execs_before_window']['value'] >= 300" True
# One connection per connect (the client's port differs): five rows.
rst="[(r['count'], r['before'], r['first_s'] < 0) for t in d['tables'] if t['name'] == 'tcp.resets' for r in t['rows'] if r['src'] == '127.0.0.1:$port']"
got=$(json "$TMPD/b/report.json" "$rst")
case "$got" in
    "[(0, 1, True), (0, 1, True), (0, 1, True), (0, 1, True), (0, 1, True)]")
        ok scenario_startup_resets_listed_with_time ;;
    *) not_ok scenario_startup_resets_listed_with_time "resets from 127.0.0.1:$port (window, before, first_s < 0): $got" ;;
esac
