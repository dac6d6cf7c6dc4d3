#!/bin/sh
# `perfreport diff OLD NEW`: an idle run against a run with two burners
# names cpu.saturation as new and draws the burner's function red in the
# on-CPU differential flame graph; a bundle against itself shows no change;
# every kind of bad input exits 3 and writes nothing.
. tests/lib.sh

if [ ! -x "$PERFREPORT_BIN" ]; then
    skip e2e_diff_all "binary $PERFREPORT_BIN not built"
    exit 0
fi
if ! need_root; then
    skip e2e_diff_all "needs root for the bundles"
    exit 0
fi

mkdir -p "$TMPD/b"
IDLE=$TMPD/b/idle BUSY=$TMPD/b/busy
"$PERFREPORT_BIN" -d 2 -o "$IDLE" --quiet
rc=$?
case $rc in 0|1|2|4|5|6) ;; *) not_ok e2e_diff_idle_bundle "perfreport -d 2 exited $rc"; exit 0 ;; esac
# The burners outlive the run (see basic.sh): a process gone before the
# final snapshot has no CPU delta to rank.
"$WL/burner" 30 1 & b1=$!; track $b1
"$WL/burner" 30 1 & b2=$!; track $b2
sleep 0.5
"$PERFREPORT_BIN" -d 2 -o "$BUSY" --quiet
rc=$?
stop_tracked
case $rc in 0|1|2|4|5|6) ;; *) not_ok e2e_diff_busy_bundle "perfreport -d 2 exited $rc"; exit 0 ;; esac

# 1. idle -> busy
D=$TMPD/d1
out=$("$PERFREPORT_BIN" diff "$IDLE" "$BUSY" -o "$D" 2>"$TMPD/err")
rc=$?
if [ "$rc" != 0 ] || [ ! -s "$D/diff.json" ]; then
    not_ok e2e_diff_runs "exit $rc: $(head -c 300 "$TMPD/err")"
    exit 0
fi
ok e2e_diff_runs
idle_sat=$(json "$IDLE/report.json" "any(f['id'] == 'cpu.saturation' for f in d['findings'])")
change=$(json "$D/diff.json" "[f['change'] for f in d['findings'] if f['id'] == 'cpu.saturation']")
if [ "$idle_sat" = True ]; then
    # a shared host may be saturated already: then it cannot be new
    skip e2e_diff_saturation_new "the idle run already had cpu.saturation (host busy)"
elif [ "$change" = "['new']" ] && grep -q "| \*\*[a-z]*\*\* · new | \`cpu.saturation\`" "$D/diff.md"; then
    ok e2e_diff_saturation_new
else
    not_ok e2e_diff_saturation_new "cpu.saturation: $change; $(grep -m3 'cpu.sat' "$D/diff.md")"
fi
# The burner's own function is drawn, and red: flamegraph.pl's difference
# colours are rgb(255, x, x) for growth, rgb(x, x, 255) for shrinkage.
red=$(python3 - "$D/cpu-diff.svg" <<'PY'
import re, sys
svg = open(sys.argv[1]).read()
hits = re.findall(r'<title>(burn_(?:leaf|middle|outer)) [^<]*</title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"', svg)
red = [n for n, r, g, b in hits if int(r) == 255 and int(g) < 200 and int(g) == int(b)]
print("yes" if red else "no: %s" % hits[:3])
PY
)
if [ "$red" = yes ]; then ok e2e_diff_burner_red
else not_ok e2e_diff_burner_red "$red"; fi
case $out in
    *"Comparison: $D/index.html"*) ok e2e_diff_summary ;;
    *) not_ok e2e_diff_summary "$out" ;;
esac
if grep -q 'class="flamegraph"' "$D/index.html" && grep -q 'burn_leaf' "$D/index.html"; then
    ok e2e_diff_html_embeds_flames
else
    not_ok e2e_diff_html_embeds_flames "no differential flame graph in index.html"
fi

# 2. a bundle against itself
D2=$TMPD/d2
out=$("$PERFREPORT_BIN" diff "$BUSY" "$BUSY/" -o "$D2" 2>"$TMPD/err")
rc=$?
changes=$(json "$D2/diff.json" "sorted(set(f['change'] for f in d['findings']) - {'same'})" 2>/dev/null)
clear=$(json "$D2/diff.json" "[m['name'] for m in d['metrics'] if m['beyond_spread']]" 2>/dev/null)
if [ "$rc" = 0 ] && [ "$changes" = "[]" ] && [ "$clear" = "[]" ] &&
   [ "$(json "$D2/diff.json" "d['headline']")" = "No clear change" ] &&
   grep -q "No clear change" "$D2/diff.md"; then
    ok e2e_diff_self_no_change
else
    not_ok e2e_diff_self_no_change "exit $rc, changes $changes, clear $clear, $(head -c 200 "$TMPD/err")"
fi
# default name: NEW.diff beside NEW
"$PERFREPORT_BIN" diff "$IDLE" "$BUSY/" --quiet
if [ $? = 0 ] && [ -s "$BUSY.diff/diff.md" ]; then ok e2e_diff_default_name
else not_ok e2e_diff_default_name "$(ls -d "$TMPD"/b/*)"; fi

# 3. bad input: exit 3, a message, nothing written
bad() { # NAME OLD NEW WANT
    before=$(find "$TMPD" | sort)
    "$PERFREPORT_BIN" diff "$2" "$3" -o "$TMPD/out-$1" >"$TMPD/out" 2>"$TMPD/err"
    rc=$?
    after=$(find "$TMPD" -path "$TMPD/out" -prune -o -path "$TMPD/err" -prune -o -print | sort)
    before=$(printf '%s\n' "$before" | grep -v -e "^$TMPD/out\$" -e "^$TMPD/err\$")
    if [ "$rc" != 3 ]; then not_ok "e2e_diff_bad_$1" "exit $rc"
    elif [ "$before" != "$after" ]; then not_ok "e2e_diff_bad_$1" "wrote something"
    elif ! grep -q -- "$4" "$TMPD/err"; then not_ok "e2e_diff_bad_$1" "$(head -c 300 "$TMPD/err")"
    else ok "e2e_diff_bad_$1"; fi
}
copy() { mkdir -p "$TMPD/$1" && cp -a "$IDLE" "$TMPD/$1/b" && echo "$TMPD/$1/b"; }
d=$(copy missing); rm "$d/report.json"
bad missing_report "$d" "$BUSY" "OLD: .*report.json: No such file"
d=$(copy truncated); head -c 1000 "$IDLE/report.json" > "$d/report.json"
bad truncated_report "$BUSY" "$d" "NEW: .*report.json is 1000 bytes, but manifest.json says"
d=$(copy manifest)
python3 - "$d/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for e in m["integrity"]:
    if e["name"] == "report.json":
        e["sha256"] = "0" * 64
open(sys.argv[1], "w").write(json.dumps(m, indent=2))
PY
bad tampered_manifest "$d" "$BUSY" "report.json does not match its SHA-256 in manifest.json"
d=$(copy schema); sed -i 's/^  "schema": 1,/  "schema": 0,/' "$d/report.json" "$d/manifest.json"
python3 - "$d" <<'PY'
import hashlib, json, sys
d = sys.argv[1]
m = json.load(open(d + "/manifest.json"))
data = open(d + "/report.json", "rb").read()
for e in m["integrity"]:
    if e["name"] == "report.json":
        e["size"] = len(data); e["sha256"] = hashlib.sha256(data).hexdigest()
open(d + "/manifest.json", "w").write(json.dumps(m, indent=2))
PY
bad other_schema "$d" "$BUSY" "schema"
mkdir -p "$TMPD/notabundle/d" && echo hello > "$TMPD/notabundle/d/report.json"
bad not_a_bundle "$IDLE" "$TMPD/notabundle/d" "is not a perfreport bundle"
bad one_argument "$IDLE" "" "empty bundle name"
mkdir -p "$TMPD/out-exists"
before=$(find "$TMPD" | sort)
"$PERFREPORT_BIN" diff "$IDLE" "$BUSY" -o "$TMPD/out-exists" >/dev/null 2>"$TMPD/err"
rc=$?
if [ "$rc" = 3 ] && [ -z "$(ls -A "$TMPD/out-exists")" ] && grep -q "File exists" "$TMPD/err"; then
    ok e2e_diff_bad_output_exists
else
    not_ok e2e_diff_bad_output_exists "exit $rc: $(head -c 200 "$TMPD/err")"
fi
