#!/bin/sh
# The perf_event counters end to end: hardware counters where a PMU exists
# (skipped with the reason where none does), software counters in every run.
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then skip counters_all "binary $PERFREPORT_BIN not built"; exit 0; fi
if ! need_root; then skip counters_all "needs root for system-wide counters"; exit 0; fi

status() { json "$1/report.json" "next(('%s|%s' % (c['status'], c['reason']) for c in d['collectors'] if c['name']=='$2'), 'absent')"; }
# Column col of the row labelled cpu=label in table name, or "none".
cell() { json "$1/report.json" "next((r.get('$4') for t in d['tables'] if t['name']=='$2' for r in t['rows'] if r.get('cpu')=='$3'), 'none')"; }

# A target that sleeps and wakes 100 times a second: context switches in
# the system and in the target's own row.
sh -c 'while :; do sleep 0.01; done' & target=$!
track $target
"$PERFREPORT_BIN" -d 2 -o "$TMPD/run" --quiet -p "$target"
stop_tracked

hw=$(status "$TMPD/run" hwcounters)
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
    # A PMU: the total row has an IPC.
    ipc=$(cell "$TMPD/run" hw.counters total ipc)
    case "$hw|$ipc" in
        ran*"|"0.*|ran*"|"[1-9]*) ok counters_hw_ipc ;;
        *) not_ok counters_hw_ipc "hwcounters $hw, total IPC $ipc" ;;
    esac
else
    # No PMU (this VM): skipped, and the reason names it in report.json
    # and in report.md's collector table; no hardware table.
    md=$(grep -c '^| `hwcounters` | skipped | no hardware PMU: perf_event_open(cycles) failed: ' "$TMPD/run/report.md")
    tab=$(json "$TMPD/run/report.json" "[t['name'] for t in d['tables'] if t['name']=='hw.counters']")
    case "$hw" in
        "skipped|no hardware PMU: perf_event_open(cycles) failed: "?*)
            if [ "$md" = 1 ] && [ "$tab" = "[]" ]; then ok counters_hw_skipped_no_pmu
            else not_ok counters_hw_skipped_no_pmu "report.md lines $md, tables $tab"; fi ;;
        *) not_ok counters_hw_skipped_no_pmu "hwcounters: $hw" ;;
    esac
fi

sw=$(status "$TMPD/run" swcounters)
cs=$(cell "$TMPD/run" sw.counters total context_switches_per_s)
tcs=$(cell "$TMPD/run" sw.counters target context_switches_per_s)
metric=$(json "$TMPD/run/report.json" "d['metrics'].get('sw.context_switches_per_s', {}).get('value', 'none')" 2>/dev/null)
ok_rate=$(python3 -c "import sys; a=[float(x) for x in sys.argv[1:]]; print(a[0] > 0 and a[1] >= 50 and a[0] >= a[1])" "$cs" "$tcs" 2>/dev/null)
if [ "${sw%%|*}" = ran ] && [ "$ok_rate" = True ]; then ok counters_sw_context_switches
else not_ok counters_sw_context_switches "swcounters $sw, total $cs/s, target $tcs/s"; fi
grep -q '^### Software counters' "$TMPD/run/report.md" && ok counters_sw_table_in_md || not_ok counters_sw_table_in_md "no Software counters table in report.md"
# The metric is the total row's rate.
same=$(python3 -c "import sys; print(abs(float(sys.argv[1]) - float(sys.argv[2])) < 1e-6)" "$metric" "$cs" 2>/dev/null)
if [ "$same" = True ]; then ok counters_sw_metric
else not_ok counters_sw_metric "sw.context_switches_per_s $metric, total row $cs"; fi

