#!/bin/sh
# End-to-end runs of the real binary on this host.
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then
    skip e2e_all "binary $PERFREPORT_BIN not built"
    exit 0
fi
if ! need_root; then
    skip e2e_all "needs root for a full run"
    exit 0
fi

findings_at_least_warning() { # bundle
    json "$1/report.json" "[f['id'] for f in d['findings'] if f['severity'] in ('warning','critical')]"
}

# 1. An idle host: no finding at warning or above, exit 0, a complete bundle.
"$PERFREPORT_BIN" -d 3 -o "$TMPD/idle" --quiet
rc=$?
w=$(findings_at_least_warning "$TMPD/idle")
if [ "$rc" = 0 ] && [ "$w" = "[]" ]; then ok e2e_idle_no_warning
else not_ok e2e_idle_no_warning "exit $rc, findings $w; headline: $(json "$TMPD/idle/report.json" "d['headline']")"; fi

# Bundle layout and permissions.
perm_dir=$(stat -c %a "$TMPD/idle")
bad_files=$(find "$TMPD/idle" -type f ! -perm 600 | wc -l)
nfiles=$(find "$TMPD/idle" -type f | wc -l)
if [ "$perm_dir" = 700 ] && [ "$bad_files" = 0 ] && [ "$nfiles" -ge 5 ]; then ok e2e_bundle_permissions
else not_ok e2e_bundle_permissions "dir $perm_dir, $bad_files of $nfiles files not 0600"; fi
ls -a "$(dirname "$TMPD/idle")" | grep -q '^\.perfreport-tmp' && not_ok e2e_no_temp_left "temp dir left" || ok e2e_no_temp_left

# report.json has the documented shape, and every collector is in the ledger.
shape=$(json "$TMPD/idle/report.json" "(d['schema'], sorted(k for k in ('host','window','findings','series','tables','collectors') if k in d), all(set(('name','status','reason','duration_ms')) <= set(c) for c in d['collectors']), d['window']['interrupted'])")
if [ "$shape" = "(1, ['collectors', 'findings', 'host', 'series', 'tables', 'window'], True, False)" ]; then ok e2e_report_json_shape
else not_ok e2e_report_json_shape "$shape"; fi
ran=$(json "$TMPD/idle/manifest.json" "sorted(c['name'] for c in d['collectors'] if c['status']=='ran')")
case "$ran" in
    *cpu*memory*|*memory*cpu*) ok e2e_manifest_collectors_ran ;;
    *) not_ok e2e_manifest_collectors_ran "ran: $ran" ;;
esac

# 2. Two burners on two CPUs: cpu.saturation first.  They outlive the run
# (an ASan build takes ~6 s for a 3 s window): a process that exits before
# the final snapshot has no CPU delta to rank.
"$WL/burner" 30 1 & b1=$!; track $b1
"$WL/burner" 30 1 & b2=$!; track $b2
sleep 0.5
"$PERFREPORT_BIN" -d 3 -o "$TMPD/burn" --quiet
rc=$?
kill "$b1" "$b2" 2>/dev/null; wait "$b1" "$b2" 2>/dev/null
first=$(json "$TMPD/burn/report.json" "d['findings'][0]['id'] if d['findings'] else 'none'")
if [ "$first" = cpu.saturation ] && [ "$rc" -ge 1 ] && [ "$rc" -le 2 ]; then ok e2e_burners_cpu_saturation_first
else not_ok e2e_burners_cpu_saturation_first "first finding $first, exit $rc"; fi
head=$(json "$TMPD/burn/report.json" "d['headline']")
case "$head" in
    *burner*) ok e2e_headline_names_culprit ;;
    *) not_ok e2e_headline_names_culprit "headline: $head" ;;
esac
wait

# 3. Hostile process name and command line appear as text, never as markup.
"$WL/burner" 30 1 --comm '<svg onload=x>' '"><script>alert(1)</script>' ']]>' & b1=$!; track $b1
sleep 0.5
"$PERFREPORT_BIN" -d 2 -o "$TMPD/hostile" --quiet
kill "$b1" 2>/dev/null; wait "$b1" 2>/dev/null
html="$TMPD/hostile/index.html"
if grep -q '<svg onload' "$html" || grep -q '<script>alert' "$html" || grep -q 'onload=x>' "$TMPD/hostile"/*.svg 2>/dev/null; then
    not_ok e2e_hostile_names_escaped "raw payload found in the output"
elif grep -q '&lt;svg onload=x&gt;' "$html"; then
    ok e2e_hostile_names_escaped
else
    not_ok e2e_hostile_names_escaped "hostile process not shown as text in index.html"
fi
if xmllint --noout "$html" 2>/dev/null; then ok e2e_html_well_formed
else not_ok e2e_html_well_formed "$(xmllint --noout "$html" 2>&1 | head -3)"; fi
ext=$(grep -oE '(src|href)="[^#"][^"]*"' "$html" | head -3)
if [ -z "$ext" ] && ! grep -qiE 'https?://' "$html"; then ok e2e_html_no_external_reference
else not_ok e2e_html_no_external_reference "$ext"; fi
wait

# 4. An existing -o is refused before the window, with a clear message.
mkdir "$TMPD/exists"
out=$("$PERFREPORT_BIN" -d 1 -o "$TMPD/exists" --quiet 2>&1)
rc=$?
case "$rc:$out" in
    3:*"already exists"*) ok e2e_existing_output_refused ;;
    *) not_ok e2e_existing_output_refused "exit $rc: $out" ;;
esac

# 5. A bad thresholds file: exit 3 naming the line.
printf 'cpu.util_pct 70 90\nno.such.id 1 2\n' > "$TMPD/thr"
chmod 600 "$TMPD/thr"
out=$("$PERFREPORT_BIN" -d 1 -o "$TMPD/thr-out" --thresholds "$TMPD/thr" --quiet 2>&1)
rc=$?
case "$rc:$out" in
    3:*":2:"*) ok e2e_bad_thresholds_line_number ;;
    *) not_ok e2e_bad_thresholds_line_number "exit $rc: $out" ;;
esac
[ -e "$TMPD/thr-out" ] && not_ok e2e_bad_thresholds_no_bundle "bundle written" || ok e2e_bad_thresholds_no_bundle

# 6. Ctrl-C ends the window early and still writes a bundle marked incomplete.
"$PERFREPORT_BIN" -d 30 -o "$TMPD/int" --quiet -v 2> "$TMPD/int.err" & p=$!
wait_window "$TMPD/int.err"
sleep 1 # a tick or two inside the window
kill -INT $p
t0=$(date +%s)
wait $p
t1=$(date +%s)
inter=$(json "$TMPD/int/report.json" "(d['window']['interrupted'], d['window']['actual_s'] < 10)" 2>/dev/null)
if [ "$inter" = "(True, True)" ] && [ $((t1 - t0)) -le 3 ] && grep -q INCOMPLETE "$TMPD/int/report.md"; then
    ok e2e_sigint_writes_incomplete_bundle
else
    not_ok e2e_sigint_writes_incomplete_bundle "interrupted/short: $inter, took $((t1 - t0)) s after SIGINT"
fi

# 7. Bad arguments: exit 3 and a message.
out=$("$PERFREPORT_BIN" -d abc 2>&1); rc=$?
case "$rc:$out" in 3:*"-d"*) ok e2e_bad_duration ;; *) not_ok e2e_bad_duration "exit $rc: $out" ;; esac
out=$("$PERFREPORT_BIN" -d 86400 -i 0.05 2>&1); rc=$?
case "$rc:$out" in 3:*"samples"*) ok e2e_sample_count_bounded ;; *) not_ok e2e_sample_count_bounded "exit $rc: $out" ;; esac
out=$("$PERFREPORT_BIN" -p 999999999 -d 1 2>&1); rc=$?
case "$rc:$out" in 3:*"no such process"*) ok e2e_bad_pid ;; *) not_ok e2e_bad_pid "exit $rc: $out" ;; esac

# 4. --oneline (timers, cron): one line on stdout, key=value, whose fields
# agree with report.json, and which a hostile process name in the headline
# (a quote, a backslash, a newline and a fake field) can neither break nor
# forge a field in.
name=$(printf 'q"\\\nbundle=x')
"$WL/burner" 30 1 --comm "$name" & b1=$!; track $b1
"$WL/burner" 30 1 --comm "$name" & b2=$!; track $b2
sleep 0.5
"$PERFREPORT_BIN" -d 3 -o "$TMPD/one" --oneline > "$TMPD/one.out" 2> "$TMPD/one.err"
rc=$?
kill "$b1" "$b2" 2>/dev/null; wait "$b1" "$b2" 2>/dev/null
res=$(python3 - "$TMPD/one.out" "$TMPD/one" "$rc" <<'PY'
import json, re, sys
out = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
d = json.load(open(sys.argv[2] + '/report.json'))
lines = out.split('\n')
if len(lines) != 2 or lines[1]:
    print('want exactly one line, got %r' % out[:400]); sys.exit()
q = r'"((?:[^"\\]|\\.)*)"'
m = re.fullmatch(r'perfreport: host=%s severity=(\w+) status=(\d+) bundle=%s headline=%s' % (q, q, q), lines[0])
if not m:
    print('not key=value as documented: %r' % lines[0]); sys.exit()
host, sev, status, bundle, head = m.groups()
# one pass, left to right: every backslash begins an escape
esc = {'n': '\n', 'r': '\r', 't': '\t', 'e': '\x1b'}
def unq(s):
    return re.sub(r'\\(x[0-9a-f]{2}|u[0-9A-F]{4}|.)',
                  lambda m: chr(int(m.group(1)[1:], 16)) if len(m.group(1)) > 1
                  else esc.get(m.group(1), m.group(1)), s)
rank = ['none', 'info', 'warning', 'critical']
worst = max([f['severity'] for f in d['findings']] + ['none'], key=rank.index)
bad = []
if unq(host) != d['host']['hostname']: bad.append('host %r' % host)
if sev != worst: bad.append('severity %s, report %s' % (sev, worst))
if int(status) != int(sys.argv[3]): bad.append('status %s, exit %s' % (status, sys.argv[3]))
if unq(bundle) != sys.argv[2] + '/index.html': bad.append('bundle %r' % bundle)
if unq(head) != d['headline']: bad.append('headline %r, report %r' % (head, d['headline']))
if 'q"' not in d['headline']: bad.append('headline does not name the hostile burner: %r' % d['headline'])
print('; '.join(bad) if bad else 'ok')
PY
)
[ "$res" = ok ] && ok e2e_oneline_log_line || not_ok e2e_oneline_log_line "$res"

# A run that fails leaves its line too: severity=error, status 3, no bundle,
# the reason as the headline.
"$PERFREPORT_BIN" -d 1 --no-bpf -o /proc/perfreport-nope --oneline > "$TMPD/onefail.out" 2>/dev/null
rc=$?
line=$(cat "$TMPD/onefail.out")
case "$rc:$line" in
    3:'perfreport: host="'*'" severity=error status=3 bundle="" headline="'*'/proc'*'"')
        [ "$(wc -l < "$TMPD/onefail.out")" = 1 ] && ok e2e_oneline_failed_run \
            || not_ok e2e_oneline_failed_run "more than one line: $(cat "$TMPD/onefail.out")" ;;
    *) not_ok e2e_oneline_failed_run "exit $rc, line: $line" ;;
esac
