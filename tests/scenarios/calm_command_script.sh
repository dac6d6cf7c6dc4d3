#!/bin/sh
# Calm: `perfreport -- sh -c '...'`, a shell script that runs a few
# children one after the other (sleep, ls, date).  The shell waits for its
# children by design; the children sleep or run briefly: no warning, and
# the headline says where the command's time went.
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_command_script "needs root"; exit 0; }
run=1
while [ $run -le "$CALM_RUNS" ]; do
    "$PERFREPORT_BIN" -d 30 -i 0.5 -o "$TMPD/b$run" --quiet -- \
        sh -c 'for i in 1 2 3; do sleep 0.7; ls -l /usr/bin >/dev/null; date >/dev/null; done' \
        >/dev/null 2>"$TMPD/err$run"
    calm_result calm_command_script "$run" "$TMPD/b$run" || exit 0
    run=$((run + 1))
done
ok calm_command_script
expect_text calm_command_script_time "$TMPD/b1" "d['headline']" "waiting for its child processes"
expect_text calm_command_script_by_design "$TMPD/b1" \
    "[r['kind'] for t in d['tables'] if t['name'] == 'target.time' for r in t['rows'] if r['state'] == 'child']" \
    "['by design']"
# the command's paragraph says what its processes used
if grep -q "Its processes ran [0-9.]* s on a CPU" "$TMPD/b1/report.md"; then ok calm_command_script_tree_cpu
else not_ok calm_command_script_tree_cpu "$(grep -m1 '^\*\*Command:' "$TMPD/b1/report.md")"; fi
