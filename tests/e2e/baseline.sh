#!/bin/sh
# --baseline BUNDLE: an idle run as the baseline, then a run with two CPU
# burners compared with it: its headline says the saturation is new (or
# worse) since the baseline, and the report's "Compared with the baseline"
# table lists it.  A baseline that is not a bundle stops the run before the
# window (exit 3, nothing written); one that is read only after the window
# and cannot be (report.json changed since its manifest) costs the
# comparison, not the capture (issue 30, 7).
. tests/lib.sh
T=baseline
[ -x "$PERFREPORT_BIN" ] || { skip $T "binary $PERFREPORT_BIN not built"; exit 0; }
need_root || { skip $T "needs root"; exit 0; }
[ -x "$WL/burner" ] || { skip $T "workload $WL/burner not built"; exit 0; }
"$PERFREPORT_BIN" -d 2 -q -o "$TMPD/base" 2>"$TMPD/err0"
"$WL/burner" 30 1 >/dev/null & track $!
"$WL/burner" 30 1 >/dev/null & track $!
sleep 0.5
"$PERFREPORT_BIN" -d 2 -q --baseline "$TMPD/base" -o "$TMPD/now" 2>"$TMPD/err1"
rc=$?
stop_tracked
sat=$(json "$TMPD/base/report.json" "'yes' if any(f['id'] == 'cpu.saturation' and f['severity'] == 'critical' for f in d['findings']) else 'no'" 2>/dev/null)
head=$(json "$TMPD/now/report.json" "d['headline']" 2>/dev/null)
if [ "$sat" = yes ]; then
    skip baseline_headline_names_regression "the baseline run was itself saturated (a busy host)"
else
    case "$head" in
        *"since the baseline"*) ok baseline_headline_names_regression ;;
        *) not_ok baseline_headline_names_regression "exit $rc, headline: $head" ;;
    esac
fi
rows=$(json "$TMPD/now/report.json" "[(r.get('what', '')[:14], r.get('change')) for t in d['tables'] if t['name'] == 'baseline.changes' for r in t['rows']]" 2>/dev/null)
case "$rows" in
    *"'CPU saturated"*) ok baseline_table_lists_the_change ;;
    *) not_ok baseline_table_lists_the_change "rows: $rows" ;;
esac
grep -q "^## Compared with the baseline" "$TMPD/now/report.md" && ok baseline_section_in_report \
    || not_ok baseline_section_in_report "no section in report.md"
mkdir -p "$TMPD/notabundle"
start=$(date +%s)
"$PERFREPORT_BIN" -d 30 -q --baseline "$TMPD/notabundle" -o "$TMPD/x" 2>"$TMPD/err2"
rc=$?
took=$(( $(date +%s) - start ))
if [ "$rc" = 3 ] && [ ! -e "$TMPD/x" ] && [ "$took" -lt 10 ] && grep -q -- "--baseline" "$TMPD/err2"; then
    ok baseline_bad_bundle_refused_before_window
else
    not_ok baseline_bad_bundle_refused_before_window "exit $rc after ${took}s: $(head -c 200 "$TMPD/err2")"
fi

cp -a "$TMPD/base" "$TMPD/tampered"
python3 - "$TMPD/tampered/report.json" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
i = b.index(b'"planned_s": ')
b[i + 13] = ord("7") if b[i + 13] != ord("7") else ord("8")  # same size, another hash
open(p, "wb").write(bytes(b))
PY
"$PERFREPORT_BIN" -d 1 -q --baseline "$TMPD/tampered" -o "$TMPD/t" 2>"$TMPD/err3"
rc=$?
fact=$(json "$TMPD/t/report.json" "d['host'].get('baseline', '')" 2>/dev/null)
case "$rc:$fact" in
    [0-2]:"nothing: the baseline could not be read"*SHA-256*)
        if grep -q "^perfreport: --baseline: not compared: .*SHA-256" "$TMPD/err3"; then
            ok baseline_unreadable_after_window_keeps_capture
        else
            not_ok baseline_unreadable_after_window_keeps_capture "no message: $(head -c 300 "$TMPD/err3")"
        fi ;;
    *) not_ok baseline_unreadable_after_window_keeps_capture "exit $rc, fact '$fact': $(head -c 300 "$TMPD/err3")" ;;
esac
