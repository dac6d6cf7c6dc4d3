#!/bin/sh
# --label TEXT and --case-id ID, the user's names for a run:
# 1. hostile values are refused before anything is written: exit 3, one line
#    naming the option and what is wrong (an OSC title sequence, a bidi
#    override, a newline, 129 bytes, invalid UTF-8, a case id with a space
#    or a quote), the line itself escaped, and no bundle;
# 2. a label full of markup (HTML, Markdown emphasis, a javascript: link,
#    quotes, a backtick) and a case id are recorded in report.json and shown
#    as text in index.html (its banner too), report.md, summary.md, the
#    --oneline line, the --metrics file, and the history page (html, md,
#    json) of the bundle: check_markup.py finds no markup in any of them;
# 3. a bundle read back whose report.json carries a control character in
#    its label (the manifest re-hashed, as a forger would) is refused by
#    render with exit 3 naming host.label.
. tests/lib.sh
HERE=$(dirname "$0")
if [ ! -x "$PERFREPORT_BIN" ]; then
    skip label_all "binary $PERFREPORT_BIN not built"
    exit 0
fi

# 1. refusals, no capture
refused() { # NAME OPTION VALUE WHY
    out=$TMPD/refused-$1
    "$PERFREPORT_BIN" "$2" "$3" -d 1 -o "$out" > "$TMPD/r.out" 2> "$TMPD/r.err"
    rc=$?
    if [ $rc = 3 ] && [ ! -e "$out" ] && [ "$(wc -l < "$TMPD/r.err")" = 1 ] &&
        grep -q -- "^perfreport: $2: .* $4" "$TMPD/r.err" &&
        ! grep -q "$(printf '\033')" "$TMPD/r.err"; then
        ok "label_refused_$1"
    else
        not_ok "label_refused_$1" "exit $rc, $(ls -d "$out" 2>/dev/null) $(head -c 300 "$TMPD/r.err" | od -c | head -5 | tr '\n' ' ')"
    fi
}
refused osc --label "$(printf 'ok\033]0;owned\007')" "holds a control character"
refused bidi --label "$(printf 'abc\342\200\256cba')" "holds a control character"
refused newline --label "$(printf 'one\ntwo')" "holds a control character"
refused long --label "$(printf '%0129d' 0)" "is too long"
refused utf8 --label "$(printf 'a\377b')" "is not valid UTF-8"
refused empty --label "" "is empty"
refused case_space --case-id "INC 42" "holds a character it may not"
refused case_quote --case-id 'INC"42' "holds a character it may not"
refused case_long --case-id "$(printf '%065d' 0)" "is too long"

if ! need_root; then
    skip label_shown "needs root for a bundle"
    exit 0
fi

# 2. a real (short, /proc only) run with markup in its label
LABEL='<script>alert(1)</script> *em* [ln](javascript:alert(1)) "q" `cd` & <!-- c -->'
CASE='INC-42/#7:a.b_c'
D=$TMPD/runs
mkdir -p "$D"
"$PERFREPORT_BIN" -d 1 --no-bpf -o "$D/run" --oneline --metrics "$TMPD/m.prom" \
    --label "$LABEL" --case-id "$CASE" > "$TMPD/oneline" 2> "$TMPD/run.err"
rc=$?
case $rc in
    0|1|2|4|5|6) ;;
    *) not_ok label_run "exit $rc: $(head -c 300 "$TMPD/run.err")"; exit 0 ;;
esac
got=$(json "$D/run/report.json" "d['host'].get('label')" 2>&1)
gotc=$(json "$D/run/report.json" "d['host'].get('case_id')" 2>&1)
if [ "$got" = "$LABEL" ] && [ "$gotc" = "$CASE" ]; then ok label_in_report_json
else not_ok label_in_report_json "label '$got', case_id '$gotc'"; fi

# shown, as text, in each place
python3 - "$D/run" "$TMPD/oneline" "$TMPD/m.prom" "$LABEL" "$CASE" > "$TMPD/shown" 2>&1 <<'PY'
import html, re, sys
b, oneline, prom, label, case = sys.argv[1:6]
def read(p):
    return open(p, encoding='utf-8').read()
bad = []
page = read(b + '/index.html')
banner = re.search(r'<header class="banner[^"]*">(.*?)</header>', page, re.S)
if not banner or label not in html.unescape(banner.group(1)) or case not in banner.group(1) \
        or '<script>alert' in banner.group(1):
    bad.append('banner lacks the label or the case id, or shows markup')
if label not in html.unescape(re.sub(r'<[^>]+>', '', page)):
    bad.append('index.html text lacks the label')
# said once at the top: the banner shows it, the body's first lines do not repeat it
# (the System facts list it as a fact, with the rest)
if re.search(r'<p><strong>(Case|Label):</strong>', page):
    bad.append('index.html repeats the case line under the banner')
for md in ('report.md', 'summary.md'):
    t = read(b + '/' + md)
    # escaped for Markdown: the text with its backslashes taken out is the label
    line = [l for l in t.splitlines() if l.startswith('**Case:**')]
    if not line or label not in re.sub(r'\\(.)', r'\1', line[0]) or case not in re.sub(r'\\(.)', r'\1', line[0]):
        bad.append('%s: no "Case:" line with both: %r' % (md, line[:1]))
o = read(oneline)
want = 'case_id="%s" label="%s"' % (case, label.replace('\\', '\\\\').replace('"', '\\"'))
if want not in o or not o.rstrip('\n').split(' headline=')[0].endswith(want):
    bad.append('--oneline lacks %r before headline=: %r' % (want, o))
m = read(prom)
wantm = 'case_id="%s",label="%s"' % (case, label.replace('\\', '\\\\').replace('"', '\\"'))
if not re.search(r'^perfreport_info\{version="[^"]*",' + re.escape(wantm) + r'\} 1$', m, re.M):
    bad.append('metrics lack perfreport_info{...,%s}' % wantm)
print('\n'.join(bad))
PY
if [ ! -s "$TMPD/shown" ] || [ "$(cat "$TMPD/shown")" = "" ]; then ok label_shown_everywhere
else not_ok label_shown_everywhere "$(head -c 600 "$TMPD/shown" | tr '\n' ';')"; fi

# history over the bundle's directory
"$PERFREPORT_BIN" history "$D" -o "$TMPD/hist" -q 2> "$TMPD/h.err"
rc=$?
hl=$(json "$TMPD/hist/history.json" "[(r.get('case_id'), r.get('label')) for h in d['hosts'] for r in h['runs']]" 2>&1)
if [ $rc = 0 ] && [ "$hl" = "$(python3 -c 'import sys; print([(sys.argv[1], sys.argv[2])])' "$CASE" "$LABEL")" ] &&
    grep -q 'Case, label' "$TMPD/hist/index.html"; then
    ok label_in_history
else
    not_ok label_in_history "exit $rc, runs $hl: $(head -c 300 "$TMPD/h.err")"
fi

# no markup anywhere: the bundle, the history page, the terminal line
mkdir -p "$TMPD/all"
cp "$D/run/index.html" "$D/run/report.md" "$D/run/summary.md" "$D/run/report.json" "$TMPD/all/"
cp "$TMPD/hist/index.html" "$TMPD/all/history.html"
cp "$TMPD/hist/history.md" "$TMPD/hist/history.json" "$TMPD/all/"
if python3 "$HERE/check_markup.py" "$TMPD/all" "$TMPD/oneline" > "$TMPD/check"; then
    ok label_no_markup
else
    not_ok label_no_markup "$(head -c 600 "$TMPD/check" | tr '\n' ';')"
fi

# 3. a forged label in a bundle read back
python3 - "$D/run" "$TMPD/forged" <<'PY'
import hashlib, json, os, shutil, sys
src, dst = sys.argv[1:3]
shutil.copytree(src, dst)
p = os.path.join(dst, 'report.json')
d = json.load(open(p))
d['host']['label'] = 'ok\x1b]0;owned\x07'
data = json.dumps(d).encode()
open(p, 'wb').write(data)
m = json.load(open(os.path.join(dst, 'manifest.json')))
for e in m['integrity']:
    if e['name'] == 'report.json':
        e['size'] = len(data)
        e['sha256'] = hashlib.sha256(data).hexdigest()
open(os.path.join(dst, 'manifest.json'), 'w').write(json.dumps(m))
PY
"$PERFREPORT_BIN" render "$TMPD/forged" -o "$TMPD/forged.out" > /dev/null 2> "$TMPD/f.err"
rc=$?
if [ $rc = 3 ] && [ ! -e "$TMPD/forged.out" ] && grep -q 'host.label holds a control character' "$TMPD/f.err" &&
    ! grep -q "$(printf '\033')" "$TMPD/f.err"; then
    ok label_forged_refused
else
    not_ok label_forged_refused "exit $rc: $(head -c 300 "$TMPD/f.err")"
fi
