#!/bin/sh
# Calm: memory that moves without leaking.  Three processes that exist before
# the window change shape inside it: one takes 200 MiB at once (2 s in) and
# keeps it, one grows by 20 MiB/s to 60 MiB and then stays flat (a cache
# warming up, a heap reaching its maximum), one takes 32 MiB and frees it
# again every 2 s.  No warning at all (memory.growth absent); the growth
# table lists the first two, so the quiet is a judgement, not a blind spot.
# (A VM clears a fresh page at ~400 MiB/s: 500 MiB at once would be 1.3 s of
# CPU, which the CPU rules rightly see.)
. tests/lib.sh
. tests/scenarios/lib.sh
need_root || { skip calm_memory_shapes "needs root"; exit 0; }
avail=$(awk '/^MemAvailable:/ {print int($2 / 1024)}' /proc/meminfo)
[ "$avail" -ge 4096 ] || { skip calm_memory_shapes "only $avail MiB available"; exit 0; }
# They exist before the window (as services do) and change shape inside it.
for w in once ramp cycle; do
    case $w in
        once) "$WL/memgrow" -w once 200 60 > "$TMPD/$w.out" & ;;
        ramp) "$WL/memgrow" -w ramp 20 60 60 > "$TMPD/$w.out" & ;;
        cycle) "$WL/memgrow" -w cycle 32 2 60 > "$TMPD/$w.out" & ;;
    esac
    track $!
    eval "$w=\$!"
done
t=0
until [ "$(cat "$TMPD"/*.out 2>/dev/null | grep -c ready)" -ge 3 ]; do
    [ $t -lt 100 ] || { not_ok calm_memory_shapes_started "no 'ready'"; exit 0; }
    sleep 0.05; t=$((t + 1))
done
SCEN_SECS=6 scen_start "$TMPD/b"
if ! scen_wait_window "$TMPD/b"; then
    not_ok calm_memory_shapes_window "no 'window open' within 60 s"
    scen_finish
    exit 0
fi
kill -USR1 "$ramp" "$cycle"
sleep 2
kill -USR1 "$once"
scen_finish
stop_tracked
scen_record calm_memory "$TMPD/b"
expect_no_warning calm_memory_shapes_no_warning "$TMPD/b"
expect_text calm_memory_shapes_measured "$TMPD/b" \
    "sorted(r['pid'] for t in d['tables'] if t['name'] == 'memory.growth' for r in t['rows'] if r['pid'] in ($once, $ramp) and r['growth_kib'] > 32 * 1024)" \
    "$(echo "$once $ramp" | tr ' ' '\n' | sort -n | tr '\n' ' ' | sed 's/ $//; s/ /, /; s/^/[/; s/$/]/')"
